"""minigrad: a deep-learning framework written to be read.

The public surface follows PyTorch (see SPEC.md): `import minigrad as mg` and use
`mg.tensor`, `mg.no_grad`, `mg.autograd.grad`, ... as you would `torch`. As after
`import torch`, the subpackages `mg.nn`, `mg.nn.functional`, `mg.optim`, `mg.autograd`,
`mg.utils.data`, `mg.backends`, `mg.cuda` (and `mg.cuda.amp`), `mg.amp`,
`mg.accelerator`, `mg.distributed`, `mg.distributions`, `mg.multiprocessing`, `mg.onnx`
and `mg.serialization` are reachable without importing them. Numba is not imported here:
the kernels import it when first used, which keeps `import minigrad` fast.
"""

import math  # isort: skip  (for the constants mg.inf, mg.nan, mg.pi, mg.e)

import numpy as _np  # isort: skip  (for mg.dtype, NumPy's dtype class)

from minigrad import threads  # isort: skip  (the BLAS thread policy, before any op runs)
from minigrad import memory  # isort: skip  (the allocator policy, before any array is made)
from minigrad.tensor import Tensor  # isort: skip
from minigrad.size import Size  # isort: skip
from minigrad import accelerator, autograd, backends, cpu, cuda, distributed, linalg, special
from minigrad.autograd.anomaly import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from minigrad.autograd import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
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
    randint_like,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.determinism import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from minigrad.devices import device, get_default_device, set_default_device
