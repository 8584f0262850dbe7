"""How many threads minigrad's two thread pools use: BLAS's, set at `import minigrad`, and
minigrad's own, which runs the compiled CPU kernels and cuts the large products.

Two pools run minigrad's heavy work on several cores: OpenBLAS's (or MKL's) under NumPy's
matrix products, and minigrad's (minigrad/kernels/cpu/workers.py) under the compiled CPU
kernels (convolution, pooling, attention, layer norm, ...). Both split a piece of work
into one chunk per core and wait for the last chunk to finish.

On an idle machine that is what you want. On a busy one (other programs, a test
suite, a second training run) a chunk's thread may wait for a core for a whole
scheduler time slice, several milliseconds, and a product of microseconds then takes
milliseconds; OpenBLAS's threads also spin for a while after each product, taking
cycles from the thread that runs Python. On 2 cores with one busy process per core,
`minigrad-train` took two to seven times as long with two BLAS threads as with one, and
a small transformer's training step three to eleven times (benchmarks/bench_load.py;
figures in benchmarks/RESULTS.md).

One BLAS thread costs little for most of minigrad's products, which are small (a
batch of 32 through a 256-wide layer is 1 MFLOP, microseconds on one core, no faster on
two).
Medium ones, like a transformer's (768 x 128) @ (128 x 384), are half of its training
step and do run faster on two cores; those minigrad cuts itself, by rows of the result,
into one single-threaded BLAS call per core (minigrad/kernels/cpu/matmul.py), on threads
that sleep, not spin, while they wait.

The policy:

1. **BLAS: one thread.** Unless you chose otherwise with one of `BLAS_VARIABLES`, which
   OpenBLAS, MKL and BLIS read when NumPy loads them; then it is left alone.
2. **Large products (at least 8 million multiply-adds): cut by rows over the cores**
   (`minigrad.kernels.cpu.matmul`), each block on that one BLAS thread: MATMUL_SPLIT_THREADS.
   Not when the user chose BLAS's thread count (then BLAS is left to do as told);
   `minigrad.threads.MATMUL_SPLIT_THREADS = 1` switches it off at run time.
3. **Compiled kernels: one thread per core**, on minigrad's pool, whose threads sleep
   between kernels (as the product split's do: it is the same pool). A kernel is a
   larger piece of work than a product (a whole convolution), and under load the steps
   ran no faster with the kernels on one thread, while idle ones lose the second core's
   speed-up. Unless NUMBA_NUM_THREADS is set: then that many (the variable the kernels
   obeyed when they ran on Numba's own pool, kept so that it still does). Numba's
   threading layer is not used: its kernels took twice as long to compile
   (kernels/cpu/workers.py says why). Kernels called from several Python threads at
   once (two models trained in two threads, DataLoader workers applying ops) are safe:
   while one thread's kernel has the pool, another's runs on its own thread.

The compiled kernels' block products are BLAS calls too (SciPy's BLAS, a library of its
own: minigrad/kernels/cpu/blas.py), made from the kernels' threads, which already share
the work over the cores. That library gets one thread, always, even where you chose
BLAS's thread count: a BLAS that cut each block product again would put n x n threads on
n cores (a convolution ran 1.5-2x slower so, benchmarks/RESULTS.md). The limit is set
when the kernels that multiply are first imported, on SciPy's library only: a count you
have given NumPy's BLAS is kept. (Where NumPy and SciPy share one BLAS library, as some
distributions build them, it is NumPy's and follows the policy above.) Your own
`scipy.linalg` calls, in a process that has loaded the kernels, run on that one thread
too; `threadpool_limits` raises it for them.

The BLAS limit is set with threadpoolctl, which changes a library's thread count after
it is loaded: an environment variable would only work before NumPy's first import,
which the program may have done before importing minigrad. The limit applies to the
whole process, your own NumPy products included. To give BLAS more threads, start
Python with OPENBLAS_NUM_THREADS=N (or OMP_NUM_THREADS=N), or at run time:

    from threadpoolctl import threadpool_limits
    threadpool_limits(2, user_api="blas")

`minigrad.threads.info()` says what is in effect.

`mg.set_num_threads(n)` (torch's) changes the count the policy uses, for all three
mechanisms at once and without changing the policy: under it, large products are cut
over n cores (BLAS staying at one thread per block); where the user chose BLAS's count,
BLAS gets n threads instead (and products are not cut); and the kernels use n threads.
The count holds for the whole process, whichever thread set it.
"""

import os

# NumPy loads its BLAS when it is imported, and threadpoolctl can only limit a library that
# is loaded: without this import, `import minigrad` as a program's first import would set
# the limit on nothing, and NumPy would then start OpenBLAS on every core
import numpy  # noqa: F401
from threadpoolctl import ThreadpoolController, threadpool_info, threadpool_limits

# environment variables by which a user chooses the BLAS thread count (OpenBLAS reads the
# first three, in this order; MKL reads its own and OMP_NUM_THREADS; BLIS its own)
BLAS_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
)
BLAS_THREADS = 1


def cores():
    """The number of cores this process may run on (a container may allow fewer than the machine
    has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS and Windows have no affinity call
        return os.cpu_count() or 1


def policy_applies():
    """True unless the user chose BLAS's thread count with one of BLAS_VARIABLES."""
    return not any(name in os.environ for name in BLAS_VARIABLES)


