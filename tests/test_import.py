"""What `import minigrad` makes reachable, and what it must not import.

Run in a fresh interpreter, so that what other tests imported does not count. How long
the import takes is measured by benchmarks/bench_import.py, not here.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# attribute chains that work right after `import torch`
SUBPACKAGES = [
    "nn",
    "nn.functional",
    "nn.init",
    "nn.parallel",
    "nn.parallel.DataParallel",
    "optim",
    "optim.lr_scheduler",
    "autograd",
    "autograd.grad",
    "utils",
    "utils.data",
    "utils.data.DataLoader",
    "backends",
    "backends.cudnn",
    "backends.mps",
    "backends.cuda.matmul",
    "cuda",
    "cuda.is_available",
    "accelerator",
    "distributed",
    "distributed.is_available",
]

# each takes longer to import than minigrad itself and is not needed to use it
HEAVY = ["numba", "matplotlib", "torch", "scipy", "pandas"]


def _fresh_import(package):
    code = f"""
import json, sys
import {package} as m

def reachable(chain):
    obj = m
    for name in chain.split("."):
        if not hasattr(obj, name):
            return False
        obj = getattr(obj, name)
    return True

print(json.dumps({{"reachable": [c for c in {SUBPACKAGES!r} if reachable(c)],
                  "heavy": [h for h in {HEAVY!r} if h in sys.modules]}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def after_import_minigrad():
    return _fresh_import("minigrad")


def test_subpackages_are_reachable_as_after_import_torch(after_import_minigrad):
    assert _fresh_import("torch")["reachable"] == SUBPACKAGES  # the oracle: torch has them all
    assert after_import_minigrad["reachable"] == SUBPACKAGES


def test_import_minigrad_imports_no_heavy_package(after_import_minigrad):
    assert after_import_minigrad["heavy"] == []
