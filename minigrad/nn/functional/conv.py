"""Convolutions as functions: F.conv1d, F.conv2d, F.conv_transpose2d.

Each checks its arguments (naming the op, the shapes and what was expected), turns
'same' padding, 1-d inputs and unbatched inputs into a plain 4-d convolution, and
applies the autograd Functions of `minigrad/ops/conv.py` with tuples of ints. The
output size of a convolution comes from `minigrad._args.window_output_size`, the one
formula that pooling uses too.
"""

import numpy as np

from minigrad._args import batched, int_tuple, window_output_size
from minigrad.nn.functional.shape import pad
from minigrad.ops.conv import Conv2d, ConvTranspose2d
from minigrad.ops.promotion import check_same_dtype
from minigrad.tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv_transpose2d"]


# ---- argument checks ----------------------------------------------------------------------
def _check_tensors(input, weight, bias, spatial, op):
    """input (N, C, *spatial) or unbatched (C, *spatial); weight (O, C/groups, *kernel)."""
    for name, t in (("input", input), ("weight", weight), ("bias", bias)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
    if input.dtype.kind != "f":
        raise TypeError(f"{op}: input must be floating point, got {input.dtype}")
    if input.dtype not in (np.float32, np.float64):
        raise TypeError(
            f"{op}: the convolution kernels support float32 and float64, got {input.dtype}"
        )
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{op}: expected a {spatial + 1}-d (unbatched) or {spatial + 2}-d (batched) input, "
            f"got input of shape {input.shape}"
        )
    if weight.ndim != spatial + 2:
        raise RuntimeError(
            f"{op}: expected a {spatial + 2}-d weight, got weight of shape {weight.shape}"
        )
    check_same_dtype(op, input=input, weight=weight, bias=bias)


def _check_groups(groups, op):
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool) or groups <= 0:
        raise ValueError(f"{op}: groups must be a positive int, got {groups!r}")
    return int(groups)


def _check_positive(values, name, op):
    if any(v <= 0 for v in values):
        raise ValueError(f"{op}: {name} must be positive, got {values}")


def _check_non_negative(values, name, op):
    if any(v < 0 for v in values):
        raise ValueError(f"{op}: {name} must be non-negative, got {values}")


