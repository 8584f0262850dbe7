"""Sampling an image at arbitrary points: F.affine_grid and F.grid_sample (the spatial
transformer of Jaderberg et al. 2015).

`grid_sample(input, grid)` reads input (N, C, H, W) at the points of grid (N, Ho, Wo, 2),
each point (x, y) in normalized coordinates: -1 is the left (top) edge of the image, +1
the right (bottom) one. With align_corners=True, +-1 are the centres of the corner
pixels; with False (the default), their outer edges. Between pixels the value is
interpolated:

- bilinear: the four pixels around the point, weighted by the areas of the opposite
  rectangles, w_nw = (x_se - x)(y_se - y) and so on;
- nearest: the pixel the point rounds to (ties to even, as torch);
- bicubic: sixteen pixels, a cubic convolution (A = -0.75) along x, then along y.

A point outside the image reads 0 (padding_mode='zeros'), the nearest border pixel
('border'), or the image mirrored at its borders ('reflection'). `affine_grid(theta,
size)` makes the grid of an affine map: each output pixel's normalized position, times
theta (N, 2, 3). Volumes work alike: input (N, C, D, H, W), grid (N, Do, Ho, Wo, 3),
theta (N, 3, 4), trilinear for 'bilinear' (bicubic is 2-d only, as in torch).

Written with differentiable Tensor ops: the pixels are read by indexing (its gradient,
a scatter-add, is dL/dinput), and the weights are polynomials in the point's coordinates,
so dL/dgrid comes from them (the floor that picks the pixels is a constant). Padding
modes move the coordinates with clamp and reflections, whose derivatives are 0 outside
and +-1 inside, as torch's.
"""

import itertools
import warnings

import numpy as np

from minigrad.creation import from_numpy
from minigrad.ops.elementwise import where
from minigrad.tensor import Tensor

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
    "grid_sample for details."
)
CUBIC_A = -0.75  # the cubic convolution's parameter, torch's (and OpenCV's)


def _align(align_corners):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        return False
    return bool(align_corners)


# ---- affine_grid ---------------------------------------------------------------------------------
def _base_coordinates(size, align_corners, dtype):
    """The normalized positions of `size` pixel centres along one axis, from -1 to 1
    (pulled in by (size - 1) / size when the corners are not aligned)."""
    if size <= 1:
        return np.zeros(size, dtype=dtype)
    steps = np.linspace(-1.0, 1.0, size, dtype=dtype)
    return steps if align_corners else steps * ((size - 1) / size)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps theta (N, 2, 3) for an output of size (N, C, H, W)
    (or theta (N, 3, 4) and size (N, C, D, H, W)): grid[n, h, w] = theta[n] @ (x_w, y_h, 1),
    x and y the output pixel's normalized position. The grid is (N, H, W, 2) ((N, D, H, W, 3)),
    differentiable in theta."""
    align_corners = _align(align_corners)
    if not isinstance(theta, Tensor) or theta.dtype.kind != "f":
        kind = theta.dtype if isinstance(theta, Tensor) else type(theta).__name__
        raise ValueError(f"Expected theta to have floating point type, but got {kind}")
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    spatial = len(size) - 2
    if theta.ndim != 3 or theta.shape[1:] != (spatial, spatial + 1) or theta.shape[0] != size[0]:
        raise ValueError(
            f"Expected a batch of {spatial}D affine matrices of shape Nx{spatial}x{spatial + 1} "
            f"for size {size}. Got {tuple(theta.shape)}."
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if align_corners and min(size[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    # positions (x, y[, z], 1) of every output pixel, x along the last dim
    axes = [_base_coordinates(n, align_corners, theta.dtype) for n in size[2:]]  # (d,) h, w
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], axis=-1).reshape(-1, spatial + 1)
    grid = from_numpy(base) @ theta.mT  # (N, pixels, spatial)
    return grid.reshape(size[0], *size[2:], spatial)


# ---- grid_sample ---------------------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    """A normalized coordinate (-1 .. 1) as a pixel coordinate (0 .. size - 1)."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _clip(coord, size):
    """Clamp into [0, size - 1]: the border pixel for a point outside."""
    return coord.clamp(0, size - 1)


def _reflect(coord, twice_low, twice_high):
    """Mirror a coordinate into [low, high] at the two ends, as often as it takes."""
    if twice_low == twice_high:
        return coord * 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coord - low).abs()
    extra = distance % span
    flips = np.floor(distance.array / span)
    return where(from_numpy(flips % 2 == 0), extra + low, (span - extra) + low)


