"""A character-level LSTM on Tiny Shakespeare, trained in minigrad and in PyTorch: the
recurrent layers lesson's model, trained longer, with the validation loss and the time
of each run, same model, same initial weights, same batches, same recipe.

    python benchmarks/bench_char_lstm.py [--iters 2000] [--hidden 256] [--batch 32]
        [--block 64] [--lr 0.002] [--threads 1] [--skip-torch]

The model is the lesson's `CharLSTM`: an embedding of each character (32 numbers), one
`nn.LSTM` layer (`--hidden` units, batch_first) and a linear layer to the 65 characters'
logits. The first 90% of the text trains it: batches of `--batch` blocks of `--block`
characters at random offsets, each step predicting every next character
(cross-entropy), Adam at `--lr` with the gradient norm clipped to 1. The validation
loss is measured on the same 32 fixed batches of the last 10% every `--iters / 8`
iterations. PyTorch's model starts from minigrad's initial weights (its state dict,
loaded) and is trained on the same batches, the two taking turns step by step (so that
load from elsewhere on a shared machine falls on both alike), both on `--threads`
threads. Printed: the losses, the time per iteration of each, and a 400-character
sample of minigrad's model.
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

SEED, EMBED, EVAL_BATCHES = 0, 32, 32


def minigrad_model(vocab_size, hidden):
    """The lesson's CharLSTM."""
    import minigrad.nn as nn

    class CharLSTM(nn.Module):
        def __init__(self, vocab_size, embed_dim=32, hidden_size=128, num_layers=1):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, embed_dim)
            self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers, batch_first=True)
            self.head = nn.Linear(hidden_size, vocab_size)

        def forward(self, ids, state=None):
            out, state = self.lstm(self.embed(ids), state)
            return self.head(out), state

    return CharLSTM(vocab_size, EMBED, hidden)


def torch_model(vocab_size, hidden):
    """The same model in PyTorch, with the same parameter names."""
    import torch

    class CharLSTM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(vocab_size, EMBED)
            self.lstm = torch.nn.LSTM(EMBED, hidden, batch_first=True)
            self.head = torch.nn.Linear(hidden, vocab_size)

        def forward(self, ids, state=None):
            out, state = self.lstm(self.embed(ids), state)
            return self.head(out), state

    return CharLSTM()


def data(block):
    """(tokenizer, train set, validation set, the fixed validation batches)."""
    from minigrad.data import tiny_shakespeare
    from minigrad.text import CharTokenizer, TextDataset

    text = tiny_shakespeare()
    tokenizer = CharTokenizer.train(text)
    ids = tokenizer.encode(text)
    split = int(0.9 * len(ids))
    train, val = TextDataset(ids[:split], block), TextDataset(ids[split:], block)
    rng = np.random.default_rng(SEED + 1)
    fixed = [
        tuple(t.numpy() for t in val.random_batch(32, generator=rng)) for _ in range(EVAL_BATCHES)
    ]
    return tokenizer, train, fixed


