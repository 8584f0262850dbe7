"""Devices: where a tensor's memory lives, shaped like `torch.device`.

A tensor lives on the CPU (its data a NumPy array in host memory) or on an NVIDIA GPU
(`device("cuda")`, its data a CuPy array in GPU memory; see `minigrad/cuda/runtime.py`).
PyTorch programs are full of device code (`device = torch.device("cuda" if
torch.cuda.is_available() else "cpu")`, `x.to(device)`, `torch.zeros(3, device=device)`),
and all of it works here: without a GPU, `mg.cuda.is_available()` is False and asking
for 'cuda' raises an error that says what is missing.

    mg.device("cpu")        # device(type='cpu')
    mg.device("cuda:0")     # device(type='cuda', index=0)
    mg.zeros(3).device == mg.device("cpu")
"""

import builtins

from minigrad import dtypes

# the device types torch.device accepts; only "cpu" can hold a minigrad tensor
DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()


class device:
    """A device, as `torch.device`: `device('cpu')`, `device('cuda:0')`, `device('cuda', 1)`.

    `type` is the kind of device ('cpu', 'cuda', ...) and `index` its number, or None when
    none was given (so `device('cpu') != device('cpu', 0)`, as in PyTorch). Devices compare
    and hash by (type, index); `str` gives 'cpu' or 'cuda:0'. As a context manager it sets
    the default device inside the block. A `torch.device` is accepted wherever a device is.
    """

    __slots__ = ("type", "index", "_previous")

    def __init__(self, type, index=None):  # noqa: A002  (torch's argument name)
        if isinstance(index, builtins.bool) or not (index is None or isinstance(index, int)):
            raise TypeError(f"device: index must be an int, got {builtins.type(index).__name__}")
        if isinstance(type, int) and not isinstance(type, builtins.bool) and index is None:
            # device(0): an ordinal alone means the accelerator's, as in PyTorch
            type, index = "cuda", type
        if _is_device(type):
            if index is not None:
                raise TypeError("device: an index cannot be given with a device object")
            type, index = type.type, type.index
        elif isinstance(type, str):
            type, parsed = _parse(type)
            if parsed is not None and index is not None:
                raise RuntimeError(
                    "device: type (string) must not include an index because index was passed "
                    f"explicitly: {type}:{parsed}"
                )
            index = parsed if index is None else index
        else:
            raise TypeError(
                f"device: expected a device string such as 'cpu' or 'cuda:0', an int or a device, "
                f"got {builtins.type(type).__name__}"
            )
        if index is not None and index < 0:
            raise RuntimeError(f"device: device index must not be negative, got {index}")
        self.type, self.index = type, index

    def __repr__(self):
        if self.index is None:
            return f"device(type={self.type!r})"
        return f"device(type={self.type!r}, index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented  # a device never equals a string, as in PyTorch
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):  # devices pickle (DataLoader workers, deepcopy of modules)
        return (device, (self.type, self.index))

    def __enter__(self):
        self._previous = get_default_device()
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(self._previous)
        return False


def _parse(text):
    """'cuda:1' -> ('cuda', 1); 'cpu' -> ('cpu', None); anything else raises."""
    type, colon, number = text.partition(":")
    if type not in DEVICE_TYPES:
        raise RuntimeError(
            f"device: expected one of {', '.join(DEVICE_TYPES)} at the start of {text!r}"
        )
    if not colon:
        return type, None
    # digits only, no sign, no leading zero: PyTorch rejects 'cuda:-1' and 'cuda:01'
    if not number.isdigit() or not number.isascii() or (len(number) > 1 and number[0] == "0"):
        raise RuntimeError(
            f"device: invalid device string {text!r} (expected e.g. 'cuda' or 'cuda:0')"
        )
    return type, builtins.int(number)


def _is_device(x):
    # duck-typed, so that a torch.device works too without importing torch
    return isinstance(x, device) or (builtins.type(x).__name__ == "device" and hasattr(x, "type"))


cpu = device("cpu")
"""The host: where tensors live unless a GPU is asked for."""

_default = cpu


def as_device(d, op="device"):
    """Normalise a device argument (device, torch.device, str or int) to a `device`."""
    if isinstance(d, device):
        return d
    if _is_device(d):
        return device(d.type, d.index)
    if isinstance(d, (str, int)) and not isinstance(d, builtins.bool):
        return device(d)
    raise TypeError(
        f"{op}: expected a device (mg.device, 'cpu', 'cuda:0', ...), got "
        f"{builtins.type(d).__name__}"
    )


