"""Where NumPy's arrays get their memory: keep freed memory in the process for the next
step, instead of handing it back to the operating system and asking for it again.

A training step allocates the same arrays every time: activations in the forward pass,
gradients in the backward pass, all freed when the step ends. NumPy takes them from the
C library's `malloc`. On Linux (glibc), `malloc` serves a large request (at first, over
128 KiB) with a fresh `mmap` of its own and gives it back with `munmap` when freed, and it
gives the free memory at the top of its heap back to the system (`trim`) once there is
more than a few MiB of it. Memory that comes back from the system is new to the process:
every 4 KiB page of it costs a page fault, in which the kernel finds a page and fills it
with zeros, on first touch. A small transformer's training step (nanoGPT's "baby GPT":
4 layers, d_model 128, batch 12 x 64 tokens) took about 12,000 page faults per step,
about a fifth of the step's time spent in the operating system's kernel; with the
settings below, none (benchmarks/RESULTS.md).

glibc's `mallopt` sets both limits:

- `M_MMAP_THRESHOLD`: arrays up to 32 MiB (glibc's largest allowed value) come from the
  heap, which reuses freed memory, not from `mmap`;
- `M_TRIM_THRESHOLD`: up to 256 MiB of free memory stays at the top of the heap.

The price: a process keeps up to that much memory it no longer uses (its resident size
does not shrink after a large step), which is how PyTorch's and most frameworks' caching
allocators behave too. Nothing is done where the C library is not glibc (macOS, musl:
their allocators differ), or when you chose for yourself with glibc's environment
variables (`MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`, `MALLOC_TOP_PAD_`, or
`GLIBC_TUNABLES`), which glibc reads when the program starts.

`minigrad.memory.info()` says whether the settings are in effect.
"""

import ctypes
import os

MMAP_THRESHOLD = 32 * 2**20  # bytes; glibc refuses more (half its heap size on 64-bit)
TRIM_THRESHOLD = 256 * 2**20
# glibc's names for the two settings (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
USER_VARIABLES = (
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_TRIM_THRESHOLD_",
    "MALLOC_TOP_PAD_",
    "GLIBC_TUNABLES",
)

_applied = False


def apply():
    """Set glibc's two thresholds, unless the C library is another or the user chose."""
    global _applied
    try:
        libc_version = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"; only glibc answers
    except (AttributeError, ValueError, OSError):  # no confstr (Windows), or no such name
        return
    if not (libc_version or "").startswith("glibc"):
        return
    if any(name in os.environ for name in USER_VARIABLES):
        return
    libc = ctypes.CDLL(None)  # the C library the interpreter runs on
    # each returns 1 on success, 0 for a value glibc refuses
    mmap_set = libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    trim_set = libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    _applied = mmap_set == 1 and trim_set == 1


def info():
    """{'applied': whether minigrad set the thresholds, 'mmap_threshold', 'trim_threshold':
    the values it sets (bytes)}."""
    return {"applied": _applied, "mmap_threshold": MMAP_THRESHOLD, "trim_threshold": TRIM_THRESHOLD}


apply()  # at import: `import minigrad` imports this module first