_limited = set()  # the file paths of the BLAS libraries the policy has been applied to
_kernels_own = set()  # those the compiled kernels call, one thread always (SciPy's)


def _blas_libraries():
    return ThreadpoolController().select(user_api="blas").lib_controllers


def apply_blas():
    """Limit BLAS to BLAS_THREADS, unless the user's environment already chose."""
    if policy_applies():
        threadpool_limits(BLAS_THREADS, user_api="blas")
    _limited.update(lib.filepath for lib in _blas_libraries())


def _is_scipys(path):
    """True for a BLAS library that SciPy's wheel brings (in its scipy.libs folder)."""
    return "scipy.libs" in os.path.normpath(path).split(os.sep)


def apply_blas_to_new_libraries():
    """One thread for the BLAS libraries loaded since `import minigrad` (SciPy's, which the
    kernels call from their own threads, comes with Numba) and for SciPy's if it was
    loaded before, whatever the environment says; for those only: a count the user has set
    since on NumPy's BLAS, with threadpoolctl, is left as it is."""
    for lib in _blas_libraries():
        new = lib.filepath not in _limited
        if (new or _is_scipys(lib.filepath)) and lib.filepath not in _kernels_own:
            lib.set_num_threads(1)
            _limited.add(lib.filepath)
            _kernels_own.add(lib.filepath)


def _users_blas_libraries():
    """The BLAS libraries that are not the kernels' own: NumPy's (and any other)."""
    return [lib for lib in _blas_libraries() if lib.filepath not in _kernels_own]


def kernels_blas_architecture():
    """OpenBLAS's name for the kernels it picked for this processor ('SkylakeX', 'Haswell',
    'Zen', ...) in the kernels' own BLAS (SciPy's), or None: not loaded yet, or not
    OpenBLAS."""
    for lib in threadpool_info():
        if lib["user_api"] == "blas" and lib["filepath"] in _kernels_own:
            return lib.get("architecture")
    return None


def info():
    """The thread counts in effect: {'num_threads': get_num_threads(), 'blas': [threads of
    each BLAS library loaded, but the kernels' own], 'kernels_blas': [threads of the
    kernels' own BLAS (SciPy's; empty until the kernels that multiply are imported)],
    'matmul_split': cores a large product is cut over (1: not cut), 'kernels': threads
    the compiled kernels are cut over}."""
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    return {
        "num_threads": get_num_threads(),
        "blas": [lib["num_threads"] for lib in blas if lib["filepath"] not in _kernels_own],
        "kernels_blas": [lib["num_threads"] for lib in blas if lib["filepath"] in _kernels_own],
        "matmul_split": MATMUL_SPLIT_THREADS,
        "kernels": kernel_threads(),
    }


# how many threads a large product is cut over (minigrad/kernels/cpu/matmul.py; 1: none is
# cut): every core, unless the user chose BLAS's thread count, and BLAS is then theirs
MATMUL_SPLIT_THREADS = cores() if policy_applies() else 1

_num_threads = None  # the count given to set_num_threads (None: never called)
_num_interop_threads = 1  # kept for get_num_interop_threads: minigrad has no inter-op pool


def _check_count(n, op):
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"{op} expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError(f"{op} expects a positive integer, got {n}")


def set_num_threads(n):
    """Use `n` threads for the work inside one op, as `torch.set_num_threads`: large matrix
    products are cut over n cores (or, where the user chose BLAS's thread count with an
    environment variable, BLAS gets n threads), and the compiled kernels use n threads.
    For the whole process, as torch's."""
    global MATMUL_SPLIT_THREADS, _num_threads
    _check_count(n, "set_num_threads")
    if policy_applies():
        MATMUL_SPLIT_THREADS = n  # each block on one BLAS thread, as the policy says
    else:
        # the user's BLAS does the products' threading (the kernels' own keeps one thread)
        for lib in _users_blas_libraries():
            lib.set_num_threads(n)
    _num_threads = n


def get_num_threads():
    """The threads an op may use (`torch.get_num_threads`): what `set_num_threads` was given,
    else the cores this process may run on (the policy's default for the kernels and for
    cutting large products)."""
    return _num_threads if _num_threads is not None else cores()


def kernel_threads():
    """The threads the compiled kernels are cut over (kernels/cpu/workers.py): what
    `set_num_threads` was given, else NUMBA_NUM_THREADS if set, else every core."""
    if _num_threads is not None:
        return _num_threads
    try:
        return max(1, int(os.environ["NUMBA_NUM_THREADS"]))
    except (KeyError, ValueError):
        return cores()


def set_num_interop_threads(n):
    """As `torch.set_num_interop_threads`, which sizes a pool that runs independent ops at
    once: minigrad has no such pool (its ops run one after another on the calling thread),
    so the number is only kept, for `get_num_interop_threads`. PyTorch allows one call,
    before any parallel work; minigrad allows any number."""
    global _num_interop_threads
    _check_count(n, "set_num_interop_threads")
    _num_interop_threads = n


def get_num_interop_threads():
    """What `set_num_interop_threads` was given; 1 before (minigrad runs one op at a time)."""
    return _num_interop_threads


apply_blas()  # at import: `import minigrad` imports this module first
