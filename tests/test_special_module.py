"""`mg.special` against `torch.special`: each function's values and gradients (float64),
and a gradient check of the ones that are compositions."""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd import gradcheck

from .helpers import assert_close

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = ["torch.special"]

RNG = np.random.default_rng(5)
REAL = RNG.standard_normal(7) * 2
POSITIVE = np.abs(REAL) + 0.3
PROB = 1 / (1 + np.exp(-REAL))

# name: (inputs, extra arguments)
UNARY = {
    "digamma": (POSITIVE,), "entr": (np.r_[POSITIVE, 0.0, -1.0],), "erf": (REAL,), "erfc": (REAL,),
    "erfinv": (PROB * 1.8 - 0.9,), "exp2": (REAL,), "expit": (REAL,), "expm1": (REAL,),
    "gammaln": (POSITIVE,), "i0": (REAL,), "i0e": (REAL,), "log1p": (POSITIVE,),
    "log_ndtr": (np.r_[REAL, -30.0],), "logit": (PROB,), "ndtr": (REAL,), "ndtri": (PROB,),
    "psi": (POSITIVE,), "round": (REAL,), "sinc": (REAL,),
}  # fmt: skip
BINARY = {"xlogy": (REAL, POSITIVE), "xlog1py": (np.r_[REAL, 0.0], np.r_[POSITIVE, 0.5]),
          "gammainc": (POSITIVE, POSITIVE[::-1].copy()),
          "gammaincc": (POSITIVE, POSITIVE[::-1].copy())}  # fmt: skip


def both(name, arrays, *args, **kwargs):
    mine = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = (
        getattr(mg.special, name)(*mine, *args, **kwargs),
        getattr(torch.special, name)(*theirs, *args, **kwargs),
    )
    assert_close(out, expected, rtol=1e-10, atol=1e-12)
    finite = torch.isfinite(expected)
    if expected.requires_grad:
        g = np.where(finite.numpy(), 1.0, 0.0)
        expected.backward(torch.tensor(g))
        out.backward(mg.tensor(g))
        for m, t in zip(mine, theirs):
            if t.grad is not None:
                want = t.grad
                if name == "entr":
                    want = torch.nan_to_num(t.grad, posinf=0.0, neginf=0.0)
                assert_close(m.grad, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_as_torch(name):
    both(name, UNARY[name])


@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_as_torch(name):
    if name in ("gammainc", "gammaincc"):  # no gradient for the first argument, in torch either
        mine = mg.special.__dict__[name](mg.tensor(BINARY[name][0]), mg.tensor(BINARY[name][1]))
        theirs = getattr(torch.special, name)(*(torch.tensor(a) for a in BINARY[name]))
        assert_close(mine, theirs, rtol=1e-9, atol=1e-12)
    else:
        both(name, BINARY[name])


def test_the_remaining_functions_as_torch():
    x = RNG.standard_normal((3, 4))
    both("softmax", (x,), 1)
    both("log_softmax", (x,), 0)
    both("logsumexp", (x,), 1)
    both("multigammaln", (POSITIVE + 2,), 2)
    corner = [mg.tensor([0.0, 0.0]), mg.tensor([-1.0, 2.0])]
    expected = torch.special.xlog1py(torch.tensor([0.0, 0.0]), torch.tensor([-1.0, 2.0]))
    assert mg.special.xlog1py(*corner).tolist() == expected.tolist() == [0.0, 0.0]
    mine = mg.special.polygamma(2, mg.tensor(POSITIVE))
    assert_close(mine, torch.special.polygamma(2, torch.tensor(POSITIVE)), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["entr", "ndtr", "log_ndtr", "ndtri", "i0e", "xlog1py"])
def test_the_compositions_pass_the_gradient_check(name):
    arrays = {
        "entr": POSITIVE,
        "ndtr": REAL,
        "log_ndtr": REAL,
        "ndtri": PROB * 0.8 + 0.1,
        "i0e": REAL + 0.05,
    }
    if name == "xlog1py":
        inputs = (mg.tensor(REAL, requires_grad=True), mg.tensor(POSITIVE, requires_grad=True))
    else:
        inputs = (mg.tensor(arrays[name], requires_grad=True),)
    assert gradcheck(getattr(mg.special, name), inputs)


def test_every_name_is_torchs():
    for name in mg.special.__all__:
        assert hasattr(torch.special, name), name
