"""The thread policy of minigrad.threads is in effect after `import minigrad`, and yields
to the environment variables a user set.

Each case runs in a fresh interpreter: the policy acts at import, and this test process
has long imported minigrad (with conftest's OPENBLAS_NUM_THREADS=1, which the policy
respects, so it tells nothing here).
"""

import json
import os
import subprocess
import sys

import pytest

from minigrad.threads import BLAS_VARIABLES

# in the child: make BLAS start on 2 threads whatever the machine, as OpenBLAS does by itself
# on a 2-core one, then import minigrad and report what it left in effect
PROBE = """
import json, os
if os.environ.get("PROBE_MINIGRAD_FIRST"):  # a program whose first import is minigrad
    import minigrad
import numpy
from threadpoolctl import threadpool_info, threadpool_limits
if os.environ.get("PROBE_BLAS_BEFORE"):
    threadpool_limits(int(os.environ["PROBE_BLAS_BEFORE"]), user_api="blas")
before = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
import minigrad
print(json.dumps({
    "blas_before": before,
    "blas": [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"],
    "kernels": minigrad.threads.info()["kernels"],
    "matmul_split": minigrad.threads.MATMUL_SPLIT_THREADS,
}))
"""


def probe(**env):
    """What a fresh `import minigrad` leaves in effect, with only `env` of the thread variables
    set."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in (*BLAS_VARIABLES, "NUMBA_THREADING_LAYER", "NUMBA_NUM_THREADS")
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_import_sets_one_blas_thread_and_kernels_on_every_core():
    # NumPy imported first with 2 BLAS threads: an environment variable set by minigrad could
    # no longer act, the limit must be set on the loaded library
    state = probe(PROBE_BLAS_BEFORE="2")
    assert state["blas_before"] and all(n == 2 for n in state["blas_before"]), state
    assert state["blas"] and all(n == 1 for n in state["blas"]), state
    assert state["kernels"] == len(os.sched_getaffinity(0))  # kernels: every core
    assert state["matmul_split"] == len(os.sched_getaffinity(0))  # large products: every core


@pytest.mark.slow
def test_import_minigrad_first_sets_one_blas_thread():
    # minigrad imported before NumPy: the policy must load NumPy's BLAS before limiting it
    # (threadpoolctl changes only libraries already loaded)
    state = probe(PROBE_MINIGRAD_FIRST="1")
    assert state["blas"] and all(n == 1 for n in state["blas"]), state


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS caps its threads at the core count")
@pytest.mark.parametrize("variable", ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"])
def test_user_blas_threads_are_respected(variable):
    state = probe(**{variable: "2"})
    assert state["blas"] and all(n == 2 for n in state["blas"]), state
    assert state["matmul_split"] == 1  # BLAS threads chosen by the user: minigrad cuts no product


@pytest.mark.slow
def test_numba_num_threads_still_sets_the_kernels_threads():
    state = probe(NUMBA_NUM_THREADS="1")
    assert state["kernels"] == 1


def test_info_reports_the_policy():
    import minigrad as mg

    info = mg.threads.info()
    # this process runs under conftest's OPENBLAS_NUM_THREADS=1, which the policy keeps
    assert info["blas"] and all(n == 1 for n in info["blas"])
    cores = len(os.sched_getaffinity(0))
    assert info["kernels"] == int(os.environ.get("NUMBA_NUM_THREADS", cores))
    assert info["matmul_split"] == 1  # the user (conftest) chose BLAS's threads
