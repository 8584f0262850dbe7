"""The array module of a tensor's data: NumPy on the CPU, CuPy on a GPU.

An op's forward and backward are written once, with NumPy's names. Most of NumPy's
functions and all its ufuncs (`np.exp`, `np.sum`, `np.where`, `x @ w`) already run on a
CuPy array and return one, because CuPy takes part in NumPy's dispatch protocols
(`__array_ufunc__`, `__array_function__`). What cannot dispatch is what has no array
argument to dispatch on, or must produce one: `np.zeros(shape)`, `np.asarray(data)`,
`np.arange(n)`. For those an op asks for the module of its inputs, DeZero's idea:

    xp = array_module(x)            # numpy, or cupy when x is on the GPU
    mask = xp.zeros(x.shape, bool)  # made where x lives

and `scatter_add` stands in for `np.add.at`, which CuPy spells `cupyx.scatter_add`.
`kernel_view` hands a device array to a Numba `@cuda.jit` kernel.
"""

import numpy as np

from minigrad.cuda import runtime


# --8<-- [start:array_module]
def array_module(*arrays):
    """`numpy`, or the GPU's array module (CuPy, or the simulator) when any of `arrays`
    lives there. Python numbers and NumPy scalars count as host data."""
    for a in arrays:
        if not isinstance(a, (np.ndarray, np.generic, int, float, complex, bool)) and on_device(a):
            return runtime.cupy()
    return np


def on_device(array):
    """True when `array` is a GPU (or simulated GPU) array."""
    if isinstance(array, np.ndarray):
        return False
    module = runtime.cupy()
    return module is not None and isinstance(array, module.ndarray)
    # --8<-- [end:array_module]


def to_host(array):
    """A NumPy array with `array`'s data (a copy from the GPU; host data as it is)."""
    if isinstance(array, np.ndarray):
        return array
    if on_device(array):
        return array.get()
    return np.asarray(array)


def to_device(array):
    """`array` copied into GPU memory (a GPU array is returned as it is)."""
    return runtime.require("to('cuda')").asarray(array)


def scatter_add(target, index, values):
    """`target[index] += values`, where an index that repeats adds each time (NumPy's
    `np.add.at`; a plain `+=` would keep only one of the repeats)."""
    if isinstance(target, np.ndarray):
        np.add.at(target, index, values)
    elif runtime.simulated():
        runtime.cupy().scatter_add(target, index, values)
    else:
        import cupyx

        cupyx.scatter_add(target, index, values)


def scatter_max(target, index, values):
    """`target[index] = max(target[index], values)`, every repeat of an index taking part
    (NumPy's `np.maximum.at`; `cupyx.scatter_max` on a GPU)."""
    _scatter_extreme(target, index, values, "max")


def scatter_min(target, index, values):
    """`target[index] = min(target[index], values)`, every repeat taking part (`np.minimum.at`)."""
    _scatter_extreme(target, index, values, "min")


def _scatter_extreme(target, index, values, which):
    if isinstance(target, np.ndarray):
        (np.maximum if which == "max" else np.minimum).at(target, index, values)
        return
    if runtime.simulated():
        scatter = getattr(runtime.cupy(), f"scatter_{which}")
    else:
        import cupyx

        scatter = getattr(cupyx, f"scatter_{which}")
    if target.dtype == np.float64 and on_device(values):
        # CuPy's float64 scatter_max/min gave float32-rounded results on an H100 (CuPy
        # 14.2); its unsigned 64-bit ones are exact, so the extreme is taken of the codes
        codes = _ordered_codes(target, which)
        scatter(codes, index, _ordered_codes(values.astype(np.float64), which))
        target[...] = _from_codes(codes)
    else:
        scatter(target, index, values)


_SIGN = np.uint64(1 << 63)


def _ordered_codes(x, which):
    """float64 -> uint64 codes in the same order: a float's bits read as an integer, with
    the sign bit set for x >= 0 and every bit flipped for x < 0 (a larger magnitude, a
    smaller code). A NaN takes the top code for max and the bottom one for min, so that
    it wins, as in np.maximum.at."""
    xp = array_module(x)
    bits = x.view(np.uint64)
    codes = xp.where(bits & _SIGN, ~bits, bits | _SIGN)
    return xp.where(xp.isnan(x), np.uint64(2**64 - 1) if which == "max" else np.uint64(0), codes)


def _from_codes(codes):
    """The floats of `_ordered_codes` back."""
    xp = array_module(codes)
    return xp.where(codes & _SIGN, codes ^ _SIGN, ~codes).view(np.float64)


def storage_start(array, storage):
    """Where the storage under `array` begins in memory: its owner `storage`'s first element
    on the host; on a GPU, the allocation's start (`data.mem.ptr`, where an owner's first
    element is too), since a view made by CuPy's as_strided names no owner as its base."""
    if isinstance(array, np.ndarray):
        return storage.__array_interface__["data"][0]
    return array.data.mem.ptr


def same_memory(a, b):
    """Whether arrays `a` and `b` look into the same memory: NumPy's exact answer on the
    host; on a GPU, whether they lie in one allocation (CuPy's `data.mem`), since CuPy's
    shares_memory computes on the GPU and waits for its answer."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shares_memory(a, b) if isinstance(b, np.ndarray) else False
    return a.data.mem is b.data.mem


def kernel_view(array):
    """What a Numba `@cuda.jit` kernel takes for `array`, without a copy.

    On a GPU, a Numba device-array view of the CuPy array's memory, made with
    `numba.cuda.as_cuda_array(array, sync=False)`. Handed the CuPy array itself, Numba
    would build that view twice per launch (once to type it, once to pass it) and, the
    second time, wait for every queued GPU operation to finish (CuPy's interface names its
    stream, and Numba synchronizes an imported stream by default): a launch per kernel
    argument that blocks the host. The wait is not needed for correctness: CuPy and Numba
    both launch on the default stream (CuPy's streams block on it too), so the kernel runs
    after the work that produced its inputs, in order.

    On the simulated GPU it is the host buffer behind the `SimulatedArray`, which Numba's
    own simulator (NUMBA_ENABLE_CUDASIM=1) reads and writes back; a NumPy array is
    returned as it is (Numba copies it to the GPU and back around the launch)."""
    if not on_device(array):
        return array
    if runtime.simulated():
        return array._host
    from numba import cuda  # only a module that launches kernels gets here

    return cuda.as_cuda_array(array, sync=False)
