"""The tutorial notebooks (tutorials/*.ipynb) run top to bottom, and the outputs stored in
them are the ones they print now.

The notebooks are committed with their outputs, so that the site (which renders them as
committed), GitHub and Jupyter show the printed results and figures before anyone runs
them. tools/run_notebooks.py makes those outputs: it executes each notebook in a fresh
Jupyter kernel with MINIGRAD_TUTORIAL_SMALL=1, the quick setting every notebook reads to
shrink its epochs, steps and sizes, and stores what it printed and drew.

test_notebook_prints_what_is_stored executes each notebook once, the same way, and
compares the fresh outputs with the stored ones (run_notebooks.differences: the same
outputs and figures in the same cells, the same text, numbers equal up to rounding,
durations left out). Any cell that raises fails it, and every notebook ends with an
assertion on what it trained (accuracy above a floor, loss below a baseline), so a notebook
whose model stopped learning fails too, not only one that crashes. A notebook whose stored
outputs no longer match fails with the command that rewrites them. The kernel gets this
checkout first on PYTHONPATH, and checks that the `minigrad` it imported is this one.
"""

import base64
import copy
import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "tutorials"
NOTEBOOKS = sorted(TUTORIALS.glob("*.ipynb"))
SMALL_SETTING = "MINIGRAD_TUTORIAL_SMALL"

sys.path.insert(0, str(ROOT / "tools"))
import run_notebooks  # noqa: E402  (tools/ is not a package)

# the whole set of stored figures, decoded: the notebooks stay small in the repository
MAX_FIGURE_BYTES = 400_000


def _code_cells(path):
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _read(path):
    import nbformat

    return nbformat.read(path, as_version=4)


def test_the_tutorials_are_there():
    numbers = [p.name[:3] for p in NOTEBOOKS]
    assert numbers == [f"{i:02d}_" for i in range(1, 9)], numbers


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_with_its_outputs(path):
    """Every code cell ran, in order, and its outputs are stored as run_notebooks.py
    stores them (no stderr, no error, figures as palette PNGs), so the site shows them."""
    nb = _read(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: execution counts {counts}: the notebook was not run top to bottom; "
        f"run `{run_notebooks.REGENERATE} {path.name[:2]}`"
    )
    for i, cell in enumerate(code, start=1):
        for out in cell.outputs:
            assert out.output_type != "error", f"{path.name}: code cell {i} stores an error"
            assert out.get("name") != "stderr", f"{path.name}: code cell {i} stores stderr"
    assert run_notebooks.tidy(copy.deepcopy(nb)) == nb, (
        f"{path.name}: its outputs are not stored as tools/run_notebooks.py stores them; "
        f"run `{run_notebooks.REGENERATE} {path.name[:2]}`"
    )


