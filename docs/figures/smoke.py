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
CPU each time), so this process imports them once and forks a child per script: each
script still runs in a process of its own, with none of the state another left behind.
"""

import json
import os
import runpy
import sys
import time
import traceback
from pathlib import Path

SMOKE = os.environ.get("MINIGRAD_FIGURES_SMOKE") == "1"
HERE = Path(__file__).resolve().parent


def pick(full, smoke):
    """`smoke` when the scripts run in smoke mode (the test), `full` otherwise."""
    return smoke if SMOKE else full


def stamp(fig):
    """Write "smoke setting" across a matplotlib figure made in smoke mode (nothing otherwise)."""
    if SMOKE:
        fig.text(0.5, 0.5, "smoke setting: not a measurement", ha="center", va="center", fontsize=28, color="red")


def run_script(script, out_dir, log):
    """Run `script` as its own `python script out_dir` would, in a forked child whose
    output goes to `log`; (exit code, negative if killed by that signal; CPU seconds of
    the child and of the processes it started)."""
    sys.stdout.flush()  # else the child would print what is still in this process's buffers
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            with open(log, "wb") as f:  # the child's stdout and stderr, Python's and C's alike
                os.dup2(f.fileno(), 1)
                os.dup2(f.fileno(), 2)
            sys.argv = [str(script), str(out_dir)]
            runpy.run_path(str(script), run_name="__main__")
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
            if code:
                traceback.print_exc()
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)  # no cleanup that belongs to the parent (atexit, temporary folders)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def main(out_dir, names):
    os.environ["MINIGRAD_FIGURES_SMOKE"] = "1"  # read by each script's `import smoke`
    # What every script imports anyway, once; importing starts no threads, so forking is safe.
    import matplotlib.pyplot  # noqa: F401
    import numba  # noqa: F401
    import torch  # noqa: F401

    import minigrad  # noqa: F401

    out_dir = Path(out_dir)
    report = {}
    for name in names or sorted(p.name for p in HERE.glob("make_*.py")):
        script_out = out_dir / Path(name).stem
        script_out.mkdir(parents=True, exist_ok=True)
        log = out_dir / f"{Path(name).stem}.log"
        start = time.perf_counter()
        code, cpu = run_script(HERE / name, script_out, log)
        seconds = time.perf_counter() - start
        report[name] = {
            "returncode": code,
            "seconds": seconds,
            "cpu_seconds": cpu,
            "out_dir": str(script_out),
            "log": str(log),
        }
        print(f"{name:40s} exit {code}  wall {seconds:5.1f} s  CPU {cpu:5.1f} s", flush=True)
    (out_dir / "report.json").write_text(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: python {sys.argv[0]} OUT_DIR [make_x.py ...]")
    report = main(sys.argv[1], sys.argv[2:])
    sys.exit(0 if all(r["returncode"] == 0 for r in report.values()) else 1)
