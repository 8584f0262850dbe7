"""The benchmark scripts run (tiny settings): a broken script would silently rot."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.mark.slow
@pytest.mark.parametrize(
    "script, args, expect",
    [
        ("bench_autograd.py", ["--repeat", "2", "--threads", "1"], "ratio"),
        ("bench_training.py", ["--epochs", "2", "--threads", "1"], "ratio minigrad / PyTorch"),
        # the cheapest family (erf) and a model without kernels: the script's paths, in seconds
        ("bench_compile.py", ["--repeat", "1", "--families", "erf", "--models", "mlp"], "--model mlp"),
        ("bench_load.py", ["--quick"], "slowdown ratio, minigrad's / PyTorch's"),
        ("bench_transformer.py", ["--quick"], "minigrad / torch-1"),
        ("bench_gpt_shakespeare.py", ["--iters", "20"], "val loss"),
        ("bench_attention_modules.py", ["--quick"], "minigrad: spelled out / kernel"),
        ("bench_positional.py", ["--quick"], "/ RotaryEmbedding"),
        ("bench_tokenizers.py", ["--quick"], "minigrad's speed-up"),
    ],
)
def test_benchmark_script_runs(script, args, expect):
    result = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert expect in result.stdout
