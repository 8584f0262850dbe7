"""How a tensor prints, as torch prints it, and `set_printoptions` to change it.

`repr(t)` is `tensor(` + the values + suffixes (`dtype=...`, `grad_fn=<...>`) + `)`. The
values follow torch's rules (torch/_tensor_str.py), so that a notebook shows the same
text on either library:

- one format for the whole tensor, chosen from its finite nonzero values: integers
  (floats that are all whole numbers print as `1.`), fixed point with `precision` digits,
  or scientific notation when the largest is over 1000 times the smallest, over 1e8, or
  under 1e-4 (`sci_mode=True`/`False` forces the choice); every value is padded to the
  widest one, so columns line up;
- rows wrap at `linewidth` characters, nested dims are indented under their bracket;
- a tensor of more than `threshold` elements is summarised: `edgeitems` values at each
  end of every dim, and `...` between.

The options are one global setting, as torch's (`set_printoptions(profile="default")`
restores them).
"""

import dataclasses
import math

import numpy as np


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool = None


PRINT_OPTS = PrintOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Set how tensors print, as torch.set_printoptions: `precision` digits after the
    point (4), `threshold` elements before a tensor is summarised (1000), `edgeitems` shown
    at each end of a summarised dim (3), `linewidth` characters per line (80), a `profile`
    ("default", "short" or "full") to start from, and `sci_mode` (None: chosen per tensor;
    True/False: always/never scientific notation). Options left as None keep their value,
    except sci_mode, which is set (to None: automatic) on every call, as torch does."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got {profile!r}"
            )
        for key, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, key, value)
    for key, value in dict(
        precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth
    ).items():
        if value is not None:
            setattr(PRINT_OPTS, key, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options, as a dict that `set_printoptions(**options)` accepts."""
    return dataclasses.asdict(PRINT_OPTS)


class Formatter:
    """The format of every element of one tensor, and the width they are padded to."""

    def __init__(self, array):
        self.floating = array.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        values = array.reshape(-1)
        if not self.floating:
            for value in values.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return
        nonzero_finite = values[np.isfinite(values) & (values != 0)]
        if nonzero_finite.size == 0:
            return  # only zeros, infinities and NaNs: the defaults print them
        magnitudes = np.abs(nonzero_finite).astype(np.float64)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(
                largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
            )
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        for value in nonzero_finite.tolist():
            if self.sci_mode:
                width = len(f"{value:.{PRINT_OPTS.precision}e}")
            elif self.int_mode:
                width = len(f"{value:.0f}") + 1  # the point that marks a float: "3."
            else:
                width = len(f"{value:.{PRINT_OPTS.precision}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value):
        """One element (a Python number), right-aligned to the common width."""
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
            else:
                text = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            text = f"{value}"
        return " " * (self.max_width - len(text)) + text


def _summarized(array):
    """The elements a summarised print shows (the first and last `edgeitems` along every dim),
    from which the format is chosen."""
    edge = PRINT_OPTS.edgeitems
    if array.ndim == 0:
        return array
    if array.ndim == 1:
        return np.concatenate([array[:edge], array[-edge:]]) if array.shape[0] > 2 * edge else array
    if not edge:
        return array[(slice(0, 0),) * array.ndim]
    rows = (
        list(range(edge)) + list(range(len(array) - edge, len(array)))
        if len(array) > 2 * edge
        else range(len(array))
    )
    return np.stack([_summarized(array[i]) for i in rows])


def _vector(array, indent, summarize, formatter):
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (formatter.max_width + 2)))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and array.shape[0] > 2 * edge:
        data = [formatter.format(v) for v in array[:edge].tolist()] + [" ..."]
        data += [formatter.format(v) for v in array[-edge:].tolist()]
    else:
        data = [formatter.format(v) for v in array.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(array, indent, summarize, formatter):
    if array.ndim == 0:
        return formatter.format(array.item())
    if array.ndim == 1:
        return _vector(array, indent, summarize, formatter)
    edge = PRINT_OPTS.edgeitems
    if summarize and len(array) > 2 * edge:
        slices = [_nested(array[i], indent + 1, summarize, formatter) for i in range(edge)] + [
            "..."
        ]
        slices += [
            _nested(array[i], indent + 1, summarize, formatter)
            for i in range(len(array) - edge, len(array))
        ]
    else:
        slices = [_nested(array[i], indent + 1, summarize, formatter) for i in range(len(array))]
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def array_str(array, indent):
    """The values of a (non-empty) array as torch prints them, after a prefix `indent` wide."""
    summarize = array.size > PRINT_OPTS.threshold
    formatter = Formatter(_summarized(array) if summarize else array)
    return _nested(array, indent, summarize, formatter)


def with_suffixes(text, suffixes, indent):
    """`text` + ", suffix" for each suffix, wrapping to a new line (indented) where a line
    would pass `linewidth`, and the closing parenthesis."""
    parts = [text]
    last_line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_length + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_length += len(suffix) + 2
    parts.append(")")
    return "".join(parts)
