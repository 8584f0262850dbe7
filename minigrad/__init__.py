"""minigrad: a deep-learning framework written to be read.

The public surface follows PyTorch (see SPEC.md): `import minigrad as mg` and use
`mg.tensor`, `mg.no_grad`, `mg.autograd.grad`, ... as you would `torch`.
"""

from minigrad import threads  # isort: skip  (the BLAS/Numba thread policy, before any kernel runs)
from minigrad.tensor import Tensor, matmul, maximum, minimum, tril, triu, where  # isort: skip
from minigrad import autograd, backends
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
from minigrad.ops.linalg import einsum, outer
from minigrad.ops.shape import cat, stack
from minigrad.random import manual_seed
from minigrad.serialization import load, save
from minigrad import data

concat = concatenate = cat

__version__ = "0.1.0"
