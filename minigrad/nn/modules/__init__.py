"""`torch.nn.modules`: the same layers under PyTorch's module paths.

PyTorch code imports layers from where torch defines them, `from
torch.nn.modules.linear import Linear`, `from torch.nn.modules.loss import _Loss`. Each
module here holds the names of its torch namesake that minigrad has (the code lives in
minigrad.nn's own files, one per family, named after the idea rather than torch's
layout), and they are the very objects of `minigrad.nn`:
`minigrad.nn.modules.linear.Linear is minigrad.nn.Linear`.
"""

from minigrad.nn.modules import (  # noqa: F401
    activation,
    batchnorm,
    container,
    conv,
    dropout,
    flatten,
    linear,
    loss,
    module,
    normalization,
    pooling,
    rnn,
    sparse,
    transformer,
)


def __getattr__(name):
    """Any other layer of minigrad.nn, as torch.nn.modules holds every layer of torch.nn
    (those of the families without a file here, such as Upsample, included)."""
    import minigrad.nn as nn

    layer = getattr(nn, name, None)
    if isinstance(layer, type) and issubclass(layer, nn.Module):
        return layer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
