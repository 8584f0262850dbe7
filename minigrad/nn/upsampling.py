"""Upsampling layers: Upsample, and the older UpsamplingNearest2d / UpsamplingBilinear2d.

They hold no parameters, only the resize settings, and call `F.interpolate`
(`minigrad/nn/functional/vision.py`). Constructor arguments, the attributes they are
stored in and `repr` are PyTorch's.
"""

from minigrad.nn import functional as F
from minigrad.nn.module import Module


class Upsample(Module):
    """Resize the spatial dims of (N, C, d1[, d2[, d3]]) inputs to `size`, or by
    `scale_factor`, with `mode` 'nearest' (default), 'nearest-exact', 'linear',
    'bilinear', 'trilinear' or 'area': `F.interpolate` with these settings (see it for
    the modes, `align_corners` and `recompute_scale_factor`)."""

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=None,
        recompute_scale_factor=None,
    ):
        super().__init__()
        self.name = type(self).__name__
        self.size = tuple(size) if isinstance(size, list) else size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour resize of (N, C, H, W) images: `Upsample(size, scale_factor,
    mode='nearest')` (PyTorch keeps it for old programs, and prefers F.interpolate)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear resize of (N, C, H, W) images with the corners aligned: `Upsample(size,
    scale_factor, mode='bilinear', align_corners=True)` (PyTorch keeps it for old
    programs, and prefers F.interpolate)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
