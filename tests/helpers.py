"""Shared test helpers: PyTorch as an oracle, and (from tests/finite_differences.py,
which needs no PyTorch) reproducible arrays and float64 gradient checks."""

import numpy as np
import torch

import minigrad as mg
from tests.finite_differences import check_grads, leaf, rand

__all__ = ["assert_close", "check_against_torch", "check_grads", "leaf", "rand", "tleaf"]

torch.set_default_dtype(torch.float32)


def tleaf(array, requires_grad=True):
    """The same values as a PyTorch float64 leaf."""
    return torch.tensor(np.array(array, dtype=np.float64), requires_grad=requires_grad)


def assert_close(mine, theirs, rtol=1e-6, atol=1e-8):
    """Compare a minigrad tensor (or array) with a torch tensor (or array): values, shape, dtype
    kind."""
    a = mine.array if isinstance(mine, mg.Tensor) else np.asarray(mine)
    b = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    assert a.shape == b.shape, f"shape {a.shape} != {b.shape}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def check_against_torch(fn_mg, fn_torch, *arrays, rtol=1e-6, atol=1e-8, grad_seed=1):
    """Run both functions on float64 copies of `arrays`; compare outputs and the input
    gradients for a random output gradient."""
    xs = [leaf(a) for a in arrays]
    ts = [tleaf(a) for a in arrays]
    out, tout = fn_mg(*xs), fn_torch(*ts)
    assert_close(out, tout, rtol=rtol, atol=atol)
    g = rand(*tout.shape, seed=grad_seed)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    for x, t in zip(xs, ts):
        if t.grad is None:
            assert x.grad is None or np.allclose(x.grad.array, 0)
        else:
            assert_close(x.grad, t.grad, rtol=rtol, atol=atol)
