"""Resizing images and signals: F.interpolate (torch.nn.functional's "vision functions").

This file holds what PyTorch's `interpolate` decides in Python: which of `size` and
`scale_factor` gives the output size, the checks and their messages, and which op does
the work. The ops are in `minigrad/ops/upsample.py`, where the index formulas and the
gradients are explained.
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.nn.functional.pool import adaptive_avg_pool2d
from minigrad.ops.upsample import UpsampleLinear, UpsampleNearest, linear_taps, nearest_taps

# the linear mode that fits each number of spatial dims, as PyTorch names them
LINEAR_MODES = {1: "linear", 2: "bilinear", 3: "trilinear"}
MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "area")
NOT_IMPLEMENTED = ("bicubic", "lanczos")


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resize the spatial dims of `input` (N, C, d1[, d2[, d3]]) to `size`, or by
    `scale_factor` (output size floor(d * scale_factor)), as torch's F.interpolate.

    Modes: 'nearest' (PyTorch's original rule, src = floor(o * in / out)), 'nearest-exact'
    (pixel centres, as Pillow and scikit-image), 'linear' (3-D input), 'bilinear' (4-D),
    'trilinear' (5-D), with `align_corners` (False: pixels are areas and the corner
    pixels' centres stay put; True: the corner values stay put), and 'area' (adaptive
    average pooling; 3-D and 4-D input). With a `scale_factor` PyTorch uses it, not the
    rounded sizes, to place the outputs; `recompute_scale_factor=True` uses the sizes.
    Each mode is differentiable: nearest's gradient scatter-adds, linear's applies the
    transpose of the interpolation weights (see minigrad/ops/upsample.py).

    Not implemented (a NotImplementedError says so): 'bicubic', 'lanczos', and
    `antialias=True`. Integer input works for 'nearest' and 'nearest-exact' (uint8
    images, as in PyTorch); the other modes need floating point.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | "
                "bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    output_size, scale_factors = _sizes(input, dim, size, scale_factor)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or (mode == "area" and output_size is None):
        # the output size from the factors, and the factors forgotten: the op places the
        # outputs by the sizes alone (PyTorch does this for 'area' always)
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
            "a 4-D tensor as input"
        )
    if not 3 <= input.ndim <= 5:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
            "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})"
        )
    if mode in NOT_IMPLEMENTED or antialias:
        what = "antialias=True" if antialias else f"mode {mode!r}"
        raise NotImplementedError(
            f"interpolate: {what} is not implemented in minigrad (the modes are "
            f"{', '.join(MODES)}, without antialias)"
        )
    if mode not in MODES:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
            "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})"
        )
    if mode in LINEAR_MODES.values() and mode != LINEAR_MODES[dim]:
        needs = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {needs}D input")
    sizes = input.shape[2:]
    if min(sizes) <= 0 or min(output_size) <= 0:
        raise RuntimeError(
            "interpolate: Input and output sizes should be greater than 0, but got input "
            f"{tuple(sizes)} output {tuple(output_size)}"
        )
    if input.dtype.kind != "f" and not (mode.startswith("nearest") and input.dtype == np.uint8):
        raise NotImplementedError(
            f'interpolate: mode "{mode}" is not implemented for {input.dtype} input'
        )
    if mode == "area":
        return _area(input, output_size)
    # indices and weights are computed in the input's float type (float32 for smaller
    # and integer types), as PyTorch computes them, and the weights applied in its dtype
    opmath = (
        np.promote_types(input.dtype, np.float32)
        if input.dtype.kind == "f"
        else np.dtype(np.float32)
    )
    factors = scale_factors or [None] * dim
    xp = array_module(input.array)  # the taps' index arrays are made where the input lives
    if mode.startswith("nearest"):
        exact = mode == "nearest-exact"
        axes = zip(sizes, output_size, factors)
        taps = tuple(nearest_taps(s, o, f, exact, opmath, xp) for s, o, f in axes)
        return UpsampleNearest.apply(input, taps_per_axis=taps)
    taps = tuple(
        tuple(
            (i, None if w is None else w.astype(input.dtype))
            for i, w in linear_taps(s, o, f, align_corners, opmath, xp)
        )
        for s, o, f in zip(sizes, output_size, factors)
    )
    return UpsampleLinear.apply(input, taps_per_axis=taps)


def _sizes(input, dim, size, scale_factor):
    """(output sizes, scale factors): exactly one of `size` and `scale_factor` is given,
    as an int/float or a sequence of one per spatial dim; checked with PyTorch's words."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, "
                    "o2, ...,oK) format."
                )
            if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, "
                    f"int, int], but got size with types {[type(s) for s in size]}"
                )
            return [int(s) for s in size], None
        return [int(size)] * dim, None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                f"shape {scale_factor}. Please "
                "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, "
                "s2, ...,sK) format."
            )
        factors = [float(f) for f in scale_factor]
    else:
        factors = [float(scale_factor)] * dim
    # as PyTorch: floor(size * factor), computed in double precision
    return [math.floor(input.shape[i + 2] * factors[i]) for i in range(dim)], factors


def _area(input, output_size):
    """'area': each output the mean of the input region it covers, adaptive average
    pooling (regions floor(o * in / out) <= i < ceil((o + 1) * in / out))."""
    if input.ndim == 4:
        return adaptive_avg_pool2d(input, output_size)
    if input.ndim == 3:  # a 1-D signal is an image one row high
        return adaptive_avg_pool2d(input.unsqueeze(2), (1, output_size[0])).squeeze(2)
    raise NotImplementedError(
        "interpolate: mode 'area' of 5-D input (adaptive_avg_pool3d) is not implemented in minigrad"
    )
