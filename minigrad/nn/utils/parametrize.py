"""Parametrizations: a parameter computed from others every time it is read.

`register_parametrization(layer, "weight", P)` replaces the layer's `weight` by
`P(original)`: the Parameter the layer had moves to `layer.parametrizations.weight.original`
(the optimizer trains it), and reading `layer.weight` applies P to it. So a weight can be
kept orthogonal, normalized, symmetric, ... by construction, whatever the optimizer does
to `original`. This is how nn.utils.parametrizations.weight_norm and spectral_norm work.

If P has a `right_inverse(value)`, it maps a value of the weight back to the original (it
is applied to the layer's weight at registration, and by `layer.weight = value`); it may
return several tensors, which become `original0`, `original1`, ... and are passed to
P's forward in that order.

How, as torch does it: the layer's class is swapped for a subclass with a property of
that name (reading runs the parametrizations; assigning calls right_inverse); removing
the last parametrization restores the class. Inside `with cached():` each parametrized
value is computed once and reused.
"""

import contextlib

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.containers import ModuleDict, ModuleList
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within this context, each parametrized tensor is computed once, at its first read,
    and the same value returned after (a parametrized weight used several times in one
    forward, as in an RNN, then costs one computation)."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _set_data(target, value):
    """target <- value in place (the Parameter object stays the one optimizers hold)."""
    with no_grad():
        target.array = value.detach().array.astype(target.dtype, copy=True)
        target._version_counter().value += 1


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the original tensor(s)
    they are applied to (`original`, or `original0`, `original1`, ... when the first
    one's right_inverse returns several)."""

    def __init__(self, modules, original, unsafe=False):
        if not modules:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if not unsafe and (new.shape != original.shape or new.dtype != original.dtype):
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype or "
                    f"shape: original {original.dtype} {tuple(original.shape)}, right_inverse gave "
                    f"{new.dtype} {tuple(new.shape)}"
                )
            _set_data(original, new)
            if isinstance(original, Parameter):
                self.original = original
            else:  # a parametrized buffer stays a buffer
                self.register_buffer("original", original)
        else:
            for i, tensor in enumerate(new):
                value = Parameter(tensor.detach(), requires_grad=original.requires_grad)
                setattr(self, f"original{i}", value)
        if not unsafe:  # the parametrized value must keep the tensor's shape and dtype
            z = self()
            if z.shape != original.shape or z.dtype != original.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    f"tensor, unless `unsafe` is set: {original.dtype} {tuple(original.shape)} "
                    f"became {z.dtype} {tuple(z.shape)}"
                )

    def originals(self):
        """The original tensors, in the order the first parametrization takes them."""
        if self.is_tensor:
            return (self.original,)
        return tuple(getattr(self, f"original{i}") for i in range(self.ntensors))

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes `value`."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            values = (value,) if self.is_tensor else tuple(value)
            for target, new in zip(self.originals(), values):
                _set_data(target, new)

    def forward(self):
        x = self[0](*self.originals())
        for module in list(self)[1:]:
            x = module(x)
        return x


def _parametrized_property(tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    return property(
        get_parametrized, set_original, doc=f"{tensor_name}, computed by its parametrizations"
    )


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` the output of `parametrization` (a Module) applied to
    the original tensor, which moves to module.parametrizations[tensor_name].original.
    A second call on the same name chains another parametrization after the first.
    Returns the module."""
    if not isinstance(parametrization, Module):
        raise TypeError(
            "register_parametrization: the parametrization must be a Module, got "
            f"{type(parametrization)}"
        )
    if is_parametrized(module, tensor_name):
        parametrizations = module.parametrizations[tensor_name]
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if X.shape != Y.shape or X.dtype != Y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    "tensor, unless `unsafe`"
                )
        parametrizations.append(parametrization)
        parametrizations.unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    original = getattr(module, tensor_name)
    parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        # a subclass of the module's class, of this module alone, to hold the properties
        cls = module.__class__
        module.__class__ = type(
            f"Parametrized{cls.__name__}", (cls,), {"_type_before_parametrizations": cls}
        )
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = parametrizations
    setattr(module.__class__, tensor_name, _parametrized_property(tensor_name))
    return module


def is_parametrized(module, tensor_name=None):
    """Whether the module has a parametrization (on `tensor_name`, if given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def type_before_parametrizations(module):
    """The class the module had before its first parametrization."""
    return module.__class__.__dict__.get("_type_before_parametrizations", type(module))


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo register_parametrization on `tensor_name`: the module gets a plain Parameter
    again, holding the current parametrized value (leave_parametrized=True) or the
    original (False, possible only with one original). The module's class is restored
    when no parametrization is left. Returns the module."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            if value.shape == original.shape and value.dtype == original.dtype:
                _set_data(original, value)
            else:
                original = Parameter(value.detach(), requires_grad=original.requires_grad)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
        with no_grad():
            value = getattr(module, tensor_name)
        original = Parameter(value.detach(), requires_grad=parametrizations.original0.requires_grad)
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type_before_parametrizations(module)
    return module
