"""`minigrad-train --model gpt`: train a character-level GPT on Tiny Shakespeare, then sample.

The defaults are nanoGPT's "baby GPT" for a CPU (its config/train_shakespeare_char.py with
the CPU settings of its README): 4 layers, 4 heads, d_model 128, a context of 64
characters, batches of 12, 2000 iterations, no dropout, AdamW (lr 1e-3, betas 0.9/0.99,
weight decay 0.1 on the weight matrices only), 100 iterations of linear warm-up, then a
cosine decay to 1e-4, gradients clipped to norm 1. nanoGPT reaches a validation loss of
about 1.88 with it. One thing differs: positions enter by RoPE (rotary embeddings), not
nanoGPT's learned table; at the same cost it reaches about 1.79 instead of 1.90
(`--pos learned` trains nanoGPT's model). The text is split 90/10 into training and validation, as
nanoGPT does; `--text FILE` trains on any UTF-8 text file instead, and `--quick` trains a smaller
model in well under a minute.

It prints the unigram baseline (the loss of a model that knows only how often each
character occurs), the training and validation loss as it goes, the final losses on a
fixed set of blocks, a sample of generated text and the wall time, and writes the loss
curves (curves.png), the weights (model.npz), the tokenizer (tokenizer.json), the sample
(sample.txt) and the settings with the history (run.json) to the output folder.

Every option, the text and the output folder are checked before any work (a bad one is a
usage error, exit status 2); Ctrl-C during training, the final evaluation or the sampling
saves the weights, the tokenizer and the history so far, says so on stderr and exits with
status 130.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import minigrad as mg
import minigrad.optim as optim
from minigrad import data
from minigrad.models import GPT
from minigrad.nn.utils import clip_grad_norm_
from minigrad.progress import ProgressBar
from minigrad.text import CharTokenizer, TextDataset, train_val_split
from minigrad.train import (
    add_device_option,
    default_out,
    describe_device,
    number,
    pick_device,
    prepare_out_dir,
    say_interrupted,
)

# nanoGPT's baby GPT on a CPU; --quick: a model 1/8 the size on half the context
SETTINGS = {
    "default": {
        "n_layers": 4,
        "n_heads": 4,
        "d_model": 128,
        "block_size": 64,
        "batch_size": 12,
        "iters": 2000,
        "lr": 1e-3,
        "warmup": 100,
        "eval_interval": 250,
        "eval_iters": 20,
    },
    "quick": {
        "n_layers": 2,
        "n_heads": 4,
        "d_model": 64,
        "block_size": 32,
        "batch_size": 16,
        "iters": 300,
        "lr": 3e-3,
        "warmup": 30,
        "eval_interval": 100,
        "eval_iters": 10,
    },
}
BETAS = (0.9, 0.99)  # beta2 0.99, not 0.999: few tokens per step, so a shorter memory
WEIGHT_DECAY = 0.1
GRAD_CLIP = 1.0
FINAL_EVAL_BLOCKS = 1024  # the fixed set of blocks the final losses are measured on


def load_text(path=None):
    """(text, where it came from): the UTF-8 text file at `path`, or the bundled Tiny
    Shakespeare. A path that is missing, a folder, unreadable, not UTF-8 or binary raises
    an OSError or ValueError that names it."""
    if path is None:
        return data.tiny_shakespeare(), "Tiny Shakespeare"
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder, not a text file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text (byte {err.start}: {err.reason})") from None
    if "\x00" in text:  # valid UTF-8, but no text file holds NUL characters
        raise ValueError(f"{path} looks like a binary file (it holds NUL bytes), not text")
    return text, str(path)


def unigram_entropy(ids, vocab_size):
    """H = -sum_c p(c) log p(c) in nats, p the frequency of each token in `ids`: the loss of
    the best model that ignores the context. A model must beat it to have learned anything
    about the order of the characters."""
    p = np.bincount(ids, minlength=vocab_size) / len(ids)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def param_groups(model, weight_decay):
    """Weight decay on the weight matrices and embeddings only (every 2-D parameter), not
    on biases and LayerNorm gains: those set scales and offsets, and pulling them towards
    zero would fight the normalisation rather than regularise the model."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


