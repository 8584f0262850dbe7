"""ImageDataset: labelled greyscale images held in memory as two NumPy arrays.

The bundled digits and MNIST are both this: `data`, uint8 pixels of shape
(N, height, width), and `targets`, int64 class labels of shape (N,). Example i is
`(image, label)`, where `image` is a float32 Tensor of shape (1, height, width) —
channels first, one channel, what `nn.Conv2d` expects (use `nn.Flatten()` or
`x.reshape(len(x), -1)` to feed an MLP) — with pixels divided by `scale` so they lie in
[0, 1], and `label` a Python int (so `default_collate` makes an int64 batch, what
`F.cross_entropy` wants).
"""

import numpy as np

from minigrad.creation import from_numpy
from minigrad.data.dataset import Dataset


class ImageDataset(Dataset):
    """Greyscale images `data` (N, H, W) with labels `targets` (N,); see the module docstring.

    `transform(image)` and `target_transform(label)`, when given, are applied to each
    example as it is fetched (as in torchvision). `scale` is what the raw pixel values
    are divided by (None keeps them as they are, still as float32).
    """

    def __init__(self, data, targets, scale, transform=None, target_transform=None):
        if data.ndim != 3 or targets.shape != (data.shape[0],):
            raise ValueError(
                f"{type(self).__name__}: expected images (N, H, W) and labels (N,), "
                f"got shapes {data.shape} and {targets.shape}"
            )
        self.data = data
        self.targets = targets
        self.scale = scale
        self.transform = transform
        self.target_transform = target_transform

    @property
    def classes(self):
        """The distinct labels, in increasing order."""
        return [int(c) for c in np.unique(self.targets)]

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        image = self.data[index][None].astype(np.float32)  # (1, H, W): one channel
        if self.scale is not None:
            image /= self.scale
        image, label = from_numpy(image), int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def __repr__(self):
        h, w = self.data.shape[1:]
        return f"{type(self).__name__}({len(self)} images of {h}x{w}, {len(self.classes)} classes)"
