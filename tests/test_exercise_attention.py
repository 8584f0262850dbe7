"""The attention exercise's tests (python -m minigrad.exercises): scaled dot-product
attention on the reference kernel (a stable softmax forward and its backward), first
and second derivatives, against finite differences in float64.

They run on the NumPy backend, whose kernel (minigrad/kernels/reference/attention.py)
holds the exercise. No PyTorch here (a student's copy runs this file with the `student`
extra); tests/test_attention.py runs the same cases on the Numba kernels and compares
both with PyTorch.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.finite_differences import check_grads, rand

pytestmark = pytest.mark.lesson_attention


def bool_mask(shape, seed, masked_rows=()):
    """True = attend; about a third masked out; the listed rows (dim -2) fully masked."""
    mask = np.random.default_rng(seed).random(shape) > 0.35
    for row in masked_rows:
        mask[..., row, :] = False
    return mask


CASES = [  # query, key, value shapes, mask, keyword arguments
    ((2, 4, 3), (2, 5, 3), (2, 5, 2), None, {}),
    ((2, 4, 3), (2, 5, 3), (2, 5, 2), None, dict(is_causal=True, scale=0.7)),
    # a fully masked row
    ((1, 2, 4, 3), (1, 2, 3, 3), (1, 2, 3, 2), bool_mask((4, 3), 7, masked_rows=(2,)), {}),
    ((1, 4, 3, 2), (1, 2, 3, 2), (1, 2, 3, 2), None, dict(enable_gqa=True)),
    ((2, 3, 4), (4, 4), (4, 3), rand(3, 4, seed=8), {}),  # float mask, broadcast key/value
]


@pytest.mark.parametrize("q_shape, k_shape, v_shape, mask, kwargs", CASES)
def test_gradients_match_finite_differences(q_shape, k_shape, v_shape, mask, kwargs):
    attn_mask = None if mask is None else mg.tensor(mask)

    def attention(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, **kwargs)

    arrays = rand(*q_shape, seed=0), rand(*k_shape, seed=1), rand(*v_shape, seed=2)
    with mg.backends.use("numpy"):
        check_grads(attention, *arrays, second=True)
