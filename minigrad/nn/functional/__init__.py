"""minigrad.nn.functional (`F`): torch.nn.functional's functions, one file per family.

`import minigrad.nn.functional as F` and call `F.relu`, `F.conv2d`, `F.cross_entropy`, ...
Each file here checks a call's arguments and applies the differentiable Functions of
`minigrad/ops/` (or composes Tensor ops); the layers in `minigrad/nn/` call these.

    activation.py     relu, gelu, softmax, ...       loss.py      cross_entropy, mse_loss, ...
    conv.py           conv1d, conv2d, ...            pool.py      max_pool2d, avg_pool2d, ...
    normalization.py  layer_norm, batch_norm, ...    attention.py scaled_dot_product_attention
    linear.py         linear                         dropout.py   dropout
    sparse.py         embedding, one_hot             shape.py     pad
    vision.py         interpolate                    distance.py  pairwise_distance, cosine_similarity
    margin_loss.py    margin_ranking_loss, triplet_margin_loss, multi_margin_loss, ...
"""

from minigrad.nn.functional.activation import (
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    logsigmoid,
    logsumexp,
    mish,
    prelu,
    relu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
    threshold_,
)
from minigrad.nn.functional.attention import scaled_dot_product_attention
from minigrad.nn.functional.conv import conv1d, conv2d, conv_transpose2d
from minigrad.nn.functional.distance import cosine_similarity, pairwise_distance
from minigrad.nn.functional.dropout import dropout
from minigrad.nn.functional.linear import linear
from minigrad.nn.functional.loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    gaussian_nll_loss,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
)
from minigrad.nn.functional.margin_loss import (
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from minigrad.nn.functional.normalization import batch_norm, group_norm, layer_norm, normalize, rms_norm
from minigrad.nn.functional.pool import adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from minigrad.nn.functional.shape import pad
from minigrad.nn.functional.sparse import embedding, one_hot
from minigrad.nn.functional.vision import interpolate

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "conv1d",
    "conv2d",
    "conv_transpose2d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "elu",
    "elu_",
    "embedding",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "group_norm",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "hinge_embedding_loss",
    "huber_loss",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "logsigmoid",
    "logsumexp",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "mish",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "scaled_dot_product_attention",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]
