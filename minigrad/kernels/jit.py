"""`njit` for minigrad's CPU kernels: Numba's decorator, plus a disk cache that always
finds a home, and one line on stderr when a family of kernels compiles for the first time.

Numba compiles a kernel the first time it is called with new argument types (seconds per
kernel on a small machine) and, with ``cache=True``, keeps the machine code on disk: the
next process loads it in a fraction of a second. Four things are added here.

**Where the cache lives.** Numba writes it to `__pycache__` next to the source file, or,
when the package is installed read-only, to the user's cache folder (`~/.cache/numba`),
or wherever NUMBA_CACHE_DIR says. With none of them writable (a read-only install and no
writable home) Numba refuses to decorate the function at all ("cannot cache function:
no locator available"), so `import minigrad` would fail. Then the cache goes to a folder
of the user's own in the temporary directory instead, and if even that cannot be
written, the kernels run uncached (compiled again in every process) after one warning.

**Saying so.** Numba announces each compilation that its disk cache could not serve
(the ``numba:compile`` event, sent before it starts). The first one of each family of
kernels in a process prints one line: what compiles, that it happens once, and where
the result is kept. A start from the cache prints nothing.

**No ``parallel=True``.** Numba's parallel loops (`prange`) take about twice as long to
compile as the same loop serial, so minigrad's kernels are serial, compiled with
``nogil=True``, and kernels/cpu/workers.py shares a kernel's tasks out over the cores
with Python threads. `njit` refuses ``parallel=True`` with a message that says so.

**``inner=True``: helpers without an entry point for Python.** Most of a cold compile is
LLVM optimising machine code, and a function a kernel calls is linked into the kernel
and compiled again there. A helper that only kernels call (`_shift_planes`, the
product's `_gemm_blocks`) is compiled with no entry point for Python, code that would
otherwise be compiled into every caller; calling it from Python raises a TypeError
(`_InnerDispatcher`) instead of crashing the interpreter. No kernel gets Numba's entry
point for C (``no_cfunc_wrapper``: a kernel called through a C function pointer, which
minigrad never does), about 190 lines of optimised LLVM IR that each kernel compiled.
"""

import os
import sys
import tempfile
import warnings

import numba
from numba.core import event
from numba.core.registry import CPUDispatcher

from minigrad import warn_always

# The fastmath flags of every CPU kernel that takes any: one set, for all of them.
# - `contract`: fuse a * b + c into one FMA instruction (one rounding instead of two:
#   results move in the last bit, within the tests' tolerances). The shared matrix
#   product (kernels/cpu/gemm.py) needs nothing more: its vector loops run over
#   independent outputs.
# - `reassoc`: reorder a sum, so that LLVM can keep SIMD partial sums of a long dot
#   product (the direct weight gradient in kernels/cpu/conv.py). Reordering never makes
#   or hides a NaN or an infinity. Without `nsz` LLVM does not regroup whole expressions
#   (its Reassociate pass wants both flags), so attention's exp keeps its exact split
#   of ln 2: the tests hold it to 4 units in the last place of np.exp.
# Left out on purpose: `nnan` and `ninf` let LLVM assume that no NaN or infinity occurs,
# but masked attention scores really are -inf, NaN must come out wherever the reference
# gives NaN (tests check both), and the kernels' `x != x` tests for NaN would fold to
# False. `nsz` (the sign of zero) would, with `reassoc`, allow that regrouping; `arcp`
# and `afn` (reciprocals, approximate functions) bought nothing measurable.
FASTMATH = {"contract", "reassoc"}

# the family of a kernel, from the name of the module that defines it; the shared matrix
# product (gemm) and the vector math (vecmath) compile inside the kernels that call them,
# whose family says so
FAMILIES = {
    "conv": "convolution",
    "pool": "pooling",
    "attention": "attention",
    "attention_short": "attention",
    "special": "erf",
    "gelu": "GELU",
    "layer_norm": "layer norm",
    "softmax": "softmax",
    "adamw": "Adam/AdamW step",
    "rotary": "rotary embedding",
    "reduce": "sum",
    "gemm": None,
    "vecmath": None,
}

_family_of = {}  # dispatcher -> family name, for each function decorated here
_announced = set()  # the families that have printed their line in this process
_warned_uncached = False


