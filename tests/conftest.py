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


# The fixtures that take seconds to build, and the pytest-xdist group of the tests that use
# them: a group runs on one worker (--dist loadgroup, pyproject's addopts), so the fixture is
# built once, not once per worker. The site's build is shared by the site's tests and the API
# reference's (which also reads the package with griffe).
SHARED_FIXTURES = {
    "built_site": "site",
    "griffe_package": "site",
    "measured": "api-coverage",
    "runs": "exercise-copies",
    "editions": "student-edition",
    "shakespeare_bpe": "bpe",
}


def pytest_collection_modifyitems(config, items):
    """Put each test that uses a fixture of SHARED_FIXTURES in that fixture's group."""
    for item in items:
        groups = [SHARED_FIXTURES[name] for name in getattr(item, "fixturenames", ()) if name in SHARED_FIXTURES]
        if groups:
            item.add_marker(pytest.mark.xdist_group(groups[0]))


@pytest.fixture(autouse=True)
def keep_the_thread_settings():
    """Give every test the process's thread settings back as it found them: a test that
    runs a benchmark in-process (`--threads 1`) once left Numba on one thread for the
    rest of the session, and a model trained later took another rounding path (the CNN
    of tests/test_train.py reached 97.8% instead of 98.9%)."""
    import numba

    import minigrad as mg

    numba_threads, split = numba.get_num_threads(), mg.threads.MATMUL_SPLIT_THREADS
    yield
    numba.set_num_threads(numba_threads)
    mg.threads.MATMUL_SPLIT_THREADS = split


@pytest.fixture(scope="session")
def site_repo_url():
    """The repository address the test-built site links to."""
    return TEST_REPO_URL


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The documentation site, built once with `mkdocs build --strict` for the tests that
    read it (tests/test_docs.py, tests/test_api_reference.py). The build is spelled out
    here rather than imported from test_docs.py: a conftest that imports a test module
    drags it into every exercise copy (minigrad.exercises copies what tests import)."""
    import subprocess
    import sys
    from pathlib import Path

    site_dir = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        # a repository address, so that the header's repository link is drawn and can be
        # checked (overrides/hooks/repository_link.py); a clone without a web remote has none
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1", MINIGRAD_REPO_URL=TEST_REPO_URL),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return site_dir
