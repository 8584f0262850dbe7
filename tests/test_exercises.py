"""Exercise mode (minigrad.exercises): for every lesson, the student's copy fails its
lesson's tests with the hints, and the answer key passes them and runs every region.

Each copy is tested as a student would run it: a separate Python process, started in
the copy with only the copy on PYTHONPATH, running `python -m pytest -m lesson_<name>`.
The processes run a few at a time. (tests/test_student_copy_venv.py installs a copy with
its `student` extra into a fresh environment, as the copy's README says.)
"""

import ast
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from minigrad.exercises import LESSONS, find_regions, make, marked_tests
from minigrad.exercises.__main__ import main
from minigrad.exercises.lessons import lesson_regions
from minigrad.exercises.regions import exercise_message, without_solutions
from minigrad.exercises.student_copy import INSTALL

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600


def run_in(copy, *args, env=None):
    """Run `python *args` inside `copy`, with only `copy` on the Python path."""
    environment = {**os.environ, "PYTHONPATH": str(copy), **(env or {})}
    result = subprocess.run(
        [sys.executable, *args],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    return result.returncode, result.stdout + result.stderr


def run_tests(copy, marker_expression, env=None):
    # -n 0: one process (the copy keeps the -n auto of pyproject; workers would only add start-up
    # time)
    return run_in(
        copy,
        "-m",
        "pytest",
        "-n",
        "0",
        "-m",
        marker_expression,
        "-q",
        "-p",
        "no:cacheprovider",
        env=env,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{lesson: (exit code, output)} of each lesson's tests on its student copy, and
    "key": (exit code, output, trace lines) of every lesson's tests on the traced answer key."""
    jobs = {}
    for name in LESSONS:
        copy = tmp_path_factory.mktemp(f"student_{name}")
        make(copy, name)
        jobs[name] = (run_tests, copy, f"lesson_{name}")
    key = tmp_path_factory.mktemp("answer_key")
    make(key, "all", solutions="trace")
    trace = key / "trace.txt"
    every_lesson = " or ".join(lesson.marker for lesson in LESSONS.values())
    jobs["key"] = (run_tests, key, every_lesson, {"MINIGRAD_EXERCISES_TRACE": str(trace)})
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(*job) for name, job in jobs.items()}
        results = {name: future.result() for name, future in futures.items()}
    lines = trace.read_text().splitlines() if trace.exists() else []
    results["key"] = (*results["key"], lines)
    return results


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LESSONS))
def test_the_student_copy_fails_the_lessons_tests_with_its_hints(runs, name):
    code, output = runs[name]
    assert code == 1, f"expected failing tests (exit code 1), got {code}:\n{output[-3000:]}"
    assert "FAILED tests/" in output, output[-3000:]
    hints = [
        region.hint
        for regions in lesson_regions(ROOT, LESSONS[name]).values()
        for region in regions
    ]
    raised = [
        hint for hint in hints if f"NotImplementedError: {exercise_message(name, hint)}" in output
    ]
    assert raised, f"no NotImplementedError with a hint of lesson {name} in:\n{output[-3000:]}"


@pytest.mark.slow
def test_the_answer_key_passes_every_lessons_tests(runs):
    code, output, _ = runs["key"]
    assert code == 0, output[-3000:]  # 0: tests ran (5 would be "none collected") and all passed


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LESSONS))
def test_each_region_is_reached_by_its_lessons_tests(runs, name):
    """Every region runs during a test marked with its own lesson (in the answer key,
    where each region reports the test that was running)."""
    lesson = LESSONS[name]
    tests = set(marked_tests(ROOT, lesson))
    reached = set()
    for line in runs["key"][2]:
        lesson_name, region, current_test = line.split(" ", 2)
        test = re.sub(r"\[.*$|\s+\((setup|call|teardown)\)$", "", current_test)
        if lesson_name == name and test in tests:
            reached.add(region)
    regions = {
        region.name for regions in lesson_regions(ROOT, lesson).values() for region in regions
    }
    assert regions - reached == set(), f"regions of lesson {name} no test of the lesson reaches"


