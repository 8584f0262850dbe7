"""`torch.utils.data.dataset`'s names; the code lives in `minigrad.data`."""

from minigrad.data.dataset import (  # noqa: F401
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
)
from minigrad.data.split import random_split  # noqa: F401
