"""torch.nn.functional's long tail, table-driven: each row proves one name against torch.

Rows are written once for both libraries (see tests/test_api_surface.py for the rules and
tests/surface.py for the machinery): the function runs on torch and on minigrad with the
same inputs; results, input gradients and a float64 gradient check are compared. The
layers (torch.nn.X) are compared in tests/test_nn_tail.py.
"""

import pytest

from .surface import case, ids, ints, pos, run, unit  # noqa: F401  (row helpers)


def F(lib):
    return lib.nn.functional


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
    case("torch.nn.functional.hardtanh", lambda lib, x: F(lib).hardtanh(x, 1.0, -1.0), (2,), raises=ValueError),
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
    case("torch.nn.functional.softmin", lambda lib, x: F(lib).softmin(x, -1, dtype=lib.float64), (2, 3, 4)),
    case("torch.nn.functional.softsign", lambda lib, x: F(lib).softsign(x), (3, 5)),
    case("torch.nn.functional.softshrink", lambda lib, x: F(lib).softshrink(x), (3, 5)),
    case("torch.nn.functional.softshrink", lambda lib, x: F(lib).softshrink(x, 0.2), (3, 5)),
    case("torch.nn.functional.softshrink", lambda lib, x: F(lib).softshrink(x, -1.0), (3,), raises=RuntimeError),
    case("torch.nn.functional.hardshrink", lambda lib, x: F(lib).hardshrink(x, 0.3), (3, 5)),
    case("torch.Tensor.hardshrink", lambda lib, x: x.hardshrink(), (3, 5)),
    case("torch.nn.functional.tanhshrink", lambda lib, x: F(lib).tanhshrink(x), (3, 5)),
    case("torch.nn.functional.threshold", lambda lib, x: F(lib).threshold(x, 0.1, -2.0), (3, 5)),
    case("torch.nn.functional.threshold", lambda lib, x: F(lib).threshold(x * 4, 1, 20), ints(3, 5)),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (2, 3, 4), (3,)),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (2, 3), (1,)),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (5,), (1,)),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (2, 3), (2,), raises=RuntimeError),
    case("torch.nn.functional.prelu", lambda lib, x, w: F(lib).prelu(x, w), (2, 3), (1, 3), raises=RuntimeError),
    case("torch.Tensor.prelu", lambda lib, x, w: x.prelu(w), (2, 3, 2, 2), (3,)),
    # rrelu: evaluation is the leaky relu of the mean slope; training draws (values differ)
    case("torch.nn.functional.rrelu", lambda lib, x: F(lib).rrelu(x), (3, 5)),
    case("torch.nn.functional.rrelu", lambda lib, x: F(lib).rrelu(x, 0.1, 0.5, training=False), (3, 5)),
    case("torch.nn.functional.rrelu", lambda lib, x: F(lib).rrelu(x, 0.1, 0.5, training=True), (3, 5), values=False),
    case("torch.nn.functional.rrelu", lambda lib, x: F(lib).rrelu(x, 0.5, 0.1, True), (3,), raises=RuntimeError),
    # -- the in-place twins: they write into a tensor in the graph, as torch's do --
    case("torch.nn.functional.relu_", in_place(lambda lib, y: F(lib).relu_(y)), (3, 5)),
    case("torch.nn.functional.elu_", in_place(lambda lib, y: F(lib).elu_(y, 0.7)), (3, 5)),
    case("torch.nn.functional.leaky_relu_", in_place(lambda lib, y: F(lib).leaky_relu_(y, 0.2)), (3, 5)),
    case("torch.nn.functional.hardtanh_", in_place(lambda lib, y: F(lib).hardtanh_(y, -0.3, 0.4)), (3, 5)),
    case("torch.nn.functional.selu_", in_place(lambda lib, y: F(lib).selu_(y)), (3, 5)),
    case("torch.nn.functional.celu_", in_place(lambda lib, y: F(lib).celu_(y, 0.5)), (3, 5)),
    case("torch.nn.functional.threshold_", in_place(lambda lib, y: F(lib).threshold_(y, 0.2, 5.0)), (3, 5)),
    case("torch.nn.functional.rrelu_", in_place(lambda lib, y: F(lib).rrelu_(y, 0.2, 0.4)), (3, 5)),
    case("torch.nn.functional.relu_", lambda lib, x: F(lib).relu_(x), (3,), raises=RuntimeError),  # a leaf
]


@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_row(row):
    run(row)
