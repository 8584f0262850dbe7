"""The UCI handwritten digits: a real image data set that ships inside minigrad.

1,797 greyscale images of the digits 0-9, 8x8 pixels each, every pixel a count 0..16
(E. Alpaydin and C. Kaynak, UCI Machine Learning Repository, 1998, CC BY 4.0; see
`files/README.md` for the source). At 45 KB it needs no download, and it is learnt
fast: on a laptop CPU, plain SGD takes a linear classifier to ~90% test accuracy and a
one-hidden-layer MLP to ~96% in under a second, which makes it the lessons' first real
data set.

The data set has no official train/test split, so `Digits` makes a fixed one: a
*stratified* split, where each digit's images are shuffled with NumPy's
`default_rng(seed)` (its own generator, so `mg.manual_seed` does not move it) and
round(test_fraction * count) of them go to the test set. Both parts keep the file's
order. With the defaults (test_fraction=0.2, seed=0) the training set has 1,438 images
and the test set 359, each digit in the same proportion in both.
"""

from pathlib import Path

import numpy as np

from minigrad.data.images import ImageDataset

DIGITS_FILE = Path(__file__).parent / "files" / "digits.npz"
PIXEL_MAX = 16  # each pixel counts the "on" pixels of a 4x4 block of a 32x32 bitmap


def load_digits():
    """All 1,797 digits as NumPy arrays: `(images, labels)`, uint8 (1797, 8, 8) pixel
    counts 0..16 and int64 (1797,) labels 0..9, in the order of the original file."""
    with np.load(DIGITS_FILE, allow_pickle=False) as archive:
        return archive["images"], archive["labels"]


def stratified_split(labels, test_fraction, seed):
    """(train indices, test indices), both sorted: for each class, a seeded shuffle of
    its indices, of which the first round(test_fraction * count) are the test set."""
    if not 0 <= test_fraction <= 1:
        raise ValueError(
            f"stratified_split: test_fraction must be between 0 and 1, got {test_fraction}"
        )
    rng = np.random.default_rng(seed)
    test = []
    for c in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == c))
        test.extend(members[: int(test_fraction * len(members) + 0.5)])  # round half up
    is_test = np.zeros(len(labels), dtype=bool)
    is_test[np.array(test, dtype=np.int64)] = True
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


class Digits(ImageDataset):
    """The bundled UCI digits as a Dataset: `Digits(train=True)` or `Digits(train=False)`.

    Example i is `(image, label)`: a float32 Tensor of shape (1, 8, 8), with pixels
    scaled to [0, 1] (divided by 16) unless `normalize=False` (then 0..16, still
    float32), and an int label 0..9. `.data` (uint8 (N, 8, 8)) and `.targets` (int64
    (N,)) hold this part's raw arrays. The split is described in the module docstring:
    fixed by `test_fraction` and `seed`, independent of `mg.manual_seed`.
    """

    def __init__(
        self,
        train=True,
        test_fraction=0.2,
        seed=0,
        transform=None,
        normalize=True,
        target_transform=None,
    ):
        images, labels = load_digits()
        train_idx, test_idx = stratified_split(labels, test_fraction, seed)
        keep = train_idx if train else test_idx
        super().__init__(
            images[keep],
            labels[keep],
            scale=PIXEL_MAX if normalize else None,
            transform=transform,
            target_transform=target_transform,
        )
        self.train = bool(train)
