"""Differentiable ops, one file per family; each op is a `Function` subclass.

Importing the package imports every family, so `from minigrad import ops` (the one
import tensor.py makes of this layer, at its bottom) reaches them all as
`ops.elementwise`, `ops.reduce`, ...
"""

from minigrad.ops import (
    activation,
    attention,
    broadcast,
    conv,
    elementwise,
    index,
    linalg,
    logic,
    loss,
    normalization,
    out,
    piecewise,
    pool,
    promotion,
    reduce,
    sampling,
    shape,
    sort,
    special,
)

__all__ = [
    "activation",
    "attention",
    "broadcast",
    "conv",
    "elementwise",
    "index",
    "linalg",
    "logic",
    "loss",
    "normalization",
    "out",
    "piecewise",
    "pool",
    "promotion",
    "reduce",
    "sampling",
    "shape",
    "sort",
    "special",
]
