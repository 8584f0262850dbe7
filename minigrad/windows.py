"""Window functions, as in `torch.hann_window` and the others: the tapers a signal is
multiplied by before a Fourier transform, so that its ends fade to (near) zero.

Each is a formula in n = 0, 1, ..., M - 1. A *symmetric* window (periodic=False) uses
M = window_length points and is its own mirror image; the default *periodic* window is
the symmetric one of window_length + 1 points without its last, so that repeating it
tiles smoothly (what spectral analysis with overlapping frames wants). One point gives
[1], none gives []. The formulas are evaluated in float64 and the result cast.
"""

import numpy as np

from minigrad import dtypes
from minigrad.creation import _new


def _window(name, window_length, periodic, dtype, device, requires_grad, formula):
    dtype = dtypes.to_dtype(dtype, name) or dtypes.default_float
    if dtype.kind != "f":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    if window_length <= 1:
        return _new(np.ones(window_length), dtype, device, requires_grad, name)
    m = window_length + 1 if periodic else window_length
    values = formula(np.arange(m, dtype=np.float64), m)
    return _new(values[:window_length], dtype, device, requires_grad, name)


def hann_window(
    window_length, periodic=True, *, dtype=None, device=None, requires_grad=False, layout=None
):
    """The Hann window: w[n] = 0.5 - 0.5 cos(2 pi n / (M - 1))."""
    formula = lambda n, m: 0.5 - 0.5 * np.cos(2 * np.pi * n / (m - 1))  # noqa: E731
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, formula)


def hamming_window(
    window_length,
    periodic=True,
    alpha=0.54,
    beta=0.46,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
):
    """The Hamming window: w[n] = alpha - beta cos(2 pi n / (M - 1)) (alpha = 0.54 and
    beta = 0.46 by default)."""
    formula = lambda n, m: alpha - beta * np.cos(2 * np.pi * n / (m - 1))  # noqa: E731
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, formula)


def bartlett_window(
    window_length, periodic=True, *, dtype=None, device=None, requires_grad=False, layout=None
):
    """The Bartlett (triangular) window: w[n] = 1 - |2n / (M - 1) - 1|."""
    formula = lambda n, m: 1 - np.abs(2 * n / (m - 1) - 1)  # noqa: E731
    return _window(
        "bartlett_window", window_length, periodic, dtype, device, requires_grad, formula
    )


def blackman_window(
    window_length, periodic=True, *, dtype=None, device=None, requires_grad=False, layout=None
):
    """The Blackman window: w[n] = 0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))."""

    def formula(n, m):
        return 0.42 - 0.5 * np.cos(2 * np.pi * n / (m - 1)) + 0.08 * np.cos(4 * np.pi * n / (m - 1))

    return _window(
        "blackman_window", window_length, periodic, dtype, device, requires_grad, formula
    )


def kaiser_window(
    window_length,
    periodic=True,
    beta=12.0,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
):
    """The Kaiser window: w[n] = I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (M - 1) / 2
    and I0 the modified Bessel function of order 0; a larger beta, a narrower window."""

    def formula(n, m):
        a = (m - 1) / 2
        return np.i0(beta * np.sqrt(np.clip(1 - ((n - a) / a) ** 2, 0, None))) / np.i0(beta)

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, formula)
