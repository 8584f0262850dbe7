"""Turn the snippet sections that wrap one definition into includes of it by name.

A lesson used to include a function as a section of its file,

    # --8<-- [start:zero_grad]            in the source, around the function
    --8<-- "minigrad/optim/optimizer.py:zero_grad"            in the lesson

and can now name the function (overrides/hooks/definitions.py):

    --8<-- "minigrad/optim/optimizer.py::Optimizer.zero_grad"

For each section of the given source files whose lines are exactly one `def` or `class`
(with its decorators; blank lines aside), this rewrites every include of it in docs/ and
deletes its two marker lines from the source. Sections holding anything else (a comment
above the def, two functions, a few statements) stay sections.

    python tools/markers_to_names.py                  # every .py file with markers
    python tools/markers_to_names.py minigrad/ops/*.py  # only these
    python tools/markers_to_names.py --dry-run        # print what it would change

Run `ruff format` afterwards only if it reports a changed layout (it does not: it deletes
whole comment lines).
"""

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^[ \t]*# --8<-- \[(?P<kind>start|end):(?P<name>[^\]]+)\][ \t]*$")
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def definitions(tree, prefix=""):
    """(dotted name, first line, last line) of every def/class, decorators included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, DEFINITIONS):
            name = prefix + node.name
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield name, first, node.end_lineno
            yield from definitions(node, name + ".")


def sections(lines):
    """{section: (line of its start marker, line of its end marker)}, 1-based."""
    starts, found = {}, {}
    for number, line in enumerate(lines, start=1):
        m = MARKER.match(line)
        if m and m["kind"] == "start":
            starts[m["name"]] = number
        elif m and m["name"] in starts:
            found[m["name"]] = (starts.pop(m["name"]), number)
    return found


def single_definitions(path):
    """{section: the dotted name of the one definition it wraps} for `path`."""
    source = path.read_text()
    lines = source.splitlines()
    spans = {(first, last): name for name, first, last in definitions(ast.parse(source))}
    found = {}
    for section, (start, end) in sections(lines).items():
        inside = [n for n in range(start + 1, end) if lines[n - 1].strip()]
        if inside and (inside[0], inside[-1]) in spans:
            found[section] = spans[inside[0], inside[-1]]
    return found


def convert(path, dry_run=False):
    """Rewrite the includes of `path`'s single-definition sections and drop their markers;
    return [(section, name, the pages that included it)]."""
    relative = path.resolve().relative_to(ROOT).as_posix()
    names = single_definitions(path)
    report = []
    for section, name in sorted(names.items()):
        old, new = f'--8<-- "{relative}:{section}"', f'--8<-- "{relative}::{name}"'
        pages = [p for p in sorted((ROOT / "docs").rglob("*.md")) if old in p.read_text()]
        for page in pages if not dry_run else []:
            page.write_text(page.read_text().replace(old, new))
        report.append((section, name, [p.relative_to(ROOT).as_posix() for p in pages]))
    if names and not dry_run:
        keep = [
            line
            for line in path.read_text().splitlines(keepends=True)
            if not ((m := MARKER.match(line)) and m["name"] in names)
        ]
        path.write_text("".join(keep))
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("files", nargs="*", type=Path, help="source files (default: all)")
    parser.add_argument("--dry-run", action="store_true", help="change nothing, print the plan")
    args = parser.parse_args(argv)
    files = args.files or [
        p
        for folder in ("minigrad", "tests", "benchmarks", "tools")
        for p in sorted((ROOT / folder).rglob("*.py"))
        if "# --8<-- [start:" in p.read_text() and p.resolve() != Path(__file__).resolve()
    ]
    for path in files:
        for section, name, pages in convert(path, args.dry_run):
            used = ", ".join(pages) if pages else "no page (markers dropped)"
            print(f"{path}: [{section}] -> ::{name}  ({used})")


if __name__ == "__main__":
    sys.exit(main())
