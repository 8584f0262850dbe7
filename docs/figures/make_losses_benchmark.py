"""Draw the losses lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_losses_benchmark.py [OUT_DIR] [--repeat R] [--machine TEXT]

times the mean cross-entropy forward + backward (float32, one thread) for a few
(batch, classes) sizes: minigrad's fused `F.cross_entropy`, the same loss composed from
small minigrad ops, PyTorch's `F.cross_entropy` and the composition in PyTorch, using
benchmarks/bench_losses.py, and writes OUT_DIR/losses_benchmark.png (default: this
script's folder, where the lesson finds it): one panel per size, the bar at the median
time and the whisker between the quartiles of the repeats. The figures change from
machine to machine; --machine says in the title where they were measured.
"""

import argparse
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_losses  # noqa: E402

LABELS = {
    "minigrad": "minigrad F.cross_entropy\n(one fused Function)",
    "minigrad_composed": "minigrad, composed\nfrom 8 small ops",
    "torch": "PyTorch\nF.cross_entropy",
    "torch_composed": "PyTorch, composed\nfrom 8 small ops",
}
COLORS = {"minigrad": "C0", "minigrad_composed": "C9", "torch": "C2", "torch_composed": "C8"}


def main(out_dir, repeat, machine):
    results = bench_losses.run(repeat=repeat, threads=1)
    bench_losses.report(results, 1)  # the numbers behind the figure, for the lesson's table
    keys = bench_losses.IMPLEMENTATIONS
    fig, axes = plt.subplots(1, len(results), figsize=(11, 4.6), constrained_layout=True)
    for ax, row in zip(axes, results):
        medians = [row[k][0] for k in keys]
        errors = [[row[k][0] - row[k][1] for k in keys], [row[k][2] - row[k][0] for k in keys]]
        drawn = ax.bar(
            range(len(keys)),
            medians,
            yerr=errors,
            capsize=3,
            color=[COLORS[k] for k in keys],
            label=[LABELS[k] for k in keys],
        )
        ax.bar_label(drawn, fmt="%.2f", fontsize=8, padding=2)
        ax.set_xticks([])
        ax.set_title(f"batch {row['size'][0]}, {row['size'][1]} classes", fontsize=10)
        ax.set_ylim(0, 1.2 * max(row[k][2] for k in keys))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("median time (ms), lower is better")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=len(keys), fontsize=9)
    fig.suptitle(
        f"Cross-entropy forward + backward, float32, 1 thread; {machine}\nwhiskers: quartiles of the repeats",
        fontsize=10,
    )
    out = Path(out_dir) / "losses_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--machine", default=f"{os.cpu_count()}-core machine")
    args = parser.parse_args()
    print(main(args.out_dir, args.repeat, args.machine))
