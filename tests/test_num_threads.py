"""mg.set_num_threads / get_num_threads (and the inter-op pair), as torch's, observed.

No timing: each test sets a count and reads back what the thread pools report
(`mg.threads.info()`: BLAS's threads from threadpoolctl, the matmul split count, and the
kernels' count, which kernels/cpu/workers.py cuts their tasks by), then puts everything
back as it was. This process runs under conftest's OPENBLAS_NUM_THREADS=1, which means
"the user chose BLAS's threads"; the policy's other branch (minigrad's own: one BLAS
thread, large products cut over the cores) is checked in a fresh interpreter without
those variables."""

import json
import os
import subprocess
import sys
import threading

import pytest
import torch
from threadpoolctl import threadpool_info, threadpool_limits

import minigrad as mg
from minigrad.threads import BLAS_VARIABLES

TORCH_API = [
    "torch.set_num_threads",
    "torch.get_num_threads",
    "torch.set_num_interop_threads",
    "torch.get_num_interop_threads",
]

CORES = len(os.sched_getaffinity(0))


@pytest.fixture(autouse=True)
def restore_thread_state():
    """Put BLAS's and minigrad's counts (and torch's) back after each test."""
    blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    saved = (
        mg.threads.MATMUL_SPLIT_THREADS,
        mg.threads._num_threads,
        mg.threads._num_interop_threads,
    )
    torch_threads = torch.get_num_threads()
    yield
    threadpool_limits(max(blas), user_api="blas")
    mg.threads.MATMUL_SPLIT_THREADS, mg.threads._num_threads, mg.threads._num_interop_threads = (
        saved
    )
    torch.set_num_threads(torch_threads)


@pytest.mark.parametrize("n", sorted({1, CORES}))
def test_set_num_threads_reaches_the_kernels_and_blas_and_reads_back_as_torch(n):
    mg.set_num_threads(n)
    torch.set_num_threads(n)
    assert mg.get_num_threads() == torch.get_num_threads() == n
    info = mg.threads.info()
    assert info["num_threads"] == n
    assert info["kernels"] == n
    # the user chose BLAS's count (conftest): BLAS does the products' threading, on n threads
    assert info["blas"] and all(count == n for count in info["blas"])
    assert info["matmul_split"] == 1
    # the kernels' own BLAS (SciPy's) stays on one thread: the kernels share out the work
    from minigrad.kernels.cpu import gemm  # noqa: F401  (loads it)

    assert mg.threads.info()["kernels_blas"] == [1]


def test_the_count_is_for_the_whole_process():
    # torch's count holds for every thread; so does minigrad's (it was per thread when the
    # kernels ran on Numba's pool)
    mg.set_num_threads(1)
    seen = {}
    worker = threading.Thread(target=lambda: seen.update(info=mg.threads.info()))
    worker.start()
    worker.join()
    assert seen["info"]["kernels"] == seen["info"]["num_threads"] == 1


def test_the_kernels_use_the_count(monkeypatch):
    # a kernel's tasks are cut into as many blocks as the count says
    from minigrad.kernels.cpu import workers

    cut = []
    real = workers.run_jobs
    monkeypatch.setattr(workers, "run_jobs", lambda jobs: (cut.append(len(jobs)), real(jobs)))
    x = mg.randn(4, 8, 16, 16)
    for n in (1, 3):
        mg.set_num_threads(n)
        cut.clear()
        mg.nn.functional.max_pool2d(x, 2)
        assert cut and set(cut) == {n}


@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_bad_counts_raise_torchs_error(bad):
    with pytest.raises(RuntimeError):
        torch.set_num_threads(bad)
    with pytest.raises(RuntimeError, match="set_num_threads expects"):
        mg.set_num_threads(bad)
    with pytest.raises(RuntimeError, match="set_num_interop_threads expects"):
        mg.set_num_interop_threads(bad)
    assert mg.get_num_threads() == CORES  # nothing changed


def test_interop_threads_are_kept_and_read_back():
    assert mg.get_num_interop_threads() == 1
    mg.set_num_interop_threads(3)
    assert mg.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="positive integer"):
        torch.set_num_interop_threads(0)  # torch's error for a bad count (it allows one call only)


POLICY_PROBE = """
import json, minigrad as mg
mg.set_num_threads(1)
one = mg.threads.info()
mg.set_num_threads(2)
two = mg.threads.info()
print(json.dumps({"one": one, "two": two}))
"""


@pytest.mark.slow
def test_under_minigrads_policy_the_count_cuts_products_and_blas_keeps_one_thread():
    clean = {k: v for k, v in os.environ.items() if k not in (*BLAS_VARIABLES, "NUMBA_NUM_THREADS")}
    result = subprocess.run(
        [sys.executable, "-c", POLICY_PROBE], env=clean, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout.strip().splitlines()[-1])
    for n, info in ((1, state["one"]), (2, state["two"])):
        assert info["num_threads"] == n and info["matmul_split"] == n
        # one BLAS thread per block
        assert info["blas"] and all(count == 1 for count in info["blas"])
        assert info["kernels"] == n
