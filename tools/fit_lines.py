"""Bring Python source lines to at most 100 characters, keeping what they mean.

`ruff format --line-length 100` wraps code, but leaves alone what it must not change:
comments, docstrings and long strings. This tool does those, then formats again, until
nothing changes:

- a comment line is cut at its last space that fits; the rest goes to the next comment
  line of the same paragraph, or to a new one under it (a list item's continuation
  lines up under its text);
- a comment at the end of a line of code moves onto its own line above that code;
- a docstring line is cut the same way (a soft line break in its Markdown), except in a
  ``` code block, a table or a `>>>` example;
- a string is cut at a space into two adjacent literals, "... " "...", which Python
  joins into the same value (so a test's regex still matches the message); f-string
  parts left without a placeholder lose their `f` (ruff's F541 fix).

What is left (a long name, a URL, a string without spaces, a triple-quoted string that
is not a docstring) is printed, to be shortened by hand.

    python tools/fit_lines.py minigrad/ops minigrad/kernels   # files or folders
    python tools/fit_lines.py --check minigrad                # print the long lines only
"""

import argparse
import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

WIDTH = 100
RUFF = str(Path(sys.executable).with_name("ruff"))
# comments a tool reads: lint pragmas, snippet markers, the exercises' one-line hints
PRAGMA = re.compile(r"#\s*(?:noqa|type:|fmt:|pragma|--8<--|BEGIN SOLUTION|END SOLUTION)")
LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
RULE = re.compile(r"(?<= )([-=#~*])\1{9,}$")  # a run of ten or more dashes ending a comment
NOT_PROSE = re.compile(r"^(?:[-*+|>]|\d+[.)]|```|\.\.\.|\"\"\"|'''|$)")


def cut(text, room):
    """(head, tail) of `text` cut after its last space within `room` characters, or None."""
    at = text.rfind(" ", 0, room)
    while at > 0 and text[at - 1] == " ":  # keep runs of spaces whole
        at -= 1
    if at <= 0:
        return None
    return text[:at], text[at:].lstrip(" ")


def hanging(body):
    """The extra indentation of a continuation of `body`: a list item's marker width."""
    m = LIST_ITEM.match(body)
    return " " * len(m.group(0)) if m else ""


def wrap_prose(lines, i, prefix, body, may_join=True):
    """Cut line i (`prefix` + `body`, prose) and carry the rest to the next line when that
    line continues the same paragraph under the same prefix (and `may_join`), else onto a
    new line."""
    parts = cut(body, WIDTH - len(prefix))
    if parts is None:
        return False
    head, tail = parts
    lines[i] = prefix + head
    follow = prefix + hanging(body)
    nxt = lines[i + 1] if i + 1 < len(lines) else None
    if (
        may_join
        and nxt is not None
        and nxt.startswith(follow)
        and not NOT_PROSE.match(nxt[len(follow) :])
    ):
        if not nxt[len(follow) :].startswith(" "):
            lines[i + 1] = follow + tail + " " + nxt[len(follow) :]
            return True
    lines.insert(i + 1, follow + tail)
    return True


