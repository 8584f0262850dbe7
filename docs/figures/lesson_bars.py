"""What the lesson benchmark figures share: one panel of bars per case, the bar at the
median time and the whisker between the quartiles of the repeats (as
benchmarks/lesson_timing.quartiles_ms gives them), and the command line of a figure
script (OUT_DIR, --repeat, --machine). The panels are drawn for the losses and
normalization lessons; the command line is that of the five lesson figures of
linear, losses, normalization, optimizers and recurrent layers. Their default --repeat is
the full setting the committed PNGs are made at; with MINIGRAD_FIGURES_SMOKE=1 (the test
suite, docs/figures/smoke.py) it is 1, which only proves that a script runs.
"""

import argparse
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import smoke  # noqa: E402


def panels(results, keys, labels, colors, titles, suptitle, out, figsize, legend_columns):
    """One panel per row of `results` ({key: (median, q1, q3)}), titled by `titles`, a
    bar per key; the figure saved to `out`, which is returned."""
    fig, axes = plt.subplots(1, len(results), figsize=figsize, constrained_layout=True)
    for ax, row, title in zip(axes, results, titles):
        medians = [row[k][0] for k in keys]
        errors = [[row[k][0] - row[k][1] for k in keys], [row[k][2] - row[k][0] for k in keys]]
        drawn = ax.bar(
            range(len(keys)),
            medians,
            yerr=errors,
            capsize=3,
            color=[colors[k] for k in keys],
            label=[labels[k] for k in keys],
        )
        ax.bar_label(drawn, fmt="%.2f", fontsize=8, padding=2)
        ax.set_xticks([])
        ax.set_title(title, fontsize=10)
        ax.set_ylim(0, 1.2 * max(row[k][2] for k in keys))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("median time (ms), lower is better")
    fig.legend(
        *axes[0].get_legend_handles_labels(),
        loc="outside lower center",
        ncol=legend_columns,
        fontsize=9,
    )
    fig.suptitle(f"{suptitle}\nwhiskers: quartiles of the repeats", fontsize=10)
    smoke.stamp(fig)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def command_line(doc, default_repeat=10):
    """(out_dir, repeat, machine) from a figure script's command line."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--repeat", type=int, default=smoke.pick(default_repeat, 1))
    parser.add_argument("--machine", default=f"{os.cpu_count()}-core machine")
    args = parser.parse_args()
    return args.out_dir, args.repeat, args.machine