def train_step(model, x, y, optimizer, scheduler):
    """One AdamW step on a batch: x (B, T) token ids, y (B, T) the next tokens."""
    _, loss = model(x, y)  # the logits (B, T, vocab) and their mean cross-entropy against y
    optimizer.zero_grad()
    loss.backward()
    clip_grad_norm_(model.parameters(), GRAD_CLIP)  # one bad batch cannot throw the weights far
    optimizer.step()
    scheduler.step()
    return loss.item()


@mg.no_grad()
def estimate_loss(model, dataset, batches, batch_size, device="cpu"):
    """The mean loss over `batches` random batches (a quick, noisy estimate)."""
    model.eval()
    losses = []
    for _ in range(batches):
        x, y = (t.to(device) for t in dataset.random_batch(batch_size))
        _, loss = model(x, y)
        losses.append(loss.item())
    model.train()
    return float(np.mean(losses))


@mg.no_grad()
def fixed_blocks_loss(
    model, ids, block_size, max_blocks=FINAL_EVAL_BLOCKS, batch_size=128, device="cpu"
):
    """The mean loss over a fixed set of blocks: consecutive non-overlapping blocks of
    `ids` (all of them if there are at most max_blocks, else max_blocks evenly spaced).
    The same blocks every run, so final losses compare across runs and settings."""
    n_blocks = (len(ids) - 1) // block_size
    starts = np.arange(n_blocks) * block_size
    if n_blocks > max_blocks:
        starts = starts[np.linspace(0, n_blocks - 1, max_blocks).astype(np.int64)]
    model.eval()
    total = 0.0
    for i in range(0, len(starts), batch_size):
        rows = starts[i : i + batch_size, None] + np.arange(block_size)
        inputs, targets = (mg.from_numpy(ids[r]).to(device) for r in (rows, rows + 1))
        _, loss = model(inputs, targets)
        total += loss.item() * rows.size  # the mean over this batch's tokens, back to their sum
    model.train()
    return total / (len(starts) * block_size)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="minigrad-train --model gpt",
        description="Train a character-level GPT on Tiny Shakespeare (or any text file), then "
        "sample from it.",
    )
    parser.add_argument("--model", default="gpt", choices=["gpt"], help="(this job trains the GPT)")
    parser.add_argument(
        "--text",
        default=None,
        metavar="FILE",
        help="train on this UTF-8 text file (default: Tiny Shakespeare)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a smaller model that trains in well under a minute"
    )
    parser.add_argument(
        "--iters",
        type=number(int, 1),
        default=None,
        help="training iterations (default: 2000; --quick 300)",
    )
    parser.add_argument(
        "--batch-size",
        type=number(int, 1),
        default=None,
        help="blocks per step (default: 12; --quick 16)",
    )
    parser.add_argument(
        "--lr",
        type=number(float, 0, strict=True),
        default=None,
        help="peak learning rate (default: 1e-3; --quick 3e-3)",
    )
    parser.add_argument(
        "--pos",
        default="rope",
        choices=["rope", "learned", "sinusoidal"],
        help="positional encoding (default: rope; learned is nanoGPT's and GPT-2's)",
    )
    add_device_option(parser)
    parser.add_argument(
        "--seed", type=int, default=1337, help="seed for init, batches and sampling (default: 1337)"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="output folder (default: runs/gpt; --quick: runs/gpt-quick, to keep the full run's)",
    )
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG of the loss curves")
    parser.add_argument(
        "--sample-tokens",
        type=number(int, 0),
        default=500,
        help="characters to generate at the end (default: 500)",
    )
    parser.add_argument(
        "--temperature",
        type=number(float, 0),
        default=0.8,
        help="sampling temperature, 0 = greedy (default: 0.8)",
    )
    return parser


