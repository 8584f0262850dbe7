"""`nn.parallel`: PyTorch's data-parallel wrappers, for programs that use them.

`DataParallel(model)` splits each batch across GPUs in PyTorch. minigrad tensors live in
host memory, so, as PyTorch does on a machine without GPUs, it simply runs the wrapped
module. It still matters that it exists and behaves the same way: the wrapped model is
`.module`, and the state dict keys gain the prefix 'module.' (so a checkpoint saved from
a DataParallel model loads into one, and `model.module.state_dict()` gives plain keys).
"""

from minigrad.nn.module import Module


class DataParallel(Module):
    """Run `module` on the CPU: forward(*inputs) is module(*inputs).

    `device_ids` and `output_device` may name only the CPU (as they would name GPUs in
    PyTorch); `device_ids` is then [] as in PyTorch without CUDA. `dim` is the batch
    dimension PyTorch would split, stored.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"DataParallel: expected an nn.Module to wrap, got {type(module).__name__}"
            )
        from minigrad.devices import check_device

        for d in list(device_ids or []) + ([] if output_device is None else [output_device]):
            # an int names a GPU in PyTorch; only the CPU can run minigrad modules
            check_device(d, "DataParallel")
        self.module = module
        self.device_ids = []
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Raises: it needs a process group, and `mg.distributed` has none (see
    `mg.distributed.is_available()`). Single-process code can use the module itself."""

    def __init__(self, module, *args, **kwargs):
        super().__init__()
        raise RuntimeError(
            "DistributedDataParallel: distributed training is not available in minigrad "
            "(mg.distributed.is_available() is False); use the module itself, or DataParallel"
        )
