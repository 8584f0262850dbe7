"""The element-wise passes as a kernel family (issue #24, point 2): the residual sum a + b,
the copy a reshape (or `.contiguous()`) makes of a strided view, and the split's backward
(a piece's gradient copied into, or added onto, its slice), cut over the cores
(kernels/cpu/elementwise.py), give NumPy's result (kernels/reference/elementwise.py) to
the bit at odd shapes, in float32 and float64, on one thread and on several; a reshape
that can be a view stays one; operands the split does not take go to NumPy; Add, Reshape,
Contiguous and split on the kernels pass the float64 gradient checks or match PyTorch;
and attention's finiteness check, summed block by block, finds a NaN or an infinity
anywhere.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import backends
from minigrad.kernels.cpu import elementwise as cpu
from minigrad.kernels.cpu import vecmath, workers
from minigrad.kernels.reference import elementwise as reference
from tests.helpers import check_grads, rand

SHAPES = [(7,), (3, 5), (2, 3, 5, 7), (1, 13, 1, 4)]


@pytest.fixture(params=[1, 3])
def split_everything(request, monkeypatch):
    """Every size on the split, over one thread or three (blocks of uneven sizes)."""
    monkeypatch.setattr(cpu, "MIN_SPLIT", 0)
    monkeypatch.setattr(workers, "count", lambda: request.param)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_add_equals_numpy_to_the_bit(split_everything, dtype, shape):
    a, b = rand(*shape, seed=1, dtype=dtype), rand(*shape, seed=2, dtype=dtype)
    got = cpu.add(a, b)
    assert got.dtype == dtype and got.shape == shape and got.flags.c_contiguous
    np.testing.assert_array_equal(got, reference.add(a, b))
    # one rounding of the exact sum (in float64 the sum of two float32 numbers is exact)
    np.testing.assert_array_equal(got, (a.astype(np.float64) + b).astype(dtype))


@pytest.mark.parametrize(
    "a, b",
    [
        (rand(3, 5), rand(5)),  # broadcasting
        (rand(3, 5, dtype=np.float32), rand(3, 5)),  # two dtypes: promoted to float64
        (rand(5, 3).T, rand(3, 5)),  # a strided operand
        (rand(3, 5), np.float64(2.5)),  # a NumPy scalar
        (np.arange(15).reshape(3, 5), np.ones((3, 5), np.int64)),  # integers split too
    ],
)
def test_add_of_other_operands_is_numpys(split_everything, a, b):
    got = cpu.add(a, b)
    want = a + b
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reshape_of_a_transposed_view_copies_as_numpy(split_everything, dtype):
    """The attention heads (B, H, T, d) transposed to (B, T, H, d) and merged to
    (B, T, H d): no view can do that, so the result is a copy in C order."""
    heads = rand(3, 4, 5, 2, seed=3, dtype=dtype)
    x = heads.transpose(0, 2, 1, 3)
    got = cpu.reshape(x, (3, 5, 8))
    assert got.flags.c_contiguous and not np.shares_memory(got, heads)
    np.testing.assert_array_equal(got, reference.reshape(x, (3, 5, 8)))
    np.testing.assert_array_equal(got, np.ascontiguousarray(x).reshape(3, 5, 8))


def test_reshape_that_can_be_a_view_stays_one(split_everything):
    """A strided array whose new shape only splits or merges evenly laid-out dims is a
    view, as with NumPy (and torch's reshape): writing into it writes into x."""
    base = rand(4, 6, 5)
    x = base[:, ::2]  # (4, 3, 5), strided along dim 1
    got = cpu.reshape(x, (4, 3, 5, 1))
    assert np.shares_memory(got, base)
    got[1, 2, 3, 0] = 100.0
    assert base[1, 4, 3] == 100.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_contiguous_copies_as_numpy(split_everything, dtype):
    """`.contiguous()` on the kernels: a transposed view and a broadcast of one number (the
    gradient of a sum) copied in C order, as np.ascontiguousarray; an array already in C
    order comes back as itself, on either backend's module."""
    x = rand(3, 4, 5, seed=7, dtype=dtype).transpose(2, 0, 1)
    broadcast = np.broadcast_to(np.array(1.5, dtype), (2, 3, 4, 5))
    for view in (x, broadcast):
        got = cpu.contiguous(view)
        assert got.flags.c_contiguous and got.dtype == dtype and got.shape == view.shape
        np.testing.assert_array_equal(got, np.ascontiguousarray(view))
        np.testing.assert_array_equal(reference.contiguous(view), np.ascontiguousarray(view))
    plain = rand(2, 3, dtype=dtype)
    assert cpu.contiguous(plain) is plain and reference.contiguous(plain) is plain


def test_contiguous_tensor_on_the_kernels_matches_pytorch(split_everything):
    """Tensor.contiguous() of a transposed view, forward and backward, as in torch."""
    x = rand(3, 4, 5, seed=8)
    xs, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    mine, theirs = xs.transpose(0, 2).contiguous(), xt.transpose(0, 2).contiguous()
    assert mine.is_contiguous()
    np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy())
    weight = rand(5, 4, 3, seed=9)
    (mine * mg.tensor(weight)).sum().backward()
    (theirs * torch.tensor(weight)).sum().backward()
    np.testing.assert_array_equal(xs.grad.numpy(), xt.grad.numpy())


