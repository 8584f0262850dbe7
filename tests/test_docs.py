"""The documentation is tested like code, so it cannot rot.

- The site must build with `mkdocs build --strict`. A broken link, a nav entry without
  a page, or a snippet whose source file, section or definition is gone (a lesson includes
  code from `minigrad/` by section, `--8<-- "path:section"`, or a whole function or class
  by name, `--8<-- "path::Name"`) fails the build. No listing is wider than 100 characters.
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
import html.parser
import io
import re
import textwrap
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# every page of the site: a new lesson is checked without anyone remembering to list it
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))

# A fenced block: the opening fence at the start of a line, an info string whose first
# word is the language, the body, and a closing fence of the same length.
FENCE = re.compile(
    r"^(?P<fence>`{3,})(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)


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


# Pages that hold no examples of their own: the API reference (docs/api/) is made of
# mkdocstrings directives, its text comes from the docstrings and
# tests/test_api_reference.py checks it.
EXAMPLE_PAGES = [p for p in PAGES if not (p.startswith("docs/api/") and not p.endswith("index.md"))]


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
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
                f"{page}: the example at line {line} printed\n{out.getvalue()}\nbut the page "
                f"shows\n{expected}"
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
# a whole function or class by its name (overrides/hooks/definitions.py)
DEFINITION = re.compile(r'^--8<-- "(?P<path>[\w./-]+)::(?P<name>[A-Za-z_][\w.]*)"$')


def _hook(name):
    """A hook module of overrides/hooks/, loaded from its file as mkdocs loads it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "overrides" / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def included_lines(include):
    """The lines a canonical include line puts on the page (snippets dedents a section;
    the definitions hook dedents a definition), or None when what it names is not there."""
    if m := DEFINITION.match(include):
        code = _hook("definitions").definition((ROOT / m["path"]).read_text(), m["name"])
        return None if code is None else code.splitlines()
    m = SNIPPET.match(include)
    lines = (ROOT / m["path"]).read_text().splitlines()
    marks = [line.strip() for line in lines]
    start, end = f"# --8<-- [start:{m['section']}]", f"# --8<-- [end:{m['section']}]"
    if start not in marks or end not in marks:
        return None
    inside = lines[marks.index(start) + 1 : marks.index(end)]
    return textwrap.dedent(
        "\n".join(line for line in inside if "# --8<-- [" not in line)
    ).splitlines()


def includes(page):
    """(line number, include line) for every include of a listing on `page`."""
    text = (ROOT / page).read_text()
    return [
        (text.count("\n", 0, start) + 1, include)
        for _, body, start, _ in code_blocks(text)
        if re.search(r"--\s*8\s*<", body)
        for include in body.strip().splitlines()
    ]


@pytest.mark.parametrize("page", PAGES)
def test_listings_are_well_formed(page):
    """Every include is one canonical line inside a ```{.python ...} fence, naming a
    section or a definition that exists in the file."""
    text = (ROOT / page).read_text()
    for lang, body, start, _ in code_blocks(text):
        line = text.count("\n", 0, start) + 1
        if re.search(r"--\s*8\s*<", body):
            assert lang == "", (
                f"{page}:{line}: fence a listing as ```{{.python title=...}} so ruff leaves it "
                "alone"
            )
    for line, include in includes(page):
        assert SNIPPET.match(include) or DEFINITION.match(include), (
            f'{page}:{line}: {include!r} is not of the form --8<-- "path:section" or "path::Name"'
        )
        assert included_lines(include) is not None, (
            f"{page}:{line}: {include} names nothing in its file"
        )


# the exercise marks, which the site hides (overrides/hooks/solution_markers.py)
SOLUTION_MARK = re.compile(r"^[ \t]*# (?:BEGIN|END) SOLUTION")
WIDTH = 100  # characters a listing shows without scrolling sideways (and ruff's line-length)


def test_listings_fit_the_page():
    """No listing on the site is wider than the page: every line a listing includes is at
    most WIDTH characters, so the reader never scrolls sideways to see the code."""
    wide = {}
    for page in PAGES:
        for line, include in includes(page):
            lines = included_lines(include) or []
            shown = [code for code in lines if not SOLUTION_MARK.match(code)]  # the site hides them
            too_long = [code for code in shown if len(code) > WIDTH]
            if too_long:
                path = include.split('"')[1].split(":")[0]
                wide.setdefault(path, []).append(
                    f"{page}:{line}: {len(too_long)} lines, {too_long[0]!r}"
                )
    assert not wide, "listings wider than the page:\n" + "\n".join(sum(wide.values(), []))


