"""The figures of the lessons are committed as PNGs, each made by a script next to it in
docs/figures/. Running every script here keeps them runnable against the current code,
so that a figure can always be made again."""

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


def test_every_script_is_listed():
    assert sorted(p.name for p in FIGURES.glob("make_*.py")) == sorted(SCRIPTS)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_figure_script_runs(script, tmp_path):
    result = subprocess.run(
        [sys.executable, str(FIGURES / script), str(tmp_path)], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in SCRIPTS[script]:
        made = tmp_path / name
        assert made.is_file() and made.read_bytes().startswith(b"\x89PNG"), f"{script} did not write {name}"
        assert (FIGURES / name).is_file(), f"docs/figures/{name} is not committed: run {script}"