def docstring_lines(tree):
    """The numbers (1-based) of the lines of every docstring, outside its code blocks."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    found.update(range(first.lineno, first.end_lineno + 1))
    return found


def fix_strings(lines, long_rows, tokens):
    """Cut the single-line strings that cross the width into two adjacent literals."""
    depth, edits = 0, []
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type == tokenize.STRING and tok.start[0] == tok.end[0] in long_rows:
            if tok.end[1] > WIDTH and not tok.string.endswith(('"""', "'''")):
                edits.append((tok, depth))
    edited_rows = {tok.start[0] for tok, _ in edits}
    following = {}  # a literal's next part in an implicit concatenation, on a later row
    for tok, nxt in zip(tokens, _significant(tokens)):
        if tok.type == nxt.type == tokenize.STRING:
            following[tok.start] = nxt if nxt.start[0] > tok.start[0] else None
    changed = False
    for tok, depth in reversed(edits):  # right to left, so earlier columns stay valid
        prefix, quote, body = STRING.match(tok.string).groups()
        room = WIDTH - 1 - (tok.start[1] + len(prefix) + 1)
        at = body.rfind(" ", 0, room)
        while at > 0 and ("f" in prefix.lower() and _in_braces(body, at) or body[at - 1] == "\\"):
            at = body.rfind(" ", 0, at)
        if at <= 0 or at + 1 >= len(body):
            continue
        head, tail = body[: at + 1], body[at + 1 :]
        nxt = following.get(tok.start)
        if nxt is not None and _joinable(prefix, quote, tail, nxt):  # into the next literal
            if nxt.start[0] in edited_rows:
                continue  # the next literal is cut first, in this pass; this one in the next
            row, line = nxt.start[0] - 1, lines[nxt.start[0] - 1]
            m2 = STRING.match(nxt.string)
            joined = _literal(m2[1] if "f" in m2[1].lower() else prefix, quote, tail + m2[3])
            lines[row] = line[: nxt.start[1]] + joined + line[nxt.end[1] :]
            parts = _literal(prefix, quote, head)
        else:
            parts = f"{_literal(prefix, quote, head)} {_literal(prefix, quote, tail)}"
            parts = f"({parts})" if depth == 0 else parts
        row, line = tok.start[0] - 1, lines[tok.start[0] - 1]
        lines[row] = line[: tok.start[1]] + parts + line[tok.end[1] :]
        changed = True
    return changed


def _significant(tokens):
    """For each token, the next one that is not a line break inside brackets or a comment."""
    found, nxt = [], tokens[-1]
    for tok in reversed(tokens):
        found.append(nxt)
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            nxt = tok
    return reversed(found)


STRING = re.compile(r"^([a-zA-Z]*)(['\"])(.*)\2$", re.S)


def _literal(prefix, quote, body):
    """A string literal; an f-string part without a placeholder loses its `f` (F541)."""
    if "{" not in body and "}" not in body:
        prefix = prefix.replace("f", "").replace("F", "")
    return f"{prefix}{quote}{body}{quote}"


def _joinable(prefix, quote, tail, nxt):
    """Whether `tail` of a literal can begin the next literal `nxt` of the same implicit
    concatenation, meaning the same: same quote, same raw/bytes prefix, and braces only
    where both are f-strings."""
    m = STRING.match(nxt.string)
    if m is None or m[2] != quote or nxt.string.endswith(('"""', "'''")):
        return False
    plain = lambda p: set(p.lower()) - {"f"}  # noqa: E731
    if plain(prefix) != plain(m[1]):
        return False
    same_f = ("f" in prefix.lower()) == ("f" in m[1].lower())
    return same_f or ("{" not in tail and "}" not in tail)


def _in_braces(body, at):
    depth = 0
    for ch in re.sub(r"\{\{|\}\}", "", body[:at]):
        depth += ch == "{"
        depth -= ch == "}"
    return depth > 0


def frozen_rows(tokens):
    """The rows the formatter leaves alone, so this tool does too: between `# fmt: off` and
    `# fmt: on`, and the statement that ends in `# fmt: skip` (outside brackets)."""
    rows, start, off, depth = set(), None, None, 0
    layout = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE)
    for tok in tokens:
        if tok.type == tokenize.COMMENT and re.match(r"#\s*fmt:\s*off", tok.string):
            off = tok.start[0]
        elif tok.type == tokenize.COMMENT and re.match(r"#\s*fmt:\s*on", tok.string) and off:
            rows.update(range(off, tok.start[0] + 1))
            off = None
        elif tok.type == tokenize.OP and tok.string in "([{)]}":
            depth += 1 if tok.string in "([{" else -1
        elif (
            depth == 0 and tok.type == tokenize.COMMENT and re.match(r"#\s*fmt:\s*skip", tok.string)
        ):
            rows.update(range(start or tok.start[0], tok.start[0] + 1))
        if tok.type == tokenize.NEWLINE:
            start = None  # the next statement starts at its first token
        elif start is None and tok.type not in layout:
            start = tok.start[0]
    if off:
        rows.update(range(off, tokens[-1].end[0] + 1))
    return rows


