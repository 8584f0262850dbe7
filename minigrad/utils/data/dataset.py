"""`torch.utils.data.dataset`'s names; the code lives in `minigrad.data`."""

from minigrad.data.dataset import Dataset, IterableDataset, Subset, TensorDataset  # noqa: F401
from minigrad.data.split import random_split  # noqa: F401
