"""`torch.utils.data.distributed`'s names; the code lives in `minigrad.data.distributed`."""

from minigrad.data.distributed import DistributedSampler  # noqa: F401