def fit(text, strings=True):
    """One pass over `text`: (new text, whether anything changed). Without `strings`,
    only the comments and docstrings."""
    lines = text.split("\n")
    long_rows = {n for n, line in enumerate(lines, start=1) if len(line) > WIDTH}
    if not long_rows:
        return text, False
    tree = ast.parse(text)
    docs = docstring_lines(tree)
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    long_rows -= frozen_rows(tokens)
    comments = {t.start[0]: t for t in tokens if t.type == tokenize.COMMENT}
    if strings and fix_strings(lines, long_rows, tokens):
        return "\n".join(lines), True
    code_rows = _code_rows(lines, docs)
    changed = False
    for row in sorted(long_rows, reverse=True):  # bottom up: the rows above keep their numbers
        i, line = row - 1, lines[row - 1]
        indent = line[: len(line) - len(line.lstrip())]
        comment = comments.get(row)
        if comment is not None and not PRAGMA.match(comment.string):
            if RULE.search(line):  # a heading's rule, `# ---- name -----`: shorter
                run = RULE.search(line).group(0)
                keep = max(3, len(run) - (len(line) - WIDTH))
                lines[i] = line[: len(line) - len(run)] + run[:keep]
                changed = True
            elif line.lstrip().startswith("#"):  # a comment line
                m = re.match(r"^(#+ *)(.*)$", line.lstrip())
                changed |= wrap_prose(lines, i, indent + m.group(1), m.group(2))
            else:  # a comment after code: onto its own line above it
                lines[i] = line[: comment.start[1]].rstrip()
                lines.insert(i, indent + comment.string)
                changed = True
        elif row in docs and row not in code_rows:
            body = line.strip()
            opening = re.match(r'^([a-zA-Z]*"""|[a-zA-Z]*\'\'\')', body)
            if opening:  # the first line: the text continues under the quotes' indentation
                parts = cut(body, WIDTH - len(indent))
                if parts:
                    lines[i] = indent + parts[0]
                    lines.insert(i + 1, indent + parts[1])
                    changed = True
            elif not body.startswith(("|", ">>>", "...")):  # the next line is the docstring's
                last = '"""' in body or "'''" in body or row + 1 not in docs
                changed |= wrap_prose(lines, i, indent, body, may_join=not last)
    return "\n".join(lines), changed


def _code_rows(lines, docs):
    """The docstring rows inside ``` fences (not to be wrapped)."""
    rows, inside = set(), False
    for row in sorted(docs):
        stripped = lines[row - 1].strip() if row - 1 < len(lines) else ""
        if stripped.startswith("```"):
            inside = not inside
            rows.add(row)
        elif inside:
            rows.add(row)
    return rows


def meaning(text):
    """The file's syntax tree, with each docstring's words apart from its line breaks: equal
    before and after, the file runs as it did (implicitly joined strings are one constant
    in the tree, and comments are not in it)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(first.value.value, str):
                first.value.value = " ".join(first.value.value.split())
    return ast.dump(tree)


def python_files(paths):
    for path in map(Path, paths):
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def ruff(*args):
    subprocess.run([RUFF, *args, "--line-length", str(WIDTH), "--quiet"], check=False)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="+", help="Python files or folders")
    parser.add_argument("--check", action="store_true", help="only print the lines too long")
    args = parser.parse_args(argv)
    files = list(python_files(args.paths))
    if not args.check:
        for path in files:  # the comments after long code first, before the formatter moves them
            before = meaning(path.read_text())
            for strings in (False, True):
                for _ in range(100):
                    text, changed = fit(path.read_text(), strings)
                    if not changed:
                        break
                    path.write_text(text)
                    if strings:
                        ruff("format", str(path))
                ruff("format", str(path))
            if meaning(path.read_text()) != before:
                sys.exit(f"{path}: the code no longer means what it did; see `git diff {path}`")
    left = 0
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if len(line) > WIDTH and "# BEGIN SOLUTION" not in line:  # ruff lets a hint be
                left += 1
                print(f"{path}:{number}: {len(line)} characters: {line.strip()[:70]}")
    print(f"{left} lines over {WIDTH} characters left", file=sys.stderr)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
