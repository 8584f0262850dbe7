"""Pre-norm against post-norm, measured on minigrad's own transformer layers.

    python docs/figures/make_transformer_norms.py [OUT_DIR]

writes OUT_DIR/transformer_norms.png (default: this script's folder, where the
transformer lesson finds it), three panels:

1. the gradient norm of each layer's FFN output weight (linear2.weight) at
   initialisation, in a 12-layer encoder stack with a classifier on top;
2. the same for the last layer, against the number of layers L (Xiong et al. 2020,
   Theorem 1: flat for post-norm, shrinking like 1/sqrt(L) for pre-norm);
3. training loss of a small Seq2SeqTransformer learning to reverse sequences, with
   Adam at a large learning rate, with and without a linear warm-up.

Every number comes from forward and backward passes of the real modules (about a minute
on one core); the committed PNG is made so. The test suite runs the script with
MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one seed, 3 layers in panel 1, depths
1 and 2 in panel 2, 6 training steps in panel 3, which only proves that it runs.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import smoke  # noqa: E402  (docs/figures/smoke.py: the test's smaller setting)

import minigrad as mg  # noqa: E402
import minigrad.nn.functional as F  # noqa: E402
from minigrad import nn, optim  # noqa: E402
from minigrad.models import Seq2SeqTransformer  # noqa: E402

D_MODEL, HEADS, VOCAB, BATCH, T = 64, 4, 32, 8, 16
SEEDS = smoke.pick((0, 1, 2), (0,))
LAYERS = smoke.pick(12, 3)  # panel 1: the gradient of each layer of a stack this deep
DEPTHS = smoke.pick([1, 2, 4, 8, 16], [1, 2])  # panel 2: the last layer's, against the depth
# panel 3: training steps (at least 5, the width of the smoothing window)
STEPS = smoke.pick(150, 6)


def ffn_gradient_norms(norm_first, n_layers, seed):
    """||dL/dW2|| of every layer at initialisation: a random input (B, T, d_model), the
    stack (with the final LayerNorm a pre-norm stack needs), a linear classifier, the
    cross-entropy against random labels. Weights initialised as nn.Transformer does."""
    mg.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(
        D_MODEL, HEADS, 4 * D_MODEL, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    stack = nn.TransformerEncoder(
        layer, n_layers, norm=nn.LayerNorm(D_MODEL) if norm_first else None
    )
    for p in stack.parameters():  # the copies start equal: draw each layer's weights afresh
        if p.ndim > 1:
            nn.init.xavier_uniform_(p)
    head = nn.Linear(D_MODEL, VOCAB)
    x, labels = mg.randn(BATCH, T, D_MODEL), mg.randint(0, VOCAB, (BATCH, T))
    loss = F.cross_entropy(head(stack(x)).reshape(-1, VOCAB), labels.reshape(-1))
    loss.backward()
    return np.array([np.linalg.norm(lay.linear2.weight.grad.numpy()) for lay in stack.layers])


def reversal_losses(norm_first, lr, warmup_steps, steps=STEPS, seed=0, n=8, vocab=10, batch=32):
    """The training loss per step of a 3+3-layer Seq2SeqTransformer reversing n digits."""
    mg.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = Seq2SeqTransformer(
        vocab,
        vocab,
        d_model=64,
        nhead=4,
        num_encoder_layers=3,
        num_decoder_layers=3,
        dim_feedforward=128,
        max_len=n,
        norm_first=norm_first,
    )
    opt = optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98))
    warmup = optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup_steps) if warmup_steps else 1.0
    )
    losses = []
    for _ in range(steps):
        src = rng.integers(1, vocab, size=(batch, n))
        tgt = src[:, ::-1].copy()
        decoder_input = np.concatenate([np.zeros((batch, 1), dtype=np.int64), tgt[:, :-1]], axis=1)
        logits = model(mg.tensor(src), mg.tensor(decoder_input))
        loss = F.cross_entropy(logits.reshape(-1, vocab), mg.tensor(tgt).reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        warmup.step()
        losses.append(loss.item())
    return np.array(losses)


def main(out_dir):
    fig, (ax_layers, ax_depth, ax_train) = plt.subplots(
        1, 3, figsize=(15, 4.2), constrained_layout=True
    )
    styles = {True: ("pre-norm", "tab:blue"), False: ("post-norm", "tab:red")}

    for norm_first, (name, color) in styles.items():
        norms = np.mean([ffn_gradient_norms(norm_first, LAYERS, s) for s in SEEDS], axis=0)
        ax_layers.plot(np.arange(1, LAYERS + 1), norms, "o-", color=color, label=name)
    ax_layers.set(
        xlabel="layer",
        ylabel="||dL/dW2|| at initialisation",
        title=f"gradient per layer ({LAYERS} layers)",
    )
    ax_layers.set_ylim(bottom=0)

    for norm_first, (name, color) in styles.items():
        last = [np.mean([ffn_gradient_norms(norm_first, L, s)[-1] for s in SEEDS]) for L in DEPTHS]
        ax_depth.plot(DEPTHS, last, "o-", color=color, label=name)
    ax_depth.plot(
        DEPTHS,
        last[0] / np.sqrt(DEPTHS),
        ":",
        color="0.5",
        label="post-norm at L=1, times 1/sqrt(L)",
    )
    ax_depth.set(
        xscale="log", yscale="log", xlabel="number of layers L", title="gradient of the last layer"
    )
    ax_depth.set_xticks(DEPTHS, [str(L) for L in DEPTHS])

    lr = 5e-3
    for norm_first, (name, color) in styles.items():
        for warmup_steps, line in ((0, "-"), (50, "--")):
            losses = reversal_losses(norm_first, lr, warmup_steps)
            smooth = np.convolve(losses, np.ones(5) / 5, mode="valid")
            label = f"{name}, " + (f"{warmup_steps}-step warm-up" if warmup_steps else "no warm-up")
            ax_train.plot(np.arange(len(smooth)) + 4, smooth, line, color=color, label=label)
    ax_train.axhline(np.log(9), color="0.6", linewidth=0.8)
    ax_train.text(2, np.log(9) * 1.08, "chance: ln 9", color="0.4", fontsize=8)
    ax_train.set(
        yscale="log",
        xlabel="step",
        ylabel="training loss",
        title=f"reversing 8 digits, Adam lr={lr:g}",
    )

    for ax in (ax_layers, ax_depth, ax_train):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    smoke.stamp(fig)
    out = Path(out_dir) / "transformer_norms.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent))
