"""The figure scripts' smoke setting, and the run of all of them that the test suite makes.

Every figure of the lessons is a PNG in docs/figures made by a make_*.py script next to
it. The committed PNGs are made at each script's full setting, its defaults when run by
hand (`python docs/figures/make_x.py`): benchmarks and training runs of up to a minute
each. The test suite (tests/test_doc_figures.py) only has to know that every script
still runs against the current code, so it runs them with MINIGRAD_FIGURES_SMOKE=1: the
fewest sizes, repeats, steps and seeds that still go through every line of the script
and draw every panel, bar and line of its figure. Such a figure proves that the script
runs, nothing about speed or training; it is stamped "smoke setting" so that it cannot
be taken for one to commit.

In a script:

    import smoke
    REPEATS = smoke.pick(3, 1)   # 3 when run by hand, 1 in the test
    ...
    smoke.stamp(fig)             # before fig.savefig: marks a figure made in smoke mode

And the run the test makes:

    python docs/figures/smoke.py OUT_DIR [make_x.py ...]

runs the given scripts (default: every make_*.py here) in smoke mode, each as
`python make_x.py OUT_DIR/make_x` would, and writes OUT_DIR/report.json: for each
script its exit code, its wall and CPU seconds and the file that holds what it printed
(OUT_DIR/make_x.log). Most of
the time of a small run is importing PyTorch, minigrad and matplotlib (about 3 s of
CPU each time), so this process imports them once and forks a child per script
(tools/fork_runner.py, which the benchmark tests share): each script still runs in a
process of its own, with none of the state another left behind.
"""

import json
import os
import sys
from pathlib import Path

SMOKE = os.environ.get("MINIGRAD_FIGURES_SMOKE") == "1"
HERE = Path(__file__).resolve().parent


def pick(full, smoke):
    """`smoke` when the scripts run in smoke mode (the test), `full` otherwise."""
    return smoke if SMOKE else full


def stamp(fig):
    """Write "smoke setting" across a matplotlib figure made in smoke mode (nothing otherwise)."""
    if SMOKE:
        fig.text(
            0.5,
            0.5,
            "smoke setting: not a measurement",
            ha="center",
            va="center",
            fontsize=28,
            color="red",
        )


def main(out_dir, names):
    os.environ["MINIGRAD_FIGURES_SMOKE"] = "1"  # read by each script's `import smoke`
    sys.path.insert(0, str(HERE.parents[1] / "tools"))  # tools/ is not a package
    import fork_runner

    # What every script imports anyway, once; importing starts no threads, so forking is safe.
    fork_runner.preload([*fork_runner.PRELOAD, "matplotlib.pyplot"])
    out_dir = Path(out_dir)
    report = {}
    for name in names or sorted(p.name for p in HERE.glob("make_*.py")):
        script_out = out_dir / Path(name).stem
        script_out.mkdir(parents=True, exist_ok=True)
        log = out_dir / f"{Path(name).stem}.log"
        run = fork_runner.run_script(HERE / name, [script_out], log)
        report[name] = {
            "returncode": run["returncode"],
            "seconds": run["seconds"],
            "cpu_seconds": run["cpu_seconds"],
            "out_dir": str(script_out),
            "log": str(log),
        }
        print(
            f"{name:40s} exit {run['returncode']}  wall {run['seconds']:5.1f} s  CPU "
            f"{run['cpu_seconds']:5.1f} s",
            flush=True,
        )
    (out_dir / "report.json").write_text(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: python {sys.argv[0]} OUT_DIR [make_x.py ...]")
    report = main(sys.argv[1], sys.argv[2:])
    sys.exit(0 if all(r["returncode"] == 0 for r in report.values()) else 1)
