"""Two versions of the short-sequence attention kernels (kernels/cpu/attention_short.py),
timed in one process, taking turns: the working copy's file and the file at a git revision.

    python benchmarks/bench_versions.py [--rev HEAD] [--threads 1] [--repeat 7] [--compile]
                                        [--quick]

Why one process: on a shared machine the speed of separate runs a minute apart moved by
40% (benchmarks/RESULTS.md, 2026-11-28), far more than a change to a kernel. Here both
files are loaded as modules of their own (importlib, from copies in a temporary folder),
so each has its own Numba dispatchers, and their calls alternate: whatever the machine
does falls on both alike. Everything else (workers, the shared product, the vector math)
is the working copy's.

- run time: for each (heads, T, d) the forward and the backward of each version, min over
  --repeat turns of 10 calls, after checking that both versions give the same numbers
  (float32, causal);
- --compile: the first forward + backward call of a fresh copy of each file (CPU seconds),
  --repeat times, with what both call already compiled (gemm's product, vecmath's
  functions), so that only the file's own kernels count. A fresh NUMBA_CACHE_DIR keeps
  the copies from loading each other's machine code.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp()  # before Numba is imported: cold compiles

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from versions import load, sources  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FILE = "minigrad/kernels/cpu/attention_short.py"
CASES = [(48, 64, 32), (32, 128, 32), (16, 128, 64)]  # (B*H, T, d): the GPTs' heads
QUICK = [(4, 16, 8)]


def inputs(case, seed=0):
    from minigrad.kernels.cpu import attention

    heads, T, d = case
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((heads, T, d), dtype=np.float32) for _ in range(3))
    maskt, has_mask = attention._mask_transposed(None, heads, T, T, q.dtype)
    return q, k, v, maskt, has_mask, d**-0.5


def forward_backward(module, q, k, v, maskt, has_mask, scale):
    out, lse = module.attention_forward(q, k, v, scale, True, maskt, has_mask)
    return out, module.attention_backward(out, q, k, v, out, lse, scale, True, maskt, has_mask)


def run_time(modules, cases, repeat):
    for case in cases:
        q, k, v, maskt, has_mask, scale = inputs(case)
        results = {
            name: forward_backward(m, q, k, v, maskt, has_mask, scale)
            for name, m in modules.items()
        }
        first, second = results.values()
        arrays = zip([first[0], *first[1]], [second[0], *second[1]])
        gap = max(float(np.abs(a - b).max()) for a, b in arrays)
        best = {name: [np.inf, np.inf] for name in modules}
        for _ in range(repeat):
            for name, m in modules.items():
                start = time.perf_counter()
                for _ in range(10):
                    out, lse = m.attention_forward(q, k, v, scale, True, maskt, has_mask)
                middle = time.perf_counter()
                for _ in range(10):
                    m.attention_backward(out, q, k, v, out, lse, scale, True, maskt, has_mask)
                end = time.perf_counter()
                best[name][0] = min(best[name][0], (middle - start) * 100)  # ms per call
                best[name][1] = min(best[name][1], (end - middle) * 100)
        print(f"{str(case):<16} outputs differ by at most {gap:.1e}")
        for name, (fwd, bwd) in best.items():
            print(f"  {name:<16} forward {fwd:8.3f} ms   backward {bwd:8.3f} ms")


def compile_time(texts, repeat, folder):
    q, k, v, maskt, has_mask, scale = inputs((4, 16, 8))
    for name, text in texts.items():  # what both versions call, compiled once, not timed
        forward_backward(load(text, f"warm{len(name)}", folder), q, k, v, maskt, has_mask, scale)
    times = {name: [] for name in texts}
    for turn in range(repeat):
        for i, (name, text) in enumerate(texts.items()):
            module = load(text, f"cold{turn}_{i}", folder)
            start = time.process_time()
            forward_backward(module, q, k, v, maskt, has_mask, scale)
            times[name].append(time.process_time() - start)
    print("cold compile of the file's own kernels, float32, CPU seconds (min, then each turn):")
    for name, values in times.items():
        print(f"  {name:<16} {min(values):6.2f}   " + " ".join(f"{t:.2f}" for t in values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the git revision to compare against")
    parser.add_argument("--threads", type=int, default=1, help="kernel threads (default: 1)")
    parser.add_argument("--repeat", type=int, default=7, help="turns per version (default: 7)")
    parser.add_argument("--compile", action="store_true", help="also time the cold compiles")
    parser.add_argument("--quick", action="store_true", help="one tiny case, one turn")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import minigrad

    minigrad.set_num_threads(args.threads)
    texts = sources(args.rev, FILE)
    repeat = 1 if args.quick else args.repeat
    print(f"{FILE}: the working copy against {args.rev}, {args.threads} kernel thread(s)")
    with tempfile.TemporaryDirectory() as folder:
        modules = {
            name: load(text, f"v{i}", folder) for i, (name, text) in enumerate(texts.items())
        }
        run_time(modules, QUICK if args.quick else CASES, repeat)
        if args.compile:
            compile_time(texts, repeat, folder)


if __name__ == "__main__":
    main()