def _resolve_padding(padding, kernel, stride, dilation, op):
    """padding as (per-dim amounts, extra zeros for the end of each dim).

    'valid' means none. 'same' keeps the output the size of the input (stride 1 only):
    a kernel spanning d (k - 1) + 1 input positions needs d (k - 1) zeros in all. When
    that number is odd it cannot be split evenly: like PyTorch, put the extra zero
    after (at the bottom / right), the rest on both sides.
    """
    n = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * n, (0,) * n
        if padding != "same":
            raise ValueError(
                f"{op}: invalid padding string {padding!r}, should be one of 'valid', 'same'"
            )
        if any(s != 1 for s in stride):
            raise ValueError(
                f"{op}: padding='same' is not supported for strided convolutions (stride={stride})"
            )
        total = tuple(d * (k - 1) for k, d in zip(kernel, dilation))
        return tuple(t // 2 for t in total), tuple(t % 2 for t in total)
    return int_tuple(padding, n, "padding", op), (0,) * n


def _check_channels(input, weight, groups, op):
    channels, out_channels = input.shape[1], weight.shape[0]
    if out_channels % groups:
        raise RuntimeError(
            f"{op}: the number of output channels (weight.shape[0] = {out_channels}) must be "
            f"divisible by groups={groups}, got weight of shape {weight.shape}"
        )
    if channels != weight.shape[1] * groups:
        raise RuntimeError(
            f"{op}: given groups={groups} and weight of shape {weight.shape}, expected input "
            f"{input.shape} to have {weight.shape[1] * groups} channels (weight.shape[1] * "
            f"groups), but got {channels}"
        )


def _check_output_size(input_size, out_size, padding, kernel, dilation, op):
    if any(s <= 0 for s in out_size):
        raise RuntimeError(
            f"{op}: the output would have size {out_size} (zero or negative): the input's spatial "
            f"size {input_size} with padding {padding} is smaller than the kernel {kernel} with "
            f"dilation {dilation}, which spans "
            f"{tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))}"
        )


def _transposed_output_size(size, kernel, stride, padding, dilation, output_padding=0):
    """The output size of a transposed convolution along one axis of `size` positions:
    the smallest input a convolution with these settings maps to `size` outputs, plus
    output_padding (a strided convolution rounds its output size down, so several input
    sizes give the same output size; output_padding picks one of them)."""
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


# ---- the functional forms ---------------------------------------------------------------------
# --8<-- [start:conv2d]
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation, as in every deep-learning library) of input
    (N, C, H, W) or (C, H, W) with weight (O, C/groups, kH, kW), plus bias (O,).

    y[n, o, oh, ow] = b[o] + sum over c, i, j of
                      w[o, c, i, j] * xp[n, g C/G + c, oh sh + i dh, ow sw + j dw]
    (g the group of o, xp the input padded with zeros), of output size
    H_out = (H + 2 ph - dh (kH - 1) - 1) // sh + 1 and the same for the width.
    padding: an int, a pair, 'valid' (0) or 'same' (output the size of the input).
    """
    op = "conv2d"
    _check_tensors(input, weight, bias, 2, op)
    return _conv2d(input, weight, bias, stride, padding, dilation, groups, op)


def _conv2d(input, weight, bias, stride, padding, dilation, groups, op):
    x, unbatched = batched(input, 3, op, "(C, H, W)")
    groups = _check_groups(groups, op)
    stride, dilation = int_tuple(stride, 2, "stride", op), int_tuple(dilation, 2, "dilation", op)
    _check_positive(stride, "stride", op)
    _check_positive(dilation, "dilation", op)
    _check_channels(x, weight, groups, op)
    if bias is not None and bias.shape != (weight.shape[0],):
        raise RuntimeError(f"{op}: expected bias of shape ({weight.shape[0]},), got {bias.shape}")
    kernel = weight.shape[2:]
    padding, extra = _resolve_padding(padding, kernel, stride, dilation, op)
    _check_non_negative(padding, "padding", op)
    if any(extra):  # 'same' with an even-sized span: one more zero at the end
        x = pad(x, (0, extra[1], 0, extra[0]))
    out_size = tuple(map(window_output_size, x.shape[2:], kernel, stride, padding, dilation))
    _check_output_size(x.shape[2:], out_size, padding, kernel, dilation, op)
    y = Conv2d.apply(
        x, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
    return y.squeeze(0) if unbatched else y
    # --8<-- [end:conv2d]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution of input (N, C, L) or (C, L) with weight (O, C/groups, k): a 2-d
    convolution of height 1 (the input and weight get a size-1 height, removed after)."""
    op = "conv1d"
    _check_tensors(input, weight, bias, 1, op)
    stride, dilation = int_tuple(stride, 1, "stride", op), int_tuple(dilation, 1, "dilation", op)
    if not isinstance(padding, str):
        padding = (0,) + int_tuple(padding, 1, "padding", op)
    x = input.unsqueeze(-2)  # (N, C, 1, L)
    y = _conv2d(x, weight.unsqueeze(2), bias, (1,) + stride, padding, (1,) + dilation, groups, op)
    return y.squeeze(-2)


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 2-d convolution of input (N, C_in, H, W) or (C_in, H, W) with weight
    (C_in, C_out/groups, kH, kW), plus bias (C_out,): the gradient of conv2d for its
    input, used as a layer. Its forward is the kernel conv2d_backward_input, and its
    gradient for the input is conv2d_forward (see ConvTranspose2d in minigrad/ops/conv.py).

    Every input pixel adds weight * its value onto a kH x kW patch of the output;
    patches are stride apart (so stride 2 doubles the size):

        H_out = (H - 1) sh - 2 ph + dh (kH - 1) + output_padding_h + 1

    `padding` removes that many rows and columns from each border of the result (it is
    the padding of the convolution this one is the transpose of), and `output_padding`
    adds rows and columns at the bottom and right, to pick one of the input sizes a
    strided conv2d maps to the same output size.
    """
    op = "conv_transpose2d"
    _check_tensors(input, weight, bias, 2, op)
    x, unbatched = batched(input, 3, op, "(C, H, W)")
    groups = _check_groups(groups, op)
    if isinstance(padding, str):
        raise ValueError(f"{op}: padding must be an int or a pair of ints, got {padding!r}")
    stride, dilation = int_tuple(stride, 2, "stride", op), int_tuple(dilation, 2, "dilation", op)
    padding, output_padding = (
        int_tuple(padding, 2, "padding", op),
        int_tuple(output_padding, 2, "output_padding", op),
    )
    _check_positive(stride, "stride", op)
    _check_positive(dilation, "dilation", op)
    _check_non_negative(padding, "padding", op)
    _check_non_negative(output_padding, "output_padding", op)
    if any(o >= max(s, d) for o, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(
            f"{op}: output_padding must be smaller than either stride or dilation, but got "
            f"output_padding={output_padding}, stride={stride}, dilation={dilation}"
        )
    if weight.shape[0] != x.shape[1]:
        raise RuntimeError(
            f"{op}: weight of shape {weight.shape} expects an input with {weight.shape[0]} "
            f"channels (weight.shape[0]), but got input of shape {x.shape}"
        )
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"{op}: the input channels {weight.shape[0]} must be divisible by groups={groups}"
        )
    out_channels = weight.shape[1] * groups
    if bias is not None and bias.shape != (out_channels,):
        raise RuntimeError(f"{op}: expected bias of shape ({out_channels},), got {bias.shape}")
    kernel = weight.shape[2:]
    out_size = tuple(
        map(_transposed_output_size, x.shape[2:], kernel, stride, padding, dilation, output_padding)
    )
    if any(s <= 0 for s in out_size):
        raise RuntimeError(
            f"{op}: the output would have size {out_size} (zero or negative) for input {x.shape}, "
            f"kernel {kernel}, stride {stride}, padding {padding}, dilation {dilation}"
        )
    out_shape = (x.shape[0], out_channels) + out_size
    y = ConvTranspose2d.apply(
        x,
        weight,
        bias,
        out_shape=out_shape,
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
    )
    return y.squeeze(0) if unbatched else y


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Transposed 1-d convolution of input (N, C_in, L) or (C_in, L) with weight
    (C_in, C_out/groups, k): conv_transpose2d of height 1 (the input and weight get a size-1
    height, removed after). L_out = (L - 1) stride - 2 padding + dilation (k - 1) + output_padding
    + 1."""
    op = "conv_transpose1d"
    _check_tensors(input, weight, bias, 1, op)
    if isinstance(padding, str):
        raise ValueError(f"{op}: padding must be an int or a 1-tuple of ints, got {padding!r}")
    stride, dilation = int_tuple(stride, 1, "stride", op), int_tuple(dilation, 1, "dilation", op)
    padding, output_padding = (
        int_tuple(padding, 1, "padding", op),
        int_tuple(output_padding, 1, "output_padding", op),
    )
    y = conv_transpose2d(
        input.unsqueeze(-2),
        weight.unsqueeze(2),
        bias,
        (1,) + stride,
        (0,) + padding,
        (0,) + output_padding,
        groups,
        (1,) + dilation,
    )
    return y.squeeze(-2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution of input (N, C, D, H, W) or (C, D, H, W) with weight
    (O, C/groups, kD, kH, kW), plus bias (O,).

    A 3-d kernel is kD 2-d kernels stacked along depth, so a 3-d convolution is a sum of
    kD 2-d ones: output slice od adds up, over the depth taps i, the 2-d convolution of
    input slice od sd + i dd (of the input zero-padded in depth) with weight[:, :, i].
    Each tap is one conv2d call on all the output slices at once (as a batch of N OD
    images), on the 2-d kernels; the gradients are theirs, summed by autograd.
    """
    op = "conv3d"
    _check_tensors(input, weight, bias, 3, op)
    x, unbatched = batched(input, 4, op, "(C, D, H, W)")
    groups = _check_groups(groups, op)
    stride, dilation = int_tuple(stride, 3, "stride", op), int_tuple(dilation, 3, "dilation", op)
    _check_positive(stride, "stride", op)
    _check_positive(dilation, "dilation", op)
    _check_channels(x, weight, groups, op)
    if bias is not None and bias.shape != (weight.shape[0],):
        raise RuntimeError(f"{op}: expected bias of shape ({weight.shape[0]},), got {bias.shape}")
    kernel = weight.shape[2:]
    padding, extra = _resolve_padding(padding, kernel, stride, dilation, op)
    _check_non_negative(padding, "padding", op)
    (pd, ph, pw), (ed, eh, ew) = padding, extra
    # depth padding here (and 'same''s extra zeros on every axis); the planes' padding is conv2d's
    x = pad(x, (0, ew, 0, eh, pd, pd + ed))
    out_size = tuple(map(window_output_size, x.shape[2:], kernel, stride, (0, ph, pw), dilation))
    _check_output_size(x.shape[2:], out_size, padding, kernel, dilation, op)
    N, C, OD = x.shape[0], x.shape[1], out_size[0]
    (sd, sh, sw), (dd, dh, dw) = stride, dilation
    y = None
    for i in range(kernel[0]):
        # (N, C, OD, H, W): what tap i meets
        slices = x[:, :, i * dd : i * dd + sd * (OD - 1) + 1 : sd]
        planes = slices.transpose(1, 2).reshape(N * OD, C, *x.shape[3:])
        term = Conv2d.apply(
            planes,
            weight[:, :, i],
            None,
            stride=(sh, sw),
            padding=(ph, pw),
            dilation=(dh, dw),
            groups=groups,
        )
        y = term if y is None else y + term
    y = y.reshape(N, OD, weight.shape[0], *y.shape[2:]).transpose(1, 2)
    if bias is not None:
        y = y + bias.reshape(-1, 1, 1, 1)
    return y.squeeze(0) if unbatched else y
