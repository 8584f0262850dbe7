"""A simulated GPU: CuPy's rules on host memory, for machines without an NVIDIA GPU.

Numba has a CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) that runs `@cuda.jit` kernels on
the CPU; this is the same idea one level up, for the arrays that hold CUDA tensors. With
`MINIGRAD_CUDA_SIMULATOR=1` (or `mg.cuda.simulate()`), `device="cuda"` works on any
machine: a CUDA tensor's storage is a `SimulatedArray`, which keeps a NumPy array inside
but behaves as a CuPy array does at the edges that matter for correctness:

- NumPy functions and ufuncs called on it run "on the device" and return device arrays
  (CuPy takes part in NumPy's `__array_function__` and `__array_ufunc__` protocols too);
- mixing it with a NumPy array in one operation raises `TypeError`, as CuPy does;
- turning it into a NumPy array implicitly (`np.asarray(x)`) raises `TypeError` with
  CuPy's message: data reaches the host only through `.get()` / `asnumpy`, and
- every trip to the host (`.get()`, `.item()`, `float(x)`, `bool(x)`) is counted in
  `transfers`, and raises inside `forbid_transfers()`, which is how the tests prove that
  a training step on the GPU copies nothing back;
- where CuPy's functions differ from NumPy's (calls that read a value back from the GPU,
  arguments CuPy refuses), `simulator_rules.py` says how, and the simulator follows it.

It is not fast and not a GPU: it is how the device-generic code of minigrad is tested in
CI, and how a student without a GPU can watch where the data lives. The module-level
functions (`asarray`, `zeros`, `random`, `cuda`, ...) are the part of CuPy's API minigrad
calls; `minigrad/cuda/runtime.py` hands this module out in CuPy's place.
"""

import contextlib
import types
import weakref

import numpy as np

from minigrad.cuda import simulator_rules as rules

transfers = {"to_host": 0, "to_device": 0}
"""How many times data crossed between host and simulated device (a test resets it)."""

_forbidden = 0  # > 0 inside forbid_transfers()
_bytes_in_use = [0]  # bytes of simulated device memory held by live arrays
_owners = weakref.WeakValueDictionary()  # id of a host array owning its memory -> its device array
_detached = weakref.WeakValueDictionary()  # id -> host array of as_strided, which has no base
_memories = {}  # id of a host buffer -> its _Memory (CuPy's allocation), while the buffer lives


@contextlib.contextmanager
def forbid_transfers():
    """Inside the block, any copy between host and device raises RuntimeError."""
    global _forbidden
    _forbidden += 1
    try:
        yield
    finally:
        _forbidden -= 1


def _count(direction, why=""):
    if _forbidden:
        raise RuntimeError(
            f"simulated GPU: a copy {direction.replace('_', ' ')} happened inside "
            f"forbid_transfers(){': ' + why if why else ''}"
        )
    transfers[direction] += 1


