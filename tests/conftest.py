"""Test-session settings.

The tests multiply small matrices; on CI's 2 cores a multi-threaded BLAS only adds
thread hand-off (and, with other processes running, spinning threads that slow every
product down by 10-100x). One BLAS thread keeps the suite's time steady. This must be
set before NumPy is first imported, which is why it lives at the top of conftest.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")


import pytest  # noqa: E402  (after the thread settings above, which must come first)

TEST_REPO_URL = "https://example.org/course/minigrad"  # the repository link of the test-built site


@pytest.fixture(autouse=True)
def keep_the_thread_settings():
    """Give every test the process's thread settings back as it found them: a test that
    runs a benchmark in-process (`--threads 1`) once left Numba on one thread for the
    rest of the session, and a model trained later took another rounding path (the CNN
    of tests/test_train.py reached 97.8% instead of 98.9%)."""
    import minigrad as mg

    threads, split = mg.threads._num_threads, mg.threads.MATMUL_SPLIT_THREADS
    yield
    mg.threads._num_threads, mg.threads.MATMUL_SPLIT_THREADS = threads, split


@pytest.fixture
def no_gpu(monkeypatch):
    """This process as a machine without a GPU sees it (CuPy missing), whatever the machine."""
    from minigrad.cuda import runtime

    monkeypatch.setattr(runtime, "_simulated", False)
    monkeypatch.setattr(runtime, "_looked", True)
    monkeypatch.setattr(runtime, "_module", None)
    monkeypatch.setattr(
        runtime, "_why_not", 'CuPy is not installed (pip install "minigrad[cuda]", ...)'
    )
    monkeypatch.setattr(runtime, "in_use", False)  # as in a process that never made a CUDA tensor


REAL_GPU = os.environ.get("MINIGRAD_TEST_REAL_GPU") == "1"
"""`MINIGRAD_TEST_REAL_GPU=1 pytest tests/test_cuda_tensors_*.py`, on a machine with an NVIDIA
GPU and CuPy, runs the simulated-GPU tests on the real GPU (tests/gpu/real_gpu.py)."""


@pytest.fixture
def simulated_gpu(monkeypatch):
    """A simulated GPU for the test (minigrad/cuda/simulator.py): `device="cuda"` makes
    tensors whose arrays obey CuPy's rules in host memory. Undone after the test.

    With MINIGRAD_TEST_REAL_GPU=1 it is the real GPU instead, through a stand-in with the
    simulator's test hooks (`forbid_transfers()`, `transfers`): the same tests then check
    CuPy on the hardware."""
    if REAL_GPU:
        import importlib

        # imported by name: a student's exercise copy takes along every module of tests/
        # that conftest imports (minigrad/exercises/student_copy.py), and has no GPU tests
        return importlib.import_module("tests.gpu.real_gpu").real_gpu(monkeypatch)
    from minigrad.cuda import runtime, simulator

    monkeypatch.setattr(runtime, "_simulated", True)
    monkeypatch.setattr(runtime, "_looked", True)
    monkeypatch.setattr(runtime, "_module", simulator)
    monkeypatch.setattr(runtime, "_generator", {"rng": None, "seed": None})
    simulator.transfers.update(to_host=0, to_device=0)
    return simulator


@pytest.fixture(scope="session")
def site_repo_url():
    """The repository address the test-built site links to."""
    return TEST_REPO_URL


def shared_folder(tmp_path_factory):
    """A folder of this test run that every pytest-xdist worker sees: the parent of the
    workers' own temporary folders (without xdist, the run's temporary folder itself)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The documentation site, built once with `mkdocs build --strict` for the tests that
    read it (tests/test_docs.py, test_api_reference.py, test_site_offline.py,
    test_tutorials.py). Once per run, not once per worker: the first worker to ask builds
    it under a lock, the others wait for it and read its outcome (a failed build fails
    them all with its output). The build is spelled out here rather than imported from
    test_docs.py: a conftest that imports a test module drags it into every exercise copy
    (minigrad.exercises copies what tests import)."""
    import fcntl
    import subprocess
    import sys
    from pathlib import Path

    shared = shared_folder(tmp_path_factory)
    site_dir, outcome = shared / "site", shared / "site.outcome"
    with open(shared / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not outcome.exists():
            result = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
                cwd=Path(__file__).resolve().parents[1],
                capture_output=True,
                text=True,
                # a repository address, so that the header's repository link is drawn and can be
                # checked (overrides/hooks/repository_link.py); a clone without a web remote has
                # none
                env=dict(os.environ, NO_MKDOCS_2_WARNING="1", MINIGRAD_REPO_URL=TEST_REPO_URL),
            )
            outcome.write_text("built" if result.returncode == 0 else result.stdout + result.stderr)
    built = outcome.read_text()
    assert built == "built", built
    return site_dir
