"""Rearranging channels: F.pixel_shuffle, F.pixel_unshuffle, F.channel_shuffle.

Each is a reshape, a permutation of the axes and a reshape back: no value changes, so
each gradient is the inverse rearrangement (the permute's and reshape's own backward).

- pixel_shuffle(x, r): (*, C r^2, H, W) -> (*, C, H r, W r). Each r x r block of the output
  comes from r^2 channels at one position: the sub-pixel convolution of Shi et al. 2016,
  which upsamples by learning r^2 small images and interleaving them.
- pixel_unshuffle(x, r): its inverse, (*, C, H r, W r) -> (*, C r^2, H, W).
- channel_shuffle(x, g): (N, C, *) with the channels in g groups of C / g; channel
  k of group i moves to position k g + i, so that the next grouped convolution mixes
  the groups (ShuffleNet, Zhang et al. 2017).
"""

import numbers


def _check_factor(factor, name, op):
    if isinstance(factor, bool) or not isinstance(factor, numbers.Integral) or factor <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {factor}")
    return int(factor)


def _check_rank(input, op):
    if input.ndim < 3:
        raise RuntimeError(
            f"{op} expects input to have at least 3 dimensions, but got input with {input.ndim} "
            "dimension(s)"
        )


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): out[c, h r + i, w r + j] = in[c r^2 + i r + j, h,
    w]."""
    op = "pixel_shuffle"
    _check_rank(input, op)
    r = _check_factor(upscale_factor, "upscale_factor", op)
    *lead, channels, H, W = input.shape
    if channels % (r * r):
        raise RuntimeError(
            f"{op} expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={channels} is not divisible by {r * r}"
        )
    C, n = channels // (r * r), len(lead)
    x = input.reshape(*lead, C, r, r, H, W)
    # (*, C, r_i, r_j, H, W) -> (*, C, H, r_i, W, r_j)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, C, H * r, W * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle."""
    op = "pixel_unshuffle"
    _check_rank(input, op)
    r = _check_factor(downscale_factor, "downscale_factor", op)
    *lead, C, Hr, Wr = input.shape
    for name, size, dim in (("height", Hr, -2), ("width", Wr, -1)):
        if size % r:
            raise RuntimeError(
                f"{op} expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={size} is not divisible by {r}"
            )
    H, W, n = Hr // r, Wr // r, len(lead)
    x = input.reshape(*lead, C, H, r, W, r)
    # (*, C, H, r_i, W, r_j) -> (*, C, r_i, r_j, H, W)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, C * r * r, H, W)


def channel_shuffle(input, groups):
    """(N, C, *): view the channels as (groups, C / groups), transpose to (C / groups, groups)
    and flatten back, interleaving the groups."""
    op = "channel_shuffle"
    if input.ndim <= 2:
        raise RuntimeError(
            f"{op} expects input with > 2 dims, but got input with sizes {list(input.shape)}"
        )
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups <= 0:
        raise RuntimeError(
            f"{op}: Number of groups to divide channels in must be positive. Value of "
            f"groups:{groups}"
        )
    N, C, *rest = input.shape
    if C % groups:
        raise RuntimeError(
            f"{op}: Number of channels must be divisible by groups. Got {C} channels and {groups} "
            "groups."
        )
    x = input.reshape(N, groups, C // groups, *rest).transpose(1, 2)
    return x.reshape(N, C, *rest)