class SimulatedArray:
    """An array on the simulated GPU: a NumPy array behind CuPy's walls."""

    __slots__ = ("_host", "__weakref__")

    def __init__(self, host):
        self._host = host
        if host.base is None:  # a new buffer (a view shares its base's memory)
            _bytes_in_use[0] += host.nbytes
        if _host_base(host) is None:
            _owners.setdefault(id(host), self)

    def __del__(self):
        host = getattr(self, "_host", None)
        if host is not None and host.base is None:
            _bytes_in_use[0] -= host.nbytes

    # -- NumPy's protocols: compute on the host copy, hand back device arrays ---------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "at":
            raise TypeError(
                f"simulated GPU: {ufunc.__name__}.at is not supported, as in CuPy; "
                "use minigrad.array_module.scatter_add"
            )
        rules.check_ufunc_method(ufunc, method)
        if "out" in kwargs:
            kwargs["out"] = tuple(_operand(o) for o in kwargs["out"])
        result = getattr(ufunc, method)(*[_operand(x) for x in inputs], **kwargs)
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        rules.before_call(func, args, kwargs)
        result = func(*_operands(args), **_operands(kwargs))
        return _wrap(result)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly."
        )

    # -- leaving the device ------------------------------------------------------------
    def get(self):
        """A NumPy copy in host memory (CuPy's `ndarray.get`)."""
        _count("to_host")
        return self._host.copy()

    def item(self):
        _count("to_host")
        return self._host.item()

    def tolist(self):
        _count("to_host")
        return self._host.tolist()

    def __bool__(self):
        _count("to_host")
        return bool(self._host)

    def __float__(self):
        _count("to_host")
        return float(self._host)

    def __int__(self):
        _count("to_host")
        return int(self._host)

    def __index__(self):
        _count("to_host")
        return self._host.__index__()

    def __complex__(self):
        _count("to_host")
        return complex(self._host)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __len__(self):
        return len(self._host)

    def __repr__(self):
        return "simulated_" + repr(self._host)

    __str__ = __repr__

    # -- indexing --------------------------------------------------------------------
    def __getitem__(self, key):
        """CuPy's indexing: integers for every dim give a 0-d view, not a scalar copy (so
        `old = a[i]; a[i] = old + 1` changes `old` too); a mask of bools reads from the GPU."""
        if rules.index_reads_from_gpu(key):
            _count("to_host", "a boolean mask index reads the size of its result")
        if _all_integers(key):
            key = (*key, ...) if isinstance(key, tuple) else (key, ...)  # NumPy's 0-d view
        return _wrap(self._host[_index(key)])

    def __setitem__(self, key, value):
        if rules.index_reads_from_gpu(key):
            _count("to_host", "a boolean mask index reads the number of places it writes")
        self._host[_index(key)] = _operand(value)

    # -- attributes and methods: those of the host array, with device results ---------
    @property
    def device(self):
        return _Device(0)

    @property
    def base(self):
        """The device array that owns a view's memory (None for an owner), the same object
        each time, as CuPy's `base` is: `view.base is x` tells a view of x."""
        root = _host_base(self._host)
        if root is None:  # an owner, or a view made by as_strided (its base is None in CuPy)
            return None
        while _host_base(root) is not None:
            root = _host_base(root)
        owner = _owners.get(id(root))
        if owner is None or owner._host is not root:
            owner = SimulatedArray(root)
            _owners[id(root)] = owner
        return owner

    @property
    def data(self):
        """Where the data is (CuPy's `MemoryPointer`): `ptr`, the address of the first
        element, and `mem`, the allocation, one object for all the arrays that look into it
        (`a.data.mem is b.data.mem` tells views of one memory, as_strided's included)."""
        return types.SimpleNamespace(
            ptr=self._host.__array_interface__["data"][0],
            mem=_allocation(self._host),
            device_id=0,
        )

    @property
    def __cuda_array_interface__(self):  # what a @cuda.jit kernel would take
        raise TypeError("simulated GPU: pass array_module.kernel_view(x) to a simulated kernel")

    def __getattr__(self, name):
        if name.startswith("__array"):  # NumPy's ways in (__array_interface__, __array_struct__):
            raise AttributeError(name)  # handing them out would be a silent copy to the host
        value = getattr(self._host, name)
        if callable(value):

            def method(*args, **kwargs):
                rules.refuse_keywords(name, rules.METHOD_KEYWORDS_CUPY_LACKS.get(name, ()), kwargs)
                return _wrap(value(*_operands(args), **_operands(kwargs)))

            method.__name__ = name
            return method
        return _wrap(value)

    def __setattr__(self, name, value):
        if name == "_host":
            object.__setattr__(self, name, value)
        elif name == "shape":
            self._host.shape = value
        else:
            raise AttributeError(f"SimulatedArray: cannot set {name!r}")

    def __deepcopy__(self, memo):
        return SimulatedArray(self._host.copy())

    def __reduce__(self):
        raise TypeError(
            "simulated GPU: a device array cannot be pickled; copy it to the host first"
        )


def _host_base(host):
    """The host array `host` is a view of, or None (NumPy's as_strided puts a wrapper
    object between a view and its base: it is looked through; CuPy's as_strided makes an
    array with no base: it is None)."""
    if _detached.get(id(host)) is host:
        return None
    base = host.base
    if not isinstance(base, np.ndarray) and isinstance(getattr(base, "base", None), np.ndarray):
        base = base.base
    return base if isinstance(base, np.ndarray) else None


