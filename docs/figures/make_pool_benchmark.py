"""Draw the pooling lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_pool_benchmark.py [OUT_DIR] [--repeat R]

times max and average pooling (2x2, stride 2, (64, 32, 28, 28) float32) forward and
forward + backward with the NumPy reference, the Numba kernels and PyTorch, using
benchmarks/bench_pool.py, and writes OUT_DIR/pool_benchmark.png (default: this
script's folder, where the lesson finds it). The figures are medians on the machine
that runs it, so they change from machine to machine; the committed PNG was made on
the 2-core machine described in benchmarks/RESULTS.md, at these settings. The test suite
runs the script with MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): a (4, 8, 8, 8)
input and one repeat, which only proves that it runs.
"""

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_pool  # noqa: E402
import smoke  # noqa: E402

IMPLEMENTATIONS = [
    ("numpy", "minigrad, NumPy reference"),
    ("numba", "minigrad, Numba kernels"),
    ("torch", "PyTorch"),
]


def main(out_dir, repeat):
    results = bench_pool.run(
        repeat=repeat, threads=2, shape=smoke.pick(bench_pool.SHAPE, (4, 8, 8, 8))
    )
    labels, bars = [], {key: [] for key, _ in IMPLEMENTATIONS}
    for row in results:
        for k, part in enumerate(("forward", "forward +\nbackward")):
            labels.append(f"{row['case']}\n{part}")
            for key, _ in IMPLEMENTATIONS:
                bars[key].append(row[key][k])

    fig, ax = plt.subplots(figsize=(9, 4.5), constrained_layout=True)
    width = 0.27
    for n, (key, name) in enumerate(IMPLEMENTATIONS):
        xs = [i + (n - 1) * width for i in range(len(labels))]
        drawn = ax.bar(xs, bars[key], width, label=name)
        ax.bar_label(drawn, fmt="%.1f", fontsize=8, padding=2)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("median time (ms), lower is better")
    shape = "x".join(map(str, results[0]["shape"]))
    ax.set_title(f"2x2 pooling, stride 2, on {shape} float32, 2 threads")
    ax.set_ylim(0, 1.25 * max(max(values) for values in bars.values()))  # room for the legend
    ax.legend(loc="upper center", ncol=3)
    ax.grid(axis="y", alpha=0.3)
    smoke.stamp(fig)
    out = Path(out_dir) / "pool_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--repeat", type=int, default=smoke.pick(8, 1))
    args = parser.parse_args()
    print(main(args.out_dir, args.repeat))
