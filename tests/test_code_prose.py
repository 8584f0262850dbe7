"""The package's prose (docstrings and comments) states no machine timings: a figure in
milliseconds or GFLOP/s is true of one machine on one day, and goes stale in the code
where nobody re-measures it. Timings live in benchmarks/RESULTS.md, with the machine and
the date; the code says what was compared and points there (issue #24)."""

import ast
import io
import re
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "minigrad"

# a number (or a range of two) with a unit of time or of speed: "42 us", "0.6-0.9 s",
# "170 GFLOP/s". A bare "s" needs the space ("1s" is a plural: the ones of a mask).
_NUMBER = r"\d[\d,]*(?:\.\d+)?(?:\s?[-–]\s?\d[\d,]*(?:\.\d+)?)?"
_TIMING = re.compile(
    rf"{_NUMBER}\s?(?:ms|µs|us|ns|seconds|milliseconds|[GMT]FLOP/s)(?![\w/])"
    rf"|{_NUMBER}\ss(?![\w/])"
)


def timings_in(source):
    """[(line, text)] of every timing in the docstrings and comments of Python source."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found += [(token.start[0], m.group(0)) for m in _TIMING.finditer(token.string)]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                text = body[0].value.value
                if isinstance(text, str):
                    for m in _TIMING.finditer(text):
                        line = body[0].lineno + text[: m.start()].count("\n")
                        found.append((line, m.group(0)))
    return sorted(found)


def test_the_checker_finds_timings_and_leaves_plurals_alone():
    source = '''"""Took 120 us; the loop 42 µs (one core)."""

def f(mask):
    """Every 1s of the mask, and 0.6-0.9 s of a first run."""
    return mask  # 170 GFLOP/s on the H100; 2x faster (a ratio, fine)
'''
    assert [text for _, text in timings_in(source)] == [
        "120 us",
        "42 µs",
        "0.6-0.9 s",
        "170 GFLOP/s",
    ]
    assert [line for line, _ in timings_in(source)] == [1, 1, 4, 5]


def test_no_machine_timings_in_the_packages_prose():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, text in timings_in(path.read_text(encoding="utf-8"))
    ]
    assert not found, "timings belong in benchmarks/RESULTS.md:\n" + "\n".join(found)
