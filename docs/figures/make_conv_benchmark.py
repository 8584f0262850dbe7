"""Draw the convolution lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_conv_benchmark.py [OUT_DIR] [--batch N] [--repeat R]

times conv2d forward and forward + backward for the five layers of
benchmarks/bench_conv.py (on a batch of N images, 8 by default, to stay quick) with the
NumPy reference, the Numba kernels and PyTorch, using that script's own functions,
and writes OUT_DIR/conv_benchmark.png (default: this script's folder, where the lesson
finds it). The figures are medians on the machine that runs it; the committed PNG was
made on the 2-core machine described in benchmarks/RESULTS.md, at these settings. The
test suite runs the script with MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one
image, one run, which only proves that it runs.
"""

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_conv  # noqa: E402
import smoke  # noqa: E402

IMPLEMENTATIONS = [
    ("reference", "minigrad, NumPy reference"),
    ("numba", "minigrad, Numba kernels"),
    ("torch", "PyTorch"),
]


def main(out_dir, batch, repeat, threads=2):
    rows = bench_conv.run(
        list(bench_conv.CASES),
        batch,
        repeat,
        threads,
        measure_compile=False,
        out=lambda line: None,
        settle=smoke.pick(0.1, 0.0),  # bench_conv.py's pause between turns; none in the smoke run
    )
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True, constrained_layout=True)
    width = 0.27
    for ax, part in zip(axes, ("fwd", "fwd+bwd")):
        mine = [r for r in rows if r["pass_"] == part]
        for n, (key, name) in enumerate(IMPLEMENTATIONS):
            xs = [i + (n - 1) * width for i in range(len(mine))]
            ax.bar(xs, [r[key] for r in mine], width, label=name)
        for i, r in enumerate(mine):  # the ratio that the targets are about
            ax.annotate(
                f"{r['numba'] / r['torch']:.1f}x",
                (i + width / 2, r["numba"]),
                ha="center",
                va="bottom",
                fontsize=8,
            )
        ax.set_xticks(range(len(mine)), [r["case"] for r in mine])
        ax.set_yscale("log")
        ax.set_title({"fwd": "forward", "fwd+bwd": "forward + backward"}[part])
        ax.grid(axis="y", alpha=0.3, which="both")
    axes[0].set_ylabel("median time (ms, log scale), lower is better")
    axes[0].legend(loc="upper left", fontsize=8)
    fig.suptitle(f"conv2d, float32, batch of {batch}, {threads} threads (labels: Numba / PyTorch)")
    smoke.stamp(fig)
    out = Path(out_dir) / "conv_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--batch", type=int, default=smoke.pick(8, 1))
    parser.add_argument("--repeat", type=int, default=smoke.pick(7, 1))
    args = parser.parse_args()
    print(main(args.out_dir, args.batch, args.repeat))
