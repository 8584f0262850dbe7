"""Time and memory of causal attention against the sequence length, for the attention
lesson: minigrad's NumPy reference, its Numba kernel and PyTorch (CPU).

    python docs/figures/make_attention_benchmark.py [OUT_DIR]

writes OUT_DIR/attention_benchmark.png (default: this script's folder, where the lesson
finds it). The numbers come from benchmarks/bench_attention.py's own functions: the
median time of forward + backward (B 1, H 4, d 64, float32, all cores), and the peak
extra resident memory of one forward + backward, each framework in a fresh process.
The committed PNG is made at these settings; the test suite runs the script with
MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): two short sequences and one repeat,
which only proves that it runs.
"""

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_attention as bench  # noqa: E402
import smoke  # noqa: E402

B, H, D = 1, 4, 64
TIME_LENGTHS = smoke.pick([128, 256, 512, 1024, 2048], [16, 32])
MEMORY_LENGTHS = smoke.pick([512, 1024, 2048, 4096], [16, 32])
REPEAT = smoke.pick(3, 1)
STYLE = {  # framework: (label, colour, marker)
    "numpy": ("minigrad reference (NumPy)", "tab:gray", "s"),
    "numba": ("minigrad Numba kernel", "tab:blue", "o"),
    "torch": ("PyTorch", "tab:orange", "^"),
}


def measure():
    times = {name: [] for name in STYLE}
    for T in TIME_LENGTHS:
        results = bench.time_case((B, H, T, D), repeat=REPEAT, passes=(1,))
        for name in STYLE:
            times[name].append(results[name][1])  # forward + backward, ms
    cases = [(B, H, T, D) for T in MEMORY_LENGTHS]
    memory = {}
    for name in STYLE:  # MiB, at least 0.1 for the log scale
        memory[name] = [
            max(0.1, m["rss"] / 2**20) for m in bench.peak_memory(name, os.cpu_count(), cases)
        ]
    return times, memory


def main(out_dir):
    import torch

    torch.set_num_threads(os.cpu_count())
    times, memory = measure()
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    for name, (label, colour, marker) in STYLE.items():
        ax_t.plot(TIME_LENGTHS, times[name], marker=marker, color=colour, label=label)
        ax_m.plot(MEMORY_LENGTHS, memory[name], marker=marker, color=colour, label=label)
    matrix = [H * T * T * 4 / 2**20 for T in MEMORY_LENGTHS]
    ax_m.plot(MEMORY_LENGTHS, matrix, ":", color="0.4", label="one (H, T, T) float32 matrix")
    ax_t.set_title(f"causal attention, forward + backward (B{B}, H{H}, d{D})")
    ax_t.set_ylabel("median time (ms)")
    ax_m.set_title("peak extra memory of forward + backward")
    ax_m.set_ylabel("MiB (resident memory growth)")
    for ax in (ax_t, ax_m):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length T")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    smoke.stamp(fig)
    out = Path(out_dir) / "attention_benchmark.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent))
