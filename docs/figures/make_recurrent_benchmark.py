"""Draw the recurrent layers lesson's benchmark figure by running the benchmark itself.

    python docs/figures/make_recurrent_benchmark.py [OUT_DIR] [--repeat R] [--machine TEXT]

times one RNN, LSTM and GRU layer forward + backward (64 steps, batch 32, input 64,
hidden 128, float32, one thread): minigrad's layer (one Function per sequence), a loop
over minigrad's cell (Tensor ops, autograd's backpropagation through time), PyTorch's
layer and a loop over PyTorch's cell, using benchmarks/bench_recurrent.py, and writes
OUT_DIR/recurrent_benchmark.png (default: this script's folder, where the lesson finds
it): one panel per layer, the bar at the median time and the whisker between the
quartiles of the repeats. The figures change from machine to machine; --machine says in
the title where they were measured.
The committed PNG is made at the default --repeat; the test suite runs the script with
MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): one repeat, which only proves that it runs.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "benchmarks"))
sys.path.insert(0, str(HERE))
import bench_recurrent  # noqa: E402
import lesson_bars  # noqa: E402

LABELS = {
    "minigrad": "minigrad nn.RNN / LSTM / GRU\n(one Function, BPTT by hand)",
    "minigrad_cells": "minigrad, a loop over the cell\n(autograd's BPTT)",
    "torch": "PyTorch\nnn.RNN / LSTM / GRU",
    "torch_cells": "PyTorch, a loop\nover the cell",
}
COLORS = {"minigrad": "C0", "minigrad_cells": "C9", "torch": "C2", "torch_cells": "C8"}


def main(out_dir, repeat, machine):
    results = bench_recurrent.run(repeat=repeat, threads=1)
    bench_recurrent.report(results, 1)  # the numbers behind the figure, for the lesson's table
    keys = bench_recurrent.IMPLEMENTATIONS
    titles = [f"{row['case']}" for row in results]
    T, B, I, H = results[0]["shape"]
    return lesson_bars.panels(
        results,
        keys,
        LABELS,
        COLORS,
        titles,
        f"One recurrent layer forward + backward, {T} steps, batch {B}, input {I}, hidden {H}, "
        f"float32, 1 thread; {machine}",
        Path(out_dir) / "recurrent_benchmark.png",
        figsize=(11, 4.8),
        legend_columns=2,
    )


if __name__ == "__main__":
    print(main(*lesson_bars.command_line(__doc__)))