class _Memory:
    """One allocation on the simulated GPU (CuPy's `Memory`, found as `x.data.mem`)."""

    def __init__(self, buffer):
        self.ptr = buffer.__array_interface__["data"][0]
        self.size = buffer.nbytes
        self.device_id = 0


def _allocation(host):
    """The _Memory that `host` looks into: that of the host buffer at the end of its chain
    of bases (as_strided's included), the same object while that buffer lives."""
    root = host
    while True:
        base = root.base
        base = base if isinstance(base, np.ndarray) else getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            break
        root = base
    if id(root) not in _memories:
        _memories[id(root)] = _Memory(root)
        weakref.finalize(root, _memories.pop, id(root), None)  # before its id can be reused
    return _memories[id(root)]


def _all_integers(key):
    """Whether an index key is integers only (a[i], a[i, j]), on which CuPy gives a view."""
    keys = key if isinstance(key, tuple) else (key,)
    return all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in keys)


def _arith(ufunc, reflected=False):
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


def _inplace(ufunc):
    def method(self, other):
        ufunc(self._host, _operand(other), out=self._host)
        return self

    return method


for _name, _ufunc in {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift,
}.items():  # fmt: skip
    setattr(SimulatedArray, f"__{_name}__", _arith(_ufunc))
    setattr(SimulatedArray, f"__r{_name}__", _arith(_ufunc, reflected=True))
    setattr(SimulatedArray, f"__i{_name}__", _inplace(_ufunc))
for _name, _ufunc in {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}.items():  # fmt: skip
    setattr(SimulatedArray, f"__{_name}__", _arith(_ufunc))
SimulatedArray.__neg__ = lambda self: np.negative(self)
SimulatedArray.__pos__ = lambda self: np.positive(self)
SimulatedArray.__abs__ = lambda self: np.absolute(self)
SimulatedArray.__invert__ = lambda self: np.invert(self)
SimulatedArray.__hash__ = None


def _operand(x):
    """What the host computation takes for `x`: a device array's host copy; a NumPy
    array is refused, as CuPy refuses to mix host and device arrays."""
    if isinstance(x, SimulatedArray):
        return x._host
    if isinstance(x, np.ndarray):
        raise TypeError(
            f"Unsupported type {type(x)} (a host array mixed with a simulated GPU array)"
        )
    if isinstance(x, (list, tuple)):
        return type(x)(_operand(v) for v in x)
    return x


def _operands(args):
    if isinstance(args, dict):
        return {k: _operand(v) for k, v in args.items()}
    return [_operand(x) for x in args]


def _index(key):
    """Index keys may hold device arrays, or host index arrays (which CuPy copies over)."""
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, SimulatedArray):
        return key._host
    return key


def _wrap(x):
    """Host results come back as device arrays; NumPy scalars as 0-d device arrays, as
    CuPy's reductions return them."""
    if isinstance(x, np.ndarray):
        return SimulatedArray(x)
    if isinstance(x, np.generic):
        return SimulatedArray(np.asarray(x))
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, list):
        return [_wrap(v) for v in x]
    return x


# ---- the module: the part of CuPy's API that minigrad calls ---------------------------
ndarray = SimulatedArray


def asarray(a, dtype=None, order=None, *, blocking=False):
    """Copy host data to the device (or return a device array as it is)."""
    if isinstance(a, SimulatedArray):
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    _count("to_device")
    return SimulatedArray(np.array(a, dtype=dtype, order=order or "K"))


