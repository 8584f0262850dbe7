"""docs/architecture.md, held against the tree: the page a new reader is sent to first must
not send them to a file that has moved or to the wrong layer.

The page's layer diagram (its first ```text block) and its "Where does my change go?"
table name files and folders of `minigrad/`. `tests/test_layering.py`'s LAYERS decides
which layer each one is in; this test reads the page (no site build) and checks that:

- every path the diagram or the table names exists (`<family>` stands for any name);
- the diagram's rows are the layers of LAYERS, top first, and each path sits in the
  layer of its row; every folder of the package appears in it;
- in the table, every path of `minigrad/` that a change is written in is followed by its
  layer in parentheses, `ops/loss.py (ops)`, and that is the layer LAYERS gives it;
  every row names at least one test under `tests/`;
- the path of a call (the second ```text block) runs down through the layers.
"""

import re
from pathlib import Path

from tests.test_layering import LAYERS, layer_of

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
# paths that start with these are at the top of the repository; the others are in minigrad/
TOP_LEVEL = ("tests/", "docs/", "mkdocs.yml")
TEXT_BLOCK = re.compile(r"^```text\n(.*?)^```", re.M | re.S)
# a file or folder name: words, slashes and <placeholders>, ending in a file suffix or "/"
PATH = r"[\w<>*./-]*[\w<>*-](?:/|\.py|\.md|\.yml)"
DIAGRAM_PATH = re.compile(rf"(?<![\w./<>*@-])({PATH})(?![\w/])")
CODE = re.compile(r"`([^`]+)`(?: \(([\w.]+)\))?")
LABEL_WIDTH = 15  # the diagram's first column: the layer's name


def resolve(path):
    """The files and folders on disk that `path`, as the page writes it, names."""
    where = path if path.startswith(TOP_LEVEL) else f"minigrad/{path}"
    pattern = re.sub(r"<[^>]*>", "*", where.rstrip("/"))
    return sorted(ROOT.glob(pattern))


def layers_of(path):
    """The layers LAYERS gives what `path` names (a folder: the folder itself)."""
    found = set()
    for p in resolve(path):
        relative = p.relative_to(ROOT).as_posix() + ("/" if p.is_dir() else "")
        found.add(layer_of(relative, LAYERS))
    return found


def is_path(text):
    return re.fullmatch(PATH, text) is not None


# --- reading the page ------------------------------------------------------------------


def diagram_rows(block):
    """[(layer, [path, ...])] for the layer diagram, a row per layer, top first."""
    rows = []
    for line in block.splitlines():
        label = line[:LABEL_WIDTH].strip()
        if label:
            rows.append((label, []))
        elif not rows:
            raise ValueError(f"the diagram starts without a layer: {line!r}")
        rows[-1][1].extend(DIAGRAM_PATH.findall(line[LABEL_WIDTH:]))
    return rows


def table_rows(text, heading="## Where does my change go?"):
    """[(to add, write it in, test it in)] for the table under `heading`."""
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    assert cells and cells[0] == ["To add", "Write it in", "Test it in"], (
        f"not the table: {cells[:1]}"
    )
    return [tuple(row) for row in cells[2:]]


# --- checking it -----------------------------------------------------------------------


def diagram_problems(rows):
    problems = []
    labels = [label for label, _ in rows]
    if labels != list(reversed(LAYERS)):
        problems.append(
            f"the diagram's rows are {labels}, LAYERS (top first) is {list(reversed(LAYERS))}"
        )
    for label, paths in rows:
        for path in paths:
            if not resolve(path):
                problems.append(f"the diagram names {path} in {label}, and there is no such file")
            elif layers_of(path) != {label}:
                problems.append(
                    f"the diagram puts {path} in {label}; LAYERS puts it in "
                    f"{sorted(layers_of(path))}"
                )
    return problems


