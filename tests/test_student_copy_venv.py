"""A student's copy, installed as its README says into a fresh virtual environment with
nothing but the `student` extra: no PyTorch can be imported there, the lessons' tests
fail with the solutions cut out, and pass once the solutions are put back.

This test uses the network: pip resolves minigrad's dependencies and the
extra from the package index (there is no other way to show that the extra is enough on
its own), and CI reaches the package registries. It is kept quick and steady by using the
pip of the running environment (`pip --python`, no second pip to bootstrap), whose cache
the dev install has just filled, and by skipping the byte-compilation of what it installs.
"""

import os
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

from minigrad.exercises import LESSONS, make
from minigrad.exercises.student_copy import INSTALL

TIMEOUT = 600
EVERY_LESSON = " or ".join(lesson.marker for lesson in LESSONS.values())


def run(command, cwd):
    """Run `command` as a student would in their shell: not on the suite's PYTHONPATH
    (which points at the instructor's checkout) and without user site-packages (which
    could hold a PyTorch)."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    environment["PYTHONNOUSERSITE"] = "1"
    result = subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=TIMEOUT
    )
    return result.returncode, result.stdout + result.stderr


@pytest.mark.slow
def test_a_student_copy_installs_without_torch_and_its_tests_fail_then_pass(tmp_path):
    started = time.perf_counter()
    copy, key = tmp_path / "copy", tmp_path / "key"
    make(copy, "all")
    readme = (copy / "README.md").read_text()
    assert INSTALL in readme and "pytest" in readme and "not PyTorch" in readme

    environment = tmp_path / "venv"
    venv.create(environment, with_pip=False)
    python = environment / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # what the README's `pip install -e ".[student]"` does, from the copy's folder
    code, output = run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-compile",
            "--quiet",
            "-e",
            ".[student]",
        ],
        cwd=copy,
    )
    assert code == 0, f"installing the copy with its student extra failed:\n{output[-3000:]}"

    # from another folder: the installed minigrad is the copy, and there is no torch
    probe = (
        "import importlib.util, minigrad; print(minigrad.__file__); "
        "print(importlib.util.find_spec('torch'))"
    )
    code, output = run([str(python), "-c", probe], cwd=tmp_path)
    assert code == 0, output
    module, torch = output.split()
    assert Path(module).resolve().is_relative_to(copy.resolve()), (
        f"minigrad came from {module}, not the copy"
    )
    assert torch == "None", "torch is importable in the student's environment"

    # -n 0 needs pytest-xdist, which the student extra brings for the -n auto the copy keeps
    tests = [str(python), "-m", "pytest", "-n", "0", "-m", EVERY_LESSON, "-p", "no:cacheprovider"]
    code, output = run(tests, cwd=copy)
    assert code == 1, (
        f"expected failing tests on the student's copy (exit code 1), got {code}:\n{output[-3000:]}"
    )
    for lesson in LESSONS.values():
        assert f"FAILED tests/test_exercise_{lesson.name}.py::" in output, (
            f"no test of lesson {lesson.name} failed"
        )
    assert "NotImplementedError: exercise " in output

    # the student fills every gap: the answer key's files replace the copy's
    make(key, "all", solutions=True)
    for path in (path for lesson in LESSONS.values() for path in lesson.files):
        shutil.copyfile(key / path, copy / path)
    code, output = run(tests, cwd=copy)
    assert code == 0, f"the copy with its solutions back fails its tests:\n{output[-3000:]}"
    assert " passed" in output and "failed" not in output
    print(f"student copy: venv, install and two test runs in {time.perf_counter() - started:.0f} s")
