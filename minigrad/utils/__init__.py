"""`minigrad.utils.data` mirrors `torch.utils.data`, so PyTorch imports port unchanged."""

from minigrad.utils import data  # noqa: F401  (mg.utils.data after `import minigrad`, as torch.utils.data)
