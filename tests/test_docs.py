"""The documentation is tested like code, so it cannot rot.

- The site must build with `mkdocs build --strict`. A broken link, a nav entry without
  a page, or a snippet whose source file or section is gone (a lesson includes code from
  `minigrad/` by section) fails the build.
- Every ```python block on the pages listed in PAGES runs. The blocks of one page share
  a namespace, in order, like the cells of a notebook. A ```text block directly after a
  python block is that block's expected output, and the printed output must match it.
  Blocks that include code from the source (`--8<--`) are listings, not examples, and
  are skipped.
- A listing is fenced as ```{.python title="path"}, not ```python: ruff formats the
  ```python blocks of Markdown files, and it would rewrite the include line
  `--8<-- "path:section"` into the Python expression `--8 < --"path:section"`, which
  the site would then show instead of the code.
"""

import contextlib
import html
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# every page of the site: a new lesson is checked without anyone remembering to list it
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))

# A fenced block: the opening fence at the start of a line, an info string whose first
# word is the language, the body, and a closing fence of the same length.
FENCE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)


def code_blocks(text):
    """(language, body, start, end) for every fenced block, in order."""
    return [(m["lang"], m["body"], m.start(), m.end()) for m in FENCE.finditer(text)]


def examples(text):
    """(line number, code, expected output or None) for each runnable python block."""
    blocks = code_blocks(text)
    found = []
    for i, (lang, body, start, end) in enumerate(blocks):
        if lang != "python" or "--8<--" in body:
            continue
        expected = None
        if i + 1 < len(blocks):
            next_lang, next_body, next_start, _ = blocks[i + 1]
            if next_lang == "text" and not text[end:next_start].strip():
                expected = next_body
        found.append((text.count("\n", 0, start) + 1, body, expected))
    return found


def _normalize(output):
    return "\n".join(line.rstrip() for line in output.strip().splitlines())


@pytest.mark.parametrize("page", PAGES)
def test_examples_run_and_print_what_the_page_shows(page):
    runnable = examples((ROOT / page).read_text())
    assert runnable, f"{page}: no python examples found (did the fence syntax change?)"
    namespace = {"__name__": "__docs__"}
    for line, code, expected in runnable:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(code, f"{page}:{line}", "exec"), namespace)
            except Exception as err:
                raise AssertionError(f"{page}: the example at line {line} raised {err!r}") from err
        if expected is not None:
            assert _normalize(out.getvalue()) == _normalize(expected), (
                f"{page}: the example at line {line} printed\n{out.getvalue()}\nbut the page shows\n{expected}"
            )


def test_examples_are_found():
    """The extractor itself: a listing is skipped, and output pairs with its example."""
    text = "\n".join(
        [
            "```python",
            "print(1)",
            "```",
            "",
            "```text",
            "1",
            "```",
            '```{.python title="x.py"}',
            '--8<-- "minigrad/tensor.py:tensor_mul"',
            "```",
            "```python",
            "x = 2",
            "```",
            "words",
            "```text",
            "not output",
            "```",
        ]
    )
    assert [b[0] for b in code_blocks(text)] == ["python", "text", "", "python", "text"]
    assert examples(text) == [(1, "print(1)\n", "1\n"), (11, "x = 2\n", None)]


SNIPPET = re.compile(r'^--8<-- "(?P<path>[\w./-]+):(?P<section>[a-z][-_0-9a-z]*)"$')


@pytest.mark.parametrize("page", PAGES)
def test_listings_are_well_formed(page):
    """Every include is one canonical line inside a ```{.python ...} fence, naming a
    section that exists in the file."""
    text = (ROOT / page).read_text()
    for lang, body, start, _ in code_blocks(text):
        line = text.count("\n", 0, start) + 1
        if not re.search(r"--\s*8\s*<", body):
            continue
        assert lang == "", f"{page}:{line}: fence a listing as ```{{.python title=...}} so ruff leaves it alone"
        for include in body.strip().splitlines():
            m = SNIPPET.match(include)
            assert m, f'{page}:{line}: {include!r} is not of the form --8<-- "path:section"'
            source = (ROOT / m["path"]).read_text()
            assert f"# --8<-- [start:{m['section']}]" in source, (
                f"{page}:{line}: no section {m['section']!r} in {m['path']}"
            )
            assert f"# --8<-- [end:{m['section']}]" in source, f"{page}:{line}: section {m['section']!r} has no end"


@pytest.mark.slow
def test_site_builds_strict(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    page = (tmp_path / "site" / "lessons" / "autograd" / "index.html").read_text()
    text = html.unescape(re.sub(r"<[^>]+>", "", page))  # the code without its highlighting
    assert "def topological_order(roots):" in text  # the snippets were included, not left as paths
    assert "--8<--" not in text and "--8 <" not in text
