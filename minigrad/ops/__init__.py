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
    index_write,
    joining,
    linalg,
    logic,
    loss,
    normalization,
    out,
    pool,
    promotion,
    reduce,
    sampling,
    scatter_reduce,
    shape,
    sort,
    special,
    strided,
    view_scatter,
)

__all__ = [
    "activation",
    "attention",
    "broadcast",
    "conv",
    "elementwise",
    "index",
    "index_write",
    "joining",
    "linalg",
    "logic",
    "loss",
    "normalization",
    "out",
    "pool",
    "promotion",
    "reduce",
    "sampling",
    "scatter_reduce",
    "shape",
    "sort",
    "special",
    "strided",
    "view_scatter",
]