SOURCE = """\
import functools


class Outer:
    # --8<-- [start:method]
    @functools.cache
    @staticmethod
    def method(x):
        return x  # the body
    # --8<-- [end:method]

    class Inner:
        pass
"""


def test_a_definition_is_found_by_its_name_with_its_decorators_and_dedented():
    definitions = _hook("definitions")
    assert definitions.definition(SOURCE, "Outer.method") == (
        "@functools.cache\n@staticmethod\ndef method(x):\n    return x  # the body"
    )
    assert definitions.definition_lines(SOURCE, "Outer.method") == (6, 9)
    assert definitions.definition(SOURCE, "Outer.Inner") == "class Inner:\n    pass"
    assert definitions.definition(SOURCE, "Outer").splitlines()[:2] == [
        "class Outer:",
        "    @functools.cache",
    ]
    assert definitions.definition(SOURCE, "method") is None  # only a dotted name reaches it
    assert definitions.definition(SOURCE, "Outer.missing") is None


def test_an_include_by_name_is_replaced_and_a_wrong_one_fails_the_build(tmp_path):
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    definitions = _hook("definitions")
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "m.py").write_text("def f():\n    raise NotImplementedError\n")
    (tmp_path / "m.py").write_text("def f():\n    return 1\n")
    # the student edition's order
    snippets = {"base_path": [str(tmp_path / "student"), str(tmp_path)]}
    config = SimpleNamespace(mdx_configs={"pymdownx.snippets": snippets})
    page = SimpleNamespace(file=SimpleNamespace(src_uri="lessons/x.md"))
    markdown = '- item\n\n    ```\n    --8<-- "m.py::f"\n    ```\n'
    shown = definitions.on_page_markdown(markdown, page, config, None)
    assert shown == "- item\n\n    ```\n    def f():\n        raise NotImplementedError\n    ```\n"
    with pytest.raises(
        PluginError, match=r"lessons/x.md: --8<-- m.py::g: m.py defines no function or class .g."
    ):
        definitions.on_page_markdown('--8<-- "m.py::g"', page, config, None)
    with pytest.raises(PluginError, match=r"no file n.py in the snippets' base_path"):
        definitions.on_page_markdown('--8<-- "n.py::f"', page, config, None)


@pytest.fixture
def site(built_site):
    """The built site (tests/conftest.py builds it once for the session)."""
    return built_site


def built_page(site, name):
    """The file of a page in the built site: `lessons/autograd` is lessons/autograd.html
    (mkdocs.yml's use_directory_urls: false, which a site read from a folder needs)."""
    return site / f"{name}.html"


def page_text(page_html):
    """What a reader sees of a page: the text without tags, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page_html))


@pytest.mark.slow
def test_site_builds_strict(site):
    page = built_page(site, "lessons/autograd").read_text()
    text = page_text(page)  # the code without its highlighting
    assert "def topological_order(roots):" in text  # the snippets were included, not left as paths
    assert "--8<--" not in text and "--8 <" not in text


# --- a site that works from a folder ----------------------------------------------------
#
# Read from disk (file://), a link opens exactly the file it names: a link to a folder
# shows the folder's listing, and a link from the site's root (/lessons/...) leaves the
# site. So every page is a file (use_directory_urls: false) and every link is relative.
# tests/test_site_offline.py follows a few of them in a browser; this checks them all.

LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"'#?]*)[^"']*["']""", re.I)


def links_that_open_no_file(page, site):
    """The links and sources of a built page that open no file of the site when the page
    is read from disk (web addresses and in-page anchors are not the site's files)."""
    broken = []
    for target in LINK.findall(page.read_text()):
        # in-page, or another site
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:|^//", target, re.I):
            continue
        path = (page.parent / urllib.parse.unquote(target)).resolve()
        if target.startswith("/") or not path.is_file() or not path.is_relative_to(site.resolve()):
            broken.append(target)
    return broken