def test_the_copy_imports_and_runs_without_the_solutions(tmp_path):
    """With every region taken out, the package still imports (forward passes work:
    only the gaps raise), and it is the copy that is imported."""
    make(tmp_path, "all")
    assert not list(tmp_path.rglob("__pycache__")), (
        "compiled files (and Numba's cache) must not be copied"
    )
    assert not list(tmp_path.rglob("*.nbi")) and not list(tmp_path.rglob("*.nbc"))
    library = [p for p in (tmp_path / "minigrad").rglob("*.py") if "exercises" not in p.parts]
    assert not [p for p in library if "BEGIN SOLUTION" in p.read_text()], (
        "a region was left in the copy"
    )
    modules = sorted(
        {
            path.removesuffix(".py").replace("/", ".")
            for lesson in LESSONS.values()
            for path in lesson.files
        }
    )
    program = (
        f"import importlib, minigrad as mg\nfor m in {modules!r}: importlib.import_module(m)\n"
        "x = mg.randn(2, 3, requires_grad=True)\n"
        "print(mg.__file__, float((x * 2).softmax(1).sum()))"
    )
    code, output = run_in(tmp_path, "-c", program)
    assert code == 0, output
    path, total = output.split()
    assert Path(path).resolve().is_relative_to(tmp_path.resolve())
    assert float(total) == pytest.approx(2.0)


def test_each_gap_raises_its_hint_at_the_regions_indentation():
    source = (
        "def f(x):\n    y = x\n    # BEGIN SOLUTION hint: double it\n    y = y * 2\n\n    # "
        "END SOLUTION\n    return y\n"
    )
    regions = find_regions(source)
    assert [(r.begin, r.end, r.indent, r.hint, r.name) for r in regions] == [
        (3, 6, "    ", "double it", "f")
    ]
    student = without_solutions(source, regions, "demo")
    assert (
        student
        == "def f(x):\n    y = x\n    raise NotImplementedError('exercise demo: double it')\n    "
        "return y\n"
    )
    namespace = {}
    exec(student, namespace)
    with pytest.raises(NotImplementedError, match="exercise demo: double it"):
        namespace["f"](1)


@pytest.mark.parametrize(
    "source, words",
    [
        ("# BEGIN SOLUTION hint: a\nx = 1\n", "has no END SOLUTION"),
        ("x = 1\n# END SOLUTION\n", "without a BEGIN"),
        (
            "# BEGIN SOLUTION hint: a\n# BEGIN SOLUTION hint: b\nx = 1\n# END SOLUTION\n# END "
            "SOLUTION\n",
            "inside the region",
        ),
        ("# BEGIN SOLUTION\nx = 1\n# END SOLUTION\n", "needs a hint"),
        (
            "if x:\n    # BEGIN SOLUTION hint: a\n    x = 1\n# END SOLUTION\n",
            "not indented like its BEGIN",
        ),
        ("# BEGIN SOLUTION hint: a\n# END SOLUTION\n", "empty"),
    ],
)
def test_unbalanced_or_malformed_markers_are_refused(source, words):
    with pytest.raises(ValueError, match=words):
        find_regions(source, "f.py")


