"""Calculus on samples: differences (`diff`), derivatives estimated from neighbours
(`gradient`) and integrals by the trapezoid rule (`trapezoid`, `trapz`,
`cumulative_trapezoid`).

Each is slices of the input subtracted, added and scaled, so each is differentiable as
the Tensor ops it is made of: the gradient of y[i] = x[i+1] - x[i] is +dL/dy[i] for x[i+1]
and -dL/dy_i for x_i, and so on.
"""

from minigrad import dtypes
from minigrad._args import normalize_dim
from minigrad.creation import as_tensor
from minigrad.ops.shape import cat
from minigrad.tensor import Tensor


def _slice(x, d, start=None, stop=None):
    return x[(slice(None),) * d + (slice(start, stop),)]


# ---- differences -----------------------------------------------------------------------------
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along `dim`: `out[i] = x[i+1] - x[i]`, applied n times
    (for bool tensors, `x[i+1] != x[i]`). `prepend` and `append` are joined to input along
    dim first (they have input's number of dims)."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = normalize_dim(dim, x.ndim, "diff")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = []
    for extra in (prepend, x, append):
        if extra is None:
            continue
        extra = as_tensor(extra)
        if extra.ndim != x.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        parts.append(extra)
    if len(parts) > 1:
        x = cat(parts, dim=d)
    for _ in range(n):
        if x.shape[d] == 0:
            break
        later, earlier = _slice(x, d, 1), _slice(x, d, None, -1)
        x = later != earlier if x.dtype.kind == "b" else later - earlier
    return x


# ---- estimated derivatives ---------------------------------------------------------------------
def _one_dim_gradient(f, d, h, edge_order):
    """df/dx along dim d of f, sampled at spacing h (a number) or at coordinates h (a 1-D
    Tensor): central differences inside, one-sided ones (first or second order) at the
    two ends, as NumPy's gradient."""
    n = f.shape[d]
    if n < edge_order + 1:
        raise RuntimeError(
            "torch.gradient expected each dimension size to be at least edge_order+1"
        )
    at = lambda start, stop=None: _slice(f, d, start, stop)  # noqa: E731

    def along(t):  # a 1-D coordinate tensor shaped to broadcast along dim d
        return t.reshape((-1,) + (1,) * (f.ndim - d - 1))

    if isinstance(h, Tensor):  # coordinates: the non-uniform formulas
        steps = h[1:] - h[:-1]
        left, right = along(steps[:-1]), along(steps[1:])
        inside = (
            -right / (left * (left + right)) * at(None, -2)
            + (right - left) / (left * right) * at(1, -1)
            + left / (right * (left + right)) * at(2)
        )
        first_h, last_h = steps[0], steps[-1]
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / first_h
            last = (at(-1) - at(-2, -1)) / last_h
        else:
            a, b = steps[0], steps[1]
            first = (
                -(2 * a + b) / (a * (a + b)) * at(0, 1)
                + (a + b) / (a * b) * at(1, 2)
                - a / (b * (a + b)) * at(2, 3)
            )
            a, b = steps[-2], steps[-1]
            last = (
                b / (a * (a + b)) * at(-3, -2)
                - (a + b) / (a * b) * at(-2, -1)
                + (a + 2 * b) / (b * (a + b)) * at(-1)
            )
    else:
        inside = (at(2) - at(None, -2)) / (2 * h)
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / h
            last = (at(-1) - at(-2, -1)) / h
        else:
            first = (-1.5 * at(0, 1) + 2 * at(1, 2) - 0.5 * at(2, 3)) / h
            last = (0.5 * at(-3, -2) - 2 * at(-2, -1) + 1.5 * at(-1)) / h
    return cat([first, inside, last], dim=d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of the sampled function `input` along each of `dim` (all dims by
    default), one tensor per dim in a tuple: central differences `(f[i+1] - f[i-1]) / 2h`
    inside, one-sided differences of order `edge_order` (1 or 2) at the edges. `spacing`
    is the step h (a number, or one per dim), or the sample coordinates (one 1-D tensor
    per dim) for uneven steps."""
    f = as_tensor(input)
    if f.dtype.kind != "f":
        f = f.to(dtypes.default_float)
    dims = tuple(range(f.ndim)) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(normalize_dim(d, f.ndim, "gradient") for d in dims)
    if edge_order not in (1, 2):
        raise RuntimeError(
            f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}"
        )
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or a list of length "
            f"{len(dims)}, got a list of length {len(steps)}"
        )
    return tuple(
        _one_dim_gradient(
            f, d, as_tensor(h).to(f.dtype) if isinstance(h, Tensor) else float(h), edge_order
        )
        for d, h in zip(dims, steps)
    )


# ---- integrals -----------------------------------------------------------------------------------
def _widths(y, d, x, dx, op):
    """The width of each trapezoid along dim d: from the sample coordinates x (1-D, or
    broadcasting with y), or the constant dx (1 by default)."""
    if x is None:
        return 1.0 if dx is None else float(dx)
    x = as_tensor(x)
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        widths = x[1:] - x[:-1]
        return widths.reshape((-1,) + (1,) * (y.ndim - d - 1))
    xd = normalize_dim(d - y.ndim, x.ndim, op)
    return _slice(x, xd, 1) - _slice(x, xd, None, -1)


def _float(y):
    y = as_tensor(y)
    return y if y.dtype.kind == "f" else y.to(dtypes.default_float)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of the samples `y` along `dim` by the trapezoid rule:
    `sum_i (x[i+1] - x[i]) (y[i] + y[i+1]) / 2`, the samples at coordinates `x` (a tensor)
    or `dx` apart (1 by default)."""
    y = _float(y)
    d = normalize_dim(dim, y.ndim, "trapezoid")
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx; give only one")
    widths = _widths(y, d, x, dx, "trapezoid")
    return (widths * (_slice(y, d, 1) + _slice(y, d, None, -1)) / 2).sum(d)


def trapz(y, x=None, *, dx=None, dim=-1):
    """`trapezoid` under its older name: trapz(y, x, dim=-1) or trapz(y, dx=1, dim=-1)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral by the trapezoid rule: one value per interval, the i-th the
    integral from the first sample to sample i + 1 (so one fewer than the samples)."""
    y = _float(y)
    d = normalize_dim(dim, y.ndim, "cumulative_trapezoid")
    if x is not None and dx is not None:
        raise RuntimeError("cumulative_trapezoid: received both x and dx; give only one")
    widths = _widths(y, d, x, dx, "cumulative_trapezoid")
    areas = widths * (_slice(y, d, 1) + _slice(y, d, None, -1)) / 2
    if areas.shape[d] == 0:
        return areas
    return areas.cumsum(d)
