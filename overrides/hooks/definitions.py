"""A mkdocs hook: a lesson includes a whole function or class by its name.

pymdownx.snippets includes the lines of a section, marked in the source file by the
comments `# --8<-- [start:name]` and `# --8<-- [end:name]`. Where a section would be one
definition, the lesson names the definition instead, as pytest names a test:

    --8<-- "minigrad/optim/optimizer.py::Optimizer.zero_grad"

and the source file carries no markers. This hook replaces each such line of a page with
the definition's source, found with `ast` (a dotted name reaches a method or a nested
class): its decorators, signature and body, dedented to the left margin and indented as
the include line is. Marker lines of sections inside the definition are left out, as
snippets leaves them out. It runs before snippets, on the page's Markdown.

The file is looked up as snippets looks it up, in its `base_path` folders in order: the
student edition (overrides/hooks/student_edition.py) puts the student's copies of the
lessons' files first, so a by-name include shows the exercise there too. A file or name
that is not found fails the build, as a missing section does.
"""

import ast
import os
import re
import textwrap
from pathlib import Path

from mkdocs.exceptions import PluginError

INCLUDE = re.compile(
    r'^(?P<indent>[ \t]*)--8<-- "(?P<path>[^"\s:]+)::(?P<name>[\w.]+)"[ \t]*$', re.M
)
SECTION_MARKER = re.compile(r"^[ \t]*# --8<-- \[(?:start|end):[^\]]+\][ \t]*$")
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def definition_lines(source, name):
    """The first and last line (1-based) of the definition `name` in `source`, its
    decorators included, or None. `name` is dotted to reach into classes: `Adam.step`."""
    body = ast.parse(source).body
    node = None
    for part in name.split("."):
        node = next((n for n in body if isinstance(n, DEFINITIONS) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno


def definition(source, name):
    """The source of the definition `name`, dedented, without section markers, or None."""
    span = definition_lines(source, name)
    if span is None:
        return None
    lines = source.splitlines()[span[0] - 1 : span[1]]
    return textwrap.dedent("\n".join(line for line in lines if not SECTION_MARKER.match(line)))


def _base_paths(config):
    base = config.mdx_configs.get("pymdownx.snippets", {}).get("base_path", ".")
    return [Path(os.fspath(b)) for b in (base if isinstance(base, (list, tuple)) else [base])]


def on_page_markdown(markdown, page, config, files):
    def include(match):
        path, name = match["path"], match["name"]
        where = f"{page.file.src_uri}: --8<-- {path}::{name}"
        found = next((b / path for b in _base_paths(config) if (b / path).is_file()), None)
        if found is None:
            raise PluginError(f"{where}: no file {path} in the snippets' base_path")
        code = definition(found.read_text(), name)
        if code is None:
            raise PluginError(f"{where}: {path} defines no function or class {name!r}")
        return textwrap.indent(code, match["indent"], lambda line: True)

    return INCLUDE.sub(include, markdown)
