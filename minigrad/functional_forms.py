"""`mg.exp(x)`, `mg.sum(x, dim)`, ...: the function forms of Tensor methods, as in
`torch.exp(x)`. Each simply calls the method of the same name.

(Functions with more to them than that, such as `out=` or keyword-only arguments, are
written out next to their Functions in `minigrad/ops/`: mg.add, mg.sort, mg.gather, ...)"""

from minigrad.creation import as_tensor
from minigrad.tensor import Tensor

_METHODS = (
    "exp log sqrt rsqrt sin cos tanh sigmoid relu erf abs sign floor ceil round clamp clip "
    "square reciprocal sum mean var std prod logsumexp amax amin argmax argmin max min "
    "reshape flatten unflatten squeeze unsqueeze permute transpose repeat chunk "
    "split unbind softmax log_softmax isnan isinf isfinite clamp_min clamp_max"
).split()


def _make(name):
    def function(input, *args, **kwargs):
        return getattr(as_tensor(input), name)(*args, **kwargs)

    function.__name__ = name
    function.__qualname__ = name
    function.__doc__ = f"mg.{name}(input, ...) is input.{name}(...); see Tensor.{name}."
    return function


__all__ = list(_METHODS)
for _name in _METHODS:
    globals()[_name] = _make(_name)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(t):
    return t.numel()