def table_problems(rows):
    problems = []
    for to_add, write_in, test_in in rows:
        for code, layer in CODE.findall(write_in):
            if not is_path(code):
                continue
            if not resolve(code):
                problems.append(f"{to_add!r}: {code} does not exist")
            elif not code.startswith(TOP_LEVEL):
                if not layer:
                    problems.append(
                        f"{to_add!r}: {code} is not followed by its layer, as `{code}` (layer)"
                    )
                elif layers_of(code) != {layer}:
                    problems.append(
                        f"{to_add!r}: the table puts {code} in {layer}; LAYERS puts it in "
                        f"{sorted(layers_of(code))}"
                    )
        tests = [code for code, _ in CODE.findall(test_in) if is_path(code)]
        if not any(t.startswith("tests/") for t in tests):
            problems.append(f"{to_add!r}: no test under tests/ is named")
        problems += [f"{to_add!r}: {t} does not exist" for t in tests if not resolve(t)]
    return problems


# --- the page --------------------------------------------------------------------------


def test_the_diagram_places_each_path_in_its_layer():
    rows = diagram_rows(TEXT_BLOCK.findall(PAGE.read_text())[0])
    problems = diagram_problems(rows)
    assert not problems, "docs/architecture.md's diagram is out of date:\n" + "\n".join(problems)


def test_the_diagram_names_every_folder_of_the_package():
    named = {
        path for _, paths in diagram_rows(TEXT_BLOCK.findall(PAGE.read_text())[0]) for path in paths
    }
    folders = {p.name + "/" for p in (ROOT / "minigrad").iterdir() if (p / "__init__.py").exists()}
    missing = sorted(f for f in folders if not any(path.startswith(f) for path in named))
    assert not missing, f"docs/architecture.md's diagram does not show {missing}"


def test_the_table_names_files_that_exist_in_the_layers_it_says():
    rows = table_rows(PAGE.read_text())
    assert len(rows) >= 10, f"the table has {len(rows)} rows"
    problems = table_problems(rows)
    assert not problems, "docs/architecture.md's table is out of date:\n" + "\n".join(problems)


def test_the_call_runs_down_through_the_layers():
    block = TEXT_BLOCK.findall(PAGE.read_text())[1]
    paths = [m for line in block.splitlines() for m in DIAGRAM_PATH.findall(line)]
    assert len(paths) >= 5, f"the call's path names {paths}"
    assert all(resolve(p) for p in paths), [p for p in paths if not resolve(p)]
    ranks = [list(LAYERS).index(layers_of(p).pop()) for p in paths]
    assert ranks == sorted(ranks, reverse=True), (
        f"the call goes up a layer: {list(zip(paths, ranks))}"
    )


# --- the checks themselves: they can fail ----------------------------------------------


def test_a_moved_file_or_a_wrong_layer_is_found():
    rows = [
        (
            "a loss",
            "`ops/loss.py` (nn); `nn/gone.py` (nn); `nn/loss.py`; `mg.f` and `docs/lessons/`",
            "`tests/x.py`",
        ),
        ("a model", "`models/` (top)", "nothing"),
    ]
    assert table_problems(rows) == [
        "'a loss': the table puts ops/loss.py in nn; LAYERS puts it in ['ops']",
        "'a loss': nn/gone.py does not exist",
        "'a loss': nn/loss.py is not followed by its layer, as `nn/loss.py` (layer)",
        "'a loss': tests/x.py does not exist",
        "'a model': no test under tests/ is named",
    ]


def test_a_diagram_out_of_order_or_in_the_wrong_layer_is_found():
    block = "\n".join(
        ["tensor         ops/conv.py   nn/", "               tensor_<family>.py (mixins)"]
    )
    rows = diagram_rows(block)
    assert rows == [("tensor", ["ops/conv.py", "nn/", "tensor_<family>.py"])]
    problems = diagram_problems(rows)
    assert problems[0].startswith("the diagram's rows are ['tensor']")
    assert problems[1:] == [
        "the diagram puts ops/conv.py in tensor; LAYERS puts it in ['ops']",
        "the diagram puts nn/ in tensor; LAYERS puts it in ['nn']",
    ]
