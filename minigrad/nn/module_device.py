"""Where a Module's parameters and buffers live, and in which dtype: `to`, `cpu`, `cuda`,
`float`, `double`, `half`, `type`, `to_empty`, and the factory keyword `device=` of layers.

They all change the arrays inside the Parameter and Tensor objects and keep the objects,
so an optimizer made before still holds the model's parameters. `Module` inherits them
(nn/module.py).
"""

import numpy as np

from minigrad import devices as _devices
from minigrad import dtypes
from minigrad.array_module import array_module, on_device, to_device, to_host
from minigrad.tensor import Tensor


def place_on_factory_device(module, item):
    """torch's factory keyword `device=` of a layer (`nn.Linear(3, 4, device="cuda")`): each
    parameter, buffer and submodule the layer registers goes to that device as it is
    registered, in this one place for every layer. Initial values are drawn on the host and copied
    over (nn/init.py), so a seed gives the same weights on either device (torch draws them on
    the GPU's generator instead)."""
    if "_factory_device" not in module.__dict__:  # read once per module, from __new__'s note
        recorded = module.__dict__.get("_config")
        if recorded is not None and "device" in recorded[2]:
            device = recorded[2]["device"]
        else:
            device = (module._recorded_arguments() or {}).get("device")
        if device is not None:
            device = _devices.check_device(device, type(module).__name__)
        object.__setattr__(module, "_factory_device", device)
    device = module._factory_device
    if device is None or device.type != "cuda":
        return
    if not isinstance(item, Tensor):  # a submodule
        item.to(device)
    elif not on_device(item.array):
        item.array = to_device(item.array)


class DeviceMethods:
    """The mixin Module inherits these methods from (see the module docstring)."""

    def to(self, *args, **kwargs):
        """Move parameters and buffers to a device and/or convert the floating-point ones to
        a dtype, in place; returns self.

        Takes the arguments of torch's `Module.to`: `to(dtype)`, `to(device)`,
        `to(device, dtype)`, `to(tensor)`, with `non_blocking=`. The Parameter objects
        stay the same (only their arrays move), so an optimizer made before still holds them.
        """
        device, dtype, _ = _devices.parse_to(args, kwargs, "Module.to")
        if device is not None:
            move = to_device if device.type == "cuda" else to_host
            self._apply(
                lambda a: a if (array_module(a) is not np) == (device.type == "cuda") else move(a)
            )
        if dtype is None:
            return self
        if dtype.kind != "f":
            raise TypeError(f"Module.to only accepts floating point dtypes, got {dtype}")
        for t in list(self.parameters()) + list(self.buffers()):
            if t.dtype.kind == "f" and t.dtype != dtype:
                t.array = t.array.astype(dtype)
                if t.grad is not None:
                    t.grad = Tensor._make(t.grad.array.astype(dtype))
        return self

    def cpu(self):
        """Move parameters and buffers to host memory, in place; returns self."""
        return self.to(_devices.cpu)

    def cuda(self, device=None):
        """Move parameters and buffers to the GPU, in place; returns self (raises, saying
        what is missing, without a GPU)."""
        return self.to(_devices.check_cuda(device, "Module.cuda"))

    def float(self):
        """Cast floating-point parameters and buffers to float32 in place; returns self."""
        return self.to(dtypes.float32)

    def double(self):
        """Cast floating-point parameters and buffers to float64 in place; returns self."""
        return self.to(dtypes.float64)

    def half(self):
        """Cast floating-point parameters and buffers to float16 in place; returns self."""
        return self.to(dtypes.float16)

    def _apply(self, fn, recurse=True):
        """Replace the array of every parameter and buffer (and gradient) by fn(array),
        keeping the Parameter and Tensor objects (so optimizers still hold them)."""
        seen = set()
        for module in self.modules() if recurse else [self]:
            for t in list(module._parameters.values()) + list(module._buffers.values()):
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                t.array = fn(t.array)
                if t.grad is not None:
                    t.grad = Tensor._make(fn(t.grad.array))
        return self

    def type(self, dst_type):
        """Cast every parameter and buffer to `dst_type` (a dtype, or a PyTorch type
        name such as 'torch.DoubleTensor'), integer buffers included; returns self."""
        try:
            dtype = dtypes.dtype_from_type_name(dst_type)
        except TypeError:
            raise ValueError(f"Module.type: invalid type: {dst_type!r}") from None
        if dtype is None:
            raise ValueError("Module.type: invalid type: None")
        if dtype.kind not in "fc" and any(p.requires_grad for p in self.parameters()):
            raise RuntimeError(
                f"Module.type: cannot cast parameters that require gradients to {dtype}: data set "
                "to a tensor that requires gradients must be floating point or complex dtype"
            )
        return self._apply(lambda a: a.astype(dtype))

    def to_empty(self, *, device, recurse=True):
        """Give every parameter and buffer fresh, uninitialised storage of the same shape
        and dtype on `device` (minigrad's empty storage is zeros); returns self. Then
        initialise it, e.g. with reset_parameters() or load_state_dict()."""
        target = None if device is None else _devices.check_device(device, "Module.to_empty")

        def fresh(array):
            zeros = array_module(array).zeros_like(array)  # made where the array lives
            if target is None:
                return zeros
            return to_device(zeros) if target.type == "cuda" else to_host(zeros)

        return self._apply(fresh, recurse=recurse)
