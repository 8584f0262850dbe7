"""Layer norm and RMS norm over the rows of a (rows, N) array: the reference, in NumPy
(LayerNorm, RMSNorm and GroupNorm in ops/normalization.py call it through backends).

Forward, per row of N numbers x (rms=False: layer norm; rms=True: RMS norm, no centring):

    mean = sum(x) / N                   (0 for RMS norm)
    rstd = 1 / sqrt(mean((x - mean)^2) + eps)
    xhat = (x - mean) * rstd,    y = xhat * w + b     (w, b of length N, or None)

Backward, with dy = dL/dy and g = dy * w (dy without a weight):

    dL/dw = sum over rows of dy * xhat,    dL/db = sum over rows of dy
    dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat))     (RMS norm: no mean(g) term)

(ops/normalization.py derives the dL/dx formula.) xhat and rstd are what forward returns
and backward takes: keeping xhat costs an array, and saves backward recomputing it.
The code runs in the array module of its inputs, so CUDA tensors use it through CuPy.
"""

import numpy as np


def forward(x, weight, bias, eps, rms=False):
    """(y, xhat, rstd) for x (rows, N); rstd has shape (rows, 1). weight, bias: (N,) or None."""
    centred = x if rms else x - x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt((centred * centred).mean(axis=1, keepdims=True) + eps)
    if rms:
        xhat = x * rstd
    else:  # the centred array becomes xhat in place: a pass and a temporary fewer
        xhat = centred
        xhat *= rstd
    y = xhat * weight if weight is not None else xhat.copy()  # a copy: xhat is kept
    if bias is not None:
        y += bias  # in place: y is new, no second output-sized array
    return y, xhat, rstd


def backward(dy, xhat, rstd, weight, rms=False, need_x=True, need_weight=True, need_bias=True):
    """(dL/dx, dL/dw, dL/db) for dy, xhat (rows, N) and rstd (rows, 1); None for what is
    not needed. The two means are matrix-vector products: one fused pass each, no
    (rows, N) temporary, and dy * xhat serves both dL/dw and mean(g * xhat)."""
    n = xhat.shape[1]
    dy_xhat = dy * xhat
    grad_weight = dy_xhat.sum(axis=0) if need_weight else None
    grad_bias = dy.sum(axis=0) if need_bias else None
    grad_x = None
    if need_x:
        # BEGIN SOLUTION hint: g = dy * w (dy without a weight); mean(g) and mean(g * xhat) per row (keepdims; mean(g) is 0 for rms); dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
        if weight is None:
            g, mean_g_xhat = dy, dy_xhat.mean(axis=1, keepdims=True)
            mean_g = None if rms else dy.mean(axis=1, keepdims=True)
        else:
            g = dy * weight
            mean_g_xhat = (dy_xhat @ weight)[:, None] / n
            mean_g = None if rms else (dy @ weight)[:, None] / n
        grad_x = g - mean_g if mean_g is not None else g.copy()
        grad_x -= xhat * mean_g_xhat
        grad_x *= rstd
        # END SOLUTION
    return grad_x, grad_weight, grad_bias
