"""The lessons: which source files hold each lesson's solution regions, and which
tests check them.

A lesson owns whole files: every region in a file belongs to the file's lesson (a test
checks that each file with regions is owned by exactly one lesson). A lesson's tests
are the tests marked `@pytest.mark.lesson_<name>` (on the function, on one of its
parameters with `pytest.param(..., marks=...)`, or for a whole module with
`pytestmark`); they are found by reading the test files, not by importing them.
"""

import ast
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
        Lesson("linear", "the matrix product's backward (what a linear layer learns by)", ("minigrad/ops/linalg.py",)),
        Lesson(
            "losses",
            "softmax, log-softmax and the fused cross-entropy backward",
            ("minigrad/ops/activation.py", "minigrad/ops/loss.py"),
        ),
        Lesson(
            "normalization",
            "layer, batch, group and RMS norm: the backward derived by hand",
            ("minigrad/ops/normalization.py",),
        ),
        Lesson(
            "conv",
            "convolution as im2col, a matrix product and col2im (reference kernels)",
            ("minigrad/kernels/reference/conv.py",),
        ),
        Lesson(
            "pool", "the max- and average-pooling backward (reference kernels)", ("minigrad/kernels/reference/pool.py",)
        ),
        Lesson(
            "attention",
            "scaled dot-product attention: stable softmax forward and the backward (reference kernel)",
            ("minigrad/kernels/reference/attention.py",),
        ),
    ]
}


def selected(name):
    """The lessons `name` stands for: one lesson, or every lesson for 'all'."""
    if name == "all":
        return list(LESSONS.values())
    if name not in LESSONS:
        raise ValueError(f"exercises: unknown lesson {name!r}; choose one of {', '.join(LESSONS)}, or 'all'")
    return [LESSONS[name]]


def lesson_regions(root, lesson):
    """{file: [Region, ...]} for the lesson's files under the repository `root`."""
    root = Path(root)
    return {path: find_regions((root / path).read_text(), path) for path in lesson.files}


def marked_tests(root, lesson):
    """['tests/test_x.py::test_name', ...]: the tests marked with the lesson's marker,
    found by reading every tests/test_*.py file."""
    found = []
    for path in sorted((Path(root) / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text())
        relative = f"tests/{path.name}"
        whole_module = any(
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
            and _names_marker(node.value, lesson.marker)
            for node in tree.body
        )
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                if whole_module or any(_names_marker(d, lesson.marker) for d in node.decorator_list):
                    found.append(f"{relative}::{node.name}")
    return found


def _names_marker(node, marker):
    return any(isinstance(n, ast.Attribute) and n.attr == marker for n in ast.walk(node))
