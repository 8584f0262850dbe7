"""Image transforms for datasets (`Digits(transform=...)`), in the spirit of
torchvision.transforms: callables on one (C, H, W) image tensor."""

import numpy as np

from minigrad import random as _random
from minigrad.creation import from_numpy


class Compose:
    """Apply transforms one after the other."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, image):
        for t in self.transforms:
            image = t(image)
        return image

    def __repr__(self):
        return "Compose(" + ", ".join(repr(t) for t in self.transforms) + ")"


class RandomShift:
    """Move the image by a random whole number of pixels, up to `max_shift` in each
    direction, filling with `fill`: the cheapest augmentation for small digit images
    (a digit shifted by a pixel is still the same digit, and the network must learn so).
    Draws from the global generator (`mg.manual_seed`)."""

    def __init__(self, max_shift=1, fill=0.0):
        if max_shift < 0:
            raise ValueError(f"RandomShift: max_shift must be non-negative, got {max_shift}")
        self.max_shift, self.fill = int(max_shift), fill

    def __call__(self, image):
        if image.ndim != 3:
            raise ValueError(f"RandomShift: expected a (C, H, W) image, got shape {image.shape}")
        s = self.max_shift
        if s == 0:
            return image
        _, h, w = image.shape
        dy, dx = _random.generator().integers(-s, s + 1, size=2)
        padded = np.pad(image.array, ((0, 0), (s, s), (s, s)), constant_values=self.fill)
        return from_numpy(np.ascontiguousarray(padded[:, s - dy : s - dy + h, s - dx : s - dx + w]))

    def __repr__(self):
        return f"RandomShift(max_shift={self.max_shift})"


class Upsample:
    """(C, H, W) -> (C, f H, f W) by repeating each pixel f x f times (nearest neighbour)."""

    def __init__(self, factor=2):
        if factor < 1:
            raise ValueError(f"Upsample: factor must be a positive integer, got {factor}")
        self.factor = int(factor)

    def __call__(self, image):
        f = self.factor
        return from_numpy(np.repeat(np.repeat(image.array, f, axis=-2), f, axis=-1))

    def __repr__(self):
        return f"Upsample(factor={self.factor})"
