"""The layer_norm and softmax kernel families (issue #24, point 2): the Numba kernels of
minigrad/kernels/cpu/ against PyTorch and finite differences, at odd shapes.

The kernels run only on arrays of MIN_KERNEL elements and more, and cut their rows over
the threads only from MIN_SPLIT on; the fixture `compiled` sets both to 0, so these small
tensors take that path, and takes the
reference away from the CPU modules, so that a fallback to NumPy fails the test instead
of passing it unseen. CUDA tensors keep the reference (through the array module), on
the simulated GPU here.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import backends
from minigrad.array_module import to_host
from minigrad.kernels.cpu import layer_norm as cpu_layer_norm
from minigrad.kernels.cpu import softmax as cpu_softmax
from minigrad.kernels.reference import layer_norm as ref_layer_norm
from minigrad.kernels.reference import softmax as ref_softmax
from tests.cuda_same_as_cpu import assert_same_as_cpu
from tests.finite_differences import check_grads, rand

TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}
LOOSE = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-11, atol=1e-12)}
# (rows, N): a row of 1 (its own mean), of 3, of 129 (past the 16 lanes of the max),
# and an empty batch
SHAPES = [(5, 1), (4, 3), (3, 129), (0, 3), (1, 129)]


class _NoReference:
    def __getattr__(self, name):
        raise AssertionError(f"the reference's {name} ran where the compiled kernel should")


@pytest.fixture
def compiled(monkeypatch):
    """The compiled loops for every size, and no way back to the reference."""
    with backends.use("numba"):
        for module in (cpu_layer_norm, cpu_softmax):
            monkeypatch.setattr(module, "MIN_KERNEL", 0)
            monkeypatch.setattr(module, "MIN_SPLIT", 0)
            monkeypatch.setattr(module, "reference", _NoReference())
        yield


def _pair(array, requires_grad=True):
    return (
        mg.tensor(array.copy(), requires_grad=requires_grad),
        torch.tensor(array.copy(), requires_grad=requires_grad),
    )


def _same(ours, theirs, dtype):
    assert ours.dtype == theirs.detach().numpy().dtype
    np.testing.assert_allclose(ours, theirs.detach().numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("rms", [False, True], ids=["layer_norm", "rms_norm"])
def test_layer_norm_kernels_equal_pytorch(compiled, shape, dtype, rms):
    rng = np.random.default_rng(shape[1])
    rows, n = shape
    x = (rng.standard_normal((2, rows, n)) * 3 + 1).astype(dtype)
    w, b = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    dy = rng.standard_normal((2, rows, n)).astype(dtype)
    # PyTorch in float64 on the same values: its float32 layer norm leaves a rounding
    # error in xhat where the exact value is 0 (rows of one number), which ours does not
    (x_mg, _), (w_mg, _), (b_mg, _) = _pair(x), _pair(w), _pair(b)
    (_, x_t), (_, w_t), (_, b_t) = (_pair(a.astype(np.float64)) for a in (x, w, b))
    if rms:
        y_mg, y_t = (
            F.rms_norm(x_mg, (n,), w_mg, eps=1e-5),
            torch.nn.functional.rms_norm(x_t, (n,), w_t, eps=1e-5),
        )
    else:
        y_mg = F.layer_norm(x_mg, (n,), w_mg, b_mg, eps=1e-5)
        y_t = torch.nn.functional.layer_norm(x_t, (n,), w_t, b_t, eps=1e-5)
    y_mg.backward(mg.tensor(dy))
    y_t.backward(torch.tensor(dy.astype(np.float64)))
    for ours, theirs in [(y_mg.detach(), y_t), (x_mg.grad, x_t.grad), (w_mg.grad, w_t.grad)]:
        assert ours.dtype == mg.tensor(x).dtype
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), **LOOSE[dtype])
    if not rms:
        np.testing.assert_allclose(b_mg.grad.numpy(), b_t.grad.numpy(), **LOOSE[dtype])


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("rms", [False, True], ids=["layer_norm", "rms_norm"])
def test_layer_norm_kernels_gradcheck_float64(compiled, rms, affine):
    """dL/dx, dL/dw, dL/db of the compiled backward against finite differences."""
    x, w, b = rand(3, 2, 3, seed=1) * 2, rand(3, seed=2), rand(3, seed=3)
    if rms:
        fn = (lambda x, w: F.rms_norm(x, (3,), w)) if affine else (lambda x: F.rms_norm(x, (3,)))
    else:
        fn = (
            (lambda x, w, b: F.layer_norm(x, (3,), w, b))
            if affine
            else (lambda x: F.layer_norm(x, (3,)))
        )
    inputs = ((x, w) if rms else (x, w, b)) if affine else (x,)
    check_grads(fn, *inputs)


def test_layer_norm_kernel_sums_weight_gradients_over_many_rows(compiled):
    """dL/dw and dL/db are summed by blocks of rows, one per thread, then across blocks:
    enough rows for every block, and an odd count, so no row is lost or counted twice."""
    x = np.random.default_rng(5).standard_normal((1001, 7))
    dy = np.random.default_rng(6).standard_normal((1001, 7))
    w = np.linspace(0.5, 1.5, 7)
    _, xhat, rstd = cpu_layer_norm.forward(x, w, None, 1e-5)
    _, grad_w, grad_b = cpu_layer_norm.backward(dy, xhat, rstd, w)
    centred = x - x.mean(axis=1, keepdims=True)
    expected_xhat = centred / np.sqrt((centred**2).mean(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(grad_w, (dy * expected_xhat).sum(axis=0), rtol=1e-11)
    np.testing.assert_allclose(grad_b, dy.sum(axis=0), rtol=1e-11)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES + [(2, 3, 33)])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_kernels_equal_pytorch(compiled, op, shape, dtype):
    rng = np.random.default_rng(len(shape) + shape[-1])
    # logits up to about 150: e^x overflows float32 unless each row is shifted by its max
    x = (rng.standard_normal(shape) * 40).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    x_mg, x_t = _pair(x)
    y_mg, y_t = getattr(F, op)(x_mg, dim=-1), getattr(torch.nn.functional, op)(x_t, dim=-1)
    y_mg.backward(mg.tensor(dy))
    y_t.backward(torch.tensor(dy))
    _same(y_mg.detach().numpy(), y_t, dtype)
    _same(x_mg.grad.numpy(), x_t.grad, dtype)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_kernels_gradcheck_float64(compiled, op):
    check_grads(lambda x: getattr(F, op)(x, dim=-1), rand(4, 19, seed=4) * 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_kernels_nan_and_infinite_rows_as_pytorch(compiled, op, dtype):
    """A row with a NaN, with +inf, or all -inf is NaN; a -inf logit (a masked class)
    has probability 0 (log-probability -inf), the rest of its row as usual."""
    x = np.random.default_rng(7).standard_normal((5, 37)).astype(dtype)
    x[0, 20] = np.nan
    x[1, 3] = np.inf
    x[2, :] = -np.inf
    x[3, ::2] = -np.inf
    ours = getattr(F, op)(mg.tensor(x), dim=-1).numpy()
    theirs = getattr(torch.nn.functional, op)(torch.tensor(x), dim=-1).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.isnan(ours[:3]).all() and not np.isnan(ours[3:]).any()
    np.testing.assert_allclose(ours, theirs, **TOL[dtype])


CROSS_ENTROPY = {
    "indices": dict(),
    "ignore_index_and_smoothing": dict(ignore_index=2, label_smoothing=0.1),
    "class_weights": dict(weight=np.linspace(0.5, 2.0, 129)),
    "sum": dict(reduction="sum"),
    "none": dict(reduction="none"),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CROSS_ENTROPY)
def test_cross_entropy_kernel_equals_pytorch(compiled, case, dtype):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((7, 129)) * 3).astype(dtype)
    target = rng.integers(0, 129, 7)
    target[:3] = 2  # some ignored, where ignore_index is 2
    options = dict(CROSS_ENTROPY[case])
    weight = options.pop("weight", None)
    x_mg, x_t = _pair(x)
    loss_mg = F.cross_entropy(
        x_mg,
        mg.tensor(target),
        weight=None if weight is None else mg.tensor(weight.astype(dtype)),
        **options,
    )
    loss_t = torch.nn.functional.cross_entropy(
        x_t,
        torch.tensor(target),
        weight=None if weight is None else torch.tensor(weight.astype(dtype)),
        **options,
    )
    _same(loss_mg.detach().numpy(), loss_t, dtype)
    loss_mg.sum().backward()
    loss_t.sum().backward()
    _same(x_mg.grad.numpy(), x_t.grad, dtype)


def test_cross_entropy_kernel_with_probabilities_and_masked_classes(compiled):
    """Probability targets, and a masked class (-inf logit) with target probability 0:
    its term is left out, not 0 * -inf = NaN."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((6, 3))
    x[:, 1] = -np.inf
    p = rng.random((6, 3))
    p[:, 1] = 0.0
    p /= p.sum(axis=1, keepdims=True)
    ours = F.cross_entropy(mg.tensor(x), mg.tensor(p)).item()
    kept = x[:, [0, 2]]  # (PyTorch gives NaN here: 0 * -inf)
    log_probs = kept - np.log(np.exp(kept).sum(axis=1, keepdims=True))
    expected = -(p[:, [0, 2]] * log_probs).sum(axis=1).mean()
    np.testing.assert_allclose(ours, expected, rtol=1e-12)