def test_links_that_open_no_file_are_found(tmp_path):
    site = tmp_path / "site"
    (site / "lessons").mkdir(parents=True)
    (site / "lessons" / "autograd.html").write_text("")
    (tmp_path / "outside.html").write_text("")  # a file, but not the site's
    page = site / "index.html"
    page.write_text(
        '<a href="lessons/autograd.html#graph">ok</a> <a href="#top">ok</a> <a '
        'href="https://pytorch.org">ok</a><a href="lessons/">a folder</a> <a '
        'href="/lessons/autograd.html">from the root</a><script src="assets/missing.js"></script> '
        '<a href="../outside.html">outside</a>'
    )
    assert links_that_open_no_file(page, site) == [
        "lessons/",
        "/lessons/autograd.html",
        "assets/missing.js",
        "../outside.html",
    ]


@pytest.mark.slow
def test_every_link_opens_a_file(site):
    """Every link and source of every page opens a file of the site from disk. (404.html
    is left out: a web server shows it at any depth, so mkdocs writes its links from the
    site's root; read from a folder, no one reaches it.)"""
    pages = [p for p in sorted(site.rglob("*.html")) if p.name != "404.html"]
    # the whole site, not a few pages
    assert built_page(site, "lessons/autograd") in pages and len(pages) > 30
    broken = {
        str(p.relative_to(site)): found[:3]
        for p in pages
        if (found := links_that_open_no_file(p, site))
    }
    assert not broken, f"links that open no file when the site is read from disk: {broken}"


# --- math that renders with no network -------------------------------------------------
#
# docs/assets/katex-init.js renders formulas with the KaTeX vendored under
# docs/assets/katex/, in three places: the elements of class "arithmatex" (where
# pymdownx.arithmatex puts each formula of a Markdown page), the navigation links (where
# a heading's formula lands as plain \( ... \) text), and the Markdown cells of the
# notebooks (mkdocs-jupyter leaves their $ ... $ and $$ ... $$ as text, as Jupyter does).
# LaTeX anywhere else -- a `$$` block that Markdown did not see as a block, say, because it
# sits in a list item without blank lines around it -- reaches the reader as its source.