def test_the_split_cuts_into_one_block_per_thread(monkeypatch):
    """Above MIN_SPLIT elements the pass is handed to the threads, one block each; below it
    NumPy's call runs alone."""
    handed = []
    real = workers.run_jobs
    monkeypatch.setattr(workers, "run_jobs", lambda jobs: handed.append(len(jobs)) or real(jobs))
    monkeypatch.setattr(workers, "count", lambda: 4)
    monkeypatch.setattr(cpu, "MIN_SPLIT", 100)
    small = rand(9, 11)  # 99 elements
    cpu.add(small, small)
    cpu.reshape(small.T, (99,))
    cpu.contiguous(small.T)
    assert handed == []
    large = rand(10, 10)
    np.testing.assert_array_equal(cpu.add(large, large), large + large)
    np.testing.assert_array_equal(cpu.reshape(large.T, (100,)), large.T.reshape(100))
    np.testing.assert_array_equal(cpu.contiguous(large.T), np.ascontiguousarray(large.T))
    assert handed == [4, 4, 4]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_add_and_reshape_on_the_kernels_pass_the_gradient_checks(split_everything, backend):
    with backends.use(backend):
        merged = lambda a, b: (a + b).transpose(0, 1).reshape(15, 2)  # noqa: E731
        check_grads(merged, rand(3, 5, 2), rand(3, 5, 2, seed=1))


def test_the_ops_on_the_kernels_match_pytorch(split_everything):
    """A residual sum and a merge of heads, forward and backward, as in torch."""
    x, h = rand(2, 4, 6, seed=4), rand(2, 3, 4, 2, seed=5)
    xs, hs = mg.tensor(x, requires_grad=True), mg.tensor(h, requires_grad=True)
    xt, ht = torch.tensor(x, requires_grad=True), torch.tensor(h, requires_grad=True)
    mine = xs + hs.transpose(1, 2).reshape(2, 4, 6)
    theirs = xt + ht.transpose(1, 2).reshape(2, 4, 6)
    np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy())
    weight = rand(2, 4, 6, seed=6)
    (mine * mg.tensor(weight)).sum().backward()
    (theirs * torch.tensor(weight)).sum().backward()
    np.testing.assert_array_equal(xs.grad.numpy(), xt.grad.numpy())
    np.testing.assert_array_equal(hs.grad.numpy(), ht.grad.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["copy_into", "add_into"])
def test_into_a_slice_equals_numpy_to_the_bit(split_everything, dtype, name):
    """A piece of qkv.split(...) along the last dim: its slice of the full array is a
    strided view, written (or added onto) in place, the rest of the array untouched."""
    full = rand(3, 5, 12, seed=7, dtype=dtype)
    part = rand(3, 5, 4, seed=8, dtype=dtype)
    mine, want = full.copy(), full.copy()
    getattr(cpu, name)(mine[..., 4:8], part)
    getattr(reference, name)(want[..., 4:8], part)
    np.testing.assert_array_equal(mine, want)
    expected = full.copy()
    expected[..., 4:8] = part if name == "copy_into" else full[..., 4:8] + part
    np.testing.assert_array_equal(mine, expected)


def test_into_a_slice_of_another_dtype_is_numpys(split_everything):
    """NumPy's casting rules where the dtypes differ (the split needs one dtype)."""
    full = np.zeros((3, 4))
    cpu.add_into(full[:, 1:3], np.ones((3, 2), np.float32))
    cpu.copy_into(full[:, :1], np.full((3, 1), 2, np.int64))
    np.testing.assert_array_equal(full, [[2, 1, 1, 0]] * 3)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_split_on_the_kernels_passes_the_gradient_checks(split_everything, backend):
    def pieces(x):
        q, k, v = x.split(2, dim=-1)
        return q * k + v * 3.0

    with backends.use(backend):
        check_grads(pieces, rand(3, 4, 6))


def test_split_backward_on_the_kernels_matches_pytorch(split_everything):
    """The GPT's q, k, v = qkv.split(C, dim=2), each used, and one piece used twice."""
    x = rand(2, 5, 9, seed=9)
    mine, theirs = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for t in (mine, theirs):
        q, k, v = t.split(3, dim=2)
        (q * k + v * q.sin()).sum().backward()
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("where", [0, 5_000, -1])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_the_finiteness_check_sums_block_by_block(monkeypatch, where, bad):
    """Attention's check that its operands hold no NaN or Inf (their sums), cut over the
    threads: a bad number in the first, a middle or the last block is found."""
    monkeypatch.setattr(vecmath, "MIN_SPLIT_SUM", 0)
    monkeypatch.setattr(workers, "count", lambda: 3)
    a = rand(4, 50, 31, dtype=np.float32)
    assert vecmath.all_finite_arrays(a, a[:, ::2])
    a.reshape(-1)[where] = bad
    assert not vecmath.all_finite_arrays(rand(3), a)
