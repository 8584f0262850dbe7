"""Run the CUDA kernel tests (tests/cuda) on Numba's CUDA simulator, in a fresh process:
NUMBA_ENABLE_CUDASIM must be set before Numba is first imported. The kernels take the
arrays of CUDA tensors, which live there on minigrad's simulated GPU
(MINIGRAD_CUDA_SIMULATOR=1)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_cuda_kernels_pass_on_the_simulator():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "MINIGRAD_CUDA_SIMULATOR": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
            "-rs",  # the skips, with their reasons, in the summary
            str(ROOT / "tests" / "cuda"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    tail = result.stdout[-4000:] + result.stderr[-2000:]
    assert result.returncode == 0, tail
    assert " passed" in result.stdout and "no tests ran" not in result.stdout, tail
    # the tests of the simulator's own fixes skip outside it: here they must have run
    assert "a fix of Numba's CUDA simulator" not in result.stdout, tail
