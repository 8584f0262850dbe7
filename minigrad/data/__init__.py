"""minigrad.data: datasets and the DataLoader that batches them, as torch.utils.data.

    from minigrad.data import DataLoader, Digits

    loader = DataLoader(Digits(train=True), batch_size=64, shuffle=True)
    for images, labels in loader:  # (64, 1, 8, 8) float32, (64,) int64
        ...

- dataset.py    Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset,
                ChainDataset, StackDataset
- split.py      random_split
- sampler.py    Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                WeightedRandomSampler, BatchSampler: the order of an epoch
- distributed.py DistributedSampler: one replica's share of each epoch
- collate.py    default_collate: a list of examples -> a batch
- dataloader.py DataLoader: order, chunk, fetch, collate
- worker.py     the worker threads of num_workers > 0; get_worker_info
- images.py     ImageDataset: labelled greyscale images in memory
- digits.py     Digits, load_digits: the UCI digits, bundled (no download)
- idx.py        read_idx: the IDX file format
- mnist.py      MNIST from local IDX files
- shakespeare.py tiny_shakespeare: the Tiny Shakespeare text, bundled (no download)
"""

from minigrad.data.collate import default_collate, default_convert
from minigrad.data.dataloader import DataLoader
from minigrad.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
)
from minigrad.data.digits import Digits, load_digits
from minigrad.data.distributed import DistributedSampler
from minigrad.data.idx import read_idx
from minigrad.data.images import ImageDataset
from minigrad.data.mnist import MNIST
from minigrad.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from minigrad.data.shakespeare import tiny_shakespeare
from minigrad.data.split import random_split
from minigrad.data.worker import WorkerInfo, get_worker_info

__all__ = [
    "MNIST",
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "Digits",
    "DistributedSampler",
    "ImageDataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "load_digits",
    "random_split",
    "read_idx",
    "tiny_shakespeare",
]
