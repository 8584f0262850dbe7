"""The same names as `torch.utils.data`; the code lives in `minigrad.data`.

from minigrad.utils.data import DataLoader, TensorDataset      # as from torch.utils.data
from minigrad.utils.data.sampler import RandomSampler           # the submodules too
"""

from minigrad.data import *  # noqa: F403
from minigrad.data import __all__  # noqa: F401
from minigrad.utils.data import dataloader, dataset, distributed, sampler  # noqa: F401  (torch's submodule paths)
