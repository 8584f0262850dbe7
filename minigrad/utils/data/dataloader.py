"""`torch.utils.data.dataloader`'s names; the code lives in `minigrad.data`."""

from minigrad.data.collate import default_collate, default_convert  # noqa: F401
from minigrad.data.dataloader import DataLoader  # noqa: F401
from minigrad.data.worker import get_worker_info  # noqa: F401
