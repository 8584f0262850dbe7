"""Draw the losses lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_normalization_benchmark.py [OUT_DIR] [--repeat R] [--machine TEXT]

times layer norm and batch norm (training mode) forward + backward (float32, one
thread): minigrad's one-Function `F.layer_norm` / `F.batch_norm`, the same normalization
composed from small minigrad ops, PyTorch's ops and the composition in PyTorch, using
benchmarks/bench_normalization.py, and writes OUT_DIR/normalization_benchmark.png (default: this
script's folder, where the lesson finds it): one panel per case, the bar at the median
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
import bench_normalization  # noqa: E402
import lesson_bars  # noqa: E402

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
    titles = [f"{row['case']}, input {'x'.join(map(str, row['shape']))}" for row in results]
    return lesson_bars.panels(
        results,
        keys,
        LABELS,
        COLORS,
        titles,
        f"Normalization forward + backward, float32, 1 thread; {machine}",
        Path(out_dir) / "normalization_benchmark.png",
        figsize=(9, 4.6),
        legend_columns=2,
    )


if __name__ == "__main__":
    print(main(*lesson_bars.command_line(__doc__)))
