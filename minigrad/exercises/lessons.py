"""The lessons: which source files hold each lesson's solution regions, and which
tests check them.

A lesson owns whole files: every region in a file belongs to the file's lesson (a test
checks that each file with regions is owned by exactly one lesson). A lesson's tests
are the tests marked `@pytest.mark.lesson_<name>` (on the function, on one of its
parameters with `pytest.param(..., marks=...)`, or for a whole module with
`pytestmark`); they are found by reading the test files, not by importing them.
"""

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from minigrad.exercises.regions import find_regions


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    files: tuple  # source files, relative to the repository root

    @property
    def marker(self):
        """The pytest marker of the lesson's tests."""
        return f"lesson_{self.name}"


LESSONS = {
    lesson.name: lesson
    for lesson in [
        Lesson(
            "autograd",
            "the backward passes of elementwise ops and reductions",
            ("minigrad/ops/elementwise.py", "minigrad/ops/reduce.py"),
        ),
        Lesson(
            "linear",
            "the matrix product's and the linear layer's backward (what a layer learns by)",
            ("minigrad/ops/linalg.py",),
        ),
        Lesson(
            "losses",
            "softmax, log-softmax and the fused cross-entropy backward",
            ("minigrad/ops/activation.py", "minigrad/ops/loss.py"),
        ),
        Lesson(
            "normalization",
            "layer, batch, group and RMS norm: the backward derived by hand",
            ("minigrad/ops/normalization.py", "minigrad/kernels/reference/layer_norm.py"),
        ),
        Lesson(
            "conv",
            "convolution as im2col, a matrix product and col2im (reference kernels)",
            ("minigrad/kernels/reference/conv.py",),
        ),
        Lesson(
            "pool",
            "the max- and average-pooling backward (reference kernels)",
            ("minigrad/kernels/reference/pool.py",),
        ),
        Lesson(
            "attention",
            "scaled dot-product attention: stable softmax forward and the backward (reference "
            "kernel)",
            ("minigrad/kernels/reference/attention.py",),
        ),
    ]
}


def selected(name):
    """The lessons `name` stands for: one lesson, or every lesson for 'all'."""
    if name == "all":
        return list(LESSONS.values())
    if name not in LESSONS:
        raise ValueError(
            f"exercises: unknown lesson {name!r}; choose one of {', '.join(LESSONS)}, or 'all'"
        )
    return [LESSONS[name]]


def lesson_regions(root, lesson):
    """{file: [Region, ...]} for the lesson's files under the repository `root`."""
    root = Path(root)
    return {path: find_regions((root / path).read_text(), path) for path in lesson.files}


def marked_tests(root, lesson):
    """['tests/test_x.py::test_name', ...]: the tests marked with the lesson's marker,
    found by reading every tests/test_*.py file."""
    return [
        test
        for test, markers in _test_markers(str(Path(root).resolve()))
        if lesson.marker in markers
    ]


@functools.lru_cache(maxsize=4)
def _test_markers(root):
    """(test id, the lesson markers on it) for every test function of tests/test_*.py
    under `root`; parsed once per process (the suite asks many times)."""
    found = []
    for path in sorted((Path(root) / "tests").glob("test_*.py")):
        source = path.read_text()
        if "lesson_" not in source:
            continue
        tree = ast.parse(source)
        module_markers = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                module_markers |= _lesson_markers(node.value)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
                "test"
            ):
                markers = module_markers.union(*(_lesson_markers(d) for d in node.decorator_list))
                if markers:
                    found.append((f"tests/{path.name}::{node.name}", frozenset(markers)))
    return tuple(found)


def _lesson_markers(node):
    """The names `lesson_*` used as attributes (pytest.mark.lesson_conv) inside `node`."""
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and n.attr.startswith("lesson_")
    }