def array(a, dtype=None, copy=True, order="K", ndmin=0):
    if isinstance(a, SimulatedArray):
        return SimulatedArray(np.array(a._host, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    _count("to_device")
    return SimulatedArray(np.array(a, dtype=dtype, order=order, ndmin=ndmin))


def ascontiguousarray(a, dtype=None):
    """`a` as a C-contiguous device array (a copy on the device only if it is not one);
    host data is copied over."""
    if isinstance(a, SimulatedArray):
        host = np.ascontiguousarray(a._host, dtype=dtype)
        return a if host is a._host else SimulatedArray(host)
    _count("to_device")
    return SimulatedArray(np.ascontiguousarray(a, dtype=dtype))


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """A host copy (CuPy's `asnumpy`); host data is returned as it is."""
    if isinstance(a, SimulatedArray):
        return a.get()
    return np.asarray(a)


def get_array_module(*args):
    return _this if any(isinstance(a, SimulatedArray) for a in args) else np


def scatter_add(a, indices, values):
    """`a[indices] += values` with repeated indices accumulated (cupyx.scatter_add)."""
    np.add.at(a._host, _index(indices), _operand(values))


def scatter_max(a, indices, values):
    """`a[indices] = max(a[indices], values)` with repeats taking part (cupyx.scatter_max)."""
    np.maximum.at(a._host, _index(indices), _operand(values))


def scatter_min(a, indices, values):
    """`a[indices] = min(a[indices], values)` with repeats taking part (cupyx.scatter_min)."""
    np.minimum.at(a._host, _index(indices), _operand(values))


def __getattr__(name):
    """Every other NumPy function, dtype and constant, with device results."""
    value = getattr(np, name)
    if isinstance(value, np.ufunc) or not callable(value) or isinstance(value, type):
        return value  # ufuncs dispatch through __array_ufunc__; dtypes and constants as they are

    def function(*args, **kwargs):
        rules.before_call(value, args, kwargs)
        return _wrap(value(*_operands(args), **_operands(kwargs)))

    function.__name__ = name
    return function


class _Namespace(types.SimpleNamespace):
    """A NumPy submodule (linalg, fft) whose functions return device arrays."""

    def __init__(self, module):
        super().__init__(_module=module)

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if not callable(value) or isinstance(value, type):
            return value

        def function(*args, **kwargs):
            rules.before_call(value, args, kwargs)
            return _wrap(value(*_operands(args), **_operands(kwargs)))

        return function


linalg = _Namespace(np.linalg)
fft = _Namespace(np.fft)


def _as_strided(x, shape=None, strides=None):
    """A view with the given shape and strides in bytes (`cupy.lib.stride_tricks.as_strided`,
    which, unlike NumPy's, has no `writeable` argument, and makes a new ndarray on `x`'s
    memory pointer: its `base` is None, and only `data.mem` tells that it is a view of x;
    a view of it names it as its base)."""
    host = np.lib.stride_tricks.as_strided(_operand(x), shape=shape, strides=strides)
    _detached[id(host)] = host
    return SimulatedArray(host)


lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_as_strided))


class _RandomState:
    """A generator that lives on the device (CuPy's `random.RandomState`)."""

    def __init__(self, seed=None):
        self._state = np.random.RandomState(seed)

    def seed(self, seed=None):
        self._state.seed(seed)

    def __getattr__(self, name):
        value = getattr(self._state, name)
        return lambda *args, **kwargs: _wrap(value(*_operands(args), **_operands(kwargs)))


random = types.SimpleNamespace(RandomState=_RandomState)


class _Device:
    """CuPy's `cuda.Device`: the one simulated GPU, number 0."""

    def __init__(self, id=0):  # noqa: A002  (CuPy's argument name)
        self.id = int(id)

    def synchronize(self):
        """Nothing to wait for: the simulator runs each op to its end before returning."""

    def use(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _MemoryPool:
    def used_bytes(self):
        return _bytes_in_use[0]

    def total_bytes(self):
        return _bytes_in_use[0]

    def free_all_blocks(self):
        pass


_pool = _MemoryPool()


def _device_count():
    return 1


def _properties(index):
    return {
        "name": b"minigrad CUDA simulator (host memory)",
        "totalGlobalMem": 0,
        "major": 0,
        "minor": 0,
    }


cuda = types.SimpleNamespace(
    Device=_Device,
    runtime=types.SimpleNamespace(getDeviceCount=_device_count, getDeviceProperties=_properties),
    get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None),
)


def get_default_memory_pool():
    return _pool


_this = __import__(__name__, fromlist=["_"])
