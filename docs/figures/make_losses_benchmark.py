"""Draw the losses lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_losses_benchmark.py [OUT_DIR] [--repeat R] [--machine TEXT]

times the mean cross-entropy forward + backward (float32, one thread) for a few
(batch, classes) sizes: minigrad's fused `F.cross_entropy`, the same loss composed from
small minigrad ops, PyTorch's `F.cross_entropy` and the composition in PyTorch, using
benchmarks/bench_losses.py, and writes OUT_DIR/losses_benchmark.png (default: this
script's folder, where the lesson finds it): one panel per size, the bar at the median
time and the whisker between the quartiles of the repeats. The figures change from
machine to machine; --machine says in the title where they were measured.
The committed PNG is made at the default --repeat; the test suite runs the script with
MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one repeat, which only proves that it runs.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "benchmarks"))
sys.path.insert(0, str(HERE))
import bench_losses  # noqa: E402
import lesson_bars  # noqa: E402

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
    titles = [f"batch {row['size'][0]}, {row['size'][1]} classes" for row in results]
    return lesson_bars.panels(
        results,
        keys,
        LABELS,
        COLORS,
        titles,
        f"Cross-entropy forward + backward, float32, 1 thread; {machine}",
        Path(out_dir) / "losses_benchmark.png",
        figsize=(11, 4.6),
        legend_columns=len(keys),
    )


if __name__ == "__main__":
    print(main(*lesson_bars.command_line(__doc__)))