def parse_args(argv=None, parser=None):
    """The options, checked (see minigrad.train.number), with the defaults of the chosen size
    (--quick or not) filled in."""
    args = (parser or build_parser()).parse_args(argv)
    for key, value in SETTINGS["quick" if args.quick else "default"].items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)
    # its own folder, as each model of minigrad-train (minigrad.train.default_out)
    if args.out is None:
        args.out = default_out("gpt-quick" if args.quick else "gpt")
    args.min_lr = args.lr / 10  # nanoGPT's rule of thumb: decay to a tenth of the peak
    args.warmup = min(args.warmup, args.iters)
    return args


def split_tokens(text, block_size):
    """The tokenizer and the 90/10 train/validation split of the encoded text (the
    validation text is the end of the file, as nanoGPT's)."""
    n_val = len(text) - int(0.9 * len(text))  # one token per character: train_val_split's rule
    if n_val < block_size + 2:
        raise ValueError(
            f"the text has {len(text)} characters; its last 10% (the validation split) must hold "
            f"more than a block of {block_size} + 1, so it needs at least {10 * (block_size + 2)}"
        )
    tokenizer = CharTokenizer.train(text)
    train_ids, val_ids = train_val_split(tokenizer.encode(text), 0.9)
    return tokenizer, train_ids, val_ids


def read_text(parser, args):
    """(text, source, tokenizer, train_ids, val_ids) of --text, or a usage error naming it."""
    try:
        text, source = load_text(args.text)
    except (OSError, ValueError) as err:
        parser.error(f"argument --text: {err}")
    try:
        return (text, source, *split_tokens(text, args.block_size))
    except ValueError as err:
        parser.error(f"argument --text: {source}: {err}")


def save_results(out, model, tokenizer, args, source, history, sample=None, interrupted=None):
    """Write the weights, the tokenizer, the sample (if one was drawn), the settings with the
    history (and where Ctrl-C `interrupted` the run) and, after a whole run without --no-plot,
    the curves to `out`; returns the names of the files written."""
    mg.save(model.state_dict(), out / "model.npz")
    tokenizer.save(out / "tokenizer.json")
    saved = ["model.npz", "tokenizer.json"]
    if sample is not None:
        (out / "sample.txt").write_text(sample, encoding="utf-8")
        saved.append("sample.txt")
    settings = {**vars(args), "source": source, "model_config": model.get_config()}
    record = {"settings": settings, "history": history}
    if interrupted is not None:
        record["interrupted"] = interrupted
    (out / "run.json").write_text(json.dumps(record, indent=2))
    saved.append("run.json")
    if interrupted is None and not args.no_plot:
        from minigrad.viz import plot_lm_history

        plot_lm_history(history, out / "curves.png", title=f"GPT on {Path(source).name}")
        saved.append("curves.png")
    return saved


