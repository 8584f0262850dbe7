"""minigrad: a deep-learning framework written to be read.

The public surface follows PyTorch (see SPEC.md): `import minigrad as mg` and use
`mg.tensor`, `mg.no_grad`, `mg.autograd.grad`, ... as you would `torch`.
"""

from minigrad.tensor import Tensor, maximum, minimum, tril, triu, where  # isort: skip
from minigrad import autograd, backends, linalg
from minigrad.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad.creation import (
    arange,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.dtypes import bool, float16, float32, float64, int32, int64  # noqa: A004
from minigrad.functional_forms import *  # noqa: F403  (mg.exp, mg.sum, ... as torch.exp)
from minigrad.functional_forms import is_tensor, numel
from minigrad.ops.elementwise import add, div, divide, mul, multiply, pow, sub, subtract, true_divide  # noqa: A004
from minigrad.ops.index import gather, index_fill, index_select, masked_fill, scatter, scatter_add
from minigrad.ops.linalg import addmm, baddbmm, bmm, diag, einsum, matmul, mm, outer, trace
from minigrad.ops.logic import all, allclose, any, equal, isclose  # noqa: A004
from minigrad.ops.reduce import cumprod, cumsum
from minigrad.ops.reduce import norm_function as norm
from minigrad.ops.sampling import bernoulli, multinomial
from minigrad.ops.shape import cat, flip, roll, stack
from minigrad.ops.sort import argsort, msort, sort, topk, unique
from minigrad.random import manual_seed
from minigrad.serialization import load, save
from minigrad import data

concat = concatenate = cat

__version__ = "0.1.0"
