"""Random ops on CUDA tensors (the simulated GPU): the draws are made on the device, from
the GPU's generator, which `mg.manual_seed` seeds: results are CUDA tensors, repeat under
the same seed, have the right distribution, and nothing is copied between host and device."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.ops.standard_gamma import standard_gamma

N = 4000  # draws per check: the means below are within 4 standard errors (about 0.03)

# op: (function of a CUDA tensor, input array); each returns draws whose mean is checked
CASES = {
    "dropout": (lambda x: F.dropout(x, 0.3), np.ones(N), 1.0),  # mean (1 - p) / (1 - p)
    "dropout_zeros": (lambda x: 1 - F.dropout(x, 0.3) * 0.7, np.ones(N), 0.3),
    "dropout2d": (lambda x: 1 - F.dropout2d(x, 0.25) * 0.75, np.ones((N, 2, 1, 1)), 0.25),
    # alpha dropout keeps the mean 0; rrelu's slope is U(0.1, 0.3)
    "alpha_dropout": (lambda x: F.alpha_dropout(x, 0.2, training=True), np.zeros(N), 0.0),
    "rrelu": (lambda x: F.rrelu(x, 0.1, 0.3, training=True), -np.ones(N), -0.2),
    "gumbel_softmax_hard": (
        lambda x: F.gumbel_softmax(x, hard=True)[:, 0], np.log([[0.7, 0.3]] * N), 0.7),
    "bernoulli": (mg.bernoulli, np.full(N, 0.35), 0.35),
    "bernoulli_p": (lambda x: mg.bernoulli(x, 0.6), np.zeros(N), 0.6),
    "multinomial": (
        lambda x: mg.multinomial(x, N, replacement=True).float(), np.array([0.2, 0.3, 0.5]), 1.3),
    "multinomial_rows": (
        lambda x: mg.multinomial(x, 1).float(), np.tile([0.0, 0.5, 0.5], (N, 1)), 1.5),
    "multinomial_without_replacement": (
        lambda x: mg.multinomial(x, 2)[:, 1].float(), np.tile([1.0, 0.0, 1.0], (N, 1)), 1.0),
    "normal": (lambda x: mg.normal(x, 2.0), np.full(N, 0.5), 0.5),
    "poisson": (mg.poisson, np.full(N, 3.0), 3.0),
    "binomial": (lambda x: mg.binomial(x, x * 0 + 0.25), np.full(N, 4.0), 1.0),
    "standard_gamma": (standard_gamma, np.full(N, 2.0), 2.0),
}  # fmt: skip


def draw(simulated_gpu, fn, array, dtype=np.float32):
    x = mg.tensor(array.astype(dtype), device="cuda")
    with simulated_gpu.forbid_transfers():
        out = fn(x)
    assert out.device.type == "cuda"
    return out


@pytest.mark.parametrize("name", CASES)
def test_random_op_draws_on_the_device(simulated_gpu, name):
    fn, array, mean = CASES[name]
    mg.manual_seed(7)
    first = draw(simulated_gpu, fn, array)
    assert abs(first.mean().item() - mean) < 0.06 * max(1.0, abs(mean)), first.mean().item()
    mg.manual_seed(7)
    again = draw(simulated_gpu, fn, array)
    np.testing.assert_array_equal(again.cpu().numpy(), first.cpu().numpy())  # the seed repeats it
    other = draw(simulated_gpu, fn, array)  # the stream moves on
    assert not np.array_equal(other.cpu().numpy(), first.cpu().numpy())


def test_dropout_gradient_on_the_device(simulated_gpu):
    """The gradient of dropout is its mask, on the device: 0 or 1 / (1 - p)."""
    x = mg.tensor(np.ones(1000, np.float32), device="cuda", requires_grad=True)
    with simulated_gpu.forbid_transfers():
        F.dropout(x, 0.5).sum().backward()
    assert x.grad.device.type == "cuda"
    assert set(np.unique(x.grad.cpu().numpy())) == {0.0, 2.0}


def test_cpu_generator_refused_for_a_cuda_tensor(simulated_gpu):
    x = mg.tensor([0.5, 0.5], device="cuda")
    expected = "multinomial: Expected a 'cuda' device type for generator"
    with pytest.raises(RuntimeError, match=expected):
        mg.multinomial(x, 1, generator=mg.Generator())


def test_cuda_draws_leave_the_cpu_stream_alone(simulated_gpu):
    """A CUDA tensor's dropout draws from the GPU's generator: the CPU's stream does not move."""
    x = mg.tensor(np.ones(100, np.float32), device="cuda")
    mg.manual_seed(3)
    expected = mg.rand(5).numpy()
    mg.manual_seed(3)
    F.dropout(x, 0.5)
    np.testing.assert_array_equal(mg.rand(5).numpy(), expected)


def test_standard_gamma_gradient_on_cuda_says_cpu_only(simulated_gpu):
    alpha = mg.tensor([2.0, 3.0], device="cuda", requires_grad=True)
    draws = standard_gamma(alpha)
    assert draws.device.type == "cuda"
    with pytest.raises(RuntimeError, match="standard_gamma: the gradient .* runs on the CPU only"):
        draws.sum().backward()