def run(argv=None):
    """Train as the command line says; returns the history (losses, final losses, times).
    Ctrl-C (KeyboardInterrupt) saves what was trained, then propagates."""
    parser = build_parser()
    args = parse_args(argv, parser)
    device = pick_device(parser, args.device)
    text, source, tokenizer, train_ids, val_ids = read_text(parser, args)
    out = prepare_out_dir(parser, args.out)
    start, cpu_start = time.perf_counter(), time.process_time()
    mg.manual_seed(args.seed)
    train_set, val_set = (
        TextDataset(train_ids, args.block_size),
        TextDataset(val_ids, args.block_size),
    )
    model = GPT(
        tokenizer.vocab_size,
        args.d_model,
        args.n_layers,
        args.n_heads,
        max_len=args.block_size,
        pos=args.pos,
        bias=False,  # as nanoGPT's config: a little faster, no worse
    ).to(device)
    optimizer = optim.AdamW(param_groups(model, WEIGHT_DECAY), lr=args.lr, betas=BETAS)
    scheduler = optim.lr_scheduler.get_cosine_schedule_with_warmup(
        optimizer, args.warmup, args.iters, min_lr_ratio=args.min_lr / args.lr
    )
    baseline = unigram_entropy(train_ids, tokenizer.vocab_size)
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"training a GPT ({n_params:,} parameters: {args.n_layers} layers, {args.n_heads} heads, "
        f"d_model {args.d_model}, context {args.block_size}, pos {args.pos}) on {source}: "
        f"{len(text):,} characters, vocabulary {tokenizer.vocab_size}, {len(train_ids):,} train / "
        f"{len(val_ids):,} validation"
    )
    print(
        f"AdamW lr {args.lr:g} (warm-up {args.warmup}, cosine to {args.min_lr:g}), batch "
        f"{args.batch_size}"
    )
    print(f"unigram baseline (entropy of the character frequencies): {baseline:.4f} nats")
    print(f"device: {describe_device(device)}")

    history = {"iter": [], "train_loss": [], "val_loss": [], "step_loss": [], "lr": []}
    try:  # Ctrl-C anywhere before the files are written keeps what was trained (below)
        train_start = time.perf_counter()
        it = 0
        while it < args.iters:
            segment = min(args.eval_interval, args.iters - it)
            bar = ProgressBar(segment, prefix=f"iter {it + segment:5d}/{args.iters}")
            for _ in range(segment):
                history["lr"].append(optimizer.param_groups[0]["lr"])
                x, y = (t.to(device) for t in train_set.random_batch(args.batch_size))
                loss = train_step(model, x, y, optimizer, scheduler)
                history["step_loss"].append(loss)
                bar.update(1, loss=loss)
            it += segment
            train_loss = estimate_loss(model, train_set, args.eval_iters, args.batch_size, device)
            val_loss = estimate_loss(model, val_set, args.eval_iters, args.batch_size, device)
            for key, value in (("iter", it), ("train_loss", train_loss), ("val_loss", val_loss)):
                history[key].append(value)
            bar.close(train=train_loss, val=val_loss)
        train_seconds = time.perf_counter() - train_start

        final_train = fixed_blocks_loss(model, train_ids, args.block_size, device=device)
        final_val = fixed_blocks_loss(model, val_ids, args.block_size, device=device)
        history.update(
            final_train_loss=final_train, final_val_loss=final_val, unigram_baseline=baseline
        )
        # the result first: whatever is sampled, saved or drawn after it, the user has seen the
        # losses
        print(
            f"final loss on fixed blocks: train {final_train:.4f}, validation {final_val:.4f} "
            f"(unigram baseline {baseline:.4f})"
        )

        prompt = tokenizer.encode("\n") if "\n" in text else tokenizer.encode(text[0])
        sample_start = time.perf_counter()
        tokens = model.generate(
            mg.tensor([prompt], device=device), args.sample_tokens, temperature=args.temperature
        )
        sample = tokenizer.decode(tokens[0].tolist()[len(prompt) :])
        sample_seconds = time.perf_counter() - sample_start
    except KeyboardInterrupt:
        steps = len(history["step_loss"])
        saved = save_results(
            out, model, tokenizer, args, source, history, interrupted={"iter": steps}
        )
        say_interrupted(out, saved, f"after {steps} of {args.iters} iterations")
        raise
    print(f"--- sample ({args.sample_tokens} characters, temperature {args.temperature}) ---")
    print(sample)
    print("---")

    seconds = time.perf_counter() - start
    # this process's CPU time: what a busy machine does not inflate
    cpu_seconds = time.process_time() - cpu_start
    history.update(
        train_seconds=train_seconds,
        sample_seconds=sample_seconds,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
    )
    saved = save_results(out, model, tokenizer, args, source, history, sample=sample)
    print(f"saved {', '.join(saved)} to {out}/")
    per_iter = 1000 * train_seconds / args.iters
    print(
        f"wall time: {seconds:.1f}s ({train_seconds:.1f}s training, {per_iter:.0f} ms per "
        f"iteration); CPU time of this process: {cpu_seconds:.1f}s"
    )
    return history


def main(argv=None):
    """`python -m minigrad.train_gpt`: exit status 0 on success, 2 for a bad option, 130
    after Ctrl-C (what was trained is saved)."""
    try:
        run(argv)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
