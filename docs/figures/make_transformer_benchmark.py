"""Draw the transformer lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_transformer_benchmark.py [OUT_DIR] [--repeat R] [--seconds S]

times the two training steps of benchmarks/bench_transformer.py, the 2-layer pre-norm
encoder (nn.TransformerEncoder, batch 32 x 64 tokens x 128 features, causal, MSE, AdamW)
and the baby GPT (models.GPT, 4 layers, batch 12 x 64, cross-entropy, clipping, AdamW),
in minigrad, in PyTorch on its default threads and in PyTorch on one thread, with that
script's functions (the same models, weights and steps), and writes
OUT_DIR/transformer_benchmark.png (default: this script's folder, where the lesson finds
it). The bars are medians of R turns of about S seconds each, taken in turns so that
load from elsewhere falls on all three alike; the whiskers span the fastest to the
slowest turn. The committed PNG was made on the 2-core machine of benchmarks/RESULTS.md, otherwise
idle (2026-11-24, 18:55 UTC); the ratios are what to read. The test suite runs the script
with MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one turn of one step, which only
proves that it runs.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_transformer  # noqa: E402
import smoke  # noqa: E402

IMPLEMENTATIONS = [
    ("minigrad", "minigrad"),
    ("torch", "PyTorch (default threads)"),
    ("torch-1", "PyTorch (1 thread)"),
]


def measure(steps, repeat, seconds):
    """{implementation: [ms per step of each turn]}, the steps taking turns."""
    for step in steps.values():  # warm-up: kernels compiled or loaded, thread pools started
        step()
        step()
    ms = {k: [] for k in steps}
    order = list(steps)
    for r in range(repeat):
        for k in order if r % 2 == 0 else order[::-1]:
            ms[k].append(bench_transformer.timed_turn(steps[k], seconds)[0])
            time.sleep(0.1)  # let the pool just used stop spinning
    return ms


def main(out_dir, repeat, seconds):
    import torch
    import torch.optim  # noqa: F401  (lib.optim in the benchmark's steps)

    import minigrad as mg
    import minigrad.optim  # noqa: F401

    encoder = {
        "minigrad": bench_transformer.encoder_step(mg),
        "torch": bench_transformer.encoder_step(torch),
    }
    encoder["torch-1"] = bench_transformer.with_torch_threads(
        bench_transformer.encoder_step(torch), 1
    )
    mine, theirs = bench_transformer.gpt_models()  # checks that the two GPTs give the same logits
    _, theirs_1 = bench_transformer.gpt_models()
    gpt = {
        "minigrad": bench_transformer.gpt_step(mg, mine),
        "torch": bench_transformer.gpt_step(torch, theirs),
    }
    gpt["torch-1"] = bench_transformer.with_torch_threads(
        bench_transformer.gpt_step(torch, theirs_1), 1
    )
    results = {
        "encoder train step\n(2 pre-norm layers, d 128, T 64, batch 32)": measure(
            encoder, repeat, seconds
        ),
        "GPT train step\n(4 layers, d 128, T 64, batch 12)": measure(gpt, repeat, seconds),
    }

    fig, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
    width = 0.27
    for n, (key, name) in enumerate(IMPLEMENTATIONS):
        xs = [i + (n - 1) * width for i in range(len(results))]
        mids = [statistics.median(ms[key]) for ms in results.values()]
        errors = [[m - min(ms[key]) for m, ms in zip(mids, results.values())],
                  [max(ms[key]) - m for m, ms in zip(mids, results.values())]]  # fmt: skip
        drawn = ax.bar(
            xs, mids, width, yerr=errors, capsize=3, label=name, error_kw={"ecolor": "0.4", "lw": 1}
        )
        labels = ax.bar_label(drawn, fmt="%.0f", fontsize=8, label_type="center")
        for label in labels:
            label.set_bbox({"facecolor": "white", "edgecolor": "none", "pad": 1, "alpha": 0.8})
        for case, ms in results.items():
            print(f"{case.splitlines()[0]:20s} {name:26s} {statistics.median(ms[key]):6.1f} ms "
                  f"({min(ms[key]):.1f}-{max(ms[key]):.1f})")  # fmt: skip
    top = 1.8 * max(statistics.median(v) for ms in results.values() for v in ms.values())
    for i, ms in enumerate(results.values()):
        ratios = [
            statistics.median(ms["minigrad"]) / statistics.median(ms[k])
            for k in ("torch", "torch-1")
        ]
        text = f"minigrad / PyTorch: {ratios[0]:.2f}x\n(1 thread: {ratios[1]:.2f}x)"
        ax.text(i, 0.72 * top, text, ha="center", fontsize=9)
    ax.set_xticks(range(len(results)), list(results))
    ax.set_ylabel("ms per training step, lower is better")
    ax.set_title(
        f"Training steps, float32, CPU: median and range of {repeat} turns\n(2-core machine; "
        "conditions and ranges in benchmarks/RESULTS.md)",
        fontsize=10,
    )
    ax.set_ylim(0, top)  # a turn slowed by another program may run off the top: its whisker is cut
    ax.legend(loc="upper center", fontsize=8, ncol=3)
    ax.grid(axis="y", alpha=0.3)
    smoke.stamp(fig)
    out = Path(out_dir) / "transformer_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--repeat", type=int, default=smoke.pick(3, 1))
    parser.add_argument("--seconds", type=float, default=smoke.pick(1.0, 0.01))
    args = parser.parse_args()
    print(main(args.out_dir, args.repeat, args.seconds))