# a cell that draws: plt.show(), or one of mg.viz's pictures as the cell's last value
DRAWS = re.compile(r"plt\.show\(\)|^mg\.viz\.(?:plot_\w+|draw_graph)\(", re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_cell_that_draws_has_its_figure(path):
    """The text around a picture ("the plot shows ...") has the picture to point at."""
    drawing = 0
    for i, cell in enumerate(_code_cells(path), start=1):
        if DRAWS.search(_source(cell)):
            drawing += 1
            figures = [o for o in cell["outputs"] if "image/png" in o.get("data", {})]
            assert figures, f"{path.name}: code cell {i} draws a figure, but none is stored"
    assert drawing, f"{path.name}: no cell draws (has the pattern above gone stale?)"


def test_the_stored_figures_are_small():
    from PIL import Image

    sizes = {}
    for path in NOTEBOOKS:
        for i, cell in enumerate(_code_cells(path), start=1):
            for out in cell["outputs"]:
                if "image/png" in out.get("data", {}):
                    data = base64.b64decode(out["data"]["image/png"])
                    assert Image.open(io.BytesIO(data)).mode == "P", (
                        f"{path.name}: code cell {i}: not a palette PNG"
                    )
                    sizes[f"{path.name} cell {i}"] = len(data)
    assert len(sizes) >= 20, sizes  # 27 figures when this was written
    total = sum(sizes.values())
    biggest = max(sizes, key=sizes.get)
    assert total < MAX_FIGURE_BYTES, (
        f"the figures take {total:,} bytes (largest: {biggest}, {sizes[biggest]:,})"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_reads_the_small_setting_and_ends_with_an_assertion(path):
    cells = _code_cells(path)
    assert any(SMALL_SETTING in _source(c) for c in cells), (
        f"{path.name} never reads {SMALL_SETTING}"
    )
    assert "assert " in _source(cells[-1]), f"{path.name}: the last code cell asserts nothing"


# What a student's own code may import: the public packages of SPEC.md, not the kernels,
# ops or engine behind them (the notebooks teach the API a user has).
PUBLIC_MODULES = {
    "minigrad",
    "minigrad.autograd",
    "minigrad.data",
    "minigrad.models",
    "minigrad.nn",
    "minigrad.nn.functional",
    "minigrad.nn.utils",
    "minigrad.optim",
    "minigrad.text",
    "minigrad.viz",
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_imports_only_the_public_api(path):
    imported = set()
    for cell in _code_cells(path):
        for line in _source(cell).splitlines():
            words = line.split()
            if (
                len(words) >= 2
                and words[0] in ("import", "from")
                and words[1].split(".")[0] == "minigrad"
            ):
                imported.add(words[1])
    assert "minigrad" in imported, f"{path.name} does not import minigrad"
    private = sorted(imported - PUBLIC_MODULES)
    assert not private, f"{path.name} imports {private}, which are not public API"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_prints_what_is_stored(path):
    """The one execution of each notebook in the suite: it runs top to bottom (a cell that
    raises fails here, naming the cell), and prints and draws what is stored."""
    fresh = run_notebooks.execute(path)
    found = run_notebooks.differences(_read(path), fresh)
    assert not found, (
        f"{path.name}: the stored outputs are not what the notebook makes now:\n  "
        + "\n  ".join(line.replace("\n", "\n    ") for line in found)
        + f"\nIf the change is intended, store the new outputs with `{run_notebooks.REGENERATE} "
        f"{path.name[:2]}`"
        " and commit the notebook."
    )


# ---- the comparison itself, on made-up outputs -------------------------------------------


def _notebook(*cells):
    """A notebook whose code cells have the given outputs; a cell is (tags, outputs)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    for tags, outputs in cells:
        cell = nbformat.v4.new_code_cell("print(...)", outputs=outputs)
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    return nb


def _printed(text):
    import nbformat

    return nbformat.v4.new_output("stream", name="stdout", text=text)


def _figure(size="600x300"):
    import nbformat

    data = {"image/png": "iVBORw0KGgo=", "text/plain": f"<Figure size {size} with 1 Axes>"}
    return nbformat.v4.new_output("display_data", data=data)


@pytest.mark.parametrize(
    "stored, fresh, matches",
    [
        ("final loss 0.0123 (2.6 s)\n", "final loss 0.0123 (14.0 s)\n", True),  # a duration
        ("final loss 0.0123\n", "final loss 0.0125\n", True),  # within 2%
        ("final loss 0.0123\n", "final loss 0.0130\n", False),  # 6% off
        ("final loss 0.0005\n", "final loss 0.0004\n", True),  # one unit of the last digit
        ("test accuracy 95.3%\n", "test accuracy 91.1%\n", False),
        ("1,115,394 characters\n", "1,115,394 characters\n", True),
        ("largest difference: 1.1e-09\n", "largest difference: 4.4e-16\n", True),  # both rounding
        ("largest difference: 1.1e-09\n", "largest difference: 0.25\n", False),
        ("<TanhBackward0 object at 0x7f3a2c>\n", "<TanhBackward0 object at 0x55e1d0>\n", True),
        # the padding of a time
        ("  8x8   numpy     6.63 ms\n", "  8x8   numpy    16.63 ms\n", True),
        ("epoch  1\nepoch  2\n", "epoch  1\n", False),  # a line gone
        ("conv1 weight\n", "conv2 weight\n", False),  # a digit in a word is text
        ("step 10 train 3.720\n", "step 20 train 3.720\n", False),
    ],
)
def test_printed_text_is_compared_up_to_rounding_and_durations(stored, fresh, matches):
    found = run_notebooks.differences(
        _notebook((None, [_printed(stored)])), _notebook((None, [_printed(fresh)]))
    )
    assert (not found) == matches, found


def test_a_machine_dependent_cell_is_compared_without_its_numbers():
    stored, fresh = (
        "CPU cores: 2, compiling cost 832 runs\n",
        "CPU cores: 16, compiling cost 365 runs\n",
    )
    tagged = [run_notebooks.MACHINE_DEPENDENT]
    assert not run_notebooks.differences(
        _notebook((tagged, [_printed(stored)])), _notebook((tagged, [_printed(fresh)]))
    )
    assert run_notebooks.differences(
        _notebook((None, [_printed(stored)])), _notebook((None, [_printed(fresh)]))
    )
    words = "CPU threads: 16, compiling cost 365 runs\n"  # the words still count
    assert run_notebooks.differences(
        _notebook((tagged, [_printed(stored)])), _notebook((tagged, [_printed(words)]))
    )


def test_a_missing_or_changed_figure_is_a_difference():
    stored = _notebook((None, [_printed("loss\n"), _figure()]))
    assert not run_notebooks.differences(stored, _notebook((None, [_printed("loss\n"), _figure()])))
    found = run_notebooks.differences(stored, _notebook((None, [_printed("loss\n")])))
    assert found and "a figure" in found[0], found
    assert run_notebooks.differences(
        stored, _notebook((None, [_printed("loss\n"), _figure("900x300")]))
    )


def test_tidy_joins_printed_pieces_and_drops_stderr():
    import nbformat

    pieces = [
        _printed("epoch 1\n"),
        nbformat.v4.new_output("stream", name="stderr", text="compiling the kernels, once\n"),
        _printed("epoch 2\n"),
    ]
    nb = run_notebooks.tidy(_notebook((None, pieces)))
    assert [(o.name, o.text) for o in nb.cells[0].outputs] == [("stdout", "epoch 1\nepoch 2\n")]


# ---- the site shows the outputs -----------------------------------------------------------


@pytest.mark.slow
def test_tutorial_pages_show_the_printed_results_and_the_figures(built_site):
    """Each tutorial page has every stored figure as an image and the printed text of its
    cells (the built site, tests/conftest.py's `built_site`, renders the notebooks as stored)."""
    import html

    for path in NOTEBOOKS:
        # use_directory_urls: false
        page = (built_site / "tutorials" / f"{path.stem}.html").read_text()
        outputs = [o for c in _code_cells(path) for o in c["outputs"]]
        figures = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
        shown = re.findall(r'<img [^>]*src="data:image/png;base64,([^"]+)"', page)
        assert figures and sorted(shown) == sorted(figures), (
            f"{path.name}: {len(figures)} figures stored, the page shows {len(shown)} of them"
        )
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        printed = [o for o in outputs if o.get("output_type") == "stream"]
        assert printed, f"{path.name} prints nothing"
        for out in printed:
            for line in "".join(out["text"]).splitlines():
                assert line.strip() in text, (
                    f"{path.name}: the printed line {line!r} is not on its page"
                )


# ---- the README's command for JupyterLab ---------------------------------------------------


def _extras():
    """pyproject.toml's optional dependencies, {extra: [requirement, ...]}. (Read by hand:
    tomllib is Python 3.11's, and the project supports 3.10. A list ends with the first `]`
    that ends a line: the `]` of "mkdocstrings[python]>=0.29" does not.)"""
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    section = re.sub(r"#.*", "", section)
    return {
        name: re.findall(r'"([^"]+)"', body)
        for name, body in re.findall(r"^(\w+)\s*=\s*\[(.*?)\]$", section, re.M | re.S)
    }


@pytest.mark.slow  # `jupyter lab --help` imports the Jupyter server: a few seconds
def test_the_readme_command_for_the_notebooks_works():
    """The README says `pip install -e ".[notebooks]" && jupyter lab tutorials/`: the extra
    exists and brings JupyterLab, the folder exists, and `jupyter lab` runs in this venv,
    whose dev install includes the extra (CI installs the dev extra only, so this is where
    CI proves the command)."""
    import subprocess

    commands = re.findall(r"`([^`]*\.\[notebooks\][^`]*)`", (ROOT / "README.md").read_text())
    assert len(commands) == 1, (
        f"the README should give one command for the notebooks, found {commands}"
    )
    install, run = (part.strip() for part in commands[0].split("&&"))
    assert install == 'pip install -e ".[notebooks]"', install
    assert run.split()[:2] == ["jupyter", "lab"] and len(run.split()) == 3, run
    folder = ROOT / run.split()[2]
    assert folder.is_dir() and sorted(folder.glob("*.ipynb")) == NOTEBOOKS, run

    extras = _extras()
    assert any(re.match(r"jupyterlab\b", r) for r in extras.get("notebooks", [])), extras.get(
        "notebooks"
    )
    assert "minigrad[notebooks]" in extras["dev"], (
        "the dev extra must include the notebooks extra (CI tests it)"
    )

    # the venv's bin/, as `. .venv/bin/activate` puts it on PATH
    bin_dir = Path(sys.executable).parent
    jupyter = bin_dir / "jupyter"
    assert jupyter.is_file(), (
        f"no {jupyter}: install the dev extra (pip install -e '.[dev]'), which includes JupyterLab"
    )
    env = dict(os.environ, PATH=str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    result = subprocess.run(
        [str(jupyter), "lab", "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0 and "JupyterLab" in result.stdout, (
        f"`jupyter lab --help` in {bin_dir} exited with {result.returncode} (is JupyterLab "
        "installed? pip install -e '.[dev]' brings "
        f"it):\n{result.stdout[-1000:]}{result.stderr[-1000:]}"
    )
