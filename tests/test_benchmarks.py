"""The benchmark scripts run (tiny settings): a broken script would silently rot.

Each script runs as `python benchmarks/SCRIPT ARGS` would, in a child forked from one
server process that has imported PyTorch, minigrad and Numba once (tools/fork_runner.py):
most of a tiny run would otherwise be those imports, again for every script. Scripts
that measure fresh processes or thread settings (bench_load, bench_threads,
bench_compile, bench_gpt_shakespeare) still start those processes themselves.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT / "tools"))
import fork_runner  # noqa: E402  (tools/ is not a package)


@pytest.fixture(scope="module")
def fork_server():
    """One server per test process (each pytest-xdist worker starts its own)."""
    with fork_runner.ForkServer() as server:
        yield server


def run_benchmark(server, tmp_path, script, args, timeout=300):
    """(run, stdout, stderr) of `python benchmarks/script args`."""
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    run = server.run(BENCH / script, args, out, timeout=timeout, err_log=err)
    return run, out.read_text(), err.read_text()


@pytest.mark.slow
@pytest.mark.parametrize(
    "script, args, expect",
    [
        ("bench_autograd.py", ["--repeat", "2", "--threads", "1"], ["ratio"]),
        ("bench_training.py", ["--epochs", "2", "--threads", "1"], ["ratio minigrad / PyTorch"]),
        # the cheapest family (erf) and a model without kernels: the script's paths, in seconds
        (
            "bench_compile.py",
            ["--repeat", "1", "--families", "erf", "--models", "mlp"],
            ["--model mlp"],
        ),
        # the default variants and the one on request, in one run (each is a fresh process)
        (
            "bench_load.py",
            ["--quick", "--variants", "minigrad,minigrad-all,torch,minigrad-unsplit"],
            ["slowdown ratio, minigrad's / PyTorch's", "minigrad / minigrad-unsplit"],
        ),
        ("bench_transformer.py", ["--quick"], ["minigrad / torch-1"]),
        (
            "bench_transformer.py",
            ["--quick", "--cases", "shakespeare", "--threads", "1"],
            ["Shakespeare-char: 6 layers, d 384", "kernel threads 1"],
        ),
        ("bench_gpt_shakespeare.py", ["--quick"], ["val loss"]),
        # the lesson benchmarks (benchmarks/lesson_timing.py): one timed call after the warm-up
        ("bench_linear.py", ["--quick", "--repeat", "1"], ["minigrad/PT"]),
        ("bench_losses.py", ["--quick", "--repeat", "1"], ["composed/fused"]),
        ("bench_losses.py", ["--backward", "--quick", "--repeat", "1"], ["formula / kernel"]),
        ("bench_normalization.py", ["--quick", "--repeat", "1"], ["composed/one"]),
        ("bench_optimizers.py", ["--quick", "--repeat", "1"], ["minigrad/PT"]),
        ("bench_recurrent.py", ["--quick", "--repeat", "1"], ["cells/layer"]),
        # two iterations: a validation loss before, after each and at the end, on blocks of 8
        (
            "bench_char_lstm.py",
            ["--iters", "2", "--hidden", "32", "--block", "8", "--batch", "4"],
            ["time ratio minigrad / PyTorch"],
        ),
        ("bench_attention_modules.py", ["--quick"], ["minigrad: spelled out / kernel"]),
        ("bench_positional.py", ["--quick"], ["/ RotaryEmbedding"]),
        ("bench_gelu.py", ["--quick"], ["/ fused loop"]),
        ("bench_adamw_rotary.py", ["--quick"], ["kernels / references", "parallel"]),
        ("bench_tokenizers.py", ["--quick"], ["minigrad's speed-up"]),
        ("bench_threads.py", ["--quick"], ["two / (2 x one)"]),
        # two copies of the short attention kernels, each compiled (in seconds, tiny case)
        ("bench_versions.py", ["--quick", "--rev", "HEAD"], ["outputs differ by", "working copy"]),
        # the convolution's kernels at HEAD compiled again (seconds), one small case
        (
            "bench_conv_versions.py",
            ["--quick", "--rev", "HEAD", "--cases", "mid"],
            ["working copy / HEAD", "input grad"],
        ),
        # the cold-cache compile measurement (two fresh processes that compile everything
        # again) is left to real runs
        (
            "bench_pool.py",
            ["--quick", "--repeat", "1", "--no-compile-time"],
            ["max_pool2d forward+backward", "avg_pool2d forward+backward", "numba/PT", "target"],
        ),
    ],
)
def test_benchmark_script_runs(script, args, expect, fork_server, tmp_path):
    run, stdout, stderr = run_benchmark(fork_server, tmp_path, script, args)
    assert run["returncode"] == 0, f"{script} {' '.join(args)}: {run}\n{stderr}"
    for words in expect:
        assert words in stdout, stdout


@pytest.mark.slow
def test_cuda_benchmark_runs_on_a_gpu_and_says_so_without_one(fork_server, tmp_path):
    """bench_cuda.py times the CUDA kernels on a real GPU (benchmarks/RESULTS.md has its
    H100 figures); on a machine without one, CI's, it must stop with a clear message."""
    run, stdout, stderr = run_benchmark(
        fork_server, tmp_path, "bench_cuda.py", ["--quick", "--only", "pool"], 600
    )
    if run["returncode"] == 0:
        assert "cuda/torch-cuda" in stdout and "max_pool2d" in stdout, stdout
    else:
        assert "no CUDA GPU here" in stderr, stderr


@pytest.mark.slow
def test_gpu_benchmark_runs_the_cpu_columns_and_says_what_needs_a_gpu(fork_server, tmp_path):
    """bench_gpu.py --quick on every framework this machine has; on one without a GPU (CI's)
    the CUDA columns are left out with the reason, and the goals say 'not measured'. Two of
    the four models: a GPT (the two GPTs differ only in size) and the ResNet (convolutions,
    batch norm; LeNet's PyTorch twin is bench_load's, run above)."""
    args = ["--quick", "--models", "gpt-baby,resnet"]
    run, stdout, stderr = run_benchmark(fork_server, tmp_path, "bench_gpu.py", args)
    assert run["returncode"] == 0, f"{run}\n{stderr}"
    for model in ("gpt-baby", "resnet"):
        assert f"{model:16} minigrad-cpu" in stdout and f"{model:16} torch-cpu" in stdout, stdout
    assert "minigrad CPU / PyTorch CPU" in stdout and "issue #21's goals" in stdout, stdout
    for framework in ("minigrad-cuda", "torch-cuda"):
        # a machine with a GPU: its rows are there
        if f"{framework}: left out, needs a GPU" not in stdout:
            assert f"resnet           {framework}" in stdout, stdout
    if "minigrad-cuda: left out" in stdout:
        assert "not measured (needs minigrad-cuda" in stdout, stdout