LATEX = re.compile(
    r"\\(?:frac|dfrac|tfrac|sum|prod|sqrt|text|mathrm|mathbf|mathbb|mathcal|operatorname|partial|nabla|"
    r"left|right|begin|end|cdot|cdots|ldots|odot|circ|times|quad|qquad|top|alpha|beta|gamma|delta|epsilon|"
    r"varepsilon|eta|theta|lambda|mu|sigma|tau|omega|infty|log|exp|max|min|tanh|sin|cos|hat|bar|tilde|"
    r"boxed|Big|big|le|ge|leq|geq|neq|approx|ell|in)(?![a-zA-Z])"
    r"|\\[a-zA-Z]+\{|[\^_]\{|\$\$|\\\(|\\\)|\\\[|\\\]|\$[^$\s][^$]*\$"
)
# what KaTeX finds and renders in each place (its delimiters, as katex-init.js gives them)
DELIMITED = {
    "nav": re.compile(r"\\\(.*?\\\)", re.S),
    "notebook": re.compile(r"\$\$.+?\$\$|\$[^$]+?\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S),
}
SKIPPED_TAGS = {"pre", "code", "script", "style", "textarea"}
VOID_TAGS = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class _TextByPlace(html.parser.HTMLParser):
    """Splits a page's text nodes by where they are: rendered math, code, navigation
    links, notebook Markdown, or anywhere else."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.texts = [], []  # texts: (place, text)

    def handle_starttag(self, tag, attrs):
        if tag in VOID_TAGS:
            return
        classes = (dict(attrs).get("class") or "").split()
        # clipboard-copy-txt: mkdocs-jupyter's hidden copy of a code cell, for its copy button
        if "arithmatex" in classes or "clipboard-copy-txt" in classes or tag in SKIPPED_TAGS:
            place = "skip"
        elif "md-nav__link" in classes:
            place = "nav"
        elif "jp-RenderedMarkdown" in classes:
            place = "notebook"
        else:
            place = None
        self.stack.append((tag, place))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        places = [place for _, place in self.stack if place]
        place = "skip" if "skip" in places else (places[-1] if places else "page")
        if place != "skip":
            self.texts.append((place, data))


def unrendered_math(page_html):
    """The LaTeX on a built page that KaTeX will not render, with some context each."""
    parser = _TextByPlace()
    parser.feed(page_html)
    found = []
    for place, text in parser.texts:
        if place in DELIMITED:
            text = DELIMITED[place].sub(" ", text)
        found += [
            " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
            for m in LATEX.finditer(text)
        ]
    return found


def test_unrendered_math_is_found():
    """The checker itself: formulas inside arithmatex elements, code and the math of a
    navigation link pass; a `$$` block that Markdown left as a paragraph does not."""
    rendered = (
        '<p>So <span class="arithmatex">\\(\\frac{a}{b}\\)</span> and</p>'
        '<div class="arithmatex">\\[\\sum_{i} x_i^{2}\\]</div>'
        "<pre><code>print(r'\\frac{1}{2}')</code></pre>"
        '<a href="#x" class="md-nav__link"><span>1. \\(y = x W^\\top\\)</span></a>'
    )
    assert unrendered_math(rendered) == []
    raw_block = "<ul><li>So\n  $$\n  dS = \\sum_j P_{ij}\n  $$</li></ul>"
    found = unrendered_math(rendered + raw_block)
    assert found and all("sum" in f or "$$" in f or "P_{" in f for f in found)
    assert unrendered_math("<p>the ratio \\(a/b\\) without its span</p>")
    assert unrendered_math('<a class="md-nav__link">1. $y^{2}$</a>')
    # a notebook's Markdown cell: its $ ... $ and $$ ... $$ are rendered, elsewhere they are not
    cell = '<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown"><p>with $z = \\tanh x$ and</p>'
    cell += "<p>$$\n\\frac{a}{b}\n$$</p></div>"
    assert unrendered_math(cell) == []
    assert unrendered_math(cell.replace("jp-RenderedMarkdown", "jp-OutputArea"))


@pytest.mark.slow
def test_math_is_all_rendered(site):
    pages = sorted(site.rglob("*.html"))
    assert any("arithmatex" in p.read_text() for p in pages), (
        "no formula found: did arithmatex stop running?"
    )
    raw = {}
    for p in pages:
        found = unrendered_math(p.read_text())
        if found:
            raw[str(p.relative_to(site))] = found[:3]
    assert not raw, (
        f"LaTeX outside the elements KaTeX renders (a reader would see its source): {raw}"
    )


# A script, stylesheet, font or image the browser would fetch from the network.
REMOTE = re.compile(
    r"""<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)\s*=\s*["']?(?:https?:)?//[^"'\s>]+"""
    r"""|@import\s+(?:url\()?["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//""",
    re.I,
)


def remote_loads(text):
    """The network loads in an HTML page or a stylesheet (links a reader follows are fine)."""
    return [m[0] for m in REMOTE.finditer(text)]


def test_remote_loads_are_found():
    assert remote_loads(
        '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>'
    )
    assert remote_loads('<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">')
    assert remote_loads("@font-face{src:url(https://example.org/f.woff2)}")
    assert remote_loads('<img src="http://example.org/a.png">')
    local = (
        '<script src="../assets/katex/katex.min.js"></script><a '
        'href="https://pytorch.org/docs">PyTorch</a>'
    )
    assert remote_loads(local) == []


@pytest.mark.slow
def test_site_loads_nothing_from_the_network(site):
    remote = {}
    for p in sorted(site.rglob("*")):
        if p.suffix in (".html", ".css"):
            found = remote_loads(p.read_text(errors="replace"))
            if found:
                remote[str(p.relative_to(site))] = found[:3]
    assert not remote, f"the site would fetch these from the network: {remote}"
    page = built_page(site, "lessons/losses").read_text()
    for asset in (
        "assets/katex/katex.min.js",
        "assets/katex/contrib/auto-render.min.js",
        "assets/katex-init.js",
    ):
        assert asset in page, f"the lesson does not load {asset}"
        assert (site / asset).is_file()
    css = (site / "assets" / "katex" / "katex.min.css").read_text()
    # vendored with its licence
    assert "MIT License" in (ROOT / "docs" / "assets" / "katex" / "LICENSE").read_text()
    fonts = set(re.findall(r"url\((fonts/[\w-]+\.woff2)\)", css))
    assert fonts and all((site / "assets" / "katex" / f).is_file() for f in fonts), (
        "a KaTeX font is missing"
    )


