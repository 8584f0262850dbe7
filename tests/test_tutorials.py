"""The tutorial notebooks (tutorials/*.ipynb) run top to bottom, and are committed clean.

Each notebook is executed in a fresh Jupyter kernel with MINIGRAD_TUTORIAL_SMALL=1, the
setting every notebook reads to shrink its epochs, steps and sizes, so the whole set runs
in about a minute on two cores. Any cell that raises fails the test, and every notebook
ends with an assertion on what it trained (accuracy above a floor, loss below a baseline),
so a notebook whose model stopped learning fails too, not only one that crashes.

The kernel gets this checkout first on PYTHONPATH, and an extra cell appended to each
notebook checks that the `minigrad` it imported is this one, not an installed copy.
"""

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "tutorials"
NOTEBOOKS = sorted(TUTORIALS.glob("*.ipynb"))
SMALL_SETTING = "MINIGRAD_TUTORIAL_SMALL"


def _code_cells(path):
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_the_tutorials_are_there():
    numbers = [p.name[:3] for p in NOTEBOOKS]
    assert numbers == [f"{i:02d}_" for i in range(1, 8)], numbers


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path):
    """Outputs are produced by running the notebook, not stored: a clean diff, a small repo."""
    for i, cell in enumerate(_code_cells(path)):
        assert cell.get("outputs") == [], f"{path.name}: code cell {i} has stored outputs"
        assert cell.get("execution_count") is None, f"{path.name}: code cell {i} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_reads_the_small_setting_and_ends_with_an_assertion(path):
    cells = _code_cells(path)
    assert any(SMALL_SETTING in _source(c) for c in cells), f"{path.name} never reads {SMALL_SETTING}"
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
            if len(words) >= 2 and words[0] in ("import", "from") and words[1].split(".")[0] == "minigrad":
                imported.add(words[1])
    assert "minigrad" in imported, f"{path.name} does not import minigrad"
    private = sorted(imported - PUBLIC_MODULES)
    assert not private, f"{path.name} imports {private}, which are not public API"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path, monkeypatch):
    import nbclient  # the dev extra installs nbclient, nbformat and ipykernel (the "python3" kernel)
    import nbformat

    # The kernel is a child process: it inherits this environment.
    monkeypatch.setenv(SMALL_SETTING, "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")

    nb = nbformat.read(path, as_version=4)
    check = f"import minigrad\nassert minigrad.__file__.startswith({str(ROOT)!r}), minigrad.__file__"
    nb.cells.append(nbformat.v4.new_code_cell(check))
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(TUTORIALS)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, on the first error
