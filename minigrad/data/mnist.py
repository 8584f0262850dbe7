"""MNIST from local files: 70,000 28x28 handwritten digits (60,000 train, 10,000 test).

minigrad never downloads anything, so MNIST is read from a folder you fill once. Put
the four standard files (plain or gzipped, as distributed) in one folder:

    train-images-idx3-ubyte[.gz]   train-labels-idx1-ubyte[.gz]
    t10k-images-idx3-ubyte[.gz]    t10k-labels-idx1-ubyte[.gz]

They are at https://ossci-datasets.s3.amazonaws.com/mnist/ (the mirror PyTorch uses;
the original page is http://yann.lecun.com/exdb/mnist/). A folder that torchvision
filled (`torchvision.datasets.MNIST(root, download=True)` keeps them in
`root/MNIST/raw/`) works too: `MNIST(root)` looks there as well. Fashion-MNIST uses the
same file names and format, so its folder works the same way.
"""

from pathlib import Path

from minigrad.data.idx import read_idx
from minigrad.data.images import ImageDataset

MNIST_URL = "https://ossci-datasets.s3.amazonaws.com/mnist/"
PIXEL_MAX = 255


def mnist_files(train):
    """The (images, labels) file names of the training or test part, without .gz."""
    part = "train" if train else "t10k"
    return f"{part}-images-idx3-ubyte", f"{part}-labels-idx1-ubyte"


def find_file(folders, name):
    """The first of folder/name, folder/name.gz that exists, or None."""
    for folder in folders:
        for candidate in (folder / name, folder / (name + ".gz")):
            if candidate.is_file():
                return candidate
    return None


class MNIST(ImageDataset):
    """MNIST read from the IDX files in `root` (see the module docstring for which).

    Example i is `(image, label)`: a float32 Tensor of shape (1, 28, 28) with pixels
    scaled to [0, 1] (divided by 255), and an int label 0..9; `transform` and
    `target_transform` are applied to them as in torchvision. `.data` (uint8
    (N, 28, 28)) and `.targets` (int64 (N,)) hold the raw arrays.
    """

    def __init__(self, root, train=True, transform=None, target_transform=None):
        root = Path(root)
        folders = [root, root / "MNIST" / "raw"]
        names = mnist_files(train)
        paths = [find_file(folders, name) for name in names]
        missing = [name for name, path in zip(names, paths) if path is None]
        if missing:
            raise FileNotFoundError(
                f"MNIST: {' and '.join(missing)} (or the same with .gz) not found in {root} "
                f"(nor in {root / 'MNIST' / 'raw'}). Download the "
                f"{'training' if train else 'test'} files from {MNIST_URL} (for example "
                f"{MNIST_URL}{missing[0]}.gz) and put them, gzipped or not, in {root}"
            )
        images, labels = (read_idx(path) for path in paths)
        if images.ndim != 3 or images.dtype.name != "uint8":
            raise ValueError(
                f"MNIST: {paths[0]} should hold uint8 images (N, rows, cols), got "
                f"{images.dtype.name} {images.shape}"
            )
        if labels.ndim != 1 or labels.dtype.name != "uint8":
            raise ValueError(
                f"MNIST: {paths[1]} should hold uint8 labels (N,), got {labels.dtype.name} "
                f"{labels.shape}"
            )
        if len(images) != len(labels):
            raise ValueError(
                f"MNIST: {paths[0]} has {len(images)} images but {paths[1]} has {len(labels)} "
                "labels; are they from the same part (train or t10k)?"
            )
        super().__init__(
            images,
            labels.astype("int64"),
            scale=PIXEL_MAX,
            transform=transform,
            target_transform=target_transform,
        )
        self.root = root
        self.train = bool(train)