from minigrad.errors import AcceleratorError, OutOfMemoryError
from minigrad.layouts import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    strided,
)
from minigrad.printing import set_printoptions
from minigrad.queries import get_device, is_complex, is_inference, is_storage, typename
from minigrad.warn_always import is_warn_always_enabled, set_warn_always
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
from minigrad.creation import (
    asarray,
    empty_permuted,
    empty_strided,
    frombuffer,
    is_tensor,
    logspace,
    numel,
    scalar_tensor,
)
from minigrad.windows import (
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)
from minigrad.ops.activation import log_softmax, softmax
from minigrad.ops.choose import maximum, minimum, where
from minigrad.ops.elementwise import (  # noqa: A004  (mg.pow shadows a builtin here, as in torch)
    add,
    div,
    divide,
    mul,
    multiply,
    pow,
    sub,
    subtract,
    true_divide,
)
from minigrad.ops.unary_functions import (  # noqa: A004  (mg.abs, mg.round: builtins, as torch)
    abs,
    ceil,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    cos,
    erf,
    exp,
    floor,
    log,
    reciprocal,
    relu,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    tanh,
)
from minigrad.ops.calculus import cumulative_trapezoid, diff, gradient, trapezoid, trapz
from minigrad.ops.cumulative import cummax, cummin, logcumsumexp
from minigrad.ops.arithmetic import (
    absolute,
    addcdiv,
    addcmul,
    fmax,
    fmin,
    gcd,
    lcm,
    lerp,
    nan_to_num,
    neg,
    negative,
    positive,
    rsub,
)
from minigrad.ops.bitwise import (
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
)
from minigrad.ops.compare import (
    eq,
    ge,
    greater,
    greater_equal,
    gt,
    is_nonzero,
    is_same_size,
    is_signed,
    isin,
    isneginf,
    isposinf,
    le,
    less,
    less_equal,
    lt,
    ne,
    not_equal,
)
from minigrad.ops.distance import cdist
from minigrad.ops.explog import (
    exp2,
    expm1,
    float_power,
    frexp,
    ldexp,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logit,
    xlogy,
)
from minigrad.ops.index import (
    argwhere,
    gather,
    index_fill,
    index_select,
    masked_fill,
    narrow,
    nonzero,
    scatter,
    scatter_add,
)
from minigrad.ops.index_reads import (
    masked_select,
    narrow_copy,
    nonzero_static,
    repeat_interleave,
    select,
    take,
    take_along_dim,
    unravel_index,
)
from minigrad.ops.index_write import index_add, index_copy, index_put, masked_scatter, put
from minigrad.ops.inverse import (
    cholesky_inverse,
    cholesky_solve,
    det,
    inverse,
    logdet,
    pinverse,
    slogdet,
)
from minigrad.ops.joining import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    column_stack,
    dsplit,
    dstack,
    hsplit,
    hstack,
    row_stack,
    tensor_split,
    vsplit,
    vstack,
)
from minigrad.ops.linalg import (
    addbmm,
    addmm,
    addmv,
    addr,
    baddbmm,
    bmm,
    cross,
    diag,
    diag_embed,
    diagflat,
    dot,
    einsum,
    inner,
    kron,
    matmul,
    mm,
    mv,
    outer,
    tensordot,
    trace,
    tril,
    tril_indices,
    triu,
    triu_indices,
    vander,
    vdot,
)
from minigrad.ops.logic import all, allclose, any, equal, isclose, isfinite, isinf, isnan  # noqa: A004
from minigrad.ops.reduce import (  # noqa: A004  (mg.sum, mg.max, mg.min shadow builtins here, as in torch)
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    logsumexp,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from minigrad.ops.matrix_powers import matrix_exp, matrix_power
from minigrad.ops.norms import dist, renorm
from minigrad.ops.order_stats import kthvalue, median, mode, nanmedian, nanquantile, quantile
from minigrad.ops.promotion import can_cast, promote_types, result_type
from minigrad.ops.reduce import norm_function as norm
from minigrad.ops.sampling import bernoulli, binomial, multinomial, normal, poisson
from minigrad.ops.scatter_reduce import index_reduce, scatter_reduce
from minigrad.ops.shape import (
    adjoint,
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    cartesian_prod,
    cat,
    chunk,
    clone,
    combinations,
    detach,
    flatten,
    flip,
    fliplr,
    flipud,
    meshgrid,
    moveaxis,
    movedim,
    permute,
    ravel,
    repeat,
    reshape,
    roll,
    rot90,
    split,
    split_with_sizes,
    squeeze,
    stack,
    swapaxes,
    swapdims,
    t,
    tile,
    transpose,
    unbind,
    unflatten,
    unsqueeze,
)
from minigrad.ops.search import (
    bincount,
    bucketize,
    count_nonzero,
    histc,
    histogram,
    histogramdd,
    searchsorted,
)
from minigrad.ops.sort import argsort, msort, sort, topk, unique, unique_consecutive
from minigrad.ops.statistics import aminmax, corrcoef, cov, nanmean, nansum, std_mean, var_mean
from minigrad.ops.strided import as_strided, diagonal
from minigrad.ops.view_scatter import (
    as_strided_scatter,
    diagonal_scatter,
    select_scatter,
    slice_scatter,
)
from minigrad.ops.rounding import (
    copysign,
    fix,
    floor_divide,
    fmod,
    frac,
    heaviside,
    nextafter,
    remainder,
    sgn,
    signbit,
    trunc,
)
from minigrad.ops.special_functions import (
    digamma,
    erfc,
    erfinv,
    i0,
    igamma,
    igammac,
    lgamma,
    mvlgamma,
    polygamma,
)
from minigrad.ops.trig import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cosh,
    deg2rad,
    hypot,
    rad2deg,
    sinc,
    sinh,
    tan,
)
from minigrad.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from minigrad.tensor_types import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from minigrad.threads import (
    get_num_interop_threads,
    get_num_threads,
    set_num_interop_threads,
    set_num_threads,
)
from minigrad.serialization import load, save
from minigrad import (
    amp,
    data,
    distributions,
    func,
    multiprocessing,
    nn,
    onnx,
    optim,
    testing,
    utils,
    viz,
)
from minigrad.amp import GradScaler
from minigrad.amp.autocast_mode import autocast, is_autocast_enabled
from minigrad.autograd import functional as _autograd_functional  # noqa: F401  (mg.autograd.functional)
from minigrad.cuda import amp as _cuda_amp  # noqa: F401  (mg.cuda.amp after `import minigrad`, as torch.cuda.amp)
from minigrad.func import vmap

concat = concatenate = cat
dtype = _np.dtype
"""The type of dtypes (torch.dtype): minigrad's dtypes are NumPy's, so
`isinstance(t.dtype, mg.dtype)`."""

# the constants of torch's namespace (torch.inf is math.inf, ...)
inf = math.inf
"""Positive infinity, a Python float (`float('inf')`), as `torch.inf`."""
nan = math.nan
"""Not a number, a Python float (`float('nan')`), as `torch.nan`."""
pi = math.pi
"""pi = 3.14159..., a Python float, as `torch.pi`."""
e = math.e
"""Euler's number e = 2.71828..., a Python float, as `torch.e`."""
newaxis = None
"""None, the index that inserts a new dim of size 1 (`x[:, mg.newaxis]`), as `torch.newaxis`."""

__version__ = "0.1.0"
