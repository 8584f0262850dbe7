"""Draw the positional-encodings lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_positional_benchmark.py [OUT_DIR] [--repeat R] [--number N]

times RoPE on a query and a key of (12, 4, 256, 32) float32, forward and forward +
backward: minigrad's RotaryEmbedding (one Function, cos/sin cached), the same Function
with cos/sin computed at every call, the formula written with small Tensor operations,
and PyTorch's operations (default threads and one thread), using benchmarks/bench_positional.py,
and writes OUT_DIR/positional_benchmark.png (default: this script's folder, where the lesson finds
it). Bars are medians of R turns of N calls; whiskers span the fastest to the slowest
turn. The committed PNG was made on a shared 2-core machine (other programs running).
The test suite runs the script with MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one
turn of one call, which only proves that it runs.
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
import bench_positional  # noqa: E402
import smoke  # noqa: E402

CASES = [
    ("minigrad, RotaryEmbedding", "minigrad RotaryEmbedding: one Function, cached cos/sin"),
    ("minigrad, uncached cos/sin", "the same Function, cos/sin computed every call"),
    ("minigrad, small ops", "minigrad, seven small Tensor ops, cached cos/sin"),
    ("PyTorch", "PyTorch, the same small ops"),
    ("PyTorch, 1 thread", "PyTorch, the same, 1 thread"),
]


def main(out_dir, repeat, number):
    results = bench_positional.run(repeat=repeat, number=number)
    fig, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
    width = 0.16
    for n, (key, name) in enumerate(CASES):
        xs = [i + (n - 2) * width for i in range(len(results))]
        mids = [statistics.median(ms[key]) for ms in results.values()]
        errors = [[m - min(ms[key]) for m, ms in zip(mids, results.values())],
                  [max(ms[key]) - m for m, ms in zip(mids, results.values())]]  # fmt: skip
        drawn = ax.bar(
            xs, mids, width, yerr=errors, capsize=3, label=name, error_kw={"ecolor": "0.4", "lw": 1}
        )
        ax.bar_label(drawn, fmt="%.1f", fontsize=8, padding=2)
    ax.set_xticks(range(len(results)), list(results))
    ax.set_ylabel("ms per call (q and k), lower is better")
    shape = "x".join(map(str, bench_positional.SHAPE))
    ax.set_title(
        f"RoPE on q and k of {shape} float32: median and range of {repeat} turns\n"
        "(shared 2-core machine, other programs running)",
        fontsize=10,
    )
    mids = [statistics.median(v) for ms in results.values() for v in ms.values()]
    ax.set_ylim(0, 1.6 * max(mids))  # room for the legend; a rare slow turn's whisker may be cut
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    smoke.stamp(fig)
    out = Path(out_dir) / "positional_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--repeat", type=int, default=smoke.pick(5, 1))
    parser.add_argument("--number", type=int, default=smoke.pick(10, 1))
    args = parser.parse_args()
    print(main(args.out_dir, args.repeat, args.number))