def _coefficients(rng, rows, classes, dtype):
    """A of F.cross_entropy for rows of odd kinds: one-hot with a class weight, label
    smoothing (a dense row), an ignored position (a row of zeros), and at random."""
    coeff = np.zeros((rows, classes))
    coeff[np.arange(rows), rng.integers(0, classes, rows)] = rng.uniform(0.5, 2.0, rows)
    coeff[1::3] = coeff[1::3] * 0.9 + 0.1 / classes  # label smoothing
    coeff[2::3] = 0.0  # ignored
    return coeff.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("per_row", [True, False], ids=["g_per_row", "g_scalar"])
@pytest.mark.parametrize("shape", [(3, 7), (5, 1), (4, 129), (0, 3), (2, 3, 33)])
def test_cross_entropy_backward_kernel_equals_reference(compiled, shape, per_row, dtype):
    """dL/dx = g * (softmax(x) * sum(A) - A), the compiled row loop against the NumPy
    reference, with g one number per row (reduction='none') or one for all (mean, sum)."""
    rng = np.random.default_rng(shape[-1])
    rows = int(np.prod(shape[:-1]))
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    coeff = _coefficients(rng, rows, shape[-1], dtype).reshape(shape)
    g = rng.standard_normal(shape[:-1]).astype(dtype) if per_row else 0.37
    ours = cpu_softmax.cross_entropy_backward(x, coeff, g, -1)
    expected = ref_softmax.cross_entropy_backward(x, coeff, g, -1)
    assert ours.dtype == expected.dtype == dtype and ours.shape == shape
    np.testing.assert_allclose(ours, expected, **TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_backward_kernel_nan_and_infinite_rows_as_pytorch(compiled, dtype):
    """A row with a NaN, with +inf, or all -inf gets a NaN gradient, as in PyTorch and
    the reference; a masked class (logit -inf, not the target) gets 0, the rest of its
    row as usual; an ignored row holding a NaN is NaN too (0 times a NaN probability)."""
    x = np.random.default_rng(11).standard_normal((6, 37)).astype(dtype)
    x[0, 20] = np.nan
    x[1, 3] = np.inf
    x[2, :] = -np.inf
    x[3, ::2] = -np.inf
    x[4, 5] = np.nan
    target = np.array([1, 2, 3, 1, 0, 9])
    x_mg, x_t = _pair(x)
    F.cross_entropy(x_mg, mg.tensor(target), ignore_index=0, reduction="sum").backward()
    TF = torch.nn.functional
    TF.cross_entropy(x_t, torch.tensor(target), ignore_index=0, reduction="sum").backward()
    ours, theirs = x_mg.grad.numpy(), x_t.grad.numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.isnan(ours[[0, 1, 2, 4]]).all() and not np.isnan(ours[[3, 5]]).any()
    assert (ours[3, ::2] == 0).all()
    np.testing.assert_allclose(ours, theirs, **TOL[dtype])


def _count_calls(monkeypatch, module, name):
    """Wrap module.name so that its calls are counted (a list of one number)."""
    calls, function = [0], getattr(module, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return function(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_backward_kernel_gradcheck_float64(compiled, monkeypatch, reduction):
    """dL/dx of F.cross_entropy against finite differences, through the compiled
    backward (counted), with class weights, ignore_index and label smoothing."""
    calls = _count_calls(monkeypatch, cpu_softmax, "cross_entropy_backward")
    target = mg.tensor(np.array([0, 3, 6, 2, 3]))
    options = dict(weight=mg.tensor(np.linspace(0.5, 2.0, 7)), ignore_index=3)
    options.update(label_smoothing=0.1, reduction=reduction)
    check_grads(lambda x: F.cross_entropy(x, target, **options), rand(5, 7, seed=12) * 3)
    assert calls[0] >= 1


@pytest.mark.parametrize("elements", [cpu_softmax.MIN_KERNEL, cpu_softmax.MIN_SPLIT])
def test_cross_entropy_backward_past_the_thresholds_equals_pytorch(monkeypatch, elements):
    """With the real thresholds: rows of 7 classes, just past MIN_KERNEL (the kernel on
    the calling thread) and past MIN_SPLIT (the rows cut over the threads), float32,
    with the reference's backward out of reach."""
    monkeypatch.setattr(cpu_softmax, "reference", _NoReference())
    calls = _count_calls(monkeypatch, cpu_softmax, "cross_entropy_backward")
    rng = np.random.default_rng(13)
    rows = elements // 7 + 1
    x = (rng.standard_normal((rows, 7)) * 3).astype(np.float32)
    target = rng.integers(0, 7, rows)
    x_mg, x_t = _pair(x)
    with backends.use("numba"):
        F.cross_entropy(x_mg, mg.tensor(target), ignore_index=4).backward()
    torch.nn.functional.cross_entropy(x_t, torch.tensor(target), ignore_index=4).backward()
    assert calls[0] == 1
    _same(x_mg.grad.numpy(), x_t.grad, np.float32)


def test_cross_entropy_backward_keeps_the_formula_where_it_must(compiled, monkeypatch):
    """create_graph (the gradient must be a graph) and probability targets (the target
    gets a gradient too) run the Tensor formula of CrossEntropy.backward, not the
    kernel: the second derivative is still there, and PyTorch's."""
    calls = _count_calls(monkeypatch, cpu_softmax, "cross_entropy_backward")
    x = np.random.default_rng(14).standard_normal((4, 5))
    target = np.array([0, 4, 2, 2])
    x_mg, x_t = _pair(x)
    (g_mg,) = mg.autograd.grad(F.cross_entropy(x_mg, mg.tensor(target)), x_mg, create_graph=True)
    (g_t,) = torch.autograd.grad(
        torch.nn.functional.cross_entropy(x_t, torch.tensor(target)), x_t, create_graph=True
    )
    (g_mg**2).sum().backward()
    (g_t**2).sum().backward()
    _same(x_mg.grad.numpy(), x_t.grad, np.float64)
    p = np.full((4, 5), 0.2)
    F.cross_entropy(mg.tensor(x, requires_grad=True), mg.tensor(p, requires_grad=True)).backward()
    assert calls[0] == 0


def test_small_arrays_stay_on_the_reference(monkeypatch):
    """Under MIN_KERNEL elements the CPU modules hand the work to the reference: the
    compiled loops are not even called."""

    def never(*args):
        raise AssertionError("a compiled loop ran on a small array")

    for name in ("_forward", "_backward"):
        monkeypatch.setattr(cpu_layer_norm, name, never)
    for name in ("_softmax", "_softmax_backward", "_cross_entropy", "_cross_entropy_backward"):
        monkeypatch.setattr(cpu_softmax, name, never)
    x = mg.tensor(np.random.default_rng(1).standard_normal((4, 5)), requires_grad=True)
    with backends.use("numba"):
        assert backends.kernels("layer_norm") is cpu_layer_norm
        loss = F.layer_norm(x, (5,)).sum() + F.log_softmax(x, -1).sum() + F.softmax(x, -1)[0, 0]
        loss = loss + F.cross_entropy(x, mg.tensor(np.array([0, 1, 2, 3])))
        loss.backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_arrays_under_min_split_run_on_the_calling_thread(monkeypatch):
    """From MIN_KERNEL to MIN_SPLIT elements the kernels run every row on the calling
    thread: the workers are not even called, nor the reference, and the result is
    PyTorch's."""

    def one_call(kernel, tasks, *args, split=True):
        assert not split, "a small array was cut over the threads"
        kernel(*args, 0, tasks)

    for module in (cpu_layer_norm, cpu_softmax):
        monkeypatch.setattr(module.workers, "run", one_call)
        monkeypatch.setattr(module, "reference", _NoReference())
        monkeypatch.setattr(module, "MIN_KERNEL", 0)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 5))
    target = np.array([0, 1, 2, 3])
    (x_mg, x_t) = _pair(x)
    with backends.use("numba"):
        assert backends.kernels("layer_norm") is cpu_layer_norm
        loss = F.layer_norm(x_mg, (5,)).sum() + F.log_softmax(x_mg, -1).sum()
        loss = loss + F.softmax(x_mg, -1)[0, 0] + F.cross_entropy(x_mg, mg.tensor(target))
        loss.backward()
    TF = torch.nn.functional
    want = TF.layer_norm(x_t, (5,)).sum() + TF.log_softmax(x_t, -1).sum()
    want = want + TF.softmax(x_t, -1)[0, 0] + TF.cross_entropy(x_t, torch.tensor(target))
    want.backward()
    _same(loss.detach().numpy(), want, np.float64)
    _same(x_mg.grad.numpy(), x_t.grad, np.float64)


def test_the_numpy_backend_runs_the_references():
    with backends.use("numpy"):
        assert backends.kernels("layer_norm") is ref_layer_norm
        assert backends.kernels("softmax") is ref_softmax
    with backends.use("numba"):
        assert backends.kernels("softmax") is cpu_softmax


ON_GPU = {
    "layer_norm": lambda x, w, b: F.layer_norm(x, (129,), w, b),
    "rms_norm": lambda x, w, b: F.rms_norm(x, (129,), w) + b,
    "softmax": lambda x, w, b: F.softmax(x * w, -1),
    "log_softmax": lambda x, w, b: F.log_softmax(x + b, -1),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ON_GPU)
def test_cuda_tensors_take_the_reference(compiled, simulated_gpu, name, dtype):
    """On the simulated GPU the arrays are the device's: `backends.kernels` gives them the
    reference, run through the array module, and the values and gradients equal the CPU
    tensors', which ran the compiled loops."""
    on_gpu = mg.tensor(np.zeros(3), device="cuda").array
    assert backends.kernels("layer_norm", array=on_gpu) is ref_layer_norm
    assert backends.kernels("softmax", array=on_gpu) is ref_softmax
    rng = np.random.default_rng(10)
    arrays = [rng.standard_normal((4, 129)), rng.standard_normal(129), rng.standard_normal(129)]
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-12)
    assert_same_as_cpu(simulated_gpu, ON_GPU[name], arrays, dtype, tolerance=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_on_cuda_tensors(compiled, simulated_gpu, dtype):
    """CUDA tensors keep CrossEntropy.backward's Tensor formula (the reference module
    compiles nothing) and get the CPU tensors' gradient, which the compiled loop gave;
    the reference's cross_entropy_backward runs on GPU arrays as on host ones."""
    rng = np.random.default_rng(15)
    x, target = rng.standard_normal((4, 129)) * 3, np.array([0, 2, 128, 7])
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-12)

    def fn(x, t):
        return F.cross_entropy(x, t, ignore_index=2, label_smoothing=0.1)

    assert_same_as_cpu(simulated_gpu, fn, [x, target], dtype, tolerance=tol)
    coeff = _coefficients(rng, 4, 129, dtype)
    on_gpu = [mg.tensor(a, device="cuda").array for a in (x.astype(dtype), coeff)]
    g = mg.tensor(np.arange(4.0, dtype=dtype), device="cuda").array
    ours = ref_softmax.cross_entropy_backward(*on_gpu, g, 1)
    expected = ref_softmax.cross_entropy_backward(x.astype(dtype), coeff, np.arange(4.0), 1)
    assert ours.dtype == dtype
    np.testing.assert_allclose(to_host(ours), expected, **tol)