cuda = device("cuda", 0)
"""The GPU CUDA tensors live on (minigrad uses one GPU, number 0)."""


def check_device(d, op):
    """Check that `d` (None: the default device) can hold a minigrad tensor, and return
    it as a `device`: the CPU, or `cuda:0` when a GPU (or the simulator) is there. Any
    other device, or a GPU on a machine without one, raises an error that says why."""
    if d is None:
        return _default
    d = as_device(d, op)
    if d.type == "cpu":
        return d
    if d.type == "cuda":
        from minigrad.cuda import runtime

        runtime.require(op)  # raises, saying what is missing, when there is no GPU
        if d.index not in (None, 0):
            raise RuntimeError(
                f"{op}: minigrad uses one GPU, cuda:0; {str(d)!r} was asked for "
                f"({runtime.device_count()} device(s) visible)"
            )
        return cuda
    raise RuntimeError(
        f"{op}: minigrad tensors live on the CPU or an NVIDIA GPU (cuda) and cannot be placed "
        f"on {str(d)!r}. Device-agnostic code should pick its device with "
        "mg.device('cuda' if mg.cuda.is_available() else 'cpu')."
    )


def check_cuda(d, op):
    """What `.cuda(device=None)` accepts: a cuda device (default cuda:0), checked as
    `check_device` checks it."""
    d = device("cuda") if d is None else as_device(d, op)
    if d.type != "cuda":
        raise RuntimeError(f"{op}: invalid device {str(d)!r}, must be a cuda device")
    return check_device(d, op)


def get_default_device():
    """The device creation functions use when no `device=` is given: `device('cpu')`."""
    return _default


def set_default_device(d):
    """Set the device creation functions use by default (None resets it to the CPU).

    'cuda' works where a GPU (or the simulator) is; other devices raise."""
    global _default
    _default = cpu if d is None else check_device(d, "set_default_device")


def parse_to(args, kwargs, op):
    """Read the arguments of `Tensor.to` / `Module.to` the way PyTorch does.

    Forms: to(dtype), to(device), to(device, dtype), to(tensor) (its dtype and device),
    each with optional dtype=, device=, non_blocking=, copy= (and memory_format=,
    accepted and ignored). Returns (device or None, dtype or None, copy).
    """
    unknown = set(kwargs) - {"dtype", "device", "non_blocking", "copy", "memory_format"}
    if unknown:
        raise TypeError(f"{op}: unexpected keyword argument(s) {sorted(unknown)}")
    args = list(args)
    dev, dtype = kwargs.get("device"), kwargs.get("dtype")
    if args and _is_tensor(args[0]):
        other = args.pop(0)  # to(other): other's dtype and device
        dtype, dev = other.dtype, getattr(other, "device", None)
    elif args and (_is_device(args[0]) or _is_device_like(args[0])):
        dev = args.pop(0)
        if args and not isinstance(args[0], builtins.bool):
            dtype = args.pop(0)
    elif args:
        dtype = args.pop(0)
    if args:  # what is left is non_blocking (and copy), which may be positional
        if len(args) > 2 or not all(isinstance(a, builtins.bool) for a in args):
            raise TypeError(
                f"{op}: expected (device, dtype, non_blocking, copy), (dtype, ...) or (tensor, "
                f"...), got extra {args!r}"
            )
    copy = args[1] if len(args) == 2 else builtins.bool(kwargs.get("copy", False))
    if dev is not None:
        dev = check_device(dev, op)
    return dev, dtypes.to_dtype(dtype, op), copy


def _is_tensor(x):
    # duck-typed: tensor.py imports this module, so this one cannot import Tensor. A
    # tensor is what has a dtype and a device object (an ndarray's .device is a string)
    return hasattr(x, "dtype") and _is_device(getattr(x, "device", None))


def _is_device_like(x):
    """A string naming a device ('cpu', 'cuda:0') or an int ordinal, not a dtype name."""
    if isinstance(x, builtins.bool):
        return False
    if isinstance(x, int):
        return True
    return isinstance(x, str) and x.partition(":")[0] in DEVICE_TYPES
