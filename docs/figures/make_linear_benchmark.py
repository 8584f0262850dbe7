"""Draw the linear lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_linear_benchmark.py [OUT_DIR] [--repeat R] [--machine TEXT]

times `nn.Linear` forward + backward (float32, one thread) for a few (batch, in, out)
sizes with minigrad, the same three products in NumPy by hand, and PyTorch, using
benchmarks/bench_linear.py, and writes OUT_DIR/linear_benchmark.png (default: this
script's folder, where the lesson finds it): the rate in GFLOP/s of each, the bar at the
median time and the whisker between the quartiles of the repeats. The figures change
from machine to machine; --machine says in the title where they were measured.
The committed PNG is made at the default --repeat; the test suite runs the script with
MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one repeat, which only proves that it runs.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "docs" / "figures"))
import bench_linear  # noqa: E402
import lesson_bars  # noqa: E402
import smoke  # noqa: E402

IMPLEMENTATIONS = [
    ("minigrad", "minigrad nn.Linear"),
    ("numpy", "NumPy, the 3 products by hand"),
    ("torch", "PyTorch"),
]


def main(out_dir, repeat, machine):
    results = bench_linear.run(repeat=repeat, threads=1)
    bench_linear.report(results, 1)  # the numbers behind the figure, for the lesson's table
    fig, ax = plt.subplots(figsize=(9, 4.5), constrained_layout=True)
    width = 0.27
    for n, (key, name) in enumerate(IMPLEMENTATIONS):
        xs = [i + (n - 1) * width for i in range(len(results))]
        # GFLOP/s at the median time; the whisker spans the rates at the quartile times
        rates = [row["flops"] / row[key][0] / 1e6 for row in results]
        low = [rate - row["flops"] / row[key][2] / 1e6 for rate, row in zip(rates, results)]
        high = [row["flops"] / row[key][1] / 1e6 - rate for rate, row in zip(rates, results)]
        drawn = ax.bar(xs, rates, width, yerr=[low, high], capsize=3, label=name)
        ax.bar_label(drawn, fmt="%.0f", fontsize=8, padding=2)
    labels = [
        f"batch {b}, {i} -> {o}\n{row['flops'] / 1e9:.2f} GFLOP"
        for row in results
        for b, i, o in [row["size"]]
    ]
    ax.set_xticks(range(len(results)), labels)
    ax.set_ylabel("GFLOP/s (6·N·in·out / median time), higher is better")
    ax.set_title(
        f"nn.Linear forward + backward, float32, 1 thread; {machine}\nwhiskers: quartiles of the "
        "repeats"
    )
    ax.set_ylim(
        0,
        1.3
        * max(row["flops"] / min(row[k][1] for k, _ in IMPLEMENTATIONS) / 1e6 for row in results),
    )
    ax.legend(loc="upper left", ncol=3, fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    smoke.stamp(fig)
    out = Path(out_dir) / "linear_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main(*lesson_bars.command_line(__doc__)))
