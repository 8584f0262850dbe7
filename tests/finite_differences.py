"""Test helpers without PyTorch: reproducible arrays and float64 gradient checks against
finite differences.

The exercises' tests (tests/test_exercise_*.py) use only these, so that a student's copy
of minigrad (python -m minigrad.exercises) runs its tests with NumPy and pytest alone;
tests/helpers.py adds PyTorch as an oracle for the rest of the suite.
"""

import numpy as np

import minigrad as mg
from minigrad.autograd import gradcheck, gradgradcheck


def rand(*shape, seed=0, positive=False, dtype=np.float64):
    """A reproducible random array (away from 0 when positive=True)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if positive:
        x = np.abs(x) + 0.5
    return x.astype(dtype)


def leaf(array, requires_grad=True):
    """A float64 minigrad leaf holding a copy of `array`."""
    return mg.tensor(np.array(array, dtype=np.float64), requires_grad=requires_grad)


def check_grads(fn, *arrays, second=False, atol=1e-5, rtol=1e-3):
    """gradcheck (and optionally gradgradcheck) `fn` at float64 copies of `arrays`."""
    xs = [leaf(a) for a in arrays]
    assert gradcheck(fn, xs, atol=atol, rtol=rtol)
    if second:
        assert gradgradcheck(fn, [leaf(a) for a in arrays], atol=atol, rtol=rtol)
