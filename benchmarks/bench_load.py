"""Training speed on a busy machine: how much slower minigrad and PyTorch train when
every core is also running someone else's work.

    python benchmarks/bench_load.py [--quick] [--repeat 3]

Three training steps, each built the same way in minigrad and in PyTorch:

- mlp: the digits MLP 64-256-128-10 that `minigrad-train` trains (AdamW, batch 32);
- lenet: LeNet-5 on 32x32 images (batch 32), the `minigrad-train --model cnn` model;
- transformer: a tiny character model, two pre-norm blocks (d_model 128, 4 heads,
  T 64, batch 12, causal attention, a 4x GELU MLP), AdamW.

Each is timed idle, and "loaded": with one busy-looping process per core, started
and stopped by this script (each also stops by itself after a few minutes, or when the
script is gone). The slowdown is loaded / idle; the figure to watch is minigrad's
slowdown divided by PyTorch's, and, as plainly, the loaded times themselves.

The thread policy is set when a process starts, so each variant runs in its own
worker process, which builds and warms up the three steps and then times them on
request:

- minigrad: as a user gets it (`import minigrad` applies `minigrad.threads`);
- minigrad-all: BLAS and Numba both on every core, the policy before `minigrad.threads`
  (set through the environment variables, which the policy respects);
- torch: PyTorch as installed (its own OpenMP pool, one thread per core);
- on request (--variants): minigrad-1 and torch-1, everything on one thread; and
  minigrad-unsplit: one BLAS thread and no product cut over the cores (the policy
  before `minigrad/kernels/cpu/matmul.py`; OPENBLAS_NUM_THREADS=1 switches the cutting off).

The variants take turns of about --seconds each (A B C C B A ...), idle and loaded
rounds alternate, and the ranges over --repeat rounds are printed: on a shared machine
a burst of load from elsewhere then falls on all of them alike. "Idle" means no load
from this script; what else the machine runs is in the figures too.

--quick checks that the script runs, in seconds: one round of one step per turn, on
batches cut to 4 LeNet images and 2 sequences of 16 characters (QUICK), with the busy
loops at the lowest priority.
"""

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time

WORKLOADS = ("mlp", "lenet", "transformer")
VARIANTS = ("minigrad", "minigrad-all", "torch")
LOOPER_LIFETIME_S = 300  # a busy loop stops by itself after this, whatever happens to this script


# ---- the training steps ---------------------------------------------------------------------
def digits_batches(batch_size, seed=0):
    """Batches (images (B, 64) float32 in [0, 1], labels) of the bundled digits."""
    import numpy as np

    from minigrad.data import Digits

    train = Digits(train=True)
    x = (train.data / 16).astype(np.float32).reshape(-1, 64)
    order = np.random.default_rng(seed).permutation(len(x))
    return [
        (x[order[i : i + batch_size]], train.targets[order[i : i + batch_size]])
        for i in range(0, len(x), batch_size)
    ]


def random_batches(shape, classes, n=8, seed=0):
    """`n` batches of random inputs of `shape` and labels in [0, classes)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [
        (rng.standard_normal(shape, dtype=np.float32), rng.integers(0, classes, shape[0]))
        for _ in range(n)
    ]


def token_batches(B, T, vocab, n=8, seed=0):
    """`n` batches of random character ids (B, T) and their next characters."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        ids = rng.integers(0, vocab, (B, T + 1))
        out.append((ids[:, :-1], ids[:, 1:]))
    return out


TRANSFORMER = {"vocab": 65, "d_model": 128, "heads": 4, "T": 64, "batch": 12, "layers": 2}
LENET_BATCH = 32
QUICK = {"lenet_batch": 4, "T": 16, "batch": 2}  # --quick: the same models on smaller batches


