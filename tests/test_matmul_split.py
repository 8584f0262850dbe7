"""minigrad/kernels/cpu/matmul.py: a large product cut by rows over helper threads gives
the same numbers as one np.matmul (up to the order BLAS adds a row's terms in), in every
case the cutting can meet.

This process runs under conftest's OPENBLAS_NUM_THREADS=1 (a user's choice, so the policy
cuts nothing: MATMUL_SPLIT_THREADS == 1); each test here switches the cutting on, for products
of any size, with the `split` fixture.
"""

import multiprocessing
import threading

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels.cpu import matmul as matmul_split
from minigrad.kernels.cpu import workers


@pytest.fixture
def split(monkeypatch):
    """Cut every product of at least 2 x 3 rows over 3 threads (2 helpers)."""
    monkeypatch.setattr(mg.threads, "MATMUL_SPLIT_THREADS", 3)
    monkeypatch.setattr(matmul_split, "SPLIT_MIN_MACS", 1)
    return matmul_split


def helper_threads():
    return sum(t.name == "minigrad-worker" for t in threading.enumerate())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(6, 5, 4), (7, 3, 9), (100, 33, 17), (257, 64, 1)])
def test_cut_product_equals_one_call(split, dtype, shape):
    m, k, n = shape
    rng = np.random.default_rng(m)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    c = split.matmul(a, b)
    assert c.dtype == dtype and c.shape == (m, n)
    # the same sums, perhaps added in another order inside BLAS: equal to rounding
    np.testing.assert_allclose(
        c, np.matmul(a, b), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5
    )
    np.testing.assert_array_equal(c, split.matmul(a, b))  # and the same from call to call
    assert helper_threads() >= 2  # the helpers did start


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cut", [True, False])
def test_bias_is_added_to_every_row_as_after_the_product(split, monkeypatch, dtype, cut):
    """A linear layer's bias, added inside each block (cut) or after the one call: the
    same numbers as the product without it and then + bias, bit for bit (each element is
    one rounded sum and then one rounded addition either way); the reference too."""
    from minigrad.kernels.reference import matmul as reference

    if not cut:
        monkeypatch.setattr(mg.threads, "MATMUL_SPLIT_THREADS", 1)
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((31, 9)).astype(dtype), rng.standard_normal((5, 9)).astype(dtype)
    bias = rng.standard_normal(5).astype(dtype)
    for product in (split.matmul, reference.matmul):
        y = product(x, w.T, bias=bias)  # W^T: a transposed view, as Linear passes it
        assert y.dtype == dtype and y.shape == (31, 5)
        np.testing.assert_array_equal(y, product(x, w.T) + bias)
        np.testing.assert_allclose(y, x.astype(np.float64) @ w.T + bias, rtol=1e-5, atol=1e-5)


