"""Every op family on CUDA tensors: forward and backward equal to the CPU's, in float32 and
float64, and float64 gradcheck on the device.

Each case is one op family's representative, run on the same values on the CPU and on the
GPU. The table of tests/test_cuda_tensors_*.py covers each family op by op (on the real GPU
with `MINIGRAD_TEST_REAL_GPU=1`, as tools/gpu_check.sh runs it); this one is the check that
needs no simulator at all.

The GPU sums in another order than the CPU (cuBLAS's tiles, CuPy's tree reductions), so
the results agree to rounding, not bit for bit: float64 to 1e-9, float32 to 1e-4.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

RNG_SEED = 0
TARGETS = np.array([1, 0, 3, 2, 1])  # class indices for the losses (5 rows, 4 classes)
TOKENS = np.array([[0, 3, 2], [5, 5, 1]])  # rows of an embedding table of 6
ROWS, COLUMNS = np.array([2, 0, 2]), np.array([[1], [0], [3]])  # an index and a gather's
_device_copies = {}


@pytest.fixture(autouse=True)
def fresh_device_copies():
    _device_copies.clear()
    yield
    _device_copies.clear()


def _on(device, data):
    """The host index array `data` as a tensor on `device`. The GPU copy is made once per test
    and reused: inside forbid_transfers() only the op's own copies should be caught."""
    if device == "cpu":
        return mg.tensor(data)
    if id(data) not in _device_copies:
        _device_copies[id(data)] = mg.tensor(data, device=device)
    return _device_copies[id(data)]


# (family, fn(xs, device) -> tensor, input shapes): every input requires grad
OPS = [
    ("unary", lambda xs, d: xs[0].exp() + xs[0].tanh() + F.gelu(xs[0]) + xs[0].sigmoid(), [(3, 4)]),
    ("binary-broadcast", lambda xs, d: xs[0] * xs[1] - xs[0] / (xs[1].abs() + 1.0), [(3, 4), (4,)]),
    (
        "pow-clamp-where",
        lambda xs, d: mg.where(xs[0] > 0, (xs[0].abs() + 0.5) ** 1.5, xs[0].clamp(-0.5, 0.5)),
        [(5,)],
    ),
    (
        "reductions",
        lambda xs, d: xs[0].sum(1) + xs[0].mean(1) + xs[0].amax(1) + xs[0].logsumexp(1),
        [(3, 5)],
    ),
    ("softmax", lambda xs, d: F.softmax(xs[0], dim=-1) * F.log_softmax(xs[0], dim=0), [(3, 4)]),
    ("matmul", lambda xs, d: xs[0] @ xs[1], [(2, 3, 4), (4, 5)]),
    ("linear", lambda xs, d: F.linear(xs[0], xs[1], xs[2]), [(3, 4), (2, 4), (2,)]),
    (
        "shapes",
        lambda xs, d: mg.cat([xs[0].transpose(0, 1).reshape(2, 6), mg.stack([xs[1], xs[1]])], 0)[
            :, 1::2
        ],
        [(3, 4), (6,)],
    ),
    ("indexing", lambda xs, d: xs[0][_on(d, ROWS)] + xs[0].gather(1, _on(d, COLUMNS)), [(3, 4)]),
    ("cross-entropy", lambda xs, d: F.cross_entropy(xs[0], _on(d, TARGETS)), [(5, 4)]),
    ("mse", lambda xs, d: F.mse_loss(xs[0], xs[1]), [(3, 4), (3, 4)]),
    ("layer-norm", lambda xs, d: F.layer_norm(xs[0], (4,), xs[1], xs[2]), [(3, 4), (4,), (4,)]),
    (
        "batch-norm",
        lambda xs, d: F.batch_norm(xs[0], None, None, xs[1], xs[2], training=True),
        [(4, 3, 2), (3,), (3,)],
    ),
    ("embedding", lambda xs, d: F.embedding(_on(d, TOKENS), xs[0]), [(6, 3)]),
    (
        "conv2d",
        lambda xs, d: F.conv2d(xs[0], xs[1], xs[2], stride=1, padding=1),
        [(2, 2, 5, 5), (3, 2, 3, 3), (3,)],
    ),
    ("max-pool", lambda xs, d: F.max_pool2d(xs[0], 2), [(1, 2, 4, 6)]),
    ("avg-pool", lambda xs, d: F.avg_pool2d(xs[0], 3, stride=2, padding=1), [(1, 2, 5, 5)]),
    (
        "attention",
        lambda xs, d: F.scaled_dot_product_attention(xs[0], xs[1], xs[2], is_causal=True),
        [(1, 2, 5, 4), (1, 2, 5, 4), (1, 2, 5, 4)],
    ),
]
IDS = [case[0] for case in OPS]


def _inputs(shapes, dtype):
    rng = np.random.default_rng(RNG_SEED)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def _run(fn, arrays, device):
    """fn's output and the gradients of sum(output * weights) on `device`, copied to the host,
    and the devices the output and gradients were on."""
    xs = [mg.tensor(a, device=device, requires_grad=True) for a in arrays]
    out = fn(xs, device)
    weights = np.random.default_rng(1).standard_normal(out.shape).astype(arrays[0].dtype)
    (out * mg.tensor(weights, device=device)).sum().backward()
    devices = {out.device.type, *(x.grad.device.type for x in xs)}
    return out.detach().cpu().numpy(), [x.grad.cpu().numpy() for x in xs], devices


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("family, fn, shapes", OPS, ids=IDS)
def test_op_on_gpu_equals_cpu(family, fn, shapes, dtype, gpu):
    arrays = _inputs(shapes, dtype)
    out_cpu, grads_cpu, _ = _run(fn, arrays, "cpu")
    out_gpu, grads_gpu, devices = _run(fn, arrays, "cuda")
    assert devices == {"cuda"}, f"{family}: output or gradients left the GPU: {devices}"
    assert out_gpu.dtype == dtype
    tol = dict(rtol=1e-9, atol=1e-9) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out_gpu, out_cpu, **tol, err_msg=f"{family} forward")
    for k, (g_gpu, g_cpu) in enumerate(zip(grads_gpu, grads_cpu)):
        np.testing.assert_allclose(g_gpu, g_cpu, **tol, err_msg=f"{family}: gradient of input {k}")


@pytest.mark.parametrize("family, fn, shapes", OPS, ids=IDS)
def test_gradcheck_on_gpu(family, fn, shapes, gpu):
    xs = [mg.tensor(a, device="cuda", requires_grad=True) for a in _inputs(shapes, np.float64)]
    assert mg.autograd.gradcheck(lambda *inputs: fn(list(inputs), "cuda"), xs)


def test_a_step_of_every_family_copies_nothing(gpu):
    """Forward and backward of every case above with copies between host and device
    forbidden: a first run outside makes the index tensors' device copies (`_on`)."""
    for family, fn, shapes in OPS:
        xs = [mg.tensor(a, device="cuda", requires_grad=True) for a in _inputs(shapes, np.float32)]
        fn(xs, "cuda")
        try:
            with gpu.forbid_transfers():
                fn(xs, "cuda").sum().backward()
        except Exception as error:
            raise AssertionError(f"{family}: {error}") from error