def char_transformer(lib, c=TRANSFORMER):
    """The tiny character model of `c` (TRANSFORMER), written once for `lib` (minigrad or
    torch: the same API)."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        """Pre-norm: x + attention(LN(x)), then x + MLP(LN(x))."""

        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            B, T, d = x.shape
            q, k, v = (
                self.qkv(self.ln1(x))
                .reshape(B, T, 3, self.heads, d // self.heads)
                .permute(2, 0, 3, 1, 4)
            )
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, heads, T, d / heads)
            x = x + self.proj(a.transpose(1, 2).reshape(B, T, d))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class CharModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = (
                nn.Embedding(c["vocab"], c["d_model"]),
                nn.Embedding(c["T"], c["d_model"]),
            )
            self.blocks = nn.Sequential(
                *[Block(c["d_model"], c["heads"]) for _ in range(c["layers"])]
            )
            self.ln, self.head = nn.LayerNorm(c["d_model"]), nn.Linear(c["d_model"], c["vocab"])

        def forward(self, ids):
            x = self.tok(ids) + self.pos(lib.arange(ids.shape[1]))
            return self.head(self.ln(self.blocks(x)))

    return CharModel()


def torch_lenet5():
    """minigrad.models.LeNet5(image_size=32) in PyTorch."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 6 * 6, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )


def training_step(framework, workload, quick=False):
    """A closure running one training step (forward, loss, backward, AdamW) of `workload`
    in `framework` ('minigrad' or 'torch'); `quick`: on the smaller batches of QUICK."""
    if framework == "torch":
        import torch as lib
        import torch.nn.functional
        import torch.optim  # noqa: F401  (lib.optim, lib.nn.functional below)
        from torch import nn
    else:
        import minigrad as lib
        import minigrad.nn.functional
        import minigrad.optim  # noqa: F401
        from minigrad import nn
        from minigrad.models import MLP, LeNet5

    lib.manual_seed(0)
    config = {**TRANSFORMER, **QUICK} if quick else TRANSFORMER
    if workload == "mlp":
        if framework == "torch":
            model = nn.Sequential(
                nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)
            )
        else:
            model = MLP(64, (256, 128), 10)
        batches = digits_batches(32)
    elif workload == "lenet":
        model = torch_lenet5() if framework == "torch" else LeNet5(num_classes=10, image_size=32)
        batches = random_batches((QUICK["lenet_batch"] if quick else LENET_BATCH, 1, 32, 32), 10)
    else:
        model = char_transformer(lib, config)
        batches = token_batches(config["batch"], config["T"], config["vocab"])
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    batches = [(lib.from_numpy(x), lib.from_numpy(y.astype("int64"))) for x, y in batches]
    state = {"i": 0}

    def step():
        x, y = batches[state["i"] % len(batches)]
        state["i"] += 1
        opt.zero_grad()
        logits = model(x)
        lib.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), y.reshape(-1)
        ).backward()
        opt.step()

    return step


def worker(framework, workloads, quick=False):
    """Run in a subprocess: build the training steps, warm them up (compiling or loading
    kernels, starting thread pools), say "ready", then answer each request "WORKLOAD
    SECONDS" from stdin with the ms per step of as many steps as fill SECONDS (at least one)."""
    steps = {w: training_step(framework, w, quick) for w in workloads}
    for step in steps.values():
        for _ in range(2):
            step()
    print("ready", flush=True)
    for line in sys.stdin:
        workload, seconds = line.split()
        step, n, start = steps[workload], 0, time.perf_counter()
        while n == 0 or time.perf_counter() - start < float(seconds):
            step()
            n += 1
        print(1e3 * (time.perf_counter() - start) / n, flush=True)


# ---- the load and the driver ------------------------------------------------------------------
# a busy loop that stops by itself after a while, or as soon as this script is gone
LOOPER = (
    "import os, time\n"
    f"parent, end = {os.getpid()}, time.monotonic() + {LOOPER_LIFETIME_S}\n"
    "while os.getppid() == parent and time.monotonic() < end:\n"
    "    pass\n"
)


