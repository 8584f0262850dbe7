"""Draw the tokenizers lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_tokenizers_benchmark.py [OUT_DIR] [--repeat R]

measures characters per second of BPE training, BPE encoding and character encoding on
Tiny Shakespeare, minigrad.text against the naive ways (the textbook BPE trainer, the
merges replayed on every chunk, a list search per character) and a NumPy table lookup,
using benchmarks/bench_tokenizers.py, and writes OUT_DIR/tokenizers_benchmark.png
(default: this script's folder, where the lesson finds it). Bars are medians of R
turns, whiskers the range. No compiled tokenizer library is installed, so none is
drawn. The committed PNG was made on a shared 2-core machine (other programs running).
The test suite runs the script with MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): the
benchmark's --quick texts and one turn, which only proves that it runs.
"""

import argparse
import statistics
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_tokenizers  # noqa: E402
import smoke  # noqa: E402


def main(out_dir, repeat):
    results = bench_tokenizers.run(repeat=repeat, quick=smoke.SMOKE)
    fig, axes = plt.subplots(len(results), 1, figsize=(8, 5.5), constrained_layout=True)
    for ax, (task, rates) in zip(axes, results.items()):
        names = list(rates)[::-1]  # minigrad's on top
        mids = [statistics.median(rates[k]) for k in names]
        errors = [
            [m - min(rates[k]) for m, k in zip(mids, names)],
            [max(rates[k]) - m for m, k in zip(mids, names)],
        ]
        colors = ["C0" if k.startswith("minigrad") else "C7" for k in names]
        ax.barh(names, mids, xerr=errors, capsize=3, color=colors)
        for y, (m, k) in enumerate(zip(mids, names)):
            ax.text(
                max(rates[k]) * 1.15,
                y,
                f"{m / 1e6:.2f} M/s" if m >= 1e6 else f"{m / 1e3:.0f} k/s",
                va="center",
                fontsize=8,
            )
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # only the powers of ten are labelled
        ax.set_xlim(min(mids) / 3, max(mids) * 8)
        ax.set_title(task, fontsize=10, loc="left")
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[-1].set_xlabel("characters per second (log scale), higher is better")
    smoke.stamp(fig)
    fig.suptitle(
        f"Tokenizers on Tiny Shakespeare: median and range of {repeat} turns (shared 2-core "
        "machine)",
        fontsize=10,
    )
    out = Path(out_dir) / "tokenizers_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=Path(__file__).resolve().parent)
    parser.add_argument("--repeat", type=int, default=smoke.pick(3, 1))
    args = parser.parse_args()
    print(main(args.out_dir, args.repeat))
