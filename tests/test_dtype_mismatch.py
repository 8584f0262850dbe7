"""Products, convolutions, normalizations and attention refuse operands of two dtypes, as
PyTorch does, instead of promoting.

Elementwise ops promote (float32 + float64 is float64, tests/test_promotion.py), but
torch's matrix products, convolutions, normalizations and attention do not: a float64
batch through a float32 `nn.Linear` raises "mat1 and mat2 must have the same dtype",
where promoting would quietly run the layer (and every layer after it) in float64 and
hand the optimizer float64 gradients for float32 weights. Each case below is written
once over a library `lib` (torch or minigrad), and checked: torch raises RuntimeError,
and so does minigrad, with a message that names the op and both dtypes. The calls that
torch allows (same dtypes, integer products, int32 indices, rms_norm) run in both with
the same result dtype.
"""

import numpy as np
import pytest
import torch

import minigrad as mg


def f32(lib, *shape):
    return lib.ones(*shape)


def f64(lib, *shape):
    return lib.ones(*shape, dtype=lib.float64)


def i64(lib, *shape):
    return lib.ones(*shape, dtype=lib.int64)


def i32(lib, *shape):
    return lib.ones(*shape, dtype=lib.int32)


def F(lib):
    return lib.nn.functional


class Case:
    """`call(lib)` fails in torch; minigrad's message holds `op` and every one of `dtypes`."""

    def __init__(self, call, op, dtypes=("float32", "float64")):
        self.call, self.op, self.dtypes = call, op, dtypes


