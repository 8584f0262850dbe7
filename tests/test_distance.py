"""F.normalize, F.pairwise_distance, F.cosine_similarity and mg.cdist against torch:
values, gradients (torch's and finite differences in float64) and errors."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn.functional as F
from tests.helpers import assert_close, check_against_torch, check_grads, rand

TORCH_API = [
    "torch.nn.functional.normalize",
    "torch.nn.functional.pairwise_distance",
    "torch.nn.functional.cosine_similarity",
    "torch.cdist",
]


def raises_like_torch(mine, theirs, match=None):
    with pytest.raises(Exception) as torch_error:
        theirs()
    with pytest.raises(torch_error.type, match=match):
        mine()


# ---- normalize ------------------------------------------------------------------------------
@pytest.mark.parametrize("p, dim", [(2.0, 1), (1, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize_matches_torch(p, dim):
    x = rand(3, 4, 2)
    check_against_torch(
        lambda t: F.normalize(t, p=p, dim=dim), lambda t: TF.normalize(t, p=p, dim=dim), x
    )
    check_grads(lambda t: F.normalize(t, p=p, dim=dim), x)


def test_normalize_clamps_small_norms_to_eps_as_torch():
    x = np.array([[0.0, 0.0, 0.0], [1e-14, 0.0, -2e-14], [3.0, 4.0, 0.0]])
    check_against_torch(
        lambda t: F.normalize(t, eps=1e-12), lambda t: TF.normalize(t, eps=1e-12), x
    )
    assert_close(F.normalize(mg.zeros(2, 3)), TF.normalize(torch.zeros(2, 3)))


def test_normalize_errors_are_torchs():
    raises_like_torch(
        lambda: F.normalize(mg.ones(2, 3), dim=3), lambda: TF.normalize(torch.ones(2, 3), dim=3)
    )
    raises_like_torch(
        lambda: F.normalize(mg.ones(2, 3, dtype=mg.int64)),
        lambda: TF.normalize(torch.ones(2, 3, dtype=torch.int64)),
    )


# ---- pairwise_distance --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shapes, p, keepdim",
    [
        (((4, 3), (4, 3)), 2.0, False),
        (((4, 3), (3,)), 2.0, False),
        (((4, 3), (1, 3)), 1.0, True),
        (((3,), (3,)), 2.0, False),
        (((3,), (3,)), 2.0, True),
        (((2, 4, 3), (4, 3)), 3.0, False),
        (((), ()), 2.0, False),
        (((4, 3), (4, 3)), float("inf"), False),
        (((4, 3), (4, 3)), 0.5, False),
    ],
)
def test_pairwise_distance_matches_torch(shapes, p, keepdim):
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    check_against_torch(
        lambda x, y: F.pairwise_distance(x, y, p=p, keepdim=keepdim),
        lambda x, y: TF.pairwise_distance(x, y, p=p, keepdim=keepdim),
        a,
        b,
    )
    check_grads(lambda x, y: F.pairwise_distance(x, y, p=p, keepdim=keepdim), a, b)


def test_pairwise_distance_of_equal_rows_is_eps_away_from_zero_as_torch():
    a = rand(3, 4)
    check_against_torch(F.pairwise_distance, TF.pairwise_distance, a, a.copy())
    assert_close(
        F.pairwise_distance(mg.tensor(a), mg.tensor(a), p=0),
        TF.pairwise_distance(torch.tensor(a), torch.tensor(a), p=0),
    )


def test_pairwise_distance_errors_are_torchs():
    raises_like_torch(
        lambda: F.pairwise_distance(mg.ones(2, 3), mg.ones(4, 3)),
        lambda: TF.pairwise_distance(torch.ones(2, 3), torch.ones(4, 3)),
        "size of tensor",
    )


# ---- cosine_similarity --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shapes, dim",
    [
        (((4, 3), (4, 3)), 1),
        (((4, 3), (3,)), -1),
        (((3,), (3,)), 0),
        (((2, 5, 3), (2, 1, 3)), 2),
        (((2, 3, 4),) * 2, 0),
    ],
)
def test_cosine_similarity_matches_torch(shapes, dim):
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    check_against_torch(
        lambda x, y: F.cosine_similarity(x, y, dim=dim),
        lambda x, y: TF.cosine_similarity(x, y, dim=dim),
        a,
        b,
    )
    check_grads(lambda x, y: F.cosine_similarity(x, y, dim=dim), a, b)


def test_cosine_similarity_of_a_zero_vector_is_zero_and_its_gradient_torchs():
    # the norm below eps is clamped outside the graph, as torch does: same values, same gradients
    a, b = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]]), rand(2, 3, seed=1)
    check_against_torch(F.cosine_similarity, TF.cosine_similarity, a, b)


def test_cosine_similarity_promotes_and_refuses_integers_as_torch():
    mixed = F.cosine_similarity(mg.ones(2, 3), mg.ones(2, 3, dtype=mg.float64))
    tmixed = TF.cosine_similarity(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64))
    assert str(mixed.dtype) == str(tmixed.dtype).removeprefix("torch.")
    assert_close(mixed, tmixed)
    raises_like_torch(
        lambda: F.cosine_similarity(mg.ones(2, 3, dtype=mg.int64), mg.ones(2, 3, dtype=mg.int64)),
        lambda: TF.cosine_similarity(
            torch.ones(2, 3, dtype=torch.int64), torch.ones(2, 3, dtype=torch.int64)
        ),
        "expected common dtype to be floating point",
    )
    raises_like_torch(
        lambda: F.cosine_similarity(mg.ones(2, 3), mg.ones(4, 3)),
        lambda: TF.cosine_similarity(torch.ones(2, 3), torch.ones(4, 3)),
        "size of tensor",
    )


# ---- cdist ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, float("inf")])
@pytest.mark.parametrize(
    "shapes", [((4, 3), (5, 3)), ((2, 4, 3), (2, 5, 3)), ((2, 4, 3), (5, 3)), ((1, 3), (30, 3))]
)
def test_cdist_matches_torch(shapes, p):
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    check_against_torch(
        lambda x, y: mg.cdist(x, y, p=p), lambda x, y: torch.cdist(x, y, p=p), a, b, rtol=1e-9
    )
    if p != 0:  # a count: its gradient is 0 (checked against torch above)
        check_grads(lambda x, y: mg.cdist(x, y, p=p), a, b)


def test_cdist_of_a_set_with_itself_has_zero_gradient_on_the_diagonal_as_torch():
    a = rand(5, 3)
    check_against_torch(lambda x: mg.cdist(x, x), lambda x: torch.cdist(x, x), a, rtol=1e-9)


def test_cdist_errors_are_torchs():
    cases = [
        (
            (mg.randn(3), mg.randn(5, 3)),
            (torch.randn(3), torch.randn(5, 3)),
            "at least 2D tensors, X1 got: 1D",
        ),
        (
            (mg.randn(4, 3), mg.randn(5, 4)),
            (torch.randn(4, 3), torch.randn(5, 4)),
            "same number of columns",
        ),
        (
            (mg.ones(4, 3, dtype=mg.int64), mg.ones(5, 3, dtype=mg.int64)),
            (torch.ones(4, 3, dtype=torch.int64), torch.ones(5, 3, dtype=torch.int64)),
            "floating-point dtypes",
        ),
        (
            (mg.randn(4, 3), mg.randn(5, 3, dtype=mg.float64)),
            (torch.randn(4, 3), torch.randn(5, 3).double()),
            None,
        ),
        (
            (mg.randn(2, 4, 3), mg.randn(3, 5, 3)),
            (torch.randn(2, 4, 3), torch.randn(3, 5, 3)),
            "size of tensor",
        ),
    ]
    for mine, theirs, match in cases:
        raises_like_torch(lambda m=mine: mg.cdist(*m), lambda t=theirs: torch.cdist(*t), match)
    raises_like_torch(
        lambda: mg.cdist(mg.randn(4, 3), mg.randn(5, 3), p=-1),
        lambda: torch.cdist(torch.randn(4, 3), torch.randn(5, 3), p=-1),
        "non-negative p",
    )
    assert mg.cdist(mg.randn(0, 3), mg.randn(5, 3)).shape == tuple(
        torch.cdist(torch.randn(0, 3), torch.randn(5, 3)).shape
    )
