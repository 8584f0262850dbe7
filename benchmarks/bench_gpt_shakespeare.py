"""The whole `minigrad-train --model gpt` run against the same run in PyTorch: validation
loss and time, same model, same data, same recipe, same machine.

    python benchmarks/bench_gpt_shakespeare.py [--iters 2000] [--quick] [--skip-minigrad]
    [--skip-torch]

- minigrad: `python -m minigrad.train --model gpt` in a child process (as a user runs
  it, under minigrad's thread policy), its figures read from the run.json it writes.
- PyTorch: the same GPT (`torch_gpt` of bench_transformer.py: the same modules, rotary
  positions, tied output layer, no biases as the job's model), starting from the
  *same initial weights* (minigrad's GPT built with the job's seed, its state dict
  loaded), trained on the *same batches in the same order* (drawn by minigrad's
  TextDataset with the job's seed, including the evaluation draws between segments)
  with the same AdamW settings, parameter groups, warm-up + cosine schedule and
  gradient clipping, with PyTorch's default threads (one per core). Its final losses
  are measured on the same fixed blocks as the job's (`fixed_blocks_loss`).

Printed: each run's final train/validation loss, wall time and CPU time of its process.
On a shared machine the wall times move with the load (the CPU times much less): run
it when the machine is quiet, or compare the CPU times.

--quick checks that the script runs, in seconds: the job's --quick model (2 layers,
d_model 64, context 32) for 4 iterations unless --iters says otherwise, on both sides,
and a sample of 8 characters.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def run_minigrad(job_args):
    """The job as a user runs it, `minigrad-train --model gpt JOB_ARGS`; returns its
    run.json history."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "minigrad.train", "--model", "gpt", *job_args, "--out", out]
        subprocess.run(cmd + ["--no-plot"], check=True)
        return json.loads((Path(out) / "run.json").read_text())["history"]


def run_torch(job_args):
    """The same run in PyTorch (see the module docstring), with the settings the job gets
    from `job_args`; returns its figures."""
    import torch
    from bench_transformer import torch_gpt

    import minigrad as mg
    from minigrad import train_gpt
    from minigrad.models import GPT
    from minigrad.text import TextDataset

    args = train_gpt.parse_args(job_args)
    start, cpu_start = time.perf_counter(), time.process_time()
    mg.manual_seed(args.seed)  # as the job: the seed, then the data, then the model
    text, _ = train_gpt.load_text(None)
    tokenizer, train_ids, val_ids = train_gpt.split_tokens(text, args.block_size)
    train_set, val_set = (
        TextDataset(train_ids, args.block_size),
        TextDataset(val_ids, args.block_size),
    )
    V, T = tokenizer.vocab_size, args.block_size
    init = GPT(V, args.d_model, args.n_layers, args.n_heads, max_len=T, pos=args.pos, bias=False)
    model = torch_gpt(V, args.d_model, args.n_layers, args.n_heads, T, bias=False)
    model.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in init.state_dict().items()}
    )

    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    groups = [
        {"params": decay, "weight_decay": train_gpt.WEIGHT_DECAY},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=args.lr, betas=train_gpt.BETAS)
    schedule = mg.optim.lr_scheduler.get_cosine_schedule_with_warmup(
        mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0),
        args.warmup,
        args.iters,
        args.min_lr / args.lr,
    ).lr_lambdas[0]
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)

    def as_torch(batch):
        return tuple(torch.from_numpy(t.numpy()) for t in batch)

    def loss_of(x, y):
        logits = model(x)
        return torch.nn.functional.cross_entropy(logits.reshape(-1, V), y.reshape(-1))

    it = 0
    while it < args.iters:
        for _ in range(min(args.eval_interval, args.iters - it)):
            loss = loss_of(*as_torch(train_set.random_batch(args.batch_size)))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), train_gpt.GRAD_CLIP)
            optimizer.step()
            scheduler.step()
            it += 1
        with torch.no_grad():  # the job's evaluation: the same draws, so the batches stay in step
            for dataset in (train_set, val_set):
                for _ in range(args.eval_iters):
                    loss_of(*as_torch(dataset.random_batch(args.batch_size)))
    train_seconds = time.perf_counter() - start

    def fixed_blocks(ids, max_blocks=train_gpt.FINAL_EVAL_BLOCKS, batch_size=128):
        n_blocks = (len(ids) - 1) // T
        starts = np.arange(n_blocks) * T
        if n_blocks > max_blocks:
            starts = starts[np.linspace(0, n_blocks - 1, max_blocks).astype(np.int64)]
        total = 0.0
        with torch.no_grad():
            for i in range(0, len(starts), batch_size):
                rows = starts[i : i + batch_size, None] + np.arange(T)
                logits = model(torch.from_numpy(ids[rows]))
                target = torch.from_numpy(ids[rows + 1]).reshape(-1)
                total += torch.nn.functional.cross_entropy(
                    logits.reshape(-1, V), target, reduction="sum"
                ).item()
        return total / (len(starts) * T)

    return {
        "final_train_loss": fixed_blocks(train_ids),
        "final_val_loss": fixed_blocks(val_ids),
        "train_seconds": train_seconds,
        "seconds": time.perf_counter() - start,
        "cpu_seconds": time.process_time() - cpu_start,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=None, help="(default: 2000; --quick 4)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the job's --quick model, a few iterations: does it run",
    )
    parser.add_argument("--skip-minigrad", action="store_true")
    parser.add_argument("--skip-torch", action="store_true")
    args = parser.parse_args()
    iters = args.iters or (4 if args.quick else 2000)
    job_args = ["--iters", str(iters)] + (["--quick", "--sample-tokens", "8"] if args.quick else [])
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, {iters} iterations")
    rows = []
    if not args.skip_minigrad:
        rows.append(("minigrad", run_minigrad(job_args)))
    if not args.skip_torch:
        rows.append(("PyTorch", run_torch(job_args)))
    print(f"\n{'':10s} {'train loss':>10s} {'val loss':>9s} {'wall s':>8s} {'CPU s':>8s}")
    for name, h in rows:
        print(
            f"{name:10s} {h['final_train_loss']:10.4f} {h['final_val_loss']:9.4f} "
            f"{h['seconds']:8.1f} {h['cpu_seconds']:8.1f}"
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
