"""Draw the losses lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_normalization_benchmark.py [OUT_DIR] [--repeat R] [--machine TEXT]

times layer norm and batch norm (training mode) forward + backward (float32, one
thread): minigrad's one-Function `F.layer_norm` / `F.batch_norm`, the same normalization
composed from small minigrad ops, PyTorch's ops and the composition in PyTorch, using
benchmarks/bench_normalization.py, and writes OUT_DIR/normalization_benchmark.png (default: this
script's folder, where the lesson finds it): one panel per case, the bar at the median
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
import bench_normalization  # noqa: E402

LABELS = {
    "minigrad": "minigrad F.layer_norm / F.batch_norm\n(one Function, derived backward)",
    "minigrad_composed": "minigrad, composed\nfrom 9 small ops",
    "torch": "PyTorch\nF.layer_norm / F.batch_norm",
    "torch_composed": "PyTorch, composed\nfrom 9 small ops",
}
COLORS = {"minigrad": "C0", "minigrad_composed": "C9", "torch": "C2", "torch_composed": "C8"}


def main(out_dir, repeat, machine):
    results = bench_normalization.run(repeat=repeat, threads=1)
    bench_normalization.report(results, 1)  # the numbers behind the figure, for the lesson's table
    keys = bench_normalization.IMPLEMENTATIONS
    fig, axes = plt.subplots(1, len(results), figsize=(9, 4.6), constrained_layout=True)
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
        shape = "x".join(map(str, row["shape"]))
        ax.set_title(f"{row['case']}, input {shape}", fontsize=10)
        ax.set_ylim(0, 1.2 * max(row[k][2] for k in keys))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("median time (ms), lower is better")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=9)
    fig.suptitle(
        f"Normalization forward + backward, float32, 1 thread; {machine}\nwhiskers: quartiles of the repeats",
        fontsize=10,
    )
    out = Path(out_dir) / "normalization_benchmark.png"
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
