"""`mg.exp(x)`, `mg.sum(x, dim)`, ...: the function forms of Tensor methods, as in
`torch.exp(x)`. Each simply calls the method of the same name."""

from minigrad.tensor import Tensor, as_tensor

_METHODS = (
    "exp log sqrt rsqrt sin cos tanh sigmoid relu erf abs sign floor ceil round clamp clip "
    "square reciprocal sum mean var std prod logsumexp norm amax amin argmax argmin max min "
    "cumsum reshape flatten unflatten squeeze unsqueeze permute transpose flip repeat chunk "
    "split unbind softmax log_softmax isnan isinf isfinite any all"
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
