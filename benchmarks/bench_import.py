"""How long `import minigrad` takes, next to `import numpy` and `import torch`.

Each import runs in a fresh interpreter (so nothing is cached in the process), several
times; the script prints the median wall time of each and minigrad's time beyond NumPy's,
which is the part minigrad controls. The target is `import minigrad` under 0.5 s: the
framework should not make a student wait before the first line runs. Numba, which takes
longer to import than all of minigrad, is imported only when a kernel is first used.

    python benchmarks/bench_import.py [--repeat R]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def time_import(module, repeat):
    """Median seconds of `python -c "import module"`, minus an empty interpreter's start."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(code):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True)
        return time.perf_counter() - start

    startup = statistics.median(run("pass") for _ in range(repeat))
    return statistics.median(run(f"import {module}") for _ in range(repeat)) - startup


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    times = {m: time_import(m, args.repeat) for m in ("numpy", "minigrad", "torch")}
    for module, seconds in times.items():
        print(f"import {module:<9} {seconds * 1e3:7.0f} ms")
    print(f"minigrad beyond numpy {(times['minigrad'] - times['numpy']) * 1e3:5.0f} ms")
    print(f"ratio minigrad / torch {times['minigrad'] / times['torch']:.2f}")


if __name__ == "__main__":
    main()
