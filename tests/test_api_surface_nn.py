"""torch.nn.functional's long tail, table-driven: each row proves one name against torch.

Rows are written once for both libraries (see tests/test_api_surface.py for the rules and
tests/surface.py for the machinery): the function runs on torch and on minigrad with the
same inputs; results, input gradients and a float64 gradient check are compared. The
layers (torch.nn.X) are compared in tests/test_nn_tail.py.
"""

import importlib

import numpy as np
import pytest

from .surface import case, ids, ints, pos, run, unit  # noqa: F401  (row helpers)


def F(lib):
    return lib.nn.functional


# sampling points, some outside
GRID = np.random.default_rng(3).uniform(-1.4, 1.4, size=(2, 2, 3, 2))
# padded; lengths 3, 2, 4 (4, 4 needs a blank)
CTC_TARGETS = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 4, 1, 2]])
SIGNS = np.array([1.0, -1.0, -1.0, 1.0, 1.0])  # labels y = +-1 of five samples
SIGNS_2x3 = np.array([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])
WEIGHTS = np.array([0.5, 2.0, 1.0, 0.25])  # one per class
CLASSES = np.array([2, 0, 3, 3, 1])  # class indices of five samples, four classes
# multilabel targets: each row lists classes, ended by -1 (what follows is ignored)
LABEL_LISTS = np.array([[3, 0, -1, 1], [1, -1, 2, 2], [0, 1, 2, 3], [2, 2, -1, -1], [-1, 0, 1, 2]])
MULTI_HOT = np.array(
    [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.0],
        [1.0, 1.0, 1.0, 1.0],
        [0.0, 0.0, 1.0, 0.0],
        [0, 0, 0, 0],
    ]
)


# three bags of four ids, a table of six
BAG_ROWS = np.array([[1, 2, 4, 5], [4, 3, 2, 0], [0, 0, 5, 5]])
IDS = np.array([1, 2, 4, 5, 4, 3, 2, 0, 5])
OFFSETS = np.array([0, 2, 2, 6])  # bags [1 2], [] (empty), [4 5 4 3], [2 0 5]


def with_running_stats(fn, channels, **kwargs):
    """Row body for a normalization with running buffers: made inside (buffers do not
    require grad), and returned after the call, so their update is compared too."""

    def body(lib, x, *rest):
        mean = lib.linspace(-1.0, 1.0, channels, dtype=lib.float64)
        var = lib.linspace(0.5, 2.0, channels, dtype=lib.float64)
        return fn(lib, x, mean, var, *rest, **kwargs), mean, var

    return body


def imported(lib, path):
    """`import torch.<path>` (or minigrad's): the module at an import path."""
    return importlib.import_module(f"{lib.__name__}.{path}")


def rnn(lib):
    return lib.nn.utils.rnn


def in_place(fn):
    """Row body for an in-place function: apply it to a copy y of x (a tensor in the
    graph, as torch requires) and return (its result, y): both must be the new values,
    and the gradient must reach x through the recorded write."""

    def body(lib, x, *rest):
        y = x * 1.0
        return fn(lib, y, *rest), y

    return body


