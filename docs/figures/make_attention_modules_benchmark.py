"""Draw the attention-modules lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_attention_modules_benchmark.py [OUT_DIR] [--repeat R] [--number N]

times nn.MultiheadAttention(128, 4) on a causal (16, 128, 128) float32 batch, forward and
forward + backward, in minigrad and in PyTorch (default threads and one thread), each with
need_weights=False (the fused attention kernel) and need_weights=True (the attention spelled out,
probabilities kept), using benchmarks/bench_attention_modules.py, and writes
OUT_DIR/attention_modules_benchmark.png (default: this script's folder, where the lesson
finds it). Bars are medians of R turns of N calls; whiskers span the fastest to the
slowest turn. The committed PNG was made on a shared 2-core machine (other programs
running), so the ranges are wide. The test suite runs the script with
MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one turn of one call, which only
proves that it runs.
"""

import argparse
import statistics
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_attention_modules  # noqa: E402
import smoke  # noqa: E402

CASES = [
    ("minigrad, need_weights=False", "minigrad, fused kernel (need_weights=False)"),
    ("minigrad, need_weights=True", "minigrad, spelled out (need_weights=True)"),
    ("torch, need_weights=False", "PyTorch, need_weights=False"),
    ("torch, need_weights=True", "PyTorch, need_weights=True"),
    ("torch-1, need_weights=False", "PyTorch 1 thread, need_weights=False"),
    ("torch-1, need_weights=True", "PyTorch 1 thread, need_weights=True"),
]


def main(out_dir, repeat, number):
    results = bench_attention_modules.run(repeat=repeat, number=number)
    fig, ax = plt.subplots(figsize=(10, 4.8), constrained_layout=True)
    width = 0.14
    for n, (key, name) in enumerate(CASES):
        xs = [i + (n - 2.5) * width for i in range(len(results))]
        mids = [statistics.median(ms[key]) for ms in results.values()]
        errors = [[m - min(ms[key]) for m, ms in zip(mids, results.values())],
                  [max(ms[key]) - m for m, ms in zip(mids, results.values())]]  # fmt: skip
        drawn = ax.bar(xs, mids, width, yerr=errors, capsize=3, label=name,
                       error_kw={"ecolor": "0.4", "lw": 1}, hatch="//" if "True" in key else None,
                       color=f"C{n // 2}", alpha=1.0 if n % 2 == 0 else 0.6)  # fmt: skip
        ax.bar_label(drawn, fmt="%.0f", fontsize=7, padding=2)
    ax.set_xticks(range(len(results)), list(results))
    ax.set_ylabel("ms per call, lower is better")
    c = bench_attention_modules.SHAPE
    ax.set_title(
        f"nn.MultiheadAttention({c['embed']}, {c['heads']}), causal, on ({c['batch']}, {c['T']}, "
        f"{c['embed']}) float32: median and range of {repeat} turns\n(shared 2-core machine, other "
        "programs running)",
        fontsize=10,
    )
    top = max(statistics.median(v) for ms in results.values() for v in ms.values())
    # room for the legend; a turn slowed by another program may have its whisker cut
    ax.set_ylim(0, 1.7 * top)
    ax.legend(loc="upper center", fontsize=8, ncol=3)
    ax.grid(axis="y", alpha=0.3)
    smoke.stamp(fig)
    out = Path(out_dir) / "attention_modules_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--repeat", type=int, default=smoke.pick(5, 1))
    parser.add_argument("--number", type=int, default=smoke.pick(5, 1))
    args = parser.parse_args()
    print(main(args.out_dir, args.repeat, args.number))
