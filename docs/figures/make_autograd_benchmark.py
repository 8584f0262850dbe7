"""Draw the autograd lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_autograd_benchmark.py [OUT_DIR] [--repeat R]

runs benchmarks/bench_autograd.py's two cases, minigrad against PyTorch (CPU, 2 threads):
(a) a chain of 1,000 elementwise ops on 16 numbers, forward + backward, drawn as the
cost of one op (the time of the chain / 1,000): almost nothing but building and walking
graph nodes; (b) one forward + backward of a 784-256-128-10 MLP written with raw tensor
ops, where the matrix products dominate. Writes OUT_DIR/autograd_benchmark.png (default:
this script's folder, where the lesson finds it). The committed PNG was made on the
2-core machine of benchmarks/RESULTS.md; other machines give other times. The test
suite runs the script with MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one
repeat, which only proves that it runs.
"""

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_autograd  # noqa: E402
import smoke  # noqa: E402


def main(out_dir, repeat):
    (_, chain_mg, chain_pt, _), (_, mlp_mg, mlp_pt, _) = bench_autograd.run(
        repeat=repeat, threads=2
    )
    per_op = 1e6 / bench_autograd.CHAIN_OPS
    panels = [
        (
            "one elementwise op on 16 numbers\n(forward + backward), µs",
            chain_mg * per_op,
            chain_pt * per_op,
        ),
        ("MLP 784-256-128-10, batch 64\n(forward + backward), ms", mlp_mg * 1e3, mlp_pt * 1e3),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), constrained_layout=True)
    for ax, (title, ours, theirs) in zip(axes, panels):
        bars = ax.bar(["minigrad", "PyTorch"], [ours, theirs], color=["tab:blue", "tab:gray"])
        ax.bar_label(bars, fmt="%.2f")
        ax.set_title(title, fontsize=10)
        ax.set_ylim(0, 1.2 * max(ours, theirs))
        ax.text(0.5, 0.92, f"ratio {ours / theirs:.2f}x", transform=ax.transAxes, ha="center")
    fig.suptitle(
        "The cost of the graph: minigrad's autograd against PyTorch (CPU, median)", fontsize=11
    )
    smoke.stamp(fig)
    out = Path(out_dir) / "autograd_benchmark.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=str(Path(__file__).resolve().parent))
    parser.add_argument("--repeat", type=int, default=smoke.pick(20, 1))
    args = parser.parse_args()
    main(args.out_dir, args.repeat)
