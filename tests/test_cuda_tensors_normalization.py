"""Normalization on CUDA tensors (the simulated GPU): values and gradients equal the CPU's,
float32 and float64, running statistics included, with no copy between host and device."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.cuda_same_as_cpu import assert_same_as_cpu

rng = np.random.default_rng(2)
X = rng.normal(size=(3, 4, 5)) * 2 + 1
IMAGES = rng.normal(size=(2, 4, 3, 3))
W4, B4 = rng.normal(size=4), rng.normal(size=4)
W5, B5 = rng.normal(size=5), rng.normal(size=5)
MEAN, VAR = rng.normal(size=4), rng.uniform(0.5, 2.0, size=4)


def second_derivative(fn):
    """The gradient of sum(fn(x, ...)^2) as a function of the inputs (create_graph=True)."""

    def run(x, *rest):
        (g,) = mg.autograd.grad((fn(x, *rest) ** 2).sum(), [x], create_graph=True)
        return g

    return run


CASES = {
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (5,), w, b), [X, W5, B5]),
    "layer_norm_2_dims": (lambda x: F.layer_norm(x, (4, 5)), [X]),
    "layer_norm_create_graph": (
        second_derivative(lambda x, w, b: F.layer_norm(x, (5,), w, b)),
        [X, W5, B5],
    ),
    "rms_norm": (lambda x, w: F.rms_norm(x, (5,), w), [X, W5]),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), [IMAGES, W4, B4]),
    "batch_norm_training": (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        [IMAGES, W4, B4],
    ),
    "batch_norm_eval": (lambda x, m, v: F.batch_norm(x, m, v, training=False), [IMAGES, MEAN, VAR]),
    "batch_norm_create_graph": (
        second_derivative(lambda x: F.batch_norm(x, None, None, training=True)),
        [X],
    ),
    "instance_norm": (F.instance_norm, [IMAGES]),
    "local_response_norm": (lambda x: F.local_response_norm(x, 3), [IMAGES]),
    "normalize": (lambda x: F.normalize(x, dim=2), [X]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", CASES)
def test_normalization_on_cuda_equals_cpu(simulated_gpu, name, dtype):
    fn, arrays = CASES[name]
    assert_same_as_cpu(simulated_gpu, fn, arrays, dtype, constants=(1, 2) if "eval" in name else ())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_running_statistics_on_cuda(simulated_gpu, dtype):
    """Training updates the running mean and variance in place, on the device, as on the CPU."""
    results = {}
    for device in ("cpu", "cuda"):
        x = mg.tensor(IMAGES.astype(dtype), device=device)
        mean, var = (
            mg.tensor(MEAN.astype(dtype), device=device),
            mg.tensor(VAR.astype(dtype), device=device),
        )
        guard = simulated_gpu.forbid_transfers() if device == "cuda" else mg.no_grad()
        with guard:
            F.batch_norm(x, mean, var, training=True, momentum=0.3)
        assert mean.device.type == var.device.type == device
        results[device] = (mean.cpu().numpy(), var.cpu().numpy())
    np.testing.assert_allclose(results["cuda"][0], results["cpu"][0], rtol=1e-6)
    np.testing.assert_allclose(results["cuda"][1], results["cpu"][1], rtol=1e-6)
    assert not np.allclose(results["cpu"][0], MEAN)  # they moved