REFUSED = {
    # ---- matrix products
    "float32 @ float64": Case(lambda lib: f32(lib, 2, 3) @ f64(lib, 3, 4), "matmul"),
    "float64 @ float32": Case(lambda lib: f64(lib, 2, 3) @ f32(lib, 3, 4), "matmul"),
    "vector @ vector": Case(lambda lib: f32(lib, 3) @ f64(lib, 3), "matmul"),
    "batch @ matrix": Case(lambda lib: f32(lib, 2, 2, 3) @ f64(lib, 3, 4), "matmul"),
    "int64 @ float32": Case(
        lambda lib: i64(lib, 2, 3) @ f32(lib, 3, 4), "matmul", ("int64", "float32")
    ),
    "int32 @ int64": Case(
        lambda lib: i32(lib, 2, 3) @ i64(lib, 3, 4), "matmul", ("int32", "int64")
    ),
    "matmul": Case(lambda lib: lib.matmul(f64(lib, 2, 3), f32(lib, 3, 4)), "matmul"),
    "mm": Case(lambda lib: lib.mm(f32(lib, 2, 3), f64(lib, 3, 4)), "mm"),
    "Tensor.mm": Case(lambda lib: f32(lib, 2, 3).mm(f64(lib, 3, 4)), "mm"),
    "bmm": Case(lambda lib: lib.bmm(f32(lib, 2, 2, 3), f64(lib, 2, 3, 4)), "bmm"),
    "addmm of mixed matrices": Case(
        lambda lib: lib.addmm(f32(lib, 2, 4), f32(lib, 2, 3), f64(lib, 3, 4)), "addmm"
    ),
    "addmm of a float64 input": Case(
        lambda lib: lib.addmm(f64(lib, 2, 4), f32(lib, 2, 3), f32(lib, 3, 4)), "addmm"
    ),
    "baddbmm of a float64 input": Case(
        lambda lib: lib.baddbmm(f64(lib, 2, 2, 4), f32(lib, 2, 2, 3), f32(lib, 2, 3, 4)), "baddbmm"
    ),
    "einsum": Case(lambda lib: lib.einsum("ij,jk->ik", f32(lib, 2, 3), f64(lib, 3, 4)), "einsum"),
    # ---- linear layers
    "F.linear of a float64 input": Case(
        lambda lib: F(lib).linear(f64(lib, 2, 3), f32(lib, 4, 3)), "linear"
    ),
    "F.linear of a float64 bias": Case(
        lambda lib: F(lib).linear(f32(lib, 2, 3), f32(lib, 4, 3), f64(lib, 4)), "linear"
    ),
    "nn.Linear of a float64 input": Case(lambda lib: lib.nn.Linear(3, 4)(f64(lib, 2, 3)), "linear"),
    "nn.Linear of a float64 sequence": Case(
        lambda lib: lib.nn.Linear(3, 4)(f64(lib, 2, 5, 3)), "linear"
    ),
    "nn.Linear without bias": Case(
        lambda lib: lib.nn.Linear(3, 4, bias=False)(f64(lib, 2, 3)), "linear"
    ),
    "nn.MultiheadAttention of float64": Case(
        lambda lib: lib.nn.MultiheadAttention(4, 2, batch_first=True)(*[f64(lib, 1, 3, 4)] * 3),
        "linear",
    ),
    "nn.TransformerEncoderLayer of float64": Case(
        lambda lib: lib.nn.TransformerEncoderLayer(
            4, 2, 8, dropout=0.0, batch_first=True, norm_first=False
        )(f64(lib, 1, 3, 4)),
        "linear",
    ),
    # ---- convolutions
    "F.conv1d of a float64 input": Case(
        lambda lib: F(lib).conv1d(f64(lib, 1, 2, 5), f32(lib, 3, 2, 3)), "conv1d"
    ),
    "F.conv1d of a float64 bias": Case(
        lambda lib: F(lib).conv1d(f32(lib, 1, 2, 5), f32(lib, 3, 2, 3), f64(lib, 3)), "conv1d"
    ),
    "F.conv2d of a float64 input": Case(
        lambda lib: F(lib).conv2d(f64(lib, 1, 2, 5, 5), f32(lib, 3, 2, 3, 3)), "conv2d"
    ),
    "F.conv2d of a float64 bias": Case(
        lambda lib: F(lib).conv2d(f32(lib, 1, 2, 5, 5), f32(lib, 3, 2, 3, 3), f64(lib, 3)), "conv2d"
    ),
    "nn.Conv2d of a float64 input": Case(
        lambda lib: lib.nn.Conv2d(2, 3, 3)(f64(lib, 1, 2, 5, 5)), "conv2d"
    ),
    "F.conv_transpose2d of a float64 input": Case(
        lambda lib: F(lib).conv_transpose2d(f64(lib, 1, 2, 5, 5), f32(lib, 2, 3, 3, 3)),
        "conv_transpose2d",
    ),
    # ---- embedding: indices must be int64 or int32
    "F.embedding of float indices": Case(
        lambda lib: F(lib).embedding(f32(lib, 3), f32(lib, 5, 2)),
        "embedding",
        ("float32", "int64", "int32"),
    ),
    "F.embedding of bool indices": Case(
        lambda lib: F(lib).embedding(lib.ones(3, dtype=lib.bool), f32(lib, 5, 2)),
        "embedding",
        ("bool",),
    ),
    "F.embedding of uint8 indices": Case(
        lambda lib: F(lib).embedding(lib.ones(3, dtype=lib.uint8), f32(lib, 5, 2)),
        "embedding",
        ("uint8",),
    ),
    "nn.Embedding of float indices": Case(
        lambda lib: lib.nn.Embedding(5, 2)(f32(lib, 3)), "embedding", ("float32", "int64", "int32")
    ),
    # ---- normalization
    "F.layer_norm of a float64 input": Case(
        lambda lib: F(lib).layer_norm(f64(lib, 2, 3), (3,), f32(lib, 3), f32(lib, 3)), "layer_norm"
    ),
    "F.layer_norm of a float64 weight": Case(
        lambda lib: F(lib).layer_norm(f32(lib, 2, 3), (3,), f64(lib, 3), f32(lib, 3)), "layer_norm"
    ),
    "nn.LayerNorm of a float64 input": Case(
        lambda lib: lib.nn.LayerNorm(3)(f64(lib, 2, 3)), "layer_norm"
    ),
    "nn.GroupNorm of a float64 input": Case(
        lambda lib: lib.nn.GroupNorm(2, 4)(f64(lib, 2, 4, 3)), "group_norm"
    ),
    "F.group_norm of a float64 bias": Case(
        lambda lib: F(lib).group_norm(f32(lib, 2, 4, 3), 2, f32(lib, 4), f64(lib, 4)), "group_norm"
    ),
    "nn.BatchNorm1d (training) of a float64 input": Case(
        lambda lib: lib.nn.BatchNorm1d(4)(f64(lib, 2, 4)), "batch_norm"
    ),
    "nn.BatchNorm2d (eval) of a float64 input": Case(
        lambda lib: lib.nn.BatchNorm2d(4).eval()(f64(lib, 2, 4, 3, 3)), "batch_norm"
    ),
    "F.batch_norm of float64 running statistics": Case(
        lambda lib: F(lib).batch_norm(
            f32(lib, 2, 4), f64(lib, 4), f64(lib, 4), f32(lib, 4), f32(lib, 4)
        ),
        "batch_norm",
    ),
    # ---- attention
    "sdpa of a float64 key": Case(
        lambda lib: F(lib).scaled_dot_product_attention(
            f32(lib, 1, 3, 4), f64(lib, 1, 3, 4), f32(lib, 1, 3, 4)
        ),
        "scaled_dot_product_attention",
    ),
    "sdpa of a float64 value": Case(
        lambda lib: F(lib).scaled_dot_product_attention(
            f32(lib, 1, 3, 4), f32(lib, 1, 3, 4), f64(lib, 1, 3, 4)
        ),
        "scaled_dot_product_attention",
    ),
    "sdpa of a float64 mask": Case(
        lambda lib: F(lib).scaled_dot_product_attention(
            f32(lib, 1, 3, 4), f32(lib, 1, 3, 4), f32(lib, 1, 3, 4), attn_mask=f64(lib, 3, 3)
        ),
        "scaled_dot_product_attention",
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_torch_refuses_mixed_dtypes(name):
    """The oracle: each call of the table fails in torch, with a RuntimeError."""
    with pytest.raises(RuntimeError):
        REFUSED[name].call(torch)


@pytest.mark.parametrize("name", list(REFUSED))
def test_mixed_dtypes_raise_naming_the_op_and_both_dtypes(name):
    case = REFUSED[name]
    with pytest.raises(RuntimeError) as info:
        case.call(mg)
    message = str(info.value)
    assert case.op in message, f"the message does not name {case.op}: {message}"
    for dtype in case.dtypes:
        assert dtype in message, f"the message does not name {dtype}: {message}"


ALLOWED = {
    "float32 @ float32": lambda lib: f32(lib, 2, 3) @ f32(lib, 3, 4),
    "float64 @ float64": lambda lib: f64(lib, 2, 3) @ f64(lib, 3, 4),
    "int64 @ int64": lambda lib: i64(lib, 2, 3) @ i64(lib, 3, 4),
    "outer of float32 and float64 (a product of elements)": lambda lib: lib.outer(
        f32(lib, 3), f64(lib, 3)
    ),
    "F.embedding of int32 indices": lambda lib: F(lib).embedding(i32(lib, 3), f32(lib, 5, 2)),
    "F.rms_norm of a float64 input (torch promotes)": lambda lib: F(lib).rms_norm(
        f64(lib, 2, 3), (3,), f32(lib, 3)
    ),
    "sdpa of float64 with a float32 mask": lambda lib: F(lib).scaled_dot_product_attention(
        f64(lib, 1, 3, 4), f64(lib, 1, 3, 4), f64(lib, 1, 3, 4), attn_mask=f32(lib, 3, 3)
    ),
    "float32 + float64 (elementwise: promotes)": lambda lib: f32(lib, 2, 3) + f64(lib, 2, 3),
    "mse_loss of float64 and float32": lambda lib: F(lib).mse_loss(f64(lib, 2, 3), f32(lib, 2, 3)),
}


@pytest.mark.filterwarnings("ignore:Mismatch dtype between input and weight")  # torch's rms_norm
@pytest.mark.parametrize("name", list(ALLOWED))
def test_what_torch_allows_runs_with_torchs_result_dtype(name):
    expected = ALLOWED[name](torch)
    out = ALLOWED[name](mg)
    assert str(out.dtype) == str(expected.dtype).removeprefix("torch.")
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
