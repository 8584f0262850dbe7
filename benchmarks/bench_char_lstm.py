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
iterations. PyTorch's run starts from minigrad's initial weights (its state dict, loaded)
and draws the same batches (the same NumPy generator), both on `--threads` threads.
Printed: the losses, a 400-character sample of minigrad's model, and the time per
iteration of each run.
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
    fixed = [tuple(t.numpy() for t in val.random_batch(32, generator=rng)) for _ in range(EVAL_BATCHES)]
    return tokenizer, train, fixed


def train(framework, model, train_set, fixed, args, vocab_size):
    """Train `model` (a minigrad or PyTorch module); returns ([(iteration, val loss)], seconds)."""
    if framework == "torch":
        import torch

        lib, functional, clip = torch, torch.nn.functional, torch.nn.utils.clip_grad_norm_
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        no_grad = torch.no_grad
    else:
        import minigrad as mg
        import minigrad.nn.functional as F

        lib, functional, clip = mg, F, mg.nn.utils.clip_grad_norm_
        optimizer = mg.optim.Adam(model.parameters(), lr=args.lr)
        no_grad = mg.no_grad

    def loss_of(x, y):
        logits, _ = model(lib.tensor(x))
        return functional.cross_entropy(logits.reshape(-1, vocab_size), lib.tensor(y).reshape(-1))

    def val_loss():
        with no_grad():
            return float(np.mean([loss_of(x, y).item() for x, y in fixed]))

    rng = np.random.default_rng(SEED)  # the same batches for both frameworks
    history, every, seconds = [(0, val_loss())], max(1, args.iters // 8), 0.0
    print(f"{framework}: iter 0 val {history[0][1]:.4f}", flush=True)
    for it in range(1, args.iters + 1):
        x, y = (t.numpy() for t in train_set.random_batch(args.batch, generator=rng))
        start = time.perf_counter()
        loss = loss_of(x, y)
        optimizer.zero_grad()
        loss.backward()
        clip(model.parameters(), 1.0)
        optimizer.step()
        seconds += time.perf_counter() - start
        if it % every == 0 or it == args.iters:
            history.append((it, val_loss()))
            print(f"{framework}: iter {it} train {loss.item():.4f} val {history[-1][1]:.4f} ({seconds:.0f}s)", flush=True)
    return history, seconds


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
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, NumPy {np.__version__}, "
        f"torch {torch.__version__}; {args.threads} thread(s)"
    )
    torch.set_num_threads(args.threads)
    tokenizer, train_set, fixed = data(args.block)
    V = tokenizer.vocab_size
    mg.manual_seed(SEED)
    model = minigrad_model(V, args.hidden)
    initial = {k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()}
    n_params = sum(p.numel() for p in model.parameters())
    print(f"CharLSTM: {n_params:,} parameters (embedding {EMBED}, LSTM hidden {args.hidden}), vocabulary {V}")
    print(f"Adam lr {args.lr}, batch {args.batch} x {args.block} characters, {args.iters} iterations, clip 1.0")

    results = {}
    with blas_threads(args.threads):
        results["minigrad"] = train("minigrad", model, train_set, fixed, args, V)
        if not args.skip_torch:
            theirs = torch_model(V, args.hidden)
            theirs.load_state_dict(initial)
            results["torch"] = train("torch", theirs, train_set, fixed, args, V)

    mg.manual_seed(SEED)
    print(f"--- minigrad's sample (400 characters, temperature 0.8) ---{sample(model, tokenizer, 400)}\n---")
    for name, (history, seconds) in results.items():
        print(
            f"{name:8s} final val loss {history[-1][1]:.4f}, {seconds:.1f}s training, "
            f"{1e3 * seconds / args.iters:.1f} ms per iteration"
        )
    if "torch" in results:
        ratio = results["minigrad"][1] / results["torch"][1]
        print(f"time ratio minigrad / PyTorch: {ratio:.2f}x")
    return results


if __name__ == "__main__":
    main()
