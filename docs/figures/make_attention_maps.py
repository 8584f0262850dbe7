"""Draw the masks and attention maps of the attention-modules lesson.

    python docs/figures/make_attention_maps.py [OUT_DIR]

writes OUT_DIR/attention_maps.png (default: this script's folder, where the lesson
finds it). Top row: the causal, padding and combined masks of one sequence of 8
tokens whose last 3 are padding. Bottom row: the attention probabilities of a small
nn.Attention under the combined mask, read from AttnProcessor.last_attention_probs,
for its two heads, and for the first head again with the 1/sqrt(d_k) scale removed.
"""

import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad import nn  # noqa: E402

T, REAL, D_MODEL, HEADS, D_K = 8, 5, 64, 2, 64


def masks():
    """(T, T) bool masks, True = may attend: causal, padding (the last T - REAL keys are
    padding) and both."""
    causal = np.tril(np.ones((T, T), dtype=bool))
    padding = np.zeros((T, T), dtype=bool)
    padding[:, :REAL] = True
    return {"causal": causal, "padding": padding, "causal and padding": causal & padding}


def probabilities(mask, scaled=True):
    """(heads, T, T) attention probabilities of a small nn.Attention on a random sequence.
    The weights are drawn with variance 1 / d_mod, so that q and k have unit variance
    per feature, the case the 1 / sqrt(d_k) scale is made for."""
    mg.manual_seed(0)
    processor = nn.AttnProcessor()
    attn = nn.Attention(D_MODEL, heads=HEADS, dim_head=D_K, processor=processor)
    for linear in (attn.to_q, attn.to_k, attn.to_v):
        nn.init.normal_(linear.weight, std=1 / math.sqrt(D_MODEL))
    if not scaled:
        attn.scale = 1.0
    x = mg.randn(1, T, D_MODEL)
    attn(x, attention_mask=mg.tensor(mask[None]))
    return processor.last_attention_probs.detach().numpy()  # (1 * heads, T, T)


def main(out_dir):
    fig, axes = plt.subplots(2, 3, figsize=(11, 7.4), constrained_layout=True)
    for ax, (name, mask) in zip(axes[0], masks().items()):
        ax.imshow(mask, cmap="Greys_r", vmin=0, vmax=1)
        ax.set_title(f"{name} mask (white: may attend)", fontsize=10)
    combined = masks()["causal and padding"]
    scaled, unscaled = probabilities(combined), probabilities(combined, scaled=False)
    maps = [
        ("head 1", scaled[0]),
        ("head 2", scaled[1]),
        ("head 1 without 1/sqrt(d_k)", unscaled[0]),
    ]
    for ax, (name, probs) in zip(axes[1], maps):
        image = ax.imshow(probs, cmap="viridis", vmin=0, vmax=1)
        ax.set_title(f"{name}: probabilities", fontsize=10)
    fig.colorbar(image, ax=axes[1], shrink=0.8, label="attention probability")
    for ax in axes.ravel():
        ax.set_xticks(range(T))
        ax.set_yticks(range(T))
        ax.set_xlabel("key position j")
        ax.set_ylabel("query position i")
    out = Path(out_dir) / "attention_maps.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent))