def test_transposed_and_strided_operands(split):
    # what the backward passes: A^T (a Fortran-ordered view) and slices with steps
    rng = np.random.default_rng(1)
    x = rng.standard_normal((40, 30))
    a, b = x.T, rng.standard_normal((80, 20))[::2]
    np.testing.assert_allclose(split.matmul(a, b), np.matmul(a, b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "a, b",
    [
        # 5 rows: fewer than 2 per thread
        (np.ones((5, 4), np.float32), np.ones((4, 3), np.float32)),
        (np.ones((9, 4), np.int64), np.ones((4, 3), np.int64)),  # not a BLAS type
        (np.ones((9, 4), np.float32), np.ones((4, 3), np.float64)),  # mixed dtypes: NumPy promotes
        (np.ones((2, 9, 4)), np.ones((4, 3))),  # not a matrix
        (np.ones(9), np.ones((9, 3))),  # a vector
    ],
)
def test_what_is_not_cut_is_np_matmul(split, monkeypatch, a, b):
    calls = []
    # a helper started would show here
    monkeypatch.setattr(workers, "_Helper", lambda: calls.append(1))
    workers._helpers.clear()
    c = split.matmul(a, b)
    assert not calls
    assert c.dtype == np.matmul(a, b).dtype
    np.testing.assert_array_equal(c, np.matmul(a, b))


def test_below_the_size_threshold_nothing_is_cut(monkeypatch):
    monkeypatch.setattr(mg.threads, "MATMUL_SPLIT_THREADS", 2)
    calls = []
    monkeypatch.setattr(workers, "_Helper", lambda: calls.append(1))
    workers._helpers.clear()
    a, b = np.ones((64, 64), np.float32), np.ones((64, 64), np.float32)  # 262,144 multiply-adds
    np.testing.assert_array_equal(matmul_split.matmul(a, b), np.full((64, 64), 64, np.float32))
    assert not calls


def test_threads_of_the_program_multiplying_at_once(split):
    # while one thread holds the helpers, another computes its product alone: all correct
    rng = np.random.default_rng(2)
    pairs = [(rng.standard_normal((60, 20)), rng.standard_normal((20, 10))) for _ in range(4)]
    results = [None] * len(pairs)

    def work(i):
        for _ in range(50):
            results[i] = split.matmul(*pairs[i])

    workers = [threading.Thread(target=work, args=(i,)) for i in range(len(pairs))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    for (a, b), c in zip(pairs, results):
        np.testing.assert_allclose(c, np.matmul(a, b), rtol=1e-12, atol=1e-12)


def _child_product(q):
    # the fixture's settings (3 threads, any size) were inherited with the parent's memory
    a = np.arange(60.0).reshape(12, 5)
    q.put(matmul_split.matmul(a, a.T).sum())


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="fork is POSIX-only"
)
def test_a_forked_child_starts_its_own_helpers(split):
    # the parent's helpers do not exist in a forked child (a DataLoader worker, say): the child
    # must start its own instead of handing blocks to threads that are not there and waiting forever
    a = np.arange(60.0).reshape(12, 5)
    split.matmul(a, a.T)  # the parent's helpers are running
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    child = ctx.Process(target=_child_product, args=(q,))
    child.start()
    child.join(timeout=60)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive, "the forked child hung in a cut product"
    assert q.get(timeout=5) == (a @ a.T).sum()


def test_gradients_through_cut_products(split):
    # MatMul's forward and both backward products all go through the cutting
    rng = np.random.default_rng(3)
    x = mg.tensor(rng.standard_normal((2, 7, 5)), requires_grad=True)
    w = mg.tensor(rng.standard_normal((5, 6)), requires_grad=True)
    assert mg.autograd.gradcheck(lambda x, w: (x @ w).tanh(), (x, w))


def test_matmul_through_the_tensor_api_is_cut(split, monkeypatch):
    seen = []
    real = np.matmul

    def spy(a, b, out=None):
        seen.append(out is not None and out.shape[0] < a.shape[0] + 1)
        return real(a, b) if out is None else real(a, b, out=out)

    monkeypatch.setattr(split.np, "matmul", spy)
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((30, 8)), rng.standard_normal((8, 5))
    c = mg.from_numpy(a) @ mg.from_numpy(b)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-12)
    assert sum(seen) >= 1  # at least one block was computed with out= (the cut path)


def test_the_helpers_let_go_of_the_operands(split):
    # a helper's last block is a view of the operands and the result: kept, it would hold
    # them (a layer's activations, say) alive until the next large product
    import gc
    import time
    import weakref

    a = np.ones((12, 5))
    b = np.ones((5, 4))
    c = split.matmul(a, b)
    refs = [weakref.ref(x) for x in (a, b, c)]
    del a, b, c
    deadline = time.monotonic() + 5
    while any(r() is not None for r in refs) and time.monotonic() < deadline:
        gc.collect()  # the helper thread drops its references right after its block
        time.sleep(0.01)
    assert all(r() is None for r in refs)


def test_an_error_in_a_helpers_block_is_raised_by_the_caller(split, monkeypatch):
    # a block that fails on a helper thread must not vanish there (a wrong result would come
    # back with rows never written): the caller raises it, and the next product still works
    real = np.matmul

    def failing_on_helpers(a, b, out=None):
        if threading.current_thread().name == "minigrad-worker":
            raise FloatingPointError("a helper's block failed")
        return real(a, b) if out is None else real(a, b, out=out)

    a = np.arange(60.0).reshape(12, 5)
    monkeypatch.setattr(split.np, "matmul", failing_on_helpers)
    with pytest.raises(FloatingPointError, match="helper's block"):
        split.matmul(a, a.T)
    monkeypatch.setattr(split.np, "matmul", real)
    # no stale result left queued
    np.testing.assert_allclose(split.matmul(a, a.T), a @ a.T, rtol=1e-12)
