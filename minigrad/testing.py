"""`assert_close`: are two results the same, up to rounding? As `torch.testing.assert_close`.

Two tensors are close when they have the same shape (and, unless switched off, dtype,
device and layout) and every pair of elements satisfies

    |actual - expected| <= atol + rtol * |expected|

where infinities must be equal, and NaNs count as equal only with `equal_nan=True`. The
default tolerances follow the dtype, loose enough for the rounding of a few operations:

    dtype      rtol     atol
    float16    1e-3     1e-5
    float32    1.3e-6   1e-5
    float64    1e-7     1e-7
    integers   0        0      (and bool: equality)

Python numbers compare the same way (an int as int64, a float as float64); sequences and
mappings compare element by element, and a failure says which item failed. The error is
an AssertionError whose message has torch's shape: how many elements mismatch, and the
greatest absolute and relative differences with their indices and the allowed ones.
"""

import cmath
import collections.abc

import numpy as np

from minigrad.tensor import Tensor

_DTYPE_PRECISIONS = {
    np.dtype(np.float16): (0.001, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: np.dtype(np.int64), float: np.dtype(np.float64)}


class _Failure(Exception):
    """A comparison that failed: the exception type to raise, its message, and the path to
    the item that failed (indices and keys of the sequences and mappings around it)."""

    def __init__(self, type_, message, path=()):
        super().__init__(message)
        self.type, self.message, self.path = type_, message, path

    def error(self, msg=None):
        if isinstance(msg, str):
            return self.type(msg)
        message = self.message
        if self.path:
            message += (
                f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.path)}"
            )
        return self.type(msg(message) if callable(msg) else message)


def _tolerances(dtypes, rtol, atol, path):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(
            ValueError,
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.",
            path,
        )
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(np.dtype(d), (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _mismatch_message(identifier, extra, abs_diff, abs_index, atol, rel_diff, rel_index, rtol):
    equality = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if equality else 'close'}!", ""]
    if extra:
        lines.append(extra)
    for kind, diff, index, tol in (
        ("absolute", abs_diff, abs_index, atol),
        ("relative", rel_diff, rel_index, rtol),
    ):
        line = (
            f"{kind.title()} difference: {diff}"
            if index is None
            else f"Greatest {kind} difference: {diff} at index {index}"
        )
        lines.append(line + ("" if equality else f" (up to {tol} allowed)"))
    return "\n".join(lines)


def _scalar_message(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message(
        "Scalars",
        f"Expected {expected} but got {actual}.",
        abs_diff,
        None,
        atol,
        rel_diff,
        None,
        rtol,
    )


def _tensor_message(actual, expected, matches, rtol, atol):
    """The counts and the greatest differences, as torch computes them: in the tensors' dtype
    (integers as int64, their relative difference in float32, torch's default float)."""
    total = matches.size
    mismatches = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    a, e, m = actual.reshape(-1), expected.reshape(-1), matches.reshape(-1)
    if a.dtype.kind != "f":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        rel_diff = (
            abs_diff / np.abs(e)
            if a.dtype.kind == "f"
            else (abs_diff / np.abs(e)).astype(np.float32)
        )
    rel_diff[m] = 0

    def where(flat):
        return tuple(int(i) for i in np.unravel_index(flat, matches.shape)) if matches.shape else ()

    i, j = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))  # the first NaN, if any, as torch.max
    return _mismatch_message(
        "Tensor-likes",
        extra,
        abs_diff[i].item(),
        where(i),
        atol,
        rel_diff[j].item(),
        where(j),
        rtol,
    )


# ---- one pair of leaves ---------------------------------------------------------------------
def _compare_numbers(actual, expected, rtol, atol, equal_nan, path):
    numbers = (int, float, np.number)
    if not (isinstance(actual, numbers) and isinstance(expected, numbers)):
        return False
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    dtypes = [_NUMBER_DTYPES.get(type(x), np.dtype(np.float64)) for x in (actual, expected)]
    rtol, atol = _tolerances(dtypes, rtol, atol, path)
    if actual == expected or (equal_nan and cmath.isnan(actual) and cmath.isnan(expected)):
        return True
    difference = abs(actual - expected)
    if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
        return True
    raise _Failure(AssertionError, _scalar_message(actual, expected, rtol, atol), path)


