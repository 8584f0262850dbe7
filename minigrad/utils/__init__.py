"""`minigrad.utils.data` mirrors `torch.utils.data`, so PyTorch imports port unchanged."""
