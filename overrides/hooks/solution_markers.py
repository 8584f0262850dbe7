"""A mkdocs hook: lesson pages show the library's code without its exercise markers.

`minigrad.exercises` finds the solution regions it blanks out for students by comment
lines in the source, `# BEGIN SOLUTION hint: ...` and `# END SOLUTION`. The lessons
include that same source (pymdownx.snippets), where those lines mean nothing to a reader
and give the answer's hint away next to the answer. This hook deletes them from the
highlighted code of every lesson page; the source files keep them, and so does the
Exercises page, which is about the marks.
"""

import re

# One highlighted comment line, as Pygments writes it: optional indentation (plain or in
# a whitespace span), the comment span, the newline.
MARKER_LINE = re.compile(
    r'^[ \t]*(?:<span class="w">[ \t]*</span>)?<span class="c1"># (?:BEGIN|END) '
    r"SOLUTION[^<]*</span>\n",
    re.MULTILINE,
)


def on_page_content(html, page, config, files):
    if not page.file.src_uri.startswith("lessons/"):
        return html
    return MARKER_LINE.sub("", html)