class Trainer:
    """One framework's model, optimizer and training step (a minigrad or PyTorch module)."""

    def __init__(self, framework, model, lr, vocab_size):
        if framework == "torch":
            import torch

            self.lib, self.functional, self.clip = (
                torch,
                torch.nn.functional,
                torch.nn.utils.clip_grad_norm_,
            )
            self.optimizer, self.no_grad = (
                torch.optim.Adam(model.parameters(), lr=lr),
                torch.no_grad,
            )
        else:
            import minigrad as mg
            import minigrad.nn.functional as F

            self.lib, self.functional, self.clip = mg, F, mg.nn.utils.clip_grad_norm_
            self.optimizer, self.no_grad = mg.optim.Adam(model.parameters(), lr=lr), mg.no_grad
        self.model, self.vocab_size, self.seconds = model, vocab_size, 0.0

    def loss(self, x, y):
        logits, _ = self.model(self.lib.tensor(x))
        targets = self.lib.tensor(y).reshape(-1)
        return self.functional.cross_entropy(logits.reshape(-1, self.vocab_size), targets)

    def step(self, x, y):
        """One training step on the batch (x, y), timed; returns the loss."""
        start = time.perf_counter()
        loss = self.loss(x, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.clip(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.seconds += time.perf_counter() - start
        return loss.item()

    def val_loss(self, fixed):
        with self.no_grad():
            return float(np.mean([self.loss(x, y).item() for x, y in fixed]))


def train(trainers, train_set, fixed, args):
    """Train every trainer on the same batches, taking turns step by step (so that load
    from elsewhere on the machine falls on all alike); returns {name: final val loss}."""
    rng = np.random.default_rng(SEED)
    every = max(1, args.iters // 8)

    def report(it, losses):
        cells = [
            f"{name}{'' if loss is None else f' train {loss:.4f}'} val {t.val_loss(fixed):.4f}"
            for (name, t), loss in zip(trainers.items(), losses)
        ]
        times = " / ".join(f"{1e3 * t.seconds / max(it, 1):.0f}" for t in trainers.values())
        print(f"iter {it:5d}: " + " | ".join(cells) + f" | ms per iteration {times}", flush=True)

    report(0, [None] * len(trainers))
    for it in range(1, args.iters + 1):
        x, y = (t.numpy() for t in train_set.random_batch(args.batch, generator=rng))
        losses = [t.step(x, y) for t in trainers.values()]
        if it % every == 0 or it == args.iters:
            report(it, losses)
    return {name: t.val_loss(fixed) for name, t in trainers.items()}


def sample(model, tokenizer, length, temperature=0.8, prompt="\n"):
    """The lesson's sampler: the prompt once, then one character at a time, carrying the state."""
    import minigrad as mg
    import minigrad.nn.functional as F

    with mg.no_grad():
        logits, state = model(mg.tensor([tokenizer.encode(prompt)]))
        out = []
        for _ in range(length):
            probs = F.softmax(logits[0, -1] / temperature, dim=-1)
            next_id = mg.multinomial(probs, 1)
            out.append(next_id.item())
            logits, state = model(next_id.reshape(1, 1), state)
    return prompt + tokenizer.decode(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=2000)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--skip-torch", action="store_true")
    args = parser.parse_args(argv)

    import torch
    from lesson_timing import blas_threads

    import minigrad as mg

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, NumPy "
        f"{np.__version__}, torch {torch.__version__}; {args.threads} thread(s)"
    )
    torch.set_num_threads(args.threads)
    tokenizer, train_set, fixed = data(args.block)
    V = tokenizer.vocab_size
    mg.manual_seed(SEED)
    model = minigrad_model(V, args.hidden)
    initial = {k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()}
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"CharLSTM: {n_params:,} parameters (embedding {EMBED}, LSTM hidden {args.hidden}), "
        f"vocabulary {V}"
    )
    print(
        f"Adam lr {args.lr}, batch {args.batch} x {args.block} characters, {args.iters} "
        "iterations, clip 1.0"
    )

    trainers = {"minigrad": Trainer("minigrad", model, args.lr, V)}
    if not args.skip_torch:
        theirs = torch_model(V, args.hidden)
        theirs.load_state_dict(initial)
        trainers["PyTorch"] = Trainer("torch", theirs, args.lr, V)
    with blas_threads(args.threads):
        final = train(trainers, train_set, fixed, args)

    mg.manual_seed(SEED)
    print(
        "--- minigrad's sample (400 characters, temperature 0.8) "
        f"---{sample(model, tokenizer, 400)}\n---"
    )
    for name, t in trainers.items():
        print(
            f"{name:8s} final val loss {final[name]:.4f}, {t.seconds:.1f}s training, "
            f"{1e3 * t.seconds / args.iters:.1f} ms per iteration"
        )
    if "PyTorch" in trainers:
        print(
            "time ratio minigrad / PyTorch: "
            f"{trainers['minigrad'].seconds / trainers['PyTorch'].seconds:.2f}x"
        )
    return final


if __name__ == "__main__":
    main()
