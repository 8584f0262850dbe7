"""Fold and Unfold: F.unfold (im2col) and F.fold (col2im) as layers.

Unfold turns (N, C, H, W) into the columns (N, C kh kw, L) of its sliding windows; Fold
adds such columns back into an image of `output_size`. No parameters: each stores its
window settings, as given (an int or a pair), and calls `minigrad/nn/functional/im2col.py`.
"""

from minigrad.nn import functional as F
from minigrad.nn.module import Module


class Fold(Module):
    """Columns (N, C kh kw, L) -> image (N, C, H, W), (H, W) = output_size: each column
    added onto its window, overlaps summed (col2im)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self):
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Image (N, C, H, W) -> the columns (N, C kh kw, L) of its L sliding windows (im2col)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = (
            kernel_size,
            dilation,
            padding,
            stride,
        )

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )
