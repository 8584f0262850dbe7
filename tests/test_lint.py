"""ruff is part of the test command: lint and format are checked with the tests."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args):
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize(
    "args", [("check", "."), ("format", "--check", ".")], ids=["check", "format"]
)
def test_ruff(args):
    result = _ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr
