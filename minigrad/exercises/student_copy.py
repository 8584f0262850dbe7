"""Writing a student's copy: the package with a lesson's solutions taken out, the tests
that check them, and a README saying how to run those tests.

The copy is a small repository of its own:

    OUT_DIR/
      minigrad/          the whole package; each of the lesson's regions replaced by
                         raise NotImplementedError("exercise <lesson>: <hint>")
      tests/             the lesson's tests (tests/test_exercise_<lesson>.py), what they
                         import from tests/ (finite_differences.py), and conftest.py
      pyproject.toml     as in the repository: it registers the lesson markers, and its
                         `student` extra installs what those tests need (pytest)
      README.md          how to install the copy, what to edit and how to run the tests

The lessons' tests check the student's code against finite differences and NumPy, and
import no PyTorch: `pip install -e ".[student]"` in the copy is all a student installs
(minigrad's own dependencies and pytest), not the dev extra with its PyTorch.

Compiled files are not copied (no __pycache__, so no stale bytecode and none of
Numba's cache files, which hold compiled kernels of the original sources).

The copy's conftest selects the NumPy backend: convolution, pooling and attention then
run the reference kernels in minigrad/kernels/reference/, which is where those lessons'
exercises are. (With the default Numba backend the compiled kernels would compute the
answers and the student's code would never run.)
"""

import ast
import shutil
from pathlib import Path

from minigrad.exercises.lessons import LESSONS, lesson_regions, marked_tests, selected
from minigrad.exercises.regions import without_markers, without_solutions

REPOSITORY = Path(__file__).resolve().parents[2]
NOT_COPIED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.nbi", "*.nbc")

CONFTEST_ADDITION = """

# ---- added by `python -m minigrad.exercises make` ---------------------------------------
# The exercises on convolution, pooling and attention are in the reference (NumPy)
# kernels; the default Numba backend would compute those results without them.
import minigrad  # noqa: E402

minigrad.backends.use("numpy")
"""


def make(out_dir, lesson="all", solutions=False, root=None):
    """Write the copy for `lesson` (a name from LESSONS, or 'all') into `out_dir`, which
    must not exist or be empty. solutions=True writes the answer key instead (the same
    files with the solutions kept and only the markers dropped); solutions='trace' is
    the answer key whose regions report that they ran (see minigrad.exercises.trace).
    Returns the lessons written."""
    lessons = selected(lesson)
    root = Path(root) if root is not None else REPOSITORY
    out = Path(out_dir)
    if not (root / "tests").is_dir():
        raise RuntimeError(
            f"exercises: {root} has no tests/ folder; run this from a source checkout of minigrad"
        )
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"exercises: {out} is not empty; give a new or empty folder")
    out.mkdir(parents=True, exist_ok=True)

    shutil.copytree(root / "minigrad", out / "minigrad", ignore=NOT_COPIED)
    for path, text in lesson_sources(lesson, solutions, root).items():
        (out / path).write_text(text)

    for name in ("pyproject.toml", "LICENSE"):
        if (root / name).exists():
            shutil.copy2(root / name, out / name)
    tests = sorted(
        {test.split("::")[0] for chosen in lessons for test in marked_tests(root, chosen)}
    )
    _copy_tests(root, out, tests)
    (out / "README.md").write_text(readme(root, lessons, solutions))
    return lessons


def lesson_sources(lesson="all", solutions=False, root=None):
    """{path: text} for the source files of `lesson` (or of every lesson), as a copy has
    them: without the solutions (each region a `raise NotImplementedError(hint)`), or
    with solutions=True / 'trace' as the answer key (see `make`). The student edition of
    the site shows the lessons' code from these texts (overrides/hooks/student_edition.py)."""
    root = Path(root) if root is not None else REPOSITORY
    texts = {}
    for chosen in selected(lesson):
        for path, regions in lesson_regions(root, chosen).items():
            source = (root / path).read_text()
            if solutions:
                trace = chosen.name if solutions == "trace" else None
                texts[path] = without_markers(source, regions, trace_lesson=trace)
            else:
                texts[path] = without_solutions(source, regions, chosen.name)
    return texts


def _copy_tests(root, out, test_files):
    """Copy the test files, tests/__init__.py, tests/conftest.py (with the backend
    switch added) and every module of tests/ they import, transitively."""
    (out / "tests").mkdir()
    wanted = ["tests/__init__.py", "tests/conftest.py", *test_files]
    copied = set()
    while wanted:
        path = wanted.pop()
        if path in copied or not (root / path).exists():
            continue
        copied.add(path)
        shutil.copy2(root / path, out / path)
        wanted.extend(_local_imports(root, path))
    with open(out / "tests" / "conftest.py", "a", encoding="utf-8") as conftest:
        conftest.write(CONFTEST_ADDITION)


def _local_imports(root, path):
    """The files of tests/ that the test module `path` imports (tests.x, from tests
    import x, from .x import y)."""
    found = []
    for node in ast.walk(ast.parse((root / path).read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "tests" if node.level == 1 else (node.module or "").split(".")[0]
            module = (
                node.module
                if node.level == 0
                else f"tests.{node.module}"
                if node.module
                else "tests"
            )
            if base == "tests":
                names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] != "tests" or len(parts) < 2:
                continue
            for candidate in (
                root.joinpath(*parts).with_suffix(".py"),
                root.joinpath(*parts, "__init__.py"),
            ):
                if candidate.exists():
                    found.append(candidate.relative_to(root).as_posix())
    return found


INSTALL = 'pip install -e ".[student]"'
"""What a copy's tests need, installed into the active environment from the copy's folder:
the copy itself (editable, so that the student's edits count) with minigrad's
dependencies, and the `student` extra of pyproject.toml (pytest; no PyTorch)."""


def readme(root, lessons, solutions=False):
    """The copy's README.md: the lessons in it, how to install it, what to edit, how to
    run the tests."""
    names = ", ".join(lesson.name for lesson in lessons)
    lines = [
        f"# minigrad exercises: {names}" + (" (answer key)" if solutions else ""),
        "",
        "This is a copy of minigrad in which some code has been taken out. Each gap is a line",
        "",
        '    raise NotImplementedError("exercise <lesson>: <hint>")',
        "",
        "Replace it with the code it stands for; the hint and the docstring above it say what to "
        "compute.",
        "The lesson's tests fail until every gap of the lesson is filled, and pass when the code "
        "is right.",
        "Convolution, pooling and attention run on the reference NumPy kernels here "
        "(tests/conftest.py",
        "selects the NumPy backend), so those tests run your code, not the compiled Numba kernels.",
        "",
        "## Installing",
        "",
        "The tests check the code against finite differences and NumPy; they need minigrad's own",
        "dependencies (NumPy, Numba, SciPy, Matplotlib, threadpoolctl) and pytest, not PyTorch. "
        "In this "
        "folder,",
        "in a virtual environment of Python 3.10 or later:",
        "",
        "```",
        "python -m venv .venv",
        ". .venv/bin/activate        # on Windows: .venv\\Scripts\\activate",
        INSTALL,
        "```",
        "",
        "Run the tests from this folder (it must come first on the Python path, which `python -m "
        "pytest` does):",
        "",
    ]
    if solutions:
        lines[2:8] = [
            "This is the answer key: the same files as a student's copy, with the solutions in "
            "place.",
            "",
        ]
    for lesson in lessons:
        lines.append(f"## {lesson.name}: {lesson.title}")
        lines += ["", "```", f"python -m pytest -m {lesson.marker}", "```", "", "The gaps:", ""]
        for path, regions in lesson_regions(root, lesson).items():
            for region in regions:
                lines.append(f"- `{path}`, in `{region.name}`: {region.hint}")
        lines += ["", "The tests:", ""]
        lines += [f"- `{test}`" for test in marked_tests(root, lesson)]
        lines.append("")
    return "\n".join(lines)


def listing(root=None):
    """The text of `python -m minigrad.exercises --list`."""
    root = Path(root) if root is not None else REPOSITORY
    lines = [
        "Lessons (python -m minigrad.exercises make OUT_DIR --lesson NAME, or --lesson all):",
        "",
    ]
    for lesson in LESSONS.values():
        lines.append(f"{lesson.name}: {lesson.title}")
        for path, regions in lesson_regions(root, lesson).items():
            lines.append(f"  {path}: {', '.join(region.name for region in regions)}")
        tests = marked_tests(root, lesson)
        lines.append(f"  tests (pytest -m {lesson.marker}, {len(tests)}):")
        lines += [f"    {test}" for test in tests]
        lines.append("")
    return "\n".join(lines).rstrip("\n")
