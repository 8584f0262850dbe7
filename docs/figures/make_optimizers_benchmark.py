"""Draw the optimizers lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_optimizers_benchmark.py [OUT_DIR] [--repeat R] [--machine TEXT]

times one step of SGD with momentum, Adam and AdamW (float32, one thread) on two MLPs'
parameter lists: minigrad's in-place update, the textbook formula out of place, and
PyTorch's step (default `foreach` and a plain loop), using benchmarks/bench_optimizers.py,
and writes OUT_DIR/optimizers_benchmark.png (default: this script's folder, where the
lesson finds it): one panel per model, the bar at the median time and the whisker
between the quartiles of the repeats. The figures change from machine to machine;
--machine says in the title where they were measured.
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
import bench_optimizers  # noqa: E402
import lesson_bars  # noqa: E402
import smoke  # noqa: E402

LABELS = {
    "minigrad": "minigrad (in place)",
    "naive": "the textbook formula, out of place (NumPy)",
    "torch": "PyTorch (default: foreach)",
    "torch_loop": "PyTorch (foreach=False)",
}
COLORS = {"minigrad": "C0", "naive": "C9", "torch": "C2", "torch_loop": "C8"}


def main(out_dir, repeat, machine):
    results = bench_optimizers.run(repeat=repeat, threads=1)
    bench_optimizers.report(results, 1)  # the numbers behind the figure, for the lesson's table
    keys = bench_optimizers.IMPLEMENTATIONS
    models = list(dict.fromkeys(row["model"] for row in results))
    fig, axes = plt.subplots(1, len(models), figsize=(10, 4.6), constrained_layout=True)
    width = 0.2
    for ax, model in zip(axes, models):
        rows = [row for row in results if row["model"] == model]
        for n, key in enumerate(keys):
            xs = [i + (n - 1.5) * width for i in range(len(rows))]
            medians = [row[key][0] for row in rows]
            errors = [
                [row[key][0] - row[key][1] for row in rows],
                [row[key][2] - row[key][0] for row in rows],
            ]
            drawn = ax.bar(
                xs, medians, width, yerr=errors, capsize=2, color=COLORS[key], label=LABELS[key]
            )
            ax.bar_label(drawn, fmt="%.2f", fontsize=7, padding=2)
        ax.set_xticks(range(len(rows)), [row["optimizer"] for row in rows])
        ax.set_title(f"{model} parameters", fontsize=10)
        ax.set_ylim(0, 1.2 * max(row[k][2] for row in rows for k in keys))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("median time of one step (ms), lower is better")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=9)
    fig.suptitle(
        f"One optimizer step, float32, 1 thread; {machine}\nwhiskers: quartiles of the repeats",
        fontsize=10,
    )
    smoke.stamp(fig)
    out = Path(out_dir) / "optimizers_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main(*lesson_bars.command_line(__doc__, default_repeat=20)))
