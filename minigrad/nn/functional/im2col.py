"""Sliding windows as columns: F.unfold (im2col) and F.fold (col2im).

unfold copies every kh x kw window of an image into one column: (N, C, H, W) becomes
(N, C kh kw, L), L the number of window positions, the matrix that turns a convolution
into one matrix product (see the convolution lesson, minigrad/kernels/reference/conv.py).
fold is its adjoint: it adds each column back onto the window it came from, so a pixel
in several windows receives the sum of its copies; fold(unfold(x)) is x times the number
of windows each pixel is in.

Both are written as indexing with one index array, `window_positions`: the flat position
in the padded image of every element of every window. That array comes from the
lesson's own im2col, applied to an image whose pixels hold their positions: the windows
of the position image are the positions of the windows. Then

    unfold(x) = xp[..., positions]               a gather: its gradient is a scatter-add
    fold(c)   = zeros.scatter_add(positions, c)  a scatter-add: its gradient is a gather

so each is the other's gradient, computed by indexing's and scatter_add's backward
passes (and differentiable again).
"""

import numpy as np

from minigrad._args import int_tuple, window_output_size
from minigrad.array_module import array_module
from minigrad.creation import zeros
from minigrad.kernels.reference.conv import im2col
from minigrad.nn.functional.shape import pad
from minigrad.ops.index import scatter_add


def _window_args(kernel_size, dilation, padding, stride, op):
    args = [
        int_tuple(v, 2, name, op)
        for v, name in (
            (kernel_size, "kernel_size"),
            (dilation, "dilation"),
            (padding, "padding"),
            (stride, "stride"),
        )
    ]
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = args
    for name, (a, b) in (("kernel size", (kh, kw)), ("dilation", (dh, dw)), ("stride", (sh, sw))):
        if a <= 0 or b <= 0:
            raise RuntimeError(f"{op}: {name} should be greater than zero, but got {(a, b)}")
    if ph < 0 or pw < 0:
        raise RuntimeError(
            f"{op}: padding should be non-negative, but got pad_height: {ph} pad_width: {pw}"
        )
    return args


def _blocks(spatial, kernel, dilation, padding, stride, op):
    """The number of window positions along each axis, at least one each."""
    blocks = tuple(map(window_output_size, spatial, kernel, stride, padding, dilation))
    if min(blocks) < 1:
        raise RuntimeError(
            f"{op}: Given input with spatial size {tuple(spatial)}, kernel_size={tuple(kernel)}, "
            f"dilation={tuple(dilation)}, padding={tuple(padding)}, calculated shape of the array "
            f"of sliding blocks as {blocks}, but its components must be at least one."
        )
    return blocks


def window_positions(padded_size, kernel, blocks, dilation, stride, xp=np):
    """(kh kw, L): positions[i kw + j, oh OW + ow] = (oh sh + i dh) Wp + (ow sw + j dw), the
    flat position in the padded (Hp, Wp) image of tap (i, j) of window (oh, ow). Made by
    the array module `xp`: numpy, or cupy to index a CUDA tensor without a copy."""
    Hp, Wp = padded_size
    position_image = xp.arange(Hp * Wp).reshape(1, 1, Hp, Wp)
    # (1, 1, kh, kw, OH, OW)
    windows = im2col(position_image, kernel, blocks, stride, (0, 0), dilation)
    return windows.reshape(kernel[0] * kernel[1], blocks[0] * blocks[1])


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) or (C, H, W) -> (N, C kh kw, L) (or (C kh kw, L)): column l holds window l
    (in row-major order of the window positions), each channel's kh kw values in turn."""
    op = "unfold"
    if input.ndim not in (3, 4):
        raise IndexError(
            f"{op}: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape "
            f"{tuple(input.shape)}"
        )
    kernel, dilation, padding, stride = _window_args(kernel_size, dilation, padding, stride, op)
    x = input if input.ndim == 4 else input.unsqueeze(0)
    N, C, H, W = x.shape
    blocks = _blocks((H, W), kernel, dilation, padding, stride, op)
    x_pad = pad(x, (padding[1], padding[1], padding[0], padding[0]))
    xp = array_module(x.array)  # the positions index x where it is
    positions = window_positions(x_pad.shape[2:], kernel, blocks, dilation, stride, xp)
    columns = x_pad.reshape(N, C, -1)[:, :, positions]  # (N, C, kh kw, L)
    columns = columns.reshape(N, C * kernel[0] * kernel[1], positions.shape[1])
    return columns if input.ndim == 4 else columns.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C kh kw, L) or (C kh kw, L) -> (N, C, H, W) (or (C, H, W)), (H, W) = output_size:
    each column added back onto its window; overlapping windows sum."""
    op = "fold"
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"{op}: Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    output_size = int_tuple(output_size, 2, "output_size", op)
    kernel, dilation, padding, stride = _window_args(kernel_size, dilation, padding, stride, op)
    columns = input if input.ndim == 3 else input.unsqueeze(0)
    N, rows, L = columns.shape
    taps = kernel[0] * kernel[1]
    if rows % taps:
        raise RuntimeError(
            f"{op}: Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={rows} and kernel_size={tuple(kernel)}."
        )
    blocks = _blocks(output_size, kernel, dilation, padding, stride, op)
    if L != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"{op}: Given output_size={tuple(output_size)}, kernel_size={tuple(kernel)}, "
            f"dilation={tuple(dilation)}, padding={tuple(padding)}, stride={tuple(stride)}, "
            "expected size of input's dimension 2 to match the calculated number of sliding "
            f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={L}."
        )
    C = rows // taps
    (H, W), (ph, pw) = output_size, padding
    xp = array_module(columns.array)  # positions and image are made where the columns are
    positions = window_positions((H + 2 * ph, W + 2 * pw), kernel, blocks, dilation, stride, xp)
    index = np.broadcast_to(positions.reshape(1, 1, -1), (N, C, taps * L))
    image = zeros(N, C, (H + 2 * ph) * (W + 2 * pw), dtype=columns.dtype, device=columns.device)
    image = scatter_add(image, 2, index, columns.reshape(N, C, taps * L)).reshape(
        N, C, H + 2 * ph, W + 2 * pw
    )
    image = image[:, :, ph : ph + H, pw : pw + W]
    return image if input.ndim == 3 else image.squeeze(0)
