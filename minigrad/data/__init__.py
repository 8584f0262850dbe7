"""minigrad.data: datasets and the DataLoader that batches them, as torch.utils.data.

    from minigrad.data import DataLoader, Digits

    loader = DataLoader(Digits(train=True), batch_size=64, shuffle=True)
    for images, labels in loader:  # (64, 1, 8, 8) float32, (64,) int64
        ...

- dataset.py    Dataset, TensorDataset, Subset
- split.py      random_split
- collate.py    default_collate: a list of examples -> a batch
- dataloader.py DataLoader: order, chunk, fetch, collate
- images.py     ImageDataset: labelled greyscale images in memory
- digits.py     Digits, load_digits: the UCI digits, bundled (no download)
- idx.py        read_idx: the IDX file format
- mnist.py      MNIST from local IDX files
"""

from minigrad.data.collate import default_collate, default_convert
from minigrad.data.dataloader import DataLoader
from minigrad.data.dataset import Dataset, Subset, TensorDataset
from minigrad.data.digits import Digits, load_digits
from minigrad.data.idx import read_idx
from minigrad.data.images import ImageDataset
from minigrad.data.mnist import MNIST
from minigrad.data.split import random_split

__all__ = [
    "MNIST",
    "DataLoader",
    "Dataset",
    "Digits",
    "ImageDataset",
    "Subset",
    "TensorDataset",
    "default_collate",
    "default_convert",
    "load_digits",
    "random_split",
    "read_idx",
]
