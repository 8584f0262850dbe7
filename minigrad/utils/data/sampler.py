"""`torch.utils.data.sampler`'s names; the code lives in `minigrad.data.sampler`."""

from minigrad.data.sampler import (  # noqa: F401
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