def njit(func=None, *, cache=False, inner=False, **options):
    """`numba.njit` with the same options; ``cache=True`` never fails for want of a
    writable folder, and ``parallel=True`` is refused (see the module's docstring).

    ``inner=True``: a function that only other kernels call, compiled once and shared by
    them (not inlined into each). Numba then builds no entry point for Python (the code
    that unpacks Python objects into its arguments and back): nothing calls it from
    Python, and that code is compiled again into every kernel that calls the function."""
    if func is not None:  # used bare, as @njit
        if not callable(func):
            raise TypeError(
                "njit: no signatures here; a kernel compiles for the types it is first called with"
            )
        return njit(cache=cache, inner=inner, **options)(func)

    if options.get("parallel"):
        raise ValueError(
            "njit: parallel=True is not used for minigrad's kernels (it doubles their compile "
            "time); compile the kernel with nogil=True, its task loop over range(lo, hi), and "
            "run it with minigrad.kernels.cpu.workers.run(kernel, tasks, *args)"
        )

    def decorate(py_func):
        if inner and not numba.config.DISABLE_JIT:
            no_entry = dict(options, nopython=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
            dispatcher = _InnerDispatcher(py_func=py_func, targetoptions=no_entry)
        else:
            dispatcher = numba.njit(no_cfunc_wrapper=True, **options)(py_func)
        if cache and hasattr(dispatcher, "enable_caching"):  # not with NUMBA_DISABLE_JIT=1
            enable_cache(dispatcher)
        module = py_func.__module__.rsplit(".", 1)[-1]
        _family_of[dispatcher] = FAMILIES.get(module, module)
        return dispatcher

    return decorate


class _InnerDispatcher(CPUDispatcher):
    """The dispatcher of an ``inner=True`` function (see `njit`). Without an entry point
    for Python, a call from Python would jump to machine code that is not there and
    crash the interpreter: it raises an error that says so instead."""

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"{self.py_func.__name__} is called only from inside compiled kernels "
            "(njit(inner=True)); from Python, call its .py_func"
        )


def enable_cache(dispatcher):
    """Give the dispatcher a disk cache: Numba's own choice of folder, else the fallback
    folder, else none (one warning per process)."""
    try:
        dispatcher.enable_caching()  # NUMBA_CACHE_DIR, next to the source, ~/.cache/numba
        return
    except RuntimeError:  # none of them writable
        pass
    folder = fallback_cache_dir()
    if folder is None:
        _warn_uncached()
        return
    # Numba reads CACHE_DIR when it makes the cache's locator, here, and keeps the path
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = folder
    try:
        dispatcher.enable_caching()
    except RuntimeError:
        _warn_uncached()
    finally:
        numba.config.CACHE_DIR = saved


def fallback_cache_dir():
    """A folder for the cache in the temporary directory, or None if none can be used.

    Numba's cache files are pickles, which run code when loaded: in a directory that
    other users can write, the folder must be this user's own and closed to others."""
    name = "minigrad-numba-cache" + (f"-{os.getuid()}" if hasattr(os, "getuid") else "")
    try:
        folder = os.path.join(tempfile.gettempdir(), name)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if hasattr(os, "getuid"):
            st = os.stat(folder)
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None
        tempfile.TemporaryFile(dir=folder).close()  # can we write there?
    except OSError:
        return None
    return folder


def _warn_uncached():
    global _warned_uncached
    if _warned_uncached and not warn_always.is_warn_always_enabled():
        return
    _warned_uncached = True
    warnings.warn(
        "minigrad: no writable folder for Numba's cache (next to the package, ~/.cache, "
        "NUMBA_CACHE_DIR or the temporary directory); kernels will compile again in every new "
        "process. Set NUMBA_CACHE_DIR to a writable folder to keep them.",
        RuntimeWarning,
        stacklevel=3,
    )


def cache_location(dispatcher):
    """The folder that holds the dispatcher's compiled code, or None if it has no cache."""
    return getattr(getattr(dispatcher, "_cache", None), "cache_path", None)


def notice(family, dispatcher, arg_types):
    """The line printed before a family's first compilation in a process."""
    arrays = [t for t in arg_types if isinstance(t, numba.types.Array)]
    dtypes = sorted({str(t.dtype) for t in arrays if isinstance(t.dtype, numba.types.Float)})
    what = f"the {family} kernels" + (f" for {'/'.join(dtypes)}" if dtypes else "")
    folder = cache_location(dispatcher)
    if folder is None:
        return f"minigrad: compiling {what} with Numba (not cached: again in every new process)"
    return f"minigrad: compiling {what} with Numba, once: the result is cached in {folder}"


class _FirstCompileNotice(event.Listener):
    """Prints `notice` when a dispatcher decorated here compiles (a cache miss), once per family."""

    def on_start(self, ev):
        family = _family_of.get(ev.data["dispatcher"])
        if family is None or family in _announced:
            return
        _announced.add(family)
        print(notice(family, ev.data["dispatcher"], ev.data["args"]), file=sys.stderr, flush=True)

    def on_end(self, ev):
        pass


event.register("numba:compile", _FirstCompileNotice())
