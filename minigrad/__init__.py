"""minigrad: a deep-learning framework written to be read.

The public surface follows PyTorch (see SPEC.md): `import minigrad as mg` and use
`mg.tensor`, `mg.no_grad`, `mg.autograd.grad`, ... as you would `torch`. As after
`import torch`, the subpackages `mg.nn`, `mg.nn.functional`, `mg.optim`, `mg.autograd`,
`mg.utils.data`, `mg.backends`, `mg.cuda`, `mg.accelerator` and `mg.distributed` are
reachable without importing them. Numba is not imported here: the kernels import it
when first used, which keeps `import minigrad` fast.
"""

from minigrad import threads  # isort: skip  (the BLAS thread policy, before any op runs)
from minigrad.tensor import Tensor  # isort: skip
from minigrad import accelerator, autograd, backends, cuda, distributed, linalg
from minigrad.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad.creation import (
    arange,
    as_tensor,
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
from minigrad.determinism import (
    are_deterministic_algorithms_enabled,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from minigrad.devices import device, get_default_device, set_default_device
from minigrad.dtypes import (  # noqa: A004  (mg.float, mg.int, mg.bool shadow builtins here, as in torch)
    bfloat16,
    bool,
    double,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    is_floating_point,
    long,
    set_default_dtype,
    short,
    uint8,
)
from minigrad.functional_forms import *  # noqa: F403  (mg.exp, mg.sum, ... as torch.exp)
from minigrad.functional_forms import is_tensor, numel
from minigrad.ops.elementwise import (  # noqa: A004
    add,
    div,
    divide,
    maximum,
    minimum,
    mul,
    multiply,
    pow,
    sub,
    subtract,
    true_divide,
    where,
)
from minigrad.ops.index import gather, index_fill, index_select, masked_fill, scatter, scatter_add
from minigrad.ops.linalg import addmm, baddbmm, bmm, diag, einsum, matmul, mm, outer, trace, tril, triu
from minigrad.ops.logic import all, allclose, any, equal, isclose  # noqa: A004
from minigrad.ops.reduce import cumprod, cumsum
from minigrad.ops.reduce import norm_function as norm
from minigrad.ops.sampling import bernoulli, multinomial
from minigrad.ops.shape import cat, flip, roll, stack
from minigrad.ops.sort import argsort, msort, sort, topk, unique
from minigrad.random import manual_seed
from minigrad.random import Generator
from minigrad.serialization import load, save
from minigrad import data, nn, optim, utils

concat = concatenate = cat

__version__ = "0.1.0"
