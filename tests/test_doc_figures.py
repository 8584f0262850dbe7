"""The figures of the lessons are committed as PNGs, each made by a script next to it in
docs/figures/. Running every script here keeps them runnable against the current code,
so that a figure can always be made again.

The committed PNGs are made at each script's full setting (benchmarks and training runs
of up to a minute each). The test runs the scripts in smoke mode instead, through
docs/figures/smoke.py: the fewest sizes, repeats, steps and seeds that still go through
every line of a script and draw every panel of its figure. The scripts run once, all in
one run that imports PyTorch and minigrad once and forks a process per script; each
script's test then reads its own result from that run.
"""

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures"
# script -> the files it writes into the folder it is given
SCRIPTS = {
    "make_activation_plot.py": ["activations.png"],
    "make_pool_benchmark.py": ["pool_benchmark.png"],
    "make_attention_benchmark.py": ["attention_benchmark.png"],
    "make_attention_maps.py": ["attention_maps.png"],
    "make_attention_modules_benchmark.py": ["attention_modules_benchmark.png"],
    "make_conv_benchmark.py": ["conv_benchmark.png"],
    "make_gpt_generation_benchmark.py": ["gpt_generation_benchmark.png"],
    "make_positional_plots.py": ["sinusoidal_encoding.png", "rope_scaling.png"],
    "make_positional_benchmark.py": ["positional_benchmark.png"],
    "make_tokenizers_benchmark.py": ["tokenizers_benchmark.png"],
    "make_transformer_benchmark.py": ["transformer_benchmark.png"],
    "make_graph_figure.py": ["autograd_graph.png", "mlp_graph.png"],
    "make_transformer_norms.py": ["transformer_norms.png"],
    "make_linear_benchmark.py": ["linear_benchmark.png"],
    "make_losses_benchmark.py": ["losses_benchmark.png"],
    "make_normalization_benchmark.py": ["normalization_benchmark.png"],
    "make_optimizers_benchmark.py": ["optimizers_benchmark.png"],
    "make_recurrent_benchmark.py": ["recurrent_benchmark.png"],
    "make_autograd_benchmark.py": ["autograd_benchmark.png"],
}


def smoke_run(scripts, out_dir):
    """Run `scripts` with docs/figures/smoke.py into `out_dir`: its report, {script:
    {returncode, seconds, cpu_seconds, out_dir, log}}."""
    result = subprocess.run(
        [sys.executable, str(FIGURES / "smoke.py"), str(out_dir), *scripts],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = Path(out_dir) / "report.json"
    assert report.is_file(), (
        f"docs/figures/smoke.py stopped before its report:\n{result.stdout}{result.stderr}"
    )
    return json.loads(report.read_text())


@pytest.fixture(scope="module")
def figure_runs(request, tmp_path_factory):
    """The smoke run of the scripts whose tests were selected (all of them, unless `-k`
    picked a few), made once for the module."""
    selected = [
        item.callspec.params["script"]
        for item in request.session.items
        if getattr(item, "module", None) is request.module
        and item.originalname == "test_figure_script_runs"
    ]
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return smoke_run(selected, tmp_path_factory.mktemp("figures"))
    # Under pytest-xdist, every worker given one of these tests makes this fixture: the
    # first runs the scripts, the others wait for it and read its report, in a folder
    # that the workers of this session share (the parent of each one's temporary folder).
    shared = tmp_path_factory.getbasetemp().parent / "figures"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "report.json").is_file():
            return smoke_run(selected, shared)
    return json.loads((shared / "report.json").read_text())


def test_every_script_is_listed():
    assert sorted(p.name for p in FIGURES.glob("make_*.py")) == sorted(SCRIPTS)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_figure_script_runs(script, figure_runs):
    run = figure_runs[script]
    assert run["returncode"] == 0, (
        f"{script} exited with {run['returncode']}:\n" + Path(run["log"]).read_text()
    )
    for name in SCRIPTS[script]:
        made = Path(run["out_dir"]) / name
        assert made.is_file() and made.read_bytes().startswith(b"\x89PNG"), (
            f"{script} did not write {name}"
        )
        assert (FIGURES / name).is_file(), f"docs/figures/{name} is not committed: run {script}"


@pytest.mark.slow
def test_a_failing_script_is_reported_with_its_error(tmp_path):
    """The shared run must not hide a failure: a script that raises is reported with its
    exit code and traceback, one that dies (a crash in compiled code) with its signal,
    and the scripts after them still run."""
    (tmp_path / "make_raises.py").write_text(
        "print('started')\nraise ValueError('figure went wrong')\n"
    )
    (tmp_path / "make_dies.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    (tmp_path / "make_fine.py").write_text(
        "import smoke\nprint('smoke mode' if smoke.SMOKE else 'full')\n"
    )
    scripts = [str(tmp_path / name) for name in ("make_raises.py", "make_dies.py", "make_fine.py")]
    report = smoke_run(scripts, tmp_path / "out")
    raises, dies, fine = (report[s] for s in scripts)
    log = Path(raises["log"]).read_text()
    assert (
        raises["returncode"] == 1 and "started" in log and "ValueError: figure went wrong" in log
    ), log
    assert dies["returncode"] == -9, dies
    assert fine["returncode"] == 0 and Path(fine["log"]).read_text() == "smoke mode\n"