# ---- the table --------------------------------------------------------------------------
CASES = [
    # -- activations --
    case("torch.nn.functional.relu6", lambda lib, x: F(lib).relu6(x * 4), (3, 5)),
    case("torch.nn.functional.hardtanh", lambda lib, x: F(lib).hardtanh(x, -0.5, 0.8), (3, 5)),
    case("torch.nn.functional.hardtanh", lambda lib, x: F(lib).hardtanh(x), (4, 2)),
    case(
        "torch.nn.functional.hardtanh",
        lambda lib, x: F(lib).hardtanh(x, 1.0, -1.0),
        (2,),
        raises=ValueError,
    ),
    case("torch.nn.functional.hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x * 4), (3, 5)),
    case("torch.nn.functional.hardswish", lambda lib, x: F(lib).hardswish(x * 4), (3, 5)),
    case("torch.nn.functional.selu", lambda lib, x: F(lib).selu(x), (3, 5)),
    case("torch.nn.functional.celu", lambda lib, x: F(lib).celu(x, 1.7), (3, 5)),
    case("torch.nn.functional.celu", lambda lib, x: F(lib).celu(x, 0.0), (3,), raises=RuntimeError),
    case("torch.nn.functional.glu", lambda lib, x: F(lib).glu(x), (3, 4)),
    case("torch.nn.functional.glu", lambda lib, x: F(lib).glu(x, 0), (4, 3)),
    case("torch.nn.functional.glu", lambda lib, x: F(lib).glu(x, 1), (4, 3), raises=RuntimeError),
    case("torch.nn.functional.logsigmoid", lambda lib, x: F(lib).logsigmoid(x * 30), (3, 5)),
    case("torch.nn.functional.softmin", lambda lib, x: F(lib).softmin(x, dim=0), (3, 5)),
    case(
        "torch.nn.functional.softmin",
        lambda lib, x: F(lib).softmin(x, -1, dtype=lib.float64),
        (2, 3, 4),
    ),
    case("torch.nn.functional.softsign", lambda lib, x: F(lib).softsign(x), (3, 5)),
    case("torch.nn.functional.softshrink", lambda lib, x: F(lib).softshrink(x), (3, 5)),
    case("torch.nn.functional.softshrink", lambda lib, x: F(lib).softshrink(x, 0.2), (3, 5)),
    case(
        "torch.nn.functional.softshrink",
        lambda lib, x: F(lib).softshrink(x, -1.0),
        (3,),
        raises=RuntimeError,
    ),
    case("torch.nn.functional.hardshrink", lambda lib, x: F(lib).hardshrink(x, 0.3), (3, 5)),
    case("torch.Tensor.hardshrink", lambda lib, x: x.hardshrink(), (3, 5)),
    case("torch.nn.functional.tanhshrink", lambda lib, x: F(lib).tanhshrink(x), (3, 5)),
    case("torch.nn.functional.threshold", lambda lib, x: F(lib).threshold(x, 0.1, -2.0), (3, 5)),
    case(
        "torch.nn.functional.threshold", lambda lib, x: F(lib).threshold(x * 4, 1, 20), ints(3, 5)
    ),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (2, 3, 4), (3,)),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (2, 3), (1,)),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (5,), (1,)),
    case(
        "torch.nn.functional.prelu",
        lambda lib, x, w: F(lib).prelu(x, w),
        (2, 3),
        (2,),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.prelu",
        lambda lib, x, w: F(lib).prelu(x, w),
        (2, 3),
        (1, 3),
        raises=RuntimeError,
    ),
    case("torch.Tensor.prelu", lambda lib, x, w: x.prelu(w), (2, 3, 2, 2), (3,)),
    # rrelu: evaluation is the leaky relu of the mean slope; training draws (values differ)
    case("torch.nn.functional.rrelu", lambda lib, x: F(lib).rrelu(x), (3, 5)),
    case(
        "torch.nn.functional.rrelu",
        lambda lib, x: F(lib).rrelu(x, 0.1, 0.5, training=False),
        (3, 5),
    ),
    case(
        "torch.nn.functional.rrelu",
        lambda lib, x: F(lib).rrelu(x, 0.1, 0.5, training=True),
        (3, 5),
        values=False,
    ),
    case(
        "torch.nn.functional.rrelu",
        lambda lib, x: F(lib).rrelu(x, 0.5, 0.1, True),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.gumbel_softmax",
        lambda lib, x: F(lib).gumbel_softmax(x, 0.5),
        (3, 5),
        values=False,
    ),
    case(
        "torch.nn.functional.gumbel_softmax",
        lambda lib, x: F(lib).gumbel_softmax(x, hard=True, dim=0),
        (3, 5),
        values=False,
    ),
    # -- the in-place twins: they write into a tensor in the graph, as torch's do --
    case("torch.nn.functional.relu_", in_place(lambda lib, y: F(lib).relu_(y)), (3, 5)),
    case("torch.nn.functional.elu_", in_place(lambda lib, y: F(lib).elu_(y, 0.7)), (3, 5)),
    case(
        "torch.nn.functional.leaky_relu_",
        in_place(lambda lib, y: F(lib).leaky_relu_(y, 0.2)),
        (3, 5),
    ),
    case(
        "torch.nn.functional.hardtanh_",
        in_place(lambda lib, y: F(lib).hardtanh_(y, -0.3, 0.4)),
        (3, 5),
    ),
    case("torch.nn.functional.selu_", in_place(lambda lib, y: F(lib).selu_(y)), (3, 5)),
    case("torch.nn.functional.celu_", in_place(lambda lib, y: F(lib).celu_(y, 0.5)), (3, 5)),
    case(
        "torch.nn.functional.threshold_",
        in_place(lambda lib, y: F(lib).threshold_(y, 0.2, 5.0)),
        (3, 5),
    ),
    case("torch.nn.functional.rrelu_", in_place(lambda lib, y: F(lib).rrelu_(y, 0.2, 0.4)), (3, 5)),
    # a leaf
    case("torch.nn.functional.relu_", lambda lib, x: F(lib).relu_(x), (3,), raises=RuntimeError),
    # -- dropout: identity in evaluation, exactly; torch's shapes, dtypes and errors in training --
    case(
        "torch.nn.functional.dropout1d",
        lambda lib, x: F(lib).dropout1d(x, 0.3, training=False),
        (2, 3, 4),
    ),
    case("torch.nn.functional.dropout1d", lambda lib, x: F(lib).dropout1d(x, 0.0), (3, 4)),
    case("torch.nn.functional.dropout1d", lambda lib, x: F(lib).dropout1d(x, 1.0), (2, 3, 4)),
    case(
        "torch.nn.functional.dropout1d", lambda lib, x: F(lib).dropout1d(x), (2, 3, 4), values=False
    ),
    case(
        "torch.nn.functional.dropout1d",
        lambda lib, x: F(lib).dropout1d(x),
        (2, 3, 4, 5),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.dropout1d",
        lambda lib, x: F(lib).dropout1d(x, 1.5),
        (2, 3, 4),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.dropout2d",
        lambda lib, x: F(lib).dropout2d(x, 0.3, training=False),
        (2, 3, 4, 5),
    ),
    case("torch.nn.functional.dropout2d", lambda lib, x: F(lib).dropout2d(x, 1.0), (2, 3, 4, 5)),
    case(
        "torch.nn.functional.dropout2d",
        lambda lib, x: F(lib).dropout2d(x, 0.4),
        (2, 3, 4, 5),
        values=False,
    ),
    case(
        "torch.nn.functional.dropout2d",
        lambda lib, x: F(lib).dropout2d(x, -0.1),
        (2, 3, 4, 5),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.dropout3d",
        lambda lib, x: F(lib).dropout3d(x, 0.3, training=False),
        (2, 3, 2, 2, 2),
    ),
    case("torch.nn.functional.dropout3d", lambda lib, x: F(lib).dropout3d(x, 1.0), (3, 2, 2, 2)),
    case(
        "torch.nn.functional.dropout3d",
        lambda lib, x: F(lib).dropout3d(x),
        (3, 2, 2, 2),
        values=False,
    ),
    # training=False
    case("torch.nn.functional.alpha_dropout", lambda lib, x: F(lib).alpha_dropout(x, 0.3), (3, 4)),
    case(
        "torch.nn.functional.alpha_dropout",
        lambda lib, x: F(lib).alpha_dropout(x, 0.0, training=True),
        (3, 4),
    ),
    case(
        "torch.nn.functional.alpha_dropout",
        lambda lib, x: F(lib).alpha_dropout(x, 1.0, training=True),
        (3, 4),
    ),
    case(
        "torch.nn.functional.alpha_dropout",
        lambda lib, x: F(lib).alpha_dropout(x, 0.2, True),
        (3, 4),
        values=False,
    ),
    case(
        "torch.nn.functional.alpha_dropout",
        lambda lib, x: F(lib).alpha_dropout(x, 2.0),
        (3, 4),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.feature_alpha_dropout",
        lambda lib, x: F(lib).feature_alpha_dropout(x, 0.3),
        (2, 3, 4),
    ),
    case(
        "torch.nn.functional.feature_alpha_dropout",
        lambda lib, x: F(lib).feature_alpha_dropout(x, 1.0, True),
        (2, 3),
    ),
    case(
        "torch.nn.functional.feature_alpha_dropout",
        lambda lib, x: F(lib).feature_alpha_dropout(x, 0.5, True),
        (2, 3, 4),
        values=False,
    ),
    case(
        "torch.nn.functional.feature_alpha_dropout",
        lambda lib, x: F(lib).feature_alpha_dropout(x, 0.5, True),
        (4,),
        raises=RuntimeError,
    ),
    # -- pooling --
    case(
        "torch.nn.functional.max_pool2d_with_indices",
        lambda lib, x: F(lib).max_pool2d_with_indices(x, 3, 2, 1),
        (1, 2, 7, 6),
    ),
    case(
        "torch.nn.functional.max_pool1d_with_indices",
        lambda lib, x: F(lib).max_pool1d_with_indices(x, 2, ceil_mode=True),
        (2, 3, 7),
    ),
    case(
        "torch.nn.functional.adaptive_avg_pool1d",
        lambda lib, x: F(lib).adaptive_avg_pool1d(x, 3),
        (2, 3, 7),
    ),
    case(
        "torch.nn.functional.adaptive_avg_pool1d",
        lambda lib, x: F(lib).adaptive_avg_pool1d(x, (5,)),
        (3, 8),
    ),
    case(
        "torch.nn.functional.adaptive_avg_pool1d",
        lambda lib, x: F(lib).adaptive_avg_pool1d(x, (2, 3)),
        (3, 8),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.adaptive_max_pool2d",
        lambda lib, x: F(lib).adaptive_max_pool2d(x, (3, 2)),
        (2, 3, 7, 5),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool2d",
        lambda lib, x: F(lib).adaptive_max_pool2d(x, 4, return_indices=True),
        (3, 9, 6),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool2d",
        lambda lib, x: F(lib).adaptive_max_pool2d(x, (None, 3)),
        (1, 2, 4, 7),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool2d",
        lambda lib, x: F(lib).adaptive_max_pool2d(x, (6, 7)),
        (1, 2, 4, 5),
    ),  # windows of 1 or 2
    case(
        "torch.nn.functional.adaptive_max_pool2d_with_indices",
        lambda lib, x: F(lib).adaptive_max_pool2d_with_indices(x, 2),
        (2, 3, 5, 5),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool1d",
        lambda lib, x: F(lib).adaptive_max_pool1d(x, 3),
        (2, 3, 8),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool1d",
        lambda lib, x: F(lib).adaptive_max_pool1d(x, 5, True),
        (3, 7),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool1d_with_indices",
        lambda lib, x: F(lib).adaptive_max_pool1d_with_indices(x, 4),
        (2, 3, 9),
    ),
    case(
        "torch.nn.functional.lp_pool2d",
        lambda lib, x: F(lib).lp_pool2d(x, 2, 3, 2),
        pos(2, 3, 7, 6),
    ),
    case(
        "torch.nn.functional.lp_pool2d",
        lambda lib, x: F(lib).lp_pool2d(x, 1.5, (2, 3), ceil_mode=True),
        pos(2, 3, 7, 5),
    ),
    case("torch.nn.functional.lp_pool2d", lambda lib, x: F(lib).lp_pool2d(x, 3, 2), pos(3, 4, 4)),
    case("torch.nn.functional.lp_pool1d", lambda lib, x: F(lib).lp_pool1d(x, 2, 3), pos(2, 3, 8)),
    case(
        "torch.nn.functional.lp_pool1d",
        lambda lib, x: F(lib).lp_pool1d(x, 1, 2, 1, True),
        pos(3, 7),
    ),
    case(
        "torch.nn.functional.max_unpool2d",
        lambda lib, x: F(lib).max_unpool2d(*F(lib).max_pool2d(x, 2, return_indices=True), 2),
        (2, 3, 6, 4),
    ),
    case(  # floor mode dropped the last row and column: output_size says so
        "torch.nn.functional.max_unpool2d",
        lambda lib, x: F(lib).max_unpool2d(
            *F(lib).max_pool2d(x, 2, return_indices=True), 2, output_size=x.shape
        ),
        (2, 3, 7, 5),
    ),
    case(
        "torch.nn.functional.max_unpool2d",
        lambda lib, x: F(lib).max_unpool2d(
            *F(lib).max_pool2d(x, 2, return_indices=True), 2, output_size=(8, 8)
        ),
        (3, 6, 6),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.max_unpool2d",
        lambda lib, x: F(lib).max_unpool2d(x, lib.tensor([[[[0, 1], [2, 99]]]]), 2),
        (1, 1, 2, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.max_unpool1d",
        lambda lib, x: F(lib).max_unpool1d(
            *F(lib).max_pool1d(x, 2, return_indices=True), 2, output_size=x.shape
        ),
        (2, 3, 7),
    ),
    case(
        "torch.nn.functional.max_unpool1d",
        lambda lib, x: F(lib).max_unpool1d(
            *F(lib).max_pool1d(x, 3, 3, 1, return_indices=True), 3, 3, 1
        ),
        (3, 7),
    ),
    # -- pooling over volumes --
    case("torch.nn.functional.avg_pool3d", lambda lib, x: F(lib).avg_pool3d(x, 2), (2, 3, 4, 5, 4)),
    case(
        "torch.nn.functional.avg_pool3d",
        lambda lib, x: F(lib).avg_pool3d(x, (3, 2, 3), (2, 1, 2), 1, True, False),
        (2, 2, 5, 4, 6),
    ),
    case(
        "torch.nn.functional.avg_pool3d",
        lambda lib, x: F(lib).avg_pool3d(x, 3, 2, 1, divisor_override=5),
        (2, 5, 4, 6),
    ),
    case(
        "torch.nn.functional.avg_pool3d",
        lambda lib, x: F(lib).avg_pool3d(x, 3, ceil_mode=True, count_include_pad=True),
        (1, 2, 4, 5, 7),
    ),
    case("torch.nn.functional.max_pool3d", lambda lib, x: F(lib).max_pool3d(x, 2), (2, 3, 4, 5, 4)),
    case(
        "torch.nn.functional.max_pool3d",
        lambda lib, x: F(lib).max_pool3d(x, (3, 2, 3), (2, 1, 2), 1, (1, 2, 1), True, True),
        (2, 2, 5, 6, 6),
    ),
    case(
        "torch.nn.functional.max_pool3d",
        lambda lib, x: F(lib).max_pool3d(x, 3, 1, 1, return_indices=True),
        (2, 4, 3, 5),
    ),
    case(
        "torch.nn.functional.max_pool3d_with_indices",
        lambda lib, x: F(lib).max_pool3d_with_indices(x, 2, 1),
        (1, 2, 3, 4, 3),
    ),
    case(
        "torch.nn.functional.adaptive_avg_pool3d",
        lambda lib, x: F(lib).adaptive_avg_pool3d(x, (2, 3, 2)),
        (2, 3, 5, 7, 4),
    ),
    case(
        "torch.nn.functional.adaptive_avg_pool3d",
        lambda lib, x: F(lib).adaptive_avg_pool3d(x, (None, 1, 3)),
        (2, 4, 3, 5),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool3d",
        lambda lib, x: F(lib).adaptive_max_pool3d(x, (2, 3, 2), True),
        (2, 3, 5, 7, 4),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool3d",
        lambda lib, x: F(lib).adaptive_max_pool3d(x, 2),
        (2, 4, 3, 5),
    ),
    case(
        "torch.nn.functional.adaptive_max_pool3d_with_indices",
        lambda lib, x: F(lib).adaptive_max_pool3d_with_indices(x, (3, None, 2)),
        (1, 2, 5, 4, 5),
    ),
    case(
        "torch.nn.functional.lp_pool3d",
        lambda lib, x: F(lib).lp_pool3d(x, 2, 2),
        pos(2, 3, 4, 5, 4),
    ),
    case(
        "torch.nn.functional.lp_pool3d",
        lambda lib, x: F(lib).lp_pool3d(x, 1.5, (2, 3, 2), 1, True),
        pos(2, 4, 5, 3),
    ),
    case(
        "torch.nn.functional.max_unpool3d",
        lambda lib, x: F(lib).max_unpool3d(
            *F(lib).max_pool3d(x, 2, return_indices=True), 2, output_size=x.shape
        ),
        (2, 3, 4, 5, 5),
    ),
    case(
        "torch.nn.functional.max_unpool3d",
        lambda lib, x: F(lib).max_unpool3d(
            *F(lib).max_pool3d(x, (1, 2, 2), return_indices=True), (1, 2, 2)
        ),
        (2, 3, 4, 4),
    ),
    # -- normalization --
    case("torch.nn.functional.instance_norm", lambda lib, x: F(lib).instance_norm(x), (2, 3, 5)),
    case(
        "torch.nn.functional.instance_norm",
        lambda lib, x, w, b: F(lib).instance_norm(x, weight=w, bias=b, eps=0.1),
        (2, 3, 4, 5),
        (3,),
        (3,),
    ),
    case(
        "torch.nn.functional.instance_norm",
        # the updated buffers are compared by tests/test_nn_tail.py (they are no function of x to
        # gradcheck)
        lambda lib, x, w, b: F(lib).instance_norm(
            x, lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), w, b, momentum=0.3
        ),
        (2, 3, 4, 2),
        (3,),
        (3,),
    ),
    case(
        "torch.nn.functional.instance_norm",
        with_running_stats(
            lambda lib, x, m, v: F(lib).instance_norm(x, m, v, use_input_stats=False), 4
        ),
        (2, 4, 3),
    ),
    case(
        "torch.nn.functional.instance_norm",
        lambda lib, x: F(lib).instance_norm(x),
        (2, 3, 1, 1),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.local_response_norm",
        lambda lib, x: F(lib).local_response_norm(x, 3),
        (2, 5, 4, 3),
    ),
    case(
        "torch.nn.functional.local_response_norm",
        lambda lib, x: F(lib).local_response_norm(x, 2, 0.1, 0.5, 2.0),
        (2, 6, 7),
    ),
    case(
        "torch.nn.functional.local_response_norm",
        lambda lib, x: F(lib).local_response_norm(x, 4, 0.2, 0.9, 1.5),
        (1, 5, 2, 3, 2),
    ),
    case(
        "torch.nn.functional.local_response_norm",
        lambda lib, x: F(lib).local_response_norm(x, 3),
        (2, 5),
        raises=ValueError,
    ),
    # -- linear, shuffles, windows, convolution --
    case(
        "torch.nn.functional.bilinear",
        lambda lib, a, b, w, c: F(lib).bilinear(a, b, w, c),
        (5, 3),
        (5, 2),
        (4, 3, 2),
        (4,),
    ),
    case(
        "torch.nn.functional.bilinear",
        lambda lib, a, b, w: F(lib).bilinear(a, b, w),
        (2, 3, 3),
        (2, 3, 2),
        (4, 3, 2),
    ),
    case(
        "torch.nn.functional.bilinear",
        lambda lib, a, b, w: F(lib).bilinear(a, b, w),
        (3,),
        (2,),
        (1, 3, 2),
    ),
    case(
        "torch.nn.functional.bilinear",
        lambda lib, a, b, w: F(lib).bilinear(a, b, w),
        (5, 3),
        (4, 2),
        (4, 3, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.bilinear",
        lambda lib, a, b, w: F(lib).bilinear(a, b, w),
        (5, 3),
        (5, 2),
        (4, 2, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.pixel_shuffle", lambda lib, x: F(lib).pixel_shuffle(x, 2), (2, 8, 3, 2)
    ),
    case(
        "torch.nn.functional.pixel_shuffle",
        lambda lib, x: F(lib).pixel_shuffle(x, 3),
        (2, 1, 9, 2, 2),
    ),
    case(
        "torch.nn.functional.pixel_shuffle",
        lambda lib, x: F(lib).pixel_shuffle(x, 2),
        (2, 6, 3, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.pixel_unshuffle",
        lambda lib, x: F(lib).pixel_unshuffle(x, 2),
        (2, 3, 4, 6),
    ),
    case(
        "torch.nn.functional.pixel_unshuffle",
        lambda lib, x: F(lib).pixel_unshuffle(x, 3),
        (2, 6, 3),
    ),
    case(
        "torch.nn.functional.pixel_unshuffle",
        lambda lib, x: F(lib).pixel_unshuffle(x, 2),
        (1, 2, 5, 4),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.channel_shuffle",
        lambda lib, x: F(lib).channel_shuffle(x, 3),
        (2, 6, 2, 3),
    ),
    case(
        "torch.nn.functional.channel_shuffle",
        lambda lib, x: F(lib).channel_shuffle(x, 2),
        (4, 4, 3),
    ),
    case(
        "torch.nn.functional.channel_shuffle",
        lambda lib, x: F(lib).channel_shuffle(x, 2),
        (2, 5, 3),
        raises=RuntimeError,
    ),
    case("torch.nn.functional.unfold", lambda lib, x: F(lib).unfold(x, 2), (2, 3, 4, 5)),
    case(
        "torch.nn.functional.unfold",
        lambda lib, x: F(lib).unfold(x, (2, 3), dilation=2, padding=1, stride=(1, 2)),
        (2, 3, 5, 6),
    ),
    case(
        "torch.nn.functional.unfold",
        lambda lib, x: F(lib).unfold(x, 3, padding=(0, 1), stride=2),
        (3, 7, 5),
    ),
    case(
        "torch.nn.functional.unfold",
        lambda lib, x: F(lib).unfold(x, 4),
        (1, 2, 3, 3),
        raises=RuntimeError,
    ),
    case("torch.nn.functional.fold", lambda lib, x: F(lib).fold(x, (4, 5), 2), (2, 12, 12)),
    case(
        "torch.nn.functional.fold",
        lambda lib, x: F(lib).fold(x, (5, 6), (2, 3), dilation=2, padding=1, stride=(1, 2)),
        (2, 18, 10),
    ),
    case("torch.nn.functional.fold", lambda lib, x: F(lib).fold(x, 7, 3, stride=2), (18, 9)),
    case(
        "torch.nn.functional.fold",
        lambda lib, x: F(lib).fold(x, (4, 5), 2),
        (1, 10, 12),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.fold",
        lambda lib, x: F(lib).fold(x, (4, 5), 2),
        (1, 12, 10),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.conv_transpose1d",
        lambda lib, x, w, b: F(lib).conv_transpose1d(x, w, b),
        (2, 3, 5),
        (3, 4, 3),
        (4,),
    ),
    case(
        "torch.nn.functional.conv_transpose1d",
        lambda lib, x, w: F(lib).conv_transpose1d(x, w, None, 2, 1, 1, 2, 2),
        (2, 4, 5),
        (4, 3, 3),
    ),
    case(
        "torch.nn.functional.conv_transpose1d",
        lambda lib, x, w: F(lib).conv_transpose1d(x, w, stride=3),
        (4, 6),
        (4, 2, 2),
    ),
    # -- bags of embeddings --
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor(BAG_ROWS), w),
        (6, 3),
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w, p: F(lib).embedding_bag(
            lib.tensor(IDS), w, lib.tensor(OFFSETS), mode="sum", per_sample_weights=p
        ),
        (6, 3),
        (9,),
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor(IDS), w, lib.tensor(OFFSETS), mode="max"),
        (6, 4),
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor(BAG_ROWS), w, mode="max", padding_idx=5),
        (6, 4),
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor(IDS), w, lib.tensor(OFFSETS), padding_idx=2),
        (6, 3),
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(
            lib.tensor(IDS), w, lib.tensor([0, 3, 7]), mode="sum", include_last_offset=True
        ),
        (6, 3),
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w, p: F(lib).embedding_bag(
            lib.tensor(IDS), w, lib.tensor(OFFSETS), per_sample_weights=p
        ),
        (6, 3),
        (9,),
        raises=NotImplementedError,
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor(BAG_ROWS), w, lib.tensor([0, 1])),
        (6, 3),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor(IDS), w),
        (6, 3),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.embedding_bag",
        lambda lib, w: F(lib).embedding_bag(lib.tensor(BAG_ROWS), w, mode="min"),
        (6, 3),
        raises=ValueError,
    ),
    # -- nn.utils.rnn: padding and packing sequences (gradients flow through both) --
    case(
        "torch.nn.utils.rnn",
        lambda lib: imported(lib, "nn.utils.rnn").pad_sequence is rnn(lib).pad_sequence,
    ),
    case(
        "torch.nn.utils.rnn.pad_sequence",
        lambda lib, a, b, c: rnn(lib).pad_sequence([a, b, c]),
        (3, 2),
        (1, 2),
        (4, 2),
    ),
    case(
        "torch.nn.utils.rnn.pad_sequence",
        lambda lib, a, b: rnn(lib).pad_sequence(
            [a, b], batch_first=True, padding_value=-1.0, padding_side="left"
        ),
        (3,),
        (5,),
    ),
    case(
        "torch.nn.utils.rnn.unpad_sequence",
        lambda lib, x: rnn(lib).unpad_sequence(x * 1, lib.tensor([4, 1, 3])),
        (4, 3, 2),
    ),
    case(
        "torch.nn.utils.rnn.unpad_sequence",
        lambda lib, x: rnn(lib).unpad_sequence(x, lib.tensor([2, 4]), batch_first=True),
        (2, 4),
    ),
    case(
        "torch.nn.utils.rnn.pack_padded_sequence",
        lambda lib, x: rnn(lib).pack_padded_sequence(x, [4, 3, 3, 1]),
        (4, 4, 2),
    ),
    case(
        "torch.nn.utils.rnn.pack_padded_sequence",
        lambda lib, x: rnn(lib).pack_padded_sequence(
            x, lib.tensor([2, 5, 1, 5]), batch_first=True, enforce_sorted=False
        ),
        (4, 5),
    ),
    case(
        "torch.nn.utils.rnn.pack_padded_sequence",
        lambda lib, x: rnn(lib).pack_padded_sequence(x, [1, 3]),
        (3, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.utils.rnn.pack_padded_sequence",
        lambda lib, x: rnn(lib).pack_padded_sequence(x, [3, 0], enforce_sorted=False),
        (3, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.utils.rnn.pad_packed_sequence",
        lambda lib, x: rnn(lib).pad_packed_sequence(
            rnn(lib).pack_padded_sequence(x, [2, 5, 1], enforce_sorted=False)
        ),
        (5, 3, 2),
    ),
    case(
        "torch.nn.utils.rnn.pad_packed_sequence",
        lambda lib, x: rnn(lib).pad_packed_sequence(
            rnn(lib).pack_padded_sequence(x, [3, 1], batch_first=True),
            batch_first=True,
            padding_value=9.0,
            total_length=5,
        ),
        (2, 3),
    ),
    case(
        "torch.nn.utils.rnn.pad_packed_sequence",
        lambda lib, x: rnn(lib).pad_packed_sequence(
            rnn(lib).pack_padded_sequence(x, [3, 2]), total_length=2
        ),
        (3, 2),
        raises=ValueError,
    ),
    case(
        "torch.nn.utils.rnn.pack_sequence",
        lambda lib, a, b, c: rnn(lib).pack_sequence([a, b, c]),
        (4, 2),
        (2, 2),
        (1, 2),
    ),
    case(
        "torch.nn.utils.rnn.pack_sequence",
        lambda lib, a, b, c: rnn(lib).pack_sequence([a, b, c], enforce_sorted=False),
        (2,),
        (4,),
        (2,),  # a tie: the stable order keeps the first before the third
    ),
    case(
        "torch.nn.utils.rnn.unpack_sequence",
        lambda lib, a, b, c: rnn(lib).unpack_sequence(
            rnn(lib).pack_sequence([a, b, c], enforce_sorted=False)
        ),
        (2, 3),
        (4, 3),
        (1, 3),
    ),
    case(
        "torch.nn.utils.rnn.PackedSequence",
        lambda lib, x: (
            lambda p: rnn(lib).PackedSequence(p.data * 2, p.batch_sizes, p.sorted_indices)
        )(rnn(lib).pack_padded_sequence(x, [1, 3], enforce_sorted=False)),
        (3, 2),
    ),
    case(
        "torch.nn.utils.rnn.PackedSequence",
        lambda lib, x: rnn(lib).pack_padded_sequence(x.detach(), [3, 1]).float(),  # float32 data
        (3, 2),
    ),
    case(
        "torch.nn.utils.rnn.invert_permutation",
        lambda lib: rnn(lib).invert_permutation(lib.tensor([2, 0, 3, 1])),
    ),
    case("torch.nn.utils.rnn.invert_permutation", lambda lib: rnn(lib).invert_permutation(None)),
    case(
        "torch.nn.utils.parametrize",
        lambda lib: imported(lib, "nn.utils.parametrize").cached is lib.nn.utils.parametrize.cached,
    ),
    case(
        "torch.nn.utils.parametrizations",
        lambda lib: (
            imported(lib, "nn.utils.parametrizations").weight_norm
            is lib.nn.utils.parametrizations.weight_norm
        ),
    ),
    case(
        "torch.nn.functional.conv3d",
        lambda lib, x, w, b: F(lib).conv3d(x, w, b),
        (1, 2, 4, 3, 3),
        (2, 2, 3, 2, 2),
        (2,),
    ),
    case(
        "torch.nn.functional.conv3d",
        lambda lib, x, w: F(lib).conv3d(x, w, None, (2, 1, 2), (1, 0, 1), (2, 1, 1), 2),
        (1, 4, 5, 3, 4),
        (2, 2, 2, 2, 2),
    ),
    case(
        "torch.nn.functional.conv3d",
        lambda lib, x, w: F(lib).conv3d(x, w, padding="same", dilation=(1, 2, 1)),
        (2, 3, 4, 3),
        (2, 2, 2, 3, 2),
    ),
    case(
        "torch.nn.functional.conv3d",
        lambda lib, x, w: F(lib).conv3d(x, w),
        (2, 3, 4, 4, 4),
        (4, 2, 3, 3, 3),
        raises=RuntimeError,
    ),
    case("torch.nn.functional.pdist", lambda lib, x: F(lib).pdist(x), (5, 3)),
    case("torch.nn.functional.pdist", lambda lib, x: F(lib).pdist(x, 1), (4, 6)),
    case("torch.nn.functional.pdist", lambda lib, x: F(lib).pdist(x, 3.5), (4, 2)),
    case("torch.nn.functional.pdist", lambda lib, x: F(lib).pdist(x, float("inf")), (4, 3)),
    case("torch.nn.functional.pdist", lambda lib, x: F(lib).pdist(x, 0), (4, 3)),
    case("torch.nn.functional.pdist", lambda lib, x: F(lib).pdist(x), (5,), raises=RuntimeError),
    case(
        "torch.nn.functional.pdist",
        lambda lib, x: F(lib).pdist(x, -1.0),
        (5, 2),
        raises=RuntimeError,
    ),
    # -- sampling at arbitrary points --
    case(
        "torch.nn.functional.affine_grid",
        lambda lib, t: F(lib).affine_grid(t, (2, 3, 4, 5), align_corners=False),
        (2, 2, 3),
    ),
    case(
        "torch.nn.functional.affine_grid",
        lambda lib, t: F(lib).affine_grid(t, [2, 1, 3, 1], align_corners=True),
        (2, 2, 3),
    ),
    case(
        "torch.nn.functional.affine_grid",
        lambda lib, t: F(lib).affine_grid(t, (1, 2, 2, 3, 4), align_corners=True),
        (1, 3, 4),
    ),
    case(
        "torch.nn.functional.affine_grid",
        lambda lib, t: F(lib).affine_grid(t, (2, 3, 4, 5), False),
        (2, 3, 3),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.affine_grid",
        lambda lib, t: F(lib).affine_grid(t, (2, 3, 4), False),
        (2, 2, 3),
        raises=NotImplementedError,
    ),
    *[
        case(
            "torch.nn.functional.grid_sample",
            lambda lib, x, g, mode=mode, pad=pad, align=align: F(lib).grid_sample(
                x, g, mode, pad, align
            ),
            (2, 2, 3, 4),
            (2, 2, 3, 2),
        )
        for mode in ("bilinear", "bicubic")
        for pad in ("zeros", "border", "reflection")
        for align in (False, True)
    ],
    *[  # nearest: piecewise constant in the grid, so the grid is a constant here
        case(
            "torch.nn.functional.grid_sample",
            lambda lib, x, pad=pad, align=align: F(lib).grid_sample(
                x, lib.tensor(GRID), "nearest", pad, align
            ),
            (2, 2, 3, 4),
        )
        for pad in ("zeros", "border", "reflection")
        for align in (False, True)
    ],
    case(
        "torch.nn.functional.grid_sample",
        lambda lib, x, g: F(lib).grid_sample(x, g, "bilinear", "reflection", True),
        (1, 2, 3, 4, 3),
        (1, 2, 2, 3, 3),
    ),
    case(
        "torch.nn.functional.grid_sample",
        lambda lib, x, g: F(lib).grid_sample(x, g, align_corners=False),
        (2, 3, 4, 5),
        (2, 6, 7, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.grid_sample",
        lambda lib, x, g: F(lib).grid_sample(x, g, "cubic", align_corners=False),
        (2, 3, 4, 5),
        (2, 6, 7, 2),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.grid_sample",
        lambda lib, x, g: F(lib).grid_sample(x, g, "bicubic", align_corners=True),
        (1, 2, 3, 4, 3),
        (1, 2, 2, 3, 3),
        raises=RuntimeError,
    ),
    # -- margin losses --
    case(
        "torch.nn.functional.margin_ranking_loss",
        lambda lib, a, b, y: F(lib).margin_ranking_loss(a, b, y),
        (5,),
        (5,),
        SIGNS,
    ),
    case(
        "torch.nn.functional.margin_ranking_loss",
        lambda lib, a, b, y: F(lib).margin_ranking_loss(a, b, y, margin=0.5, reduction="none"),
        (2, 3),
        (1, 3),
        SIGNS_2x3,
    ),
    case(
        "torch.nn.functional.margin_ranking_loss",
        lambda lib, a, b, y: F(lib).margin_ranking_loss(a, b, y, 0.1, reduction="sum"),
        (5,),
        (5,),
        SIGNS,
    ),
    case(
        "torch.nn.functional.margin_ranking_loss",
        lambda lib, a, b, y: F(lib).margin_ranking_loss(a, b, y),
        (3,),
        (3,),
        (1, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.hinge_embedding_loss",
        lambda lib, x, y: F(lib).hinge_embedding_loss(x, y),
        pos(5),
        SIGNS,
    ),
    case(
        "torch.nn.functional.hinge_embedding_loss",
        lambda lib, x, y: F(lib).hinge_embedding_loss(x, y, margin=1.5, reduction="none"),
        (2, 3),
        SIGNS_2x3,
    ),
    case(
        "torch.nn.functional.hinge_embedding_loss",
        lambda lib, x, y: F(lib).hinge_embedding_loss(x, y, reduction="sum"),
        (2, 3),
        SIGNS_2x3[0],
    ),
    # torch's soft_margin_loss and multi_margin_loss refuse a target (weight) that requires grad:
    # constants here
    case(
        "torch.nn.functional.soft_margin_loss",
        lambda lib, x: F(lib).soft_margin_loss(x, lib.tensor(SIGNS)),
        (5,),
    ),
    case(
        "torch.nn.functional.soft_margin_loss",
        lambda lib, x: F(lib).soft_margin_loss(x, lib.tensor(SIGNS_2x3), reduction="none"),
        (2, 3),
    ),
    case(
        "torch.nn.functional.soft_margin_loss",
        lambda lib, x: F(lib).soft_margin_loss(x, lib.tensor(SIGNS_2x3), reduce=False),
        (2, 3),
    ),
    case(
        "torch.nn.functional.soft_margin_loss",
        lambda lib, x: F(lib).soft_margin_loss(x, lib.tensor(SIGNS_2x3), size_average=False),
        (2, 3),
    ),
    case(
        "torch.nn.functional.cosine_embedding_loss",
        lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y),
        (5, 3),
        (5, 3),
        SIGNS,
    ),
    case(
        "torch.nn.functional.cosine_embedding_loss",
        lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y, margin=-0.2, reduction="none"),
        (5, 3),
        (1, 3),
        SIGNS,
    ),
    case(
        "torch.nn.functional.cosine_embedding_loss",
        lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y, reduction="sum"),
        (4,),
        (4,),
        np.array(-1.0),
    ),
    case(
        "torch.nn.functional.cosine_embedding_loss",
        lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y),
        (2, 3, 4),
        (2, 3, 4),
        (2,),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.cosine_embedding_loss",
        lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y),
        (2, 3),
        (2, 3),
        (2, 1),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n),
        (5, 3),
        (5, 3),
        (5, 3),
    ),
    case(
        "torch.nn.functional.triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(
            a, p, n, margin=2.0, p=1, swap=True, reduction="none"
        ),
        (5, 3),
        (5, 3),
        (5, 3),
    ),
    case(
        "torch.nn.functional.triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, p=3, eps=0.1, reduction="sum"),
        (2, 3, 4),
        (2, 3, 4),
        (2, 3, 4),
    ),
    case(
        "torch.nn.functional.triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n, margin=0.0),
        (2, 3),
        (2, 3),
        (2, 3),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.triplet_margin_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n),
        (2, 3),
        (2, 3),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.triplet_margin_with_distance_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(a, p, n),
        (5, 3),
        (5, 3),
        (5, 3),
    ),
    case(
        "torch.nn.functional.triplet_margin_with_distance_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(
            a,
            p,
            n,
            distance_function=lambda u, v: 1.0 - F(lib).cosine_similarity(u, v),
            margin=0.5,
            swap=True,
            reduction="none",
        ),
        (5, 3),
        (5, 3),
        (5, 3),
    ),
    case(
        "torch.nn.functional.triplet_margin_with_distance_loss",
        lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(a, p, n, margin=-1.0),
        (2, 3),
        (2, 3),
        (2, 3),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.multi_margin_loss",
        lambda lib, x: F(lib).multi_margin_loss(x, lib.tensor(CLASSES)),
        (5, 4),
    ),
    case(
        "torch.nn.functional.multi_margin_loss",
        lambda lib, x: F(lib).multi_margin_loss(
            x, lib.tensor(CLASSES), p=2, margin=0.7, weight=lib.tensor(WEIGHTS), reduction="none"
        ),
        (5, 4),
    ),
    case(
        "torch.nn.functional.multi_margin_loss",
        lambda lib, x: F(lib).multi_margin_loss(x, lib.tensor(1), reduction="sum"),
        (4,),
    ),
    case(
        "torch.nn.functional.multi_margin_loss",
        lambda lib, x: F(lib).multi_margin_loss(x, lib.tensor(CLASSES), p=3),
        (5, 4),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.multi_margin_loss",
        lambda lib, x: F(lib).multi_margin_loss(x, lib.tensor(CLASSES)),
        (5, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.multi_margin_loss",
        lambda lib, x, w: F(lib).multi_margin_loss(x, lib.tensor(CLASSES), weight=w),
        (5, 4),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.multilabel_margin_loss",
        lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor(LABEL_LISTS)),
        (5, 4),
    ),
    case(
        "torch.nn.functional.multilabel_margin_loss",
        lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor(LABEL_LISTS), reduction="none"),
        (5, 4),
    ),
    case(
        "torch.nn.functional.multilabel_margin_loss",
        lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor(LABEL_LISTS[0])),
        (4,),
    ),
    case(
        "torch.nn.functional.multilabel_margin_loss",
        lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor(LABEL_LISTS)),
        (5, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.multilabel_margin_loss",
        lambda lib, x: F(lib).multilabel_margin_loss(x, lib.tensor(CLASSES)),
        (5, 4),
        raises=RuntimeError,
    ),
    case(
        "torch.nn.functional.multilabel_soft_margin_loss",
        lambda lib, x, y: F(lib).multilabel_soft_margin_loss(x, y),
        (5, 4),
        MULTI_HOT,
    ),
    case(
        "torch.nn.functional.multilabel_soft_margin_loss",
        lambda lib, x, y, w: F(lib).multilabel_soft_margin_loss(x, y, weight=w, reduction="none"),
        (5, 4),
        MULTI_HOT,
        pos(4),
    ),
    # -- CTC: through log_softmax, where torch's gradient is the true one (see
    # minigrad/nn/functional/ctc.py) --
    *[
        case(
            "torch.nn.functional.ctc_loss",
            lambda lib, x, reduction=reduction: F(lib).ctc_loss(
                x.log_softmax(2),
                lib.tensor(CTC_TARGETS),
                lib.tensor([6, 5, 6]),
                lib.tensor([3, 2, 4]),
                reduction=reduction,
            ),
            (6, 3, 5),
        )
        for reduction in ("mean", "sum", "none")
    ],
    case(  # concatenated targets, another blank
        "torch.nn.functional.ctc_loss",
        lambda lib, x: F(lib).ctc_loss(
            x.log_softmax(2), lib.tensor([1, 2, 2, 0, 1]), [6, 5], [3, 2], blank=4
        ),
        (6, 2, 5),
    ),
    case(  # one sequence: (T, C) and a 1-D target
        "torch.nn.functional.ctc_loss",
        lambda lib, x: F(lib).ctc_loss(
            x.log_softmax(1), lib.tensor([2, 1, 1]), [7], [3], reduction="sum"
        ),
        (7, 4),
    ),
    # the second target cannot fit in 2 steps (2, 2 needs a blank between): an infinite loss, zeroed
    case(
        "torch.nn.functional.ctc_loss",
        lambda lib, x: F(lib).ctc_loss(
            x.log_softmax(2),
            lib.tensor([[1, 2], [2, 2]]),
            [5, 2],
            [2, 2],
            reduction="none",
            zero_infinity=True,
        ),
        (5, 2, 3),
    ),
    case(
        "torch.nn.functional.ctc_loss",
        lambda lib, x: F(lib).ctc_loss(x.log_softmax(2), lib.tensor([[1, 2]]), [4], [2], blank=5),
        (4, 1, 3),
        raises=RuntimeError,
    ),
    # -- likelihoods --
    case(
        "torch.nn.functional.gaussian_nll_loss",
        lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v),
        (5, 3),
        (5, 3),
        pos(5, 3),
    ),
    case(
        "torch.nn.functional.gaussian_nll_loss",
        lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v, full=True, reduction="none"),
        (5, 3),
        (5, 3),
        pos(5),
    ),
    case(
        "torch.nn.functional.gaussian_nll_loss",
        lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v, reduction="sum"),
        (2, 3, 4),
        (2, 3, 4),
        pos(2, 1, 4),
    ),
    case(
        "torch.nn.functional.gaussian_nll_loss",
        lambda lib, x, y: F(lib).gaussian_nll_loss(x, y, 0.5),
        (5, 3),
        (5, 3),
    ),
    case(
        "torch.nn.functional.gaussian_nll_loss",
        lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, -v),
        (5, 3),
        (5, 3),
        pos(5, 3),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.gaussian_nll_loss",
        lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v),
        (5, 3),
        (5, 3),
        pos(3, 3),
        raises=ValueError,
    ),
    case(
        "torch.nn.functional.poisson_nll_loss",
        lambda lib, x, y: F(lib).poisson_nll_loss(x, y),
        (5, 3),
        pos(5, 3),
    ),
    case(
        "torch.nn.functional.poisson_nll_loss",
        lambda lib, x, y: F(lib).poisson_nll_loss(
            x, y * 3, log_input=False, full=True, reduction="none"
        ),
        pos(5, 3),
        pos(5, 3),
    ),
    case(
        "torch.nn.functional.poisson_nll_loss",
        lambda lib, x, y: F(lib).poisson_nll_loss(x, y * 3, full=True, eps=1e-3, reduction="sum"),
        (5, 3),
        pos(5, 3),
    ),
]


@pytest.mark.filterwarnings("ignore:.*size_average and reduce args will be deprecated")
@pytest.mark.filterwarnings(
    "ignore:Since version 1.3.0, affine_grid behavior has changed for unit-size grids"
)
# torch's, about its own copy
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_row(row):
    run(row)
