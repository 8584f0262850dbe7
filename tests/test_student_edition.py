"""The student edition of the site (`mkdocs build -f mkdocs-student.yml`): its pages show
each exercise as a student's copy has it (the signature, the docstring, and a
NotImplementedError with the hint) and no line of any solution, while the instructor's
edition (mkdocs.yml) shows the solutions.

The pages are rendered here as a build renders them (the configuration's plugins and
hooks, mkdocs's own Page.render), but only the lessons and the Exercises page: a full
build of each edition would take a minute, and tests/test_docs.py builds the instructor's.
"""

import ast
import functools
import html
import importlib.util
import re
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import get_files
from mkdocs.structure.pages import Page

from minigrad.exercises import LESSONS
from minigrad.exercises.lessons import lesson_regions
from minigrad.exercises.regions import exercise_message
from minigrad.exercises.student_copy import lesson_sources

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs" / "lessons").glob("*.md")
)
PAGES.append("exercises.md")
# an include of a section, `path:section`, or of a definition by name, `path::Name`
INCLUDE = re.compile(
    r'^--8<-- "(?P<path>[\w./-]+):(?:(?P<section>[-_0-9a-z]+)|:(?P<name>[\w.]+))"$', re.M
)
# the tags that end a line of the page's text (a listing's title is a <span> before its <pre>)
BLOCK = re.compile(r"</?(?:pre|p|div|br|h[1-6]|li|tr|td|th)\b[^>]*>")


def render(config_file, site_dir):
    """{page: the lines of text of its rendered HTML} for PAGES, built with `config_file`."""
    config = load_config(str(ROOT / config_file), site_dir=str(site_dir))
    config = config.plugins.on_config(config)
    files = get_files(config)  # every page and figure, so that the links resolve
    rendered = {}
    try:
        for file in (files.get_file_from_path(page) for page in PAGES):
            page = Page(None, file, config)
            page.read_source(config)
            page.markdown = config.plugins.on_page_markdown(
                page.markdown, page=page, config=config, files=files
            )
            page.render(config, files)
            content = config.plugins.on_page_content(
                page.content, page=page, config=config, files=files
            )
            text = html.unescape(re.sub(r"<[^>]+>", "", BLOCK.sub("\n", content)))
            rendered[file.src_uri] = {line.strip() for line in text.splitlines()}
    finally:
        for hook in config.hooks.values():  # the student edition's temporary folder
            if hasattr(hook, "on_post_build"):
                hook.on_post_build(config)
    return rendered


@pytest.fixture(scope="module")
def editions(tmp_path_factory):
    return {
        "instructor": render("mkdocs.yml", tmp_path_factory.mktemp("instructor")),
        "student": render("mkdocs-student.yml", tmp_path_factory.mktemp("student")),
    }


@functools.cache
def regions():
    """(lesson, region, its solution's lines, the signature and first docstring line of
    the function holding it), for every region of every lesson."""
    found = []
    for lesson in LESSONS.values():
        for path, file_regions in lesson_regions(ROOT, lesson).items():
            source = (ROOT / path).read_text()
            lines = source.splitlines()
            functions = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]
            for region in file_regions:
                body = [
                    line.strip() for line in lines[region.begin : region.end - 1] if line.strip()
                ]
                function = max(
                    (f for f in functions if f.lineno <= region.begin <= f.end_lineno),
                    key=lambda f: f.lineno,
                )
                heading = [lines[function.lineno - 1].strip()]  # the def line
                if ast.get_docstring(function) is not None:
                    # the docstring's first line
                    heading.append(lines[function.body[0].lineno - 1].strip())
                found.append((lesson.name, region, tuple(body), tuple(heading)))
    return tuple(found)


@functools.cache
def definitions_hook():
    """overrides/hooks/definitions.py, which finds a definition included by name."""
    spec = importlib.util.spec_from_file_location(
        "definitions", ROOT / "overrides/hooks/definitions.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def shown_on(page):
    """The regions whose code `page` includes: those inside one of its `--8<--` sections or
    definitions."""
    text = (ROOT / "docs" / page).read_text()
    shown = []
    for match in INCLUDE.finditer(text):
        source = (ROOT / match["path"]).read_text()
        if match["name"]:  # the definition's lines (overrides/hooks/definitions.py)
            first, last = definitions_hook().definition_lines(source, match["name"])
            start, end = first - 1, last + 1
        else:
            numbered = [
                (number, line.strip()) for number, line in enumerate(source.splitlines(), start=1)
            ]
            start = next(
                n for n, line in numbered if line == f"# --8<-- [start:{match['section']}]"
            )
            end = next(n for n, line in numbered if line == f"# --8<-- [end:{match['section']}]")
        shown += [
            r
            for r in regions()
            if r[1].path == match["path"] and start < r[1].begin < r[1].end < end
        ]
    return tuple(shown)


@functools.cache
def students_lines():
    """Every line of a student's copy: the package with the solutions cut out, and the tests."""
    texts = {p.relative_to(ROOT).as_posix(): p.read_text() for p in ROOT.glob("minigrad/**/*.py")}
    texts |= lesson_sources()
    texts |= {p.name: p.read_text() for p in ROOT.glob("tests/**/*.py")}
    return frozenset(line.strip() for text in texts.values() for line in text.splitlines())


def solution_only(body):
    """The lines of a solution that a student's copy has nowhere else: `return (`, `else:`
    or `for i in range(kh):` (which the Numba kernels have too) are not among them,
    `windows = as_strided(...)` is."""
    return [line for line in body if line not in students_lines()]


def test_the_lessons_include_solutions_so_the_check_below_means_something():
    shown = {page: shown_on(page) for page in PAGES}
    assert sum(len(s) for s in shown.values()) >= 10, shown
    assert {lesson for s in shown.values() for lesson, *_ in s} == set(LESSONS)
    assert all(solution_only(body) for _, _, body, _ in regions()), (
        "a region whose every line is found elsewhere"
    )


@pytest.mark.slow
def test_the_instructors_edition_shows_the_solutions(editions):
    for page in PAGES:
        lines = editions["instructor"][page]
        for lesson, region, body, _ in shown_on(page):
            missing = [line for line in body if line not in lines]
            assert not missing, f"{page}: the solution of {region.name} ({lesson}) lacks {missing}"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_the_student_edition_shows_the_exercises_and_no_solution(editions, page):
    lines = editions["student"][page]
    for lesson, region, body, _ in regions():
        leaked = [line for line in solution_only(body) if line in lines]
        assert not leaked, f"{page} shows solution lines of {region.name} ({lesson}): {leaked}"
    for lesson, region, _, heading in shown_on(page):
        gap = f"raise NotImplementedError({exercise_message(lesson, region.hint)!r})"
        assert gap in lines, f"{page}: {region.name} is not shown as the exercise ({gap})"
        for line in filter(None, heading):
            assert line in lines, (
                f"{page}: {region.name}'s signature or docstring is missing: {line!r}"
            )


@pytest.mark.slow
def test_the_exercises_page_says_which_edition_it_is(editions):
    assert "Student edition" in editions["student"]["exercises.md"]
    assert "Student edition" not in editions["instructor"]["exercises.md"]


def test_an_unknown_edition_is_a_clear_error(tmp_path):
    config = load_config(
        str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path), extra={"edition": "teacher"}
    )
    with pytest.raises(
        PluginError, match="extra.edition is 'teacher'; expected one of instructor, student"
    ):
        config.plugins.on_config(config)