def test_the_markers_in_the_library_are_balanced_and_owned_by_one_lesson():
    """Every file of the package parses (BEGIN/END balanced, not nested, with hints);
    the files with regions are exactly the lessons' files, each in one lesson."""
    with_regions = {}
    for path in sorted((ROOT / "minigrad").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("minigrad/exercises/"):
            continue  # it names the markers in its docstrings
        regions = find_regions(path.read_text(), relative)
        if regions:
            with_regions[relative] = len(regions)
    owned = [path for lesson in LESSONS.values() for path in lesson.files]
    assert len(owned) == len(set(owned)), "a file belongs to two lessons"
    assert sorted(with_regions) == sorted(owned)


def test_every_lesson_has_marked_tests_and_a_registered_marker():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for lesson in LESSONS.values():
        assert marked_tests(ROOT, lesson), f"no test is marked {lesson.marker}"
        assert f'"{lesson.marker}:' in pyproject, (
            f"{lesson.marker} is not registered in pyproject.toml"
        )


def test_list_names_every_lesson_its_regions_and_tests(capsys):
    assert main(["--list"]) == 0
    listing = capsys.readouterr().out
    for lesson in LESSONS.values():
        assert f"\n{lesson.name}: " in listing
        assert f"pytest -m {lesson.marker}" in listing
        for path, regions in lesson_regions(ROOT, lesson).items():
            assert f"{path}: {', '.join(r.name for r in regions)}" in listing
        for test in marked_tests(ROOT, lesson):
            assert test in listing


def test_the_exercises_page_shows_what_list_prints(capsys):
    """docs/exercises.md shows `--list`'s output: it must be what the command prints now
    (it went stale twice, when regions moved)."""
    assert main(["--list"]) == 0
    listing = capsys.readouterr().out.strip()
    page = (ROOT / "docs" / "exercises.md").read_text()
    start = page.index("Lessons (python -m minigrad.exercises make")
    assert page[start : page.index("```", start)].strip() == listing


def test_make_copies_only_the_lessons_tests_and_writes_a_readme(tmp_path, capsys):
    assert main(["make", str(tmp_path / "copy"), "--lesson", "conv"]) == 0
    printed = capsys.readouterr().out
    assert "python -m pytest -m lesson_conv" in printed and INSTALL in printed
    copy = tmp_path / "copy"
    assert sorted(p.name for p in (copy / "tests").iterdir()) == [
        "__init__.py",
        "conftest.py",
        "finite_differences.py",
        "test_exercise_conv.py",
    ]
    assert 'minigrad.backends.use("numpy")' in (copy / "tests" / "conftest.py").read_text()
    readme = (copy / "README.md").read_text()
    assert "python -m pytest -m lesson_conv" in readme and "im2col" in readme
    assert INSTALL in readme and "not PyTorch" in readme
    # only the conv lesson's regions are taken out
    assert "NotImplementedError" in (copy / "minigrad/kernels/reference/conv.py").read_text()
    assert (copy / "minigrad/ops/linalg.py").read_text() == (
        ROOT / "minigrad/ops/linalg.py"
    ).read_text()


def test_an_unknown_lesson_is_a_clear_error(tmp_path, capsys):
    assert main(["make", str(tmp_path / "copy"), "--lesson", "convolution"]) == 2
    error = capsys.readouterr().err
    assert "unknown lesson 'convolution'" in error and "conv" in error and "all" in error
    with pytest.raises(ValueError, match="unknown lesson"):
        make(tmp_path / "other", "nope")


def test_make_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        make(tmp_path, "conv")


def imported_modules(path):
    """The top-level names of the modules that the Python file `path` imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def requirement_names(text):
    """The distribution names of a TOML list of requirement strings ("pytest>=8", ...)."""
    return {
        re.match(r"[A-Za-z0-9_.-]+", item).group().lower()
        for item in re.findall(r'"([^"]+)"', text)
    }


def test_the_copys_tests_need_only_the_student_extra(tmp_path):
    """What a copy's tests import is the standard library, the copy's own packages, and
    the distributions that `pip install -e ".[student]"` brings: minigrad's dependencies
    and the `student` extra, which has no PyTorch. (The names these distributions are
    imported by are their own: numpy, numba, scipy, matplotlib, threadpoolctl, pytest.)"""
    pyproject = (ROOT / "pyproject.toml").read_text()
    dependencies = requirement_names(
        re.search(r"^dependencies = \[(.*?)^\]", pyproject, re.M | re.S)[1]
    )
    extra = requirement_names(re.search(r"^student = \[(.*?)\]", pyproject, re.M | re.S)[1])
    assert "pytest" in extra and "torch" not in extra and "torch" not in dependencies
    make(tmp_path, "all")
    allowed = set(sys.stdlib_module_names) | {"minigrad", "tests"} | dependencies | extra
    for path in sorted((tmp_path / "tests").glob("*.py")):
        assert imported_modules(path) <= allowed, (
            f"{path.name} imports {imported_modules(path) - allowed}"
        )
    assert "torch" not in allowed