def _as_array(value):
    return value.detach().numpy() if isinstance(value, Tensor) else np.asarray(value)


def _compare_tensors(actual, expected, options, path):
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    tensor_like = (Tensor, np.ndarray)
    if not (related and isinstance(actual, tensor_like) and isinstance(expected, tensor_like)):
        return False
    if not options["allow_subclasses"] and type(actual) is not type(expected):
        return False
    a, e = _as_array(actual), _as_array(expected)

    def mismatch(attribute, x, y):
        raise _Failure(
            AssertionError,
            f"The values for attribute '{attribute}' do not match: {x} != {y}.",
            path,
        )

    if a.shape != e.shape:
        mismatch("shape", a.shape, e.shape)
    if (
        options["check_stride"]
        and isinstance(actual, Tensor)
        and actual.stride() != expected.stride()
    ):
        mismatch("stride()", actual.stride(), expected.stride())
    if options["check_dtype"] and a.dtype != e.dtype:
        mismatch("dtype", f"minigrad.{a.dtype}", f"minigrad.{e.dtype}")
    rtol, atol = _tolerances([a.dtype, e.dtype], options["rtol"], options["atol"], path)
    if a.dtype != e.dtype:
        common = np.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    if a.dtype.kind == "f":
        matches = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    else:
        matches = a == e  # integers and bools: exact (their tolerances are 0)
    if np.all(matches):
        return True
    if a.shape == ():
        raise _Failure(AssertionError, _scalar_message(a.item(), e.item(), rtol, atol), path)
    raise _Failure(AssertionError, _tensor_message(a, e, matches, rtol, atol), path)


def _compare(actual, expected, options, path=()):
    """Raise _Failure unless actual and expected are close, recursing into sequences and
    mappings."""
    sequence = collections.abc.Sequence
    if isinstance(actual, sequence) and isinstance(expected, sequence):
        if not isinstance(actual, str) and not isinstance(expected, str):
            if len(actual) != len(expected):
                raise _Failure(
                    AssertionError,
                    f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                    path,
                )
            for i, (a, e) in enumerate(zip(actual, expected)):
                _compare(a, e, options, (*path, i))
            return
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        if set(actual) != set(expected):
            missing, additional = set(expected) - set(actual), set(actual) - set(expected)
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(missing)}\n"
                f"Additional keys in the actual mapping: {sorted(additional)}",
                path,
            )
        keys = list(actual)
        try:
            keys = sorted(keys)
        except TypeError:
            pass
        for key in keys:
            _compare(actual[key], expected[key], options, (*path, key))
        return
    if actual is None or expected is None:
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)
        return
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        if bool(actual) is not bool(expected):
            raise _Failure(
                AssertionError, f"Booleans mismatch: {bool(actual)} is not {bool(expected)}", path
            )
        return
    if _compare_numbers(
        actual, expected, options["rtol"], options["atol"], options["equal_nan"], path
    ):
        return
    if _compare_tensors(actual, expected, options, path):
        return
    raise _Failure(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        path,
    )


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses=True,
    rtol=None,
    atol=None,
    equal_nan=False,
    check_device=True,
    check_dtype=True,
    check_layout=True,
    check_stride=False,
    msg=None,
):
    """Raise AssertionError unless `actual` and `expected` are close (see the module):
    tensors (or NumPy arrays), Python numbers, or sequences and mappings of them. `rtol`
    and `atol` override the dtype's defaults (both or neither); `msg` replaces the message
    (a string) or rewrites it (a function of the message). Every minigrad tensor is a
    strided CPU tensor, so the device and layout checks always pass."""
    options = dict(
        allow_subclasses=allow_subclasses,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_dtype=check_dtype,
        check_stride=check_stride,
    )
    try:
        _compare(actual, expected, options)
    except _Failure as failure:
        raise failure.error(msg) from None
