"""Where CuPy is not NumPy: the rules of CuPy the simulated GPU keeps beyond its arrays' walls.

CuPy gives NumPy's names to GPU code, but a few of its functions do more, or less, than
NumPy's, and code that is right on the CPU goes wrong on the GPU there. These were found by
running minigrad's op tables on an NVIDIA GPU (CuPy 14); `minigrad/cuda/simulator.py` asks
this module before it computes, so that CI, without a GPU, finds the same mistakes:

- `READS_FROM_GPU`: CuPy calls that read a value back from the GPU (a copy to the host, and a
  wait for the GPU to finish), because the size or the validity of their answer is decided
  by the data; inside `forbid_transfers()` they raise as any copy does;
- `COPIES_TO_GPU`: CuPy calls that copy a host value over before they start;
- `KEYWORDS_CUPY_LACKS`, `needs_device_argument`: NumPy arguments that CuPy refuses;
- `UFUNC_METHODS`: the few ufuncs whose `reduce`, `accumulate`, `reduceat` CuPy has.
"""

import numpy as np

from minigrad.cuda import simulator as _simulator


def _on_device(x):
    return isinstance(x, _simulator.SimulatedArray)


def _shares_memory_reads(a, b, max_work=None):
    # CuPy compares the address of every element on the GPU, then reads the answer (a bool);
    # an array against itself, or only the bounds asked for, it answers on the host
    if a is b and a.size:
        return False
    return max_work != "MAY_SHARE_BOUNDS"


def _histogram_reads(a, bins=10, range=None, *args, **kwargs):  # noqa: A002  (NumPy's name)
    # edges given as a device array: CuPy checks that they increase, with an `if` on the
    # GPU's answer; no range given: it reads the data's min and max to place the edges
    return _on_device(bins) or (range is None and a.size > 0)


READS_FROM_GPU = {
    # the length of the result is max(x) + 1, so CuPy reads the max (and checks x >= 0),
    # with or without minlength
    np.bincount: lambda *args, **kwargs: True,
    np.histogram: _histogram_reads,
    # the pseudo-inverse zeroes the small singular values with a mask, s[s <= cutoff] = 0,
    # and a mask's number of True values must reach the host (see `index_reads_from_gpu`)
    np.linalg.pinv: lambda *args, **kwargs: True,
    # built as indices[mask] from a triangle of bools: the same read as a mask index
    np.triu_indices: lambda *args, **kwargs: True,
    np.tril_indices: lambda *args, **kwargs: True,
    np.triu_indices_from: lambda *args, **kwargs: True,
    np.tril_indices_from: lambda *args, **kwargs: True,
    np.shares_memory: _shares_memory_reads,
    # (np.may_share_memory reads nothing: CuPy compares the two allocations and the bounds
    # of the two arrays on the host)
}
"""CuPy calls that read from the GPU: function -> whether a call with these arguments does."""

COPIES_TO_GPU = {
    # a.flat[::n + 1] = value: a value that is not on the device is copied there first
    np.fill_diagonal: lambda a, val, wrap=False: not _on_device(val),
}
"""CuPy calls that copy a host value to the GPU: function -> whether this call does."""


def index_reads_from_gpu(key):
    """Whether `a[key]` (get or set) reads from the GPU: a device array of bools as (part of)
    the key. The number of True values is the size of the result, and the host must know
    it to allocate the result (or to launch the write)."""
    keys = key if isinstance(key, tuple) else (key,)
    return any(_on_device(k) and k.dtype == np.bool_ for k in keys)


KEYWORDS_CUPY_LACKS = {
    np.max: ("amax", ("initial", "where")),
    np.amax: ("amax", ("initial", "where")),
    np.min: ("amin", ("initial", "where")),
    np.amin: ("amin", ("initial", "where")),
}
"""NumPy functions whose CuPy twin takes fewer keywords: function -> (CuPy's name, the
keywords it lacks). `cupy.amax(a, axis, out, keepdims)` has no `initial`: an empty
reduction has to be handled before it."""

METHOD_KEYWORDS_CUPY_LACKS = {"max": ("initial", "where"), "min": ("initial", "where")}
"""The same for the methods of CuPy's ndarray (`x.max(initial=...)`)."""


def refuse_keywords(name, lacking, kwargs):
    """Raise CuPy's TypeError if `kwargs` holds a keyword that `name` lacks."""
    for word in lacking:
        if word in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{word}'")


def _polyval_needs_device_p(p, x):
    # CuPy's polyval takes the coefficients as a device array (or a poly1d) only: a list
    # would have to be copied over, which CuPy leaves to the caller
    if not _on_device(p) or p.ndim == 0:
        raise TypeError("p must be 1d ndarray or poly1d object")


NEEDS_DEVICE_ARGUMENT = {np.polyval: _polyval_needs_device_p}
"""NumPy functions whose CuPy twin refuses host data where NumPy converts it."""


UFUNC_METHODS = {
    "reduce": (np.add, np.multiply),  # CuPy runs them as sum and prod
    "accumulate": (np.add, np.multiply),  # as cumsum and cumprod
    "reduceat": (np.add,),
}
"""The ufuncs whose method CuPy has (outer: all of them; at: see the simulator)."""


def check_ufunc_method(ufunc, method):
    """Raise CuPy's NotImplementedError for a ufunc method CuPy does not have."""
    if method in UFUNC_METHODS and ufunc not in UFUNC_METHODS[method]:
        raise NotImplementedError(f"`cupy_{ufunc.__name__}.{method}` is not supported yet")


def before_call(func, args, kwargs):
    """What CuPy does before `func(*args, **kwargs)` that NumPy does not: refuse an
    argument, or read a value from the GPU, or copy one to it (counted as a transfer, and
    refused inside `forbid_transfers()`)."""
    if func in KEYWORDS_CUPY_LACKS:
        refuse_keywords(*KEYWORDS_CUPY_LACKS[func], kwargs)
    if func in NEEDS_DEVICE_ARGUMENT:
        NEEDS_DEVICE_ARGUMENT[func](*args, **kwargs)
    name = f"{func.__module__.replace('numpy', 'cupy')}.{func.__name__}"
    if func in READS_FROM_GPU and READS_FROM_GPU[func](*args, **kwargs):
        _simulator._count("to_host", f"{name} reads a value back from the GPU")
    if func in COPIES_TO_GPU and COPIES_TO_GPU[func](*args, **kwargs):
        _simulator._count("to_device", f"{name} copies a host value to the GPU")