def _padded(coord, size, padding_mode, align_corners):
    """Where a coordinate reads under padding_mode: as it is ('zeros': outside reads 0),
    clamped to the border, or reflected (about the corner pixels' centres when the
    corners are aligned, their outer edges when not) and then clamped."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return _clip(_reflect(coord, *twice), size)
    return coord


def _read(input, positions, valid):
    """input (N, C, *S) at integer positions (one array per spatial dim, each (N, P)),
    0 where not valid: (N, P, C), by indexing (a scatter-add backward)."""
    N, C, *S = input.shape
    flat = np.zeros(positions[0].shape, dtype=np.int64)
    for p, size in zip(positions, S):
        flat = flat * size + np.where(valid, p, 0)
    values = input.reshape(N, C, -1).transpose(1, 2)[np.arange(N)[:, None], flat]  # (N, P, C)
    return values * from_numpy(valid[..., None].astype(input.dtype))


def _inside(positions, sizes):
    valid = np.ones(positions[0].shape, dtype=bool)
    for p, size in zip(positions, sizes):
        valid &= (p >= 0) & (p < size)
    return valid


def _cubic_weights(t):
    """The four cubic-convolution weights of taps -1, 0, 1, 2 at fraction t (a Tensor)."""
    A = CUBIC_A

    def near(x):  # |x| <= 1
        return ((x * (A + 2) - (A + 3)) * x) * x + 1

    def far(x):  # 1 < |x| < 2
        return ((x * A - 5 * A) * x + 8 * A) * x - 4 * A

    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) read at the points of grid (N, Ho, Wo, 2) -> (N, C, Ho, Wo); or
    input (N, C, D, H, W) and grid (N, Do, Ho, Wo, 3) -> (N, C, Do, Ho, Wo). grid[..., 0] is x
    (the width), grid[..., 1] y, grid[..., 2] z, normalized to -1 .. 1. mode: 'bilinear'
    (trilinear for volumes), 'nearest' or 'bicubic' (2-d); padding_mode: 'zeros', 'border'
    or 'reflection'. Gradients flow to the input and (but for 'nearest') to the grid."""
    op = "grid_sampler()"
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
            f"but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    align_corners = _align(align_corners)
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(
            f"{op}: expected 4D or 5D input and grid with same number of dimensions, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    spatial = input.ndim - 2
    if grid.shape[-1] != spatial:
        raise RuntimeError(
            f"{op}: expected grid to have size {spatial} in last dimension, but got grid with "
            f"sizes {list(grid.shape)}"
        )
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            f"{op}: expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"{op}: expected input and grid of the same dtype, got {input.dtype} and {grid.dtype}"
        )
    if mode == "bicubic" and spatial != 2:
        raise RuntimeError(f"{op}: bicubic interpolation only supports 4D input")
    N, C, *sizes = input.shape
    out_shape = grid.shape[1:-1]
    points = grid.reshape(N, -1, spatial)
    # the point's pixel coordinates, one per spatial dim in input order (z,) y, x
    coords = [
        _unnormalize(points[..., spatial - 1 - d], sizes[d], align_corners) for d in range(spatial)
    ]
    if mode == "bicubic":
        out = _bicubic(input, coords, sizes, padding_mode, align_corners)
    else:
        coords = [_padded(c, size, padding_mode, align_corners) for c, size in zip(coords, sizes)]
        out = (_nearest if mode == "nearest" else _linear)(input, coords, sizes)
    # (N, P, C) -> (N, C, *out_shape)
    return out.transpose(1, 2).reshape(N, C, *out_shape)


def _nearest(input, coords, sizes):
    # rint: ties to even, as nearbyint
    positions = [np.rint(c.array).astype(np.int64) for c in coords]
    return _read(input, positions, _inside(positions, sizes))


def _linear(input, coords, sizes):
    """Bilinear (trilinear) interpolation: the 2^d pixels around each point, each weighted
    by the product over the dims of 1 - its distance to the point."""
    below = [np.floor(c.array).astype(np.int64) for c in coords]
    out = None
    for corner in itertools.product((0, 1), repeat=len(coords)):
        positions = [b + k for b, k in zip(below, corner)]
        weight = None
        for c, b, k in zip(coords, below, corner):
            # the far neighbour's distance: (b + 1 - c) for the lower pixel, (c - b) for the upper
            # one
            factor = (
                (c - from_numpy(b.astype(c.dtype)))
                if k
                else (from_numpy((b + 1).astype(c.dtype)) - c)
            )
            weight = factor if weight is None else weight * factor
        term = _read(input, positions, _inside(positions, sizes)) * weight.unsqueeze(-1)
        out = term if out is None else out + term
    return out


def _bicubic(input, coords, sizes, padding_mode, align_corners):
    """Cubic convolution over the 4 x 4 pixels around each point: along x in each of the
    four rows, then along y; each tap's coordinate is padded on its own, as torch does."""
    (y, x), (H, W) = coords, sizes
    x0, y0 = np.floor(x.array), np.floor(y.array)
    wx = _cubic_weights(x - from_numpy(x0.astype(x.dtype)))
    wy = _cubic_weights(y - from_numpy(y0.astype(y.dtype)))
    out = None
    for i in range(4):
        row = None
        for j in range(4):
            tap_y = _padded(from_numpy(y0 + i - 1), H, padding_mode, align_corners).array.astype(
                np.int64
            )
            tap_x = _padded(from_numpy(x0 + j - 1), W, padding_mode, align_corners).array.astype(
                np.int64
            )
            term = _read(input, [tap_y, tap_x], _inside([tap_y, tap_x], sizes)) * wx[j].unsqueeze(
                -1
            )
            row = term if row is None else row + term
        term = row * wy[i].unsqueeze(-1)
        out = term if out is None else out + term
    return out