@pytest.mark.slow
def test_search_index_has_the_lessons(site):
    index = (site / "search" / "search_index.json").read_text()
    # a sentence's words from the autograd lesson and a name from the API reference
    assert "topological" in index


def shell_commands(text):
    """The bodies of the ```bash blocks of a Markdown text."""
    return [body.strip() for lang, body, _, _ in code_blocks(text) if lang == "bash"]


def test_home_page_has_the_readme_commands():
    """The home page's install commands are the README's two set-up commands, exactly
    (.ci/run runs the README's; a reader of the site must get the same)."""
    readme = shell_commands((ROOT / "README.md").read_text())
    home = shell_commands((ROOT / "docs" / "index.md").read_text())
    assert (
        len(readme) == 2 and readme[0].endswith("minigrad-train") and readme[1].endswith("pytest")
    ), readme
    assert home == readme


def test_home_page_trains_a_model_in_about_20_lines():
    """The home page's training example is short, and it checks what it trained (the
    page's examples are run by test_examples_run_and_print_what_the_page_shows)."""
    blocks = [
        body
        for lang, body, _, _ in code_blocks((ROOT / "docs" / "index.md").read_text())
        if lang == "python"
    ]
    training = [b for b in blocks if "optimizer.step()" in b]
    assert len(training) == 1
    lines = [line for line in training[0].splitlines() if line.strip()]
    assert len(lines) <= 22, f"the training example has {len(lines)} lines"
    assert "assert accuracy >" in training[0]


NOTEBOOKS = sorted((ROOT / "tutorials").glob("*.ipynb"))


@pytest.mark.slow
def test_every_notebook_is_a_page(site):
    """Each notebook of tutorials/ is a page of the site (through docs/tutorials, a link to
    ../tutorials), with its code cells, its Markdown, and a download link to the .ipynb
    that is next to the page. (The strict build already fails on a notebook left out of
    the nav.)"""
    import json

    assert NOTEBOOKS, "no notebooks in tutorials/"
    for notebook in NOTEBOOKS:
        page_file = built_page(site, f"tutorials/{notebook.stem}")
        page = page_file.read_text()
        assert 'class="jp-Cell' in page and "jp-CodeCell" in page, (
            f"{notebook.name}: no cells on its page"
        )
        cells = json.loads(notebook.read_text())["cells"]
        first_markdown = next("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        title = first_markdown.strip().splitlines()[0].lstrip("# ").strip()
        assert html.escape(title, quote=False) in page or title in page_text(page), (
            f"{notebook.name}: its title {title!r} is not on its page"
        )
        assert f'href="{notebook.name}"' in page and (page_file.parent / notebook.name).is_file()


# A figure with its unit, as the pages write them: 1.05–1.16x, 48.6 MiB, 12.9–18.2 s, 97.2%.
FIGURE = re.compile(
    r"\d[\d,]*(?:\.\d+)?(?:–\d[\d,]*(?:\.\d+)?)? ?(?:x|ms|µs|s|MiB|GiB|GFLOP/s|%)(?![\w/])"
)


def prose(path):
    """A Markdown file's text without its fenced blocks, its whitespace folded to single spaces."""
    text = (ROOT / path).read_text()
    for _, _, start, end in reversed(code_blocks(text)):
        text = text[:start] + text[end:]
    return " ".join(text.split())


def test_performance_page_states_only_figures_recorded_in_results():
    """The Performance page is the users' summary of benchmarks/RESULTS.md: every figure it
    states (a ratio, a time, a size, an accuracy) is written the same way in RESULTS.md, where
    its date and conditions are; and it is not a development log (no issue numbers, commits)."""
    page, results = prose("docs/performance.md"), prose("benchmarks/RESULTS.md")
    figures = FIGURE.findall(page)
    assert len(figures) >= 30, figures  # the tables are on the page
    missing = sorted({f for f in figures if f not in results})
    assert not missing, (
        f"docs/performance.md states figures that benchmarks/RESULTS.md does not: {missing}"
    )
    assert not re.search(r"issue #?\d|#\d+\b|\b[0-9a-f]{7,40}\b", page), (
        "issue numbers or commits on the page"
    )


def training_table(path):
    """The lines of a file's table of the training commands (the header `| command | ...` on)."""
    lines = (ROOT / path).read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("| command |")), None)
    assert start is not None, f"{path}: no table of the training commands"
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def test_readme_and_performance_page_state_the_same_training_figures():
    """The README's table of what each `minigrad-train` command prints and takes (which
    tests/test_train.py holds against the commands' output) is the Performance page's, and
    benchmarks/RESULTS.md records it with its conditions."""
    readme = training_table("README.md")
    assert len(readme) >= 2 + 5, readme  # header, rule, and the five commands
    assert training_table("docs/performance.md") == readme
    assert training_table("benchmarks/RESULTS.md") == readme


