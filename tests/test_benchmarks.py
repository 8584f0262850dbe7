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
        (
            "bench_load.py",
            ["--quick", "--workloads", "mlp", "--variants", "minigrad,minigrad-unsplit"],
            "minigrad / minigrad-unsplit",
        ),
        ("bench_transformer.py", ["--quick"], "minigrad / torch-1"),
        ("bench_gpt_shakespeare.py", ["--iters", "20"], "val loss"),
        ("bench_linear.py", ["--quick"], "minigrad/PT"),
        ("bench_losses.py", ["--quick"], "composed/fused"),
        ("bench_normalization.py", ["--quick"], "composed/one"),
        ("bench_optimizers.py", ["--quick"], "minigrad/PT"),
        ("bench_recurrent.py", ["--quick"], "cells/layer"),
        ("bench_char_lstm.py", ["--iters", "8", "--hidden", "32"], "time ratio minigrad / PyTorch"),
        ("bench_attention_modules.py", ["--quick"], "minigrad: spelled out / kernel"),
        ("bench_positional.py", ["--quick"], "/ RotaryEmbedding"),
        ("bench_gelu.py", ["--quick"], "/ fused loop"),
        ("bench_tokenizers.py", ["--quick"], "minigrad's speed-up"),
        ("bench_threads.py", ["--quick"], "two / (2 x one)"),
    ],
)
def test_benchmark_script_runs(script, args, expect):
    result = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert expect in result.stdout


@pytest.mark.slow
def test_cuda_benchmark_runs_on_a_gpu_and_says_so_without_one():
    """bench_cuda.py times the CUDA kernels on a real GPU (benchmarks/RESULTS.md has its
    H100 figures); on a machine without one, CI's, it must stop with a clear message."""
    result = subprocess.run(
        [sys.executable, str(BENCH / "bench_cuda.py"), "--quick", "--only", "pool"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode == 0:
        assert "cuda/torch-cuda" in result.stdout and "max_pool2d" in result.stdout, result.stdout
    else:
        assert "no CUDA GPU here" in result.stderr, result.stderr
