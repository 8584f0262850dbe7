"""The README's first command runs `python -m minigrad`: it must train and say so."""

import subprocess
import sys

from minigrad.__main__ import main


def test_demo_trains_to_high_accuracy(capsys):
    accuracy = main([])
    out = capsys.readouterr().out
    assert accuracy >= 0.95
    assert "test accuracy:" in out
    losses = [float(line.split("loss")[1]) for line in out.splitlines() if line.startswith("step")]
    assert losses[-1] < losses[0] / 10  # the loss really went down


def test_demo_runs_as_module():
    result = subprocess.run(
        [sys.executable, "-m", "minigrad", "--steps", "30"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "test accuracy:" in result.stdout


def test_readme_example_runs():
    """The README's code block runs as written (so it cannot rot)."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "README has no python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
