"""Solution regions: the code an exercise hides, marked in the library's own source.

A region is a run of lines between two comments at the same indentation:

    # BEGIN SOLUTION hint: dL/da = dL/dz * b; sum it back to a's shape (unbroadcast)
    ...the solution...
    # END SOLUTION

The markers are plain comments, so the library runs the same with them. A student copy
replaces each region by one line at the region's indentation,

    raise NotImplementedError("exercise <lesson>: <hint>")

so the code around it (and the rest of the library) still imports and runs, and the
first test that reaches the region fails with the hint. Regions do not nest, every
BEGIN has its END, and every region has a hint: `find_regions` refuses anything else,
naming the file and line.
"""

import ast
import re
from dataclasses import dataclass

BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION(?:\s+hint:\s*(?P<hint>.*?))?\s*$")
END = re.compile(r"^(?P<indent>[ \t]*)# END SOLUTION\s*$")


@dataclass(frozen=True)
class Region:
    """Lines begin..end (1-based, both marker lines included) of one source file."""

    path: str  # relative to the repository root, with '/'
    begin: int
    end: int
    indent: str
    hint: str
    name: str  # the enclosing function, e.g. "Mul.backward" (or "<module>")


def find_regions(source, path="<string>"):
    """The solution regions of `source`, in order; ValueError for unbalanced, nested,
    misindented or hintless markers."""
    lines = source.splitlines()
    found, open_at = [], None
    for number, line in enumerate(lines, start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if open_at is not None:
                raise ValueError(
                    f"{path}:{number}: BEGIN SOLUTION inside the region opened at line {open_at[0]}"
                )
            if not begin["hint"]:
                raise ValueError(
                    f"{path}:{number}: BEGIN SOLUTION needs a hint ('# BEGIN SOLUTION hint: ...')"
                )
            open_at = (number, begin["indent"], begin["hint"])
        elif end:
            if open_at is None:
                raise ValueError(
                    f"{path}:{number}: END SOLUTION without a BEGIN SOLUTION before it"
                )
            start, indent, hint = open_at
            if end["indent"] != indent:
                raise ValueError(
                    f"{path}:{number}: END SOLUTION is not indented like its BEGIN (line {start})"
                )
            if number == start + 1:
                raise ValueError(f"{path}:{start}: the solution region is empty")
            found.append((start, number, indent, hint))
            open_at = None
    if open_at is not None:
        raise ValueError(f"{path}:{open_at[0]}: BEGIN SOLUTION has no END SOLUTION")
    names = _enclosing_names(source, [start for start, *_ in found])
    return [
        Region(path, start, stop, indent, hint, names[start]) for start, stop, indent, hint in found
    ]


def _enclosing_names(source, lines):
    """{line: qualified name of the innermost function or class holding that line}."""
    spans = []  # (first line, last line, qualified name)

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                spans.append((child.lineno, child.end_lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    names = {}
    for line in lines:
        holding = [span for span in spans if span[0] <= line <= span[1]]
        # the innermost span is the one that starts last
        names[line] = max(holding)[2] if holding else "<module>"
    return names


def exercise_message(lesson, hint):
    """What the student's copy raises in place of a region."""
    return f"exercise {lesson}: {hint}"


def replace_regions(source, regions, replacement):
    """`source` with each region's lines (markers included) replaced by the lines
    `replacement(region)` returns (without indentation: the region's is added)."""
    lines = source.splitlines(keepends=True)
    # bottom up: numbers stay valid
    for region in sorted(regions, key=lambda r: r.begin, reverse=True):
        new = [f"{region.indent}{line}\n" if line.strip() else "\n" for line in replacement(region)]
        lines[region.begin - 1 : region.end] = new
    return "".join(lines)


def without_solutions(source, regions, lesson):
    """The student's version: each region becomes `raise NotImplementedError(hint)`."""
    return replace_regions(
        source,
        regions,
        lambda r: [f"raise NotImplementedError({exercise_message(lesson, r.hint)!r})"],
    )


def without_markers(source, regions, trace_lesson=None):
    """The answer key: the solutions kept, the marker comments dropped. With
    `trace_lesson`, each region first reports that it ran (see `minigrad.exercises.trace`),
    which is how the test suite checks that a lesson's tests reach every region."""
    lines = source.splitlines(keepends=True)

    def body(region):
        inner = [line.rstrip("\n") for line in lines[region.begin : region.end - 1]]
        inner = [
            line[len(region.indent) :] if line.startswith(region.indent) else line.lstrip()
            for line in inner
        ]
        if trace_lesson is None:
            return inner
        report = (
            f'__import__("minigrad.exercises.trace").exercises.trace.hit({trace_lesson!r}, '
            f"{region.name!r})"
        )
        return [report, *inner]

    return replace_regions(source, regions, body)