class BusyLoops:
    """One busy-looping process per core while the block runs, at priority `nice` (0: as
    this script's; --quick gives them 19, the lowest: the same processes, but they no
    longer stall PyTorch's spinning threads for seconds a step)."""

    def __init__(self, nice=0):
        self.looper = f"import os\nos.nice({nice})\n{LOOPER}"

    def __enter__(self):
        self.procs = [
            subprocess.Popen([sys.executable, "-c", self.looper]) for _ in range(os.cpu_count())
        ]
        time.sleep(0.3)  # let them start spinning
        return self

    def __exit__(self, *exc):
        ended_early = [p for p in self.procs if p.poll() is not None]
        for p in self.procs:
            p.kill()
            p.wait()
        if ended_early and exc[0] is None:
            raise RuntimeError(
                "bench_load: a busy loop ended before the measurement (it lives "
                f"{LOOPER_LIFETIME_S} s)"
            )
        return False


def variant_env(variant):
    """The environment a variant's worker runs in: this one without thread settings,
    so that each variant is what its name says, plus the variant's own."""
    blas = (
        "OPENBLAS_NUM_THREADS",
        "GOTO_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "BLIS_NUM_THREADS",
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in (*blas, "NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER")
    }
    n = str(os.cpu_count())
    if variant == "minigrad-all":  # the policy before minigrad.threads: every pool on every core
        env.update(
            OPENBLAS_NUM_THREADS=n,
            OMP_NUM_THREADS=n,
            NUMBA_NUM_THREADS=n,
            NUMBA_THREADING_LAYER="workqueue",
        )
    if variant == "minigrad-1":  # everything on one thread
        env.update(OPENBLAS_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    if variant == "minigrad-unsplit":  # BLAS chosen by the user: one thread, and no product is cut
        env.update(OPENBLAS_NUM_THREADS="1")
    if variant == "torch-1":
        env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


class Worker:
    """A subprocess holding one variant's warmed-up training steps."""

    def __init__(self, variant, workloads, quick=False):
        self.variant = variant
        framework = "torch" if variant.startswith("torch") else "minigrad"
        cmd = [sys.executable, __file__, "--worker", framework, "--workloads", ",".join(workloads)]
        cmd += ["--quick"] if quick else []
        self.proc = subprocess.Popen(
            cmd, env=variant_env(variant), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(
                f"bench_load: the {variant} worker failed to start (its error is above)"
            )

    def ms_per_step(self, workload, seconds):
        self.proc.stdin.write(f"{workload} {seconds}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def span(values, fmt):
    """'median (lo–hi)' of `values`, each number in format `fmt`."""
    mid, lo, hi = (fmt.format(x) for x in (statistics.median(values), min(values), max(values)))
    return mid if lo == hi else f"{mid} ({lo}–{hi})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one short round: checks that the script runs"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds, each idle then loaded (default: 3)"
    )
    parser.add_argument(
        "--turns",
        type=int,
        default=5,
        help="timed turns per variant, workload and load in a round (default: 5)",
    )
    parser.add_argument(
        "--seconds", type=float, default=0.5, help="length of a turn, whole steps (default: 0.5)"
    )
    parser.add_argument(
        "--workloads", default=",".join(WORKLOADS), help=f"comma-separated, from {WORKLOADS}"
    )
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"comma-separated, from {VARIANTS}, minigrad-1 and torch-1 (one thread), "
        "minigrad-unsplit",
    )
    parser.add_argument("--worker", choices=["minigrad", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    workloads = args.workloads.split(",")
    if args.worker:
        return worker(args.worker, workloads, args.quick)
    if args.quick:
        args.repeat, args.turns, args.seconds = 1, 1, 0.01
    variants = args.variants.split(",")

    workers = [Worker(v, workloads, args.quick) for v in variants]
    # ms[variant, load, workload] = [the median of its turns, for each round]
    ms = {(v, load, w): [] for v in variants for load in ("idle", "loaded") for w in workloads}
    try:
        for r in range(args.repeat):
            for load in ("idle", "loaded") if r % 2 == 0 else ("loaded", "idle"):
                for w in workloads:
                    with (
                        BusyLoops(19 if args.quick else 0)
                        if load == "loaded"
                        else contextlib.nullcontext()
                    ):
                        turns = {v: [] for v in variants}
                        for t in range(args.turns):
                            # the variants take turns, so that load from elsewhere falls on all
                            # alike
                            for worker_ in workers if t % 2 == 0 else workers[::-1]:
                                turns[worker_.variant].append(worker_.ms_per_step(w, args.seconds))
                                # let the pool just used stop spinning (OpenBLAS: ~0.1 s)
                                time.sleep(0.15)
                        for v in variants:
                            ms[v, load, w].append(statistics.median(turns[v]))
                print(
                    f"round {r + 1} {load:6s} "
                    + "  ".join(
                        f"{w}: " + " ".join(f"{v} {ms[v, load, w][-1]:.1f}" for v in variants)
                        for w in workloads
                    ),
                    flush=True,
                )
    finally:
        for worker_ in workers:
            worker_.close()

    n = os.cpu_count()
    print(
        f"\n{n} cores; loaded = {n} busy loops; ms per training step; median (range) over "
        f"{args.repeat} rounds"
    )
    print(f"{'workload':12s} {'variant':13s} {'idle ms':>22s} {'loaded ms':>22s} {'slowdown':>22s}")
    slowdown = {}
    for w in workloads:
        for v in variants:
            idle, loaded = ms[v, "idle", w], ms[v, "loaded", w]
            slowdown[v, w] = [b / a for a, b in zip(idle, loaded)]
            print(
                f"{w:12s} {v:13s} {span(idle, '{:.1f}'):>22s} {span(loaded, '{:.1f}'):>22s} "
                f"{span(slowdown[v, w], '{:.2f}x'):>22s}"
            )
    if "torch" in variants:
        print(
            "\nslowdown ratio, minigrad's / PyTorch's (target <= 1.5x), median (range) of the "
            "rounds':"
        )
        for v in (v for v in variants if v.startswith("minigrad")):
            ratios = {
                w: [a / b for a, b in zip(slowdown[v, w], slowdown["torch", w])] for w in workloads
            }
            print(f"  {v:13s} " + "  ".join(f"{w} {span(ratios[w], '{:.2f}x')}" for w in workloads))
        print("\nloaded time ratio, minigrad / PyTorch:")
        for v in (v for v in variants if v.startswith("minigrad")):
            ratios = {
                w: [a / b for a, b in zip(ms[v, "loaded", w], ms["torch", "loaded", w])]
                for w in workloads
            }
            print(f"  {v:13s} " + "  ".join(f"{w} {span(ratios[w], '{:.2f}x')}" for w in workloads))
    if "minigrad" in variants and "minigrad-all" in variants:
        print("\nidle time ratio, minigrad / minigrad-all (the policy before minigrad.threads):")
        ratios = {
            w: [a / b for a, b in zip(ms["minigrad", "idle", w], ms["minigrad-all", "idle", w])]
            for w in workloads
        }
        print("  " + "  ".join(f"{w} {span(ratios[w], '{:.2f}x')}" for w in workloads))
    if "minigrad" in variants and "minigrad-unsplit" in variants:
        print(
            "\ntime ratio, minigrad / minigrad-unsplit (large products cut over the cores, or not):"
        )
        for load in ("idle", "loaded"):
            ratios = {
                w: [a / b for a, b in zip(ms["minigrad", load, w], ms["minigrad-unsplit", load, w])]
                for w in workloads
            }
            print(
                f"  {load:7s}" + "  ".join(f"{w} {span(ratios[w], '{:.2f}x')}" for w in workloads)
            )


if __name__ == "__main__":
    main()
