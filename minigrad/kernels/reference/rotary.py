"""The rotary position embedding's rotation, as array expressions: the reference (Rotate
in nn/rotary.py calls it, for its forward and its backward).

x (..., T, d) is split into its halves [x1, x2]; feature pair (x1_i, x2_i) of the vector
at position t turns by its angle, whose cosine and sine cos[t] and sin[t] (T, d) hold
twice, once per half:

    y = x * cos + rotate_half(x) * sin,    rotate_half([x1, x2]) = [-x2, x1]
    i.e.  y1 = x1 * cos - x2 * sin,    y2 = x2 * cos + x1 * sin

The gradient is the transpose rotation, the same formula with -sin:
dL/dx = dL/dy * cos - rotate_half(dL/dy) * sin.

Written with the array module of x, so this is also a CUDA tensor's rotation. About four
passes over x, and a copy first; the CPU kernel (kernels/cpu/rotary.py) makes one.
"""

from minigrad.array_module import array_module


def rotate(x, cos, sin):
    """x * cos + rotate_half(x) * sin, a new contiguous array; cos and sin broadcast
    against x (RoPE's are (T, d) for x (..., T, d))."""
    xp = array_module(x)
    # q and k arrive as transposed views of the qkv product: one contiguous copy first,
    # then in-place products, so each pass below streams through contiguous memory and no
    # output-sized temporary is made for the sum
    x = xp.ascontiguousarray(x)
    half = x.shape[-1] // 2
    y = x * cos
    turned = xp.concatenate((-x[..., half:], x[..., :half]), axis=-1)  # rotate_half(x)
    turned *= sin
    y += turned
    return y
