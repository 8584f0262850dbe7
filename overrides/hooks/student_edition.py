"""A mkdocs hook: the student edition of the site, whose pages show each exercise as a
student's copy has it, not its solution.

The lessons include the library's source by sections (pymdownx.snippets), and some of
that source is the code the exercises take out (the regions between `# BEGIN SOLUTION`
and `# END SOLUTION`, see minigrad.exercises). The default build, the instructor's,
shows it. `mkdocs build -f mkdocs-student.yml` sets `extra.edition: student`, and then
this hook writes the lessons' source files as a student's copy has them (each region
replaced by `raise NotImplementedError("exercise <lesson>: <hint>")`, under the
function's signature and docstring) into a temporary folder, and puts that folder first
in the snippets' base_path: every include of those files reads the student's text, and
every other file is found in the checkout as before. The Exercises page gets a note
saying which edition it is.
"""

import shutil
import sys
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError

EDITIONS = ("instructor", "student")
NOTE = """
!!! note "Student edition"
    This is the student edition of the site: the lessons, and the listing on this page, show
    each exercise as your copy of minigrad has it, a `raise NotImplementedError` with the hint
    where the solution goes.
"""

_folder = None  # the student's source files of this build, removed when it ends


def edition(config):
    """'instructor' (the default) or 'student', from `extra.edition`."""
    name = config.extra.get("edition", "instructor")
    if name not in EDITIONS:
        raise PluginError(
            f"student_edition: extra.edition is {name!r}; expected one of {', '.join(EDITIONS)}"
        )
    return name


def on_config(config):
    global _folder
    if edition(config) != "student":
        return config
    root = Path(config.config_file_path).resolve().parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))  # this checkout's minigrad, not an installed one
    from minigrad.exercises.student_copy import lesson_sources

    _folder = Path(tempfile.mkdtemp(prefix="minigrad-student-edition-"))
    for path, text in lesson_sources("all", root=root).items():
        (_folder / path).parent.mkdir(parents=True, exist_ok=True)
        (_folder / path).write_text(text)
    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    base = snippets.get("base_path", ".")  # a path (or `!relative` placeholder), or a list of them
    snippets["base_path"] = [str(_folder), *(base if isinstance(base, (list, tuple)) else [base])]
    return config


def on_page_markdown(markdown, page, config, files):
    if edition(config) != "student" or page.file.src_uri != "exercises.md":
        return markdown
    title, _, rest = markdown.partition("\n")  # the note goes under the page's heading
    return f"{title}\n{NOTE}{rest}"


def _remove_folder():
    global _folder
    if _folder is not None:
        shutil.rmtree(_folder, ignore_errors=True)
        _folder = None


def on_post_build(config):
    _remove_folder()


def on_build_error(error):
    _remove_folder()
