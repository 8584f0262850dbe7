"""Special functions on CUDA tensors (the simulated GPU). erf, erfc, erfinv, digamma,
polygamma, i0 and GELU have GPU formulas: their values and gradients equal the CPU's.
lgamma, igamma, igammac and i1 (i0's gradient) run on the CPU only, and say so."""

import math

import numpy as np
import pytest

import minigrad as mg
from minigrad.ops import special
from tests.conftest import REAL_GPU
from tests.cuda_same_as_cpu import assert_same_as_cpu

WIDE = np.array([-7.0, -3.2, -2.0, -1.49, -0.6, -1e-3, 0.0, 2e-8, 0.3, 1.0, 1.5, 1.51, 2.4, 3.7])
WIDE = np.append(WIDE, [5.9, 26.0])
PROBABILITIES = np.array([-0.999999, -0.9, -0.5, -0.1, 0.0, 0.05, 0.49, 0.51, 0.8, 0.99, 0.9999])
POSITIVE = np.array([1e-3, 0.2, 0.5, 1.0, 2.5, 7.0, 12.0, 40.0])
ANYWHERE = np.array([-3.5, -0.4, 0.3, 1.0, 2.5, 13.0])

CASES = {
    "erf": (mg.erf, [WIDE]),
    "erfc": (mg.erfc, [WIDE]),
    "erfinv": (mg.erfinv, [PROBABILITIES]),
    "digamma": (lambda x: mg.digamma(x.detach()), [ANYWHERE]),
    "digamma_grad": (mg.digamma, [ANYWHERE]),  # its gradient is polygamma(1, x)
    "polygamma_1": (lambda x: mg.polygamma(1, x), [POSITIVE]),
    "polygamma_3": (lambda x: mg.polygamma(3, x), [POSITIVE]),
    "i0_forward": (lambda x: mg.i0(x.detach()), [WIDE]),
}
COPIES_ONE_NUMBER = ("polygamma_1", "polygamma_3", "digamma_grad")
# erfc is 1e-9 .. 2 on WIDE: the formulas differ from the CPU's by a few units in the last place
TOLERANCE = {np.float32: dict(rtol=3e-6, atol=2e-7), np.float64: dict(rtol=5e-14, atol=1e-15)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", CASES)
def test_special_function_on_cuda_equals_cpu(simulated_gpu, name, dtype):
    fn, arrays = CASES[name]
    guarded = simulated_gpu if name not in COPIES_ONE_NUMBER else None  # see the next test
    backward = name not in ("i0_forward", "digamma")
    assert_same_as_cpu(guarded, fn, arrays, dtype, tolerance=TOLERANCE[dtype], backward=backward)


def test_polygamma_on_cuda_copies_one_number(simulated_gpu):
    x = mg.tensor(POSITIVE, device="cuda")
    simulated_gpu.transfers.update(to_host=0, to_device=0)
    y = mg.polygamma(2, x)
    assert y.device.type == "cuda"
    if not REAL_GPU:  # the real GPU's stand-in cannot count a read of one number (.item())
        assert dict(simulated_gpu.transfers) == {"to_host": 1, "to_device": 0}


@pytest.mark.parametrize("x", list(WIDE) + [np.inf, -np.inf, 40.0])
def test_device_erf_formulas_against_math(simulated_gpu, x):
    """The float64 series and continued fraction, against the C library's erf and erfc."""
    device = simulated_gpu.asarray(np.array([x]))
    erf = special.erf(device).get()[0]
    erfc = special.erfc(device).get()[0]
    assert erf == pytest.approx(math.erf(x), rel=4e-15, abs=1e-300)
    assert erfc == pytest.approx(math.erfc(x), rel=4e-15, abs=1e-300)


@pytest.mark.parametrize(
    "op, message",
    [
        (lambda x: mg.lgamma(x), "lgamma: runs on the CPU only"),
        (lambda x: mg.mvlgamma(x, 2), "lgamma: runs on the CPU only"),
        (lambda x: mg.igamma(x, x), "igamma: runs on the CPU only"),
        (lambda x: mg.igammac(x, x), "igammac: runs on the CPU only"),
        (lambda x: mg.i0(x).sum().backward(), r"i1 \(the gradient of i0\): runs on the CPU only"),
    ],
)
def test_cpu_only_special_functions_say_so(simulated_gpu, op, message):
    x = mg.tensor([1.5, 2.0], device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match=message + r" \(.*\); move the tensor to the CPU first"):
        op(x)
