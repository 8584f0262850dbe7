"""torch-level questions about objects: `typename`, `is_complex`, `is_inference`,
`is_storage` and `get_device`, as torch's functions of the same names."""

from minigrad.tensor import Tensor


def _tensor(op, value):
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{op}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}"
        )
    return value


def typename(obj):
    """The name of obj's type: 'torch.FloatTensor' for a float32 tensor (as `Tensor.type()`),
    'module.QualName' for anything else ('int' for builtins)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def is_complex(input):
    """False: minigrad's dtypes are real (a tensor's `is_complex()`)."""
    return _tensor("is_complex", input).is_complex()


def is_inference(input):
    """True for a tensor made inside `inference_mode()` (a tensor's `is_inference()`)."""
    return _tensor("is_inference", input).is_inference()


def is_storage(obj):
    """False: minigrad has no storage objects (a tensor's storage is its NumPy array)."""
    return False


def get_device(input):
    """-1, the device index of a CPU tensor (a tensor's `get_device()`)."""
    return _tensor("get_device", input).get_device()
