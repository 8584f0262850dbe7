"""Activations on CUDA tensors (the simulated GPU): values and gradients equal the CPU's,
float32 and float64, and nothing is copied between host and device (tests/cuda_same_as_cpu.py)."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.cuda_same_as_cpu import assert_same_as_cpu

X = np.random.default_rng(0).normal(size=(3, 5)) * 2
X[0, 0] = 0.0  # the kink of the piecewise ones
W = np.array([0.25, 0.1, -0.2, 0.3, 0.5])

CASES = {
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), [X]),
    "elu": (lambda x: F.elu(x, 0.7), [X]),
    "celu": (lambda x: F.celu(x, 1.3), [X]),
    "selu": (F.selu, [X]),
    "gelu": (F.gelu, [X]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), [X]),
    "silu": (F.silu, [X]),
    "mish": (F.mish, [X]),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=3.0), [X]),
    "softsign": (F.softsign, [X]),
    "logsigmoid": (F.logsigmoid, [X]),
    "hardtanh": (lambda x: F.hardtanh(x, -1.5, 1.5), [X]),
    "hardswish": (F.hardswish, [X]),
    "hardsigmoid": (F.hardsigmoid, [X]),
    "relu6": (F.relu6, [X]),
    "hardshrink": (F.hardshrink, [X]),
    "softshrink": (F.softshrink, [X]),
    "tanhshrink": (F.tanhshrink, [X]),
    "threshold": (lambda x: F.threshold(x, 0.5, -2.0), [X]),
    "softmax": (lambda x: F.softmax(x, dim=1), [X]),
    "softmin": (lambda x: F.softmin(x, dim=0), [X]),
    "log_softmax": (lambda x: F.log_softmax(x, dim=-1), [X]),
    "logsumexp": (lambda x: F.logsumexp(x, dim=1), [X]),  # ops/reduce.py
    "glu": (lambda x: F.glu(x[:, :4], dim=1), [X]),  # chunk's backward: ops/index.py
    "prelu": (F.prelu, [X, W]),
    "mg.softmax": (lambda x: mg.softmax(x, 0), [X]),
    "mg.log_softmax": (lambda x: mg.log_softmax(x, 1), [X]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", CASES)
def test_activation_on_cuda_equals_cpu(simulated_gpu, name, dtype):
    fn, arrays = CASES[name]
    assert_same_as_cpu(simulated_gpu, fn, arrays, dtype)


def test_gelu_create_graph_on_cuda(simulated_gpu):
    """Gelu's recorded backward (create_graph) runs on the device too: the second derivative."""

    def second(x):
        (g,) = mg.autograd.grad(F.gelu(x).sum(), [x], create_graph=True)
        return g

    assert_same_as_cpu(simulated_gpu, second, [X], np.float64)