def test_readme_trains_the_same_model_as_the_home_page():
    """The README's training example is the home page's (tests/test_demo.py runs the
    README's python blocks, and test_examples_run_and_print_what_the_page_shows the
    home page's): the two front doors show the same code."""

    def training(path):
        blocks = [
            body for lang, body, _, _ in code_blocks((ROOT / path).read_text()) if lang == "python"
        ]
        return [b for b in blocks if "optimizer.step()" in b and "Digits" in b]

    assert training("docs/index.md") and training("README.md") == training("docs/index.md")


# ---- the lessons' five parts, the exercise marks, the repository link ---------------------
LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_has_a_gradient_check_and_a_benchmark_figure(lesson):
    """Each lesson shows the math, the reference code, the fast kernel, the gradient check
    and a benchmark figure: the last two have fixed names, a heading that says "gradient
    check" and a figure docs/figures/<name>_benchmark.png that exists."""
    text = lesson.read_text()
    headings = re.findall(r"^#{2,3} (.*)$", text, re.M)
    assert any("gradient check" in h.lower() for h in headings), (
        f"{lesson.name}: no gradient-check section"
    )
    figures = re.findall(r"\]\((\.\./figures/[\w-]+_benchmark\.png)\)", text)
    assert figures, f"{lesson.name}: no benchmark figure (../figures/<name>_benchmark.png)"
    for figure in figures:
        assert (lesson.parent / figure).resolve().is_file(), f"{lesson.name}: {figure} is missing"


def test_lesson_pages_show_the_code_without_the_exercise_marks(site):
    """Lessons include source that carries `# BEGIN SOLUTION hint: ...` marks
    (minigrad.exercises); the site hides them there, and only there: the Exercises page
    is about the marks and keeps them."""
    marked = [p for p in LESSONS if "--8<--" in p.read_text()]
    assert marked
    for lesson in LESSONS:
        shown = page_text(built_page(site, f"lessons/{lesson.stem}").read_text())
        assert "BEGIN SOLUTION" not in shown and "END SOLUTION" not in shown, lesson.name
    # the source still has them, and the lessons include regions that have them
    assert "# BEGIN SOLUTION" in (ROOT / "minigrad" / "ops" / "normalization.py").read_text()
    assert "# BEGIN SOLUTION" in page_text(built_page(site, "exercises").read_text())


def _repository_hook():
    return _hook("repository_link")


@pytest.mark.parametrize(
    "remote, page",
    [
        ("https://github.com/someone/minigrad.git\n", "https://github.com/someone/minigrad"),
        ("https://github.com/someone/minigrad", "https://github.com/someone/minigrad"),
        ("git@github.com:someone/minigrad.git", "https://github.com/someone/minigrad"),
        (
            "ssh://git@gitlab.example.org/course/ml/minigrad.git",
            "https://gitlab.example.org/course/ml/minigrad",
        ),
        ("https://user@codeberg.org/someone/minigrad.git", "https://codeberg.org/someone/minigrad"),
        ("/home/someone/minigrad", None),
        ("file:///srv/git/minigrad.git", None),
        ("", None),
        (None, None),
    ],
)
def test_repository_link_comes_from_the_checkouts_remote(remote, page):
    assert _repository_hook().web_address(remote) == page


def test_header_links_to_the_repository(site, site_repo_url):
    home = (site / "index.html").read_text()
    assert f'<a href="{site_repo_url}" title="Go to repository" class="md-source"' in home
