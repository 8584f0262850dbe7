"""Time GPT.generate with and without the key/value cache, for the GPT lesson.

    python docs/figures/make_gpt_generation_benchmark.py [OUT_DIR]

writes OUT_DIR/gpt_generation_benchmark.png (default: this script's folder, where the lesson finds
it): the time each new token takes against its position in the sequence, for the
default model of `minigrad-train --model gpt` (4 layers, d_model 128) with a longer
context. Without the cache every token runs the model over the whole sequence so far;
with it, only over the new token. The weights are random: the time does not depend on
them. Times are the CPU time of this process (time.process_time), the median of a few
repeats, so that other programs on the machine disturb them little; the legend gives
the tokens per second of each repeat, median (min-max). The committed PNG was made on a
shared 2-core machine with other programs running. (The training step of the same model
is timed against PyTorch's by benchmarks/bench_transformer.py, drawn by
make_transformer_benchmark.py.) The test suite runs the script with
MINIGRAD_FIGURES_SMOKE=1 (docs/figures/smoke.py): a context of 16 tokens, one repeat,
which only proves that it runs.
"""

import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import smoke  # noqa: E402  (docs/figures/smoke.py: the test's smaller setting)

import minigrad as mg  # noqa: E402
from minigrad.models import GPT  # noqa: E402

CONTEXT = smoke.pick(256, 16)
REPEATS = smoke.pick(3, 1)


def step_times(model, use_cache):
    """CPU seconds of each of the CONTEXT - 1 steps of one generation from a 1-token prompt."""
    times = []
    tokens = mg.zeros((1, 1), dtype=mg.int64)
    cache = model.new_cache(1) if use_cache else None
    with mg.no_grad():
        model(tokens, cache=cache)  # the prompt
        for _ in range(CONTEXT - 1):
            start = time.process_time()
            if use_cache:
                logits = model(tokens[:, -1:], cache=cache)
            else:
                logits = model(tokens)
            next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
            times.append(time.process_time() - start)
            tokens = mg.cat([tokens, next_token], dim=1)
    return np.array(times)


def main(out_dir):
    mg.manual_seed(0)
    model = GPT(65, 128, 4, 4, max_len=CONTEXT, pos="rope").eval()
    step_times(model, True)  # compile the kernels before timing
    fig, ax = plt.subplots(figsize=(8, 4.6), constrained_layout=True)
    for use_cache, label in (
        (False, "without the cache: the whole sequence each step"),
        (True, "with the KV cache: one token each step"),
    ):
        runs = [step_times(model, use_cache) for _ in range(REPEATS)]
        times = np.median(runs, axis=0)
        rates = [len(run) / run.sum() for run in runs]
        rate = (
            f"{np.median(rates):.0f} ({min(rates):.0f}-{max(rates):.0f}) tokens/s over "
            f"{CONTEXT} tokens"
        )
        positions = np.arange(2, CONTEXT + 1)
        ax.plot(positions, 1000 * times, label=f"{label}\n{rate}", linewidth=1.5)
        print(f"{label}: {rate}")
    ax.set(
        xlabel="length of the sequence so far (tokens)",
        ylabel="CPU time of the step (ms)",
        title=f"GPT.generate, 4 layers, d_model 128: time per new token, median of {REPEATS} runs\n"
        "(CPU time; shared 2-core machine, other programs running)",
        ylim=(0, None),
    )
    ax.legend(loc="upper left", fontsize=9)
    smoke.stamp(fig)
    path = Path(out_dir) / "gpt_generation_benchmark.png"
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
