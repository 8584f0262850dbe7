"""F.interpolate and the Upsample layers against torch: every mode at sizes that go up,
down and by odd factors, with and without align_corners and recompute_scale_factor, in
float32 and float64 (torch computes the source indices in the input's float type, and
so must minigrad, for the nearest modes to pick the same pixels); gradients against
torch's and against finite differences (float64, first and second order)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from tests.helpers import assert_close, check_against_torch, check_grads, rand

TORCH_API = [
    "torch.nn.functional.interpolate",
    "torch.nn.Upsample",
    "torch.nn.UpsamplingNearest2d",
    "torch.nn.UpsamplingBilinear2d",
]

# (input spatial size, keyword arguments giving the output size)
RESIZES_1D = [
    ((5,), {"size": 9}),
    ((7,), {"size": 3}),
    ((4,), {"size": 4}),
    ((5,), {"scale_factor": 2}),
    ((6,), {"scale_factor": 0.5}),
    ((5,), {"scale_factor": 1.7}),
    ((7,), {"scale_factor": 1 / 3}),
    ((5,), {"scale_factor": 2.5, "recompute_scale_factor": True}),
    ((1,), {"size": 4}),
    ((4,), {"size": 1}),
]
RESIZES_2D = [
    ((4, 5), {"size": (7, 3)}),
    ((3, 3), {"size": 6}),
    ((5, 4), {"scale_factor": (1.5, 0.8)}),
    ((3, 5), {"scale_factor": 2}),
    ((6, 7), {"scale_factor": 0.45, "recompute_scale_factor": True}),
]
RESIZES_3D = [((3, 4, 2), {"size": (5, 2, 3)}), ((2, 3, 3), {"scale_factor": 1.5})]


def resize_cases(resizes, modes, corners):
    return [
        (spatial, kwargs, mode, align)
        for spatial, kwargs in resizes
        for mode in modes
        for align in corners
    ]


CASES = (
    resize_cases(RESIZES_1D, ["nearest", "nearest-exact"], [None])
    + resize_cases(RESIZES_1D, ["linear"], [False, True])
    + resize_cases(RESIZES_2D, ["nearest", "nearest-exact"], [None])
    + resize_cases(RESIZES_2D, ["bilinear"], [False, True])
    + resize_cases(RESIZES_3D, ["nearest", "nearest-exact"], [None])
    + resize_cases(RESIZES_3D, ["trilinear"], [False, True])
    + resize_cases(RESIZES_1D[:6] + RESIZES_2D, ["area"], [None])
)


def case_id(case):
    spatial, kwargs, mode, align = case
    settings = "-".join(f"{k}={v}" for k, v in kwargs.items())
    return f"{mode}-{'x'.join(map(str, spatial))}-{settings}-ac={align}"


def resize(framework, mode, align, kwargs):
    interpolate = F.interpolate if framework is mg else TF.interpolate
    extra = {} if align is None else {"align_corners": align}
    return lambda x: interpolate(x, mode=mode, **extra, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_matches_torch(case, dtype):
    spatial, kwargs, mode, align = case
    x = rand(2, 3, *spatial, seed=len(spatial)).astype(dtype)
    mine, theirs = (
        resize(mg, mode, align, kwargs)(mg.tensor(x)),
        resize(torch, mode, align, kwargs)(torch.tensor(x)),
    )
    assert mine.dtype == x.dtype and mine.shape == tuple(theirs.shape)
    if mode.startswith("nearest"):  # copies: the very same elements, or the index formula is wrong
        np.testing.assert_array_equal(mine.array, theirs.numpy())
    else:
        assert_close(
            mine,
            theirs,
            rtol=1e-5 if dtype == "float32" else 1e-12,
            atol=1e-6 if dtype == "float32" else 1e-12,
        )


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradient_matches_torch(case):
    spatial, kwargs, mode, align = case
    x = rand(2, 2, *spatial, seed=3)
    check_against_torch(
        resize(mg, mode, align, kwargs),
        resize(torch, mode, align, kwargs),
        x,
        rtol=1e-10,
        atol=1e-12,
    )


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in CASES
        if c[1] in ({"size": 3}, {"scale_factor": 1.7}, {"size": (7, 3)}, {"size": (5, 2, 3)})
    ],
    ids=case_id,
)
def test_gradient_matches_finite_differences_to_second_order(case):
    spatial, kwargs, mode, align = case
    check_grads(resize(mg, mode, align, kwargs), rand(1, 2, *spatial, seed=4), second=True)


def test_nearest_upsamples_uint8_images_as_torch():
    x = np.random.default_rng(0).integers(0, 256, (1, 3, 4, 5)).astype(np.uint8)
    for mode in ("nearest", "nearest-exact"):
        mine = F.interpolate(mg.tensor(x), size=(7, 9), mode=mode)
        theirs = TF.interpolate(torch.tensor(x), size=(7, 9), mode=mode)
        assert mine.dtype == mg.uint8 and np.array_equal(mine.array, theirs.numpy())


def test_nearest_gradient_is_a_scatter_add():
    # 3 inputs to 7 outputs: each output copies one input; each input's gradient is the
    # sum of the output gradients of the outputs that copied it
    x = mg.tensor([[[1.0, 2.0, 3.0]]], requires_grad=True)
    y = F.interpolate(x, size=7, mode="nearest")
    g = mg.tensor([[[1.0, 10.0, 100.0, 1000.0, 1e4, 1e5, 1e6]]])
    y.backward(g)
    copied = [int(v) - 1 for v in y.array.ravel()]  # which input each output holds
    expected = [sum(g.array.ravel()[o] for o in range(7) if copied[o] == i) for i in range(3)]
    assert x.grad.array.ravel().tolist() == expected


def raises_like_torch(mine, theirs, match=None):
    with pytest.raises(Exception) as torch_error:
        theirs()
    with pytest.raises(torch_error.type, match=match):
        mine()


def test_errors_are_torchs():
    x, tx = mg.zeros(1, 1, 4, 4), torch.zeros(1, 1, 4, 4)
    cases = [
        (
            {"size": 3, "align_corners": True},
            "align_corners option can only be set with the interpolating modes",
        ),
        ({"size": 3, "scale_factor": 2}, "only one of size or scale_factor should be defined"),
        ({}, "either size or scale_factor should be defined"),
        ({"size": (3,)}, "Input and output must have the same number of spatial dimensions"),
        ({"size": (3.0, 2.0)}, "expected size to be one of int"),
        (
            {"scale_factor": (2, 2, 2)},
            "Input and scale_factor must have the same number of spatial dimensions",
        ),
        ({"size": 3, "recompute_scale_factor": True}, "recompute_scale_factor is not meaningful"),
        ({"size": 3, "mode": "linear"}, "Got 4D input, but linear mode needs 3D input"),
        ({"size": 3, "mode": "trilinear"}, "Got 4D input, but trilinear mode needs 5D input"),
        ({"size": 3, "mode": "nearest", "antialias": True}, "Anti-alias option is restricted"),
        ({"scale_factor": 0.1}, "Input and output sizes should be greater than 0"),
    ]
    for kwargs, match in cases:
        raises_like_torch(
            lambda k=kwargs: F.interpolate(x, **k), lambda k=kwargs: TF.interpolate(tx, **k), match
        )
    raises_like_torch(
        lambda: F.interpolate(mg.zeros(1, 1, 4), size=3, mode="bilinear"),
        lambda: TF.interpolate(torch.zeros(1, 1, 4), size=3, mode="bilinear"),
        "Got 3D input, but bilinear mode needs 4D input",
    )
    raises_like_torch(
        lambda: F.interpolate(mg.zeros(4, 4), size=3),
        lambda: TF.interpolate(torch.zeros(4, 4), size=3),
        "Only 3D, 4D and 5D input Tensors supported",
    )
    raises_like_torch(
        lambda: F.interpolate(mg.zeros(1, 1, 4, dtype=mg.int64), size=3),
        lambda: TF.interpolate(torch.zeros(1, 1, 4, dtype=torch.int64), size=3),
        "not implemented for int64",
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "bicubic"},
        {"mode": "bilinear", "antialias": True},
        {"mode": "lanczos", "antialias": True},
    ],
)
def test_modes_minigrad_lacks_say_so(kwargs):
    # torch has these; minigrad raises rather than return something else
    TF.interpolate(torch.zeros(1, 1, 4, 4), size=3, **kwargs)
    with pytest.raises(NotImplementedError, match="is not implemented in minigrad"):
        F.interpolate(mg.zeros(1, 1, 4, 4), size=3, **kwargs)


def test_area_of_5d_input_says_it_is_missing():
    TF.interpolate(torch.zeros(1, 1, 4, 4, 4), size=2, mode="area")
    with pytest.raises(NotImplementedError, match="adaptive_avg_pool3d"):
        F.interpolate(mg.zeros(1, 1, 4, 4, 4), size=2, mode="area")


# ---- the layers ----------------------------------------------------------------------------------
LAYERS = [
    ("Upsample", {"scale_factor": 2}),
    ("Upsample", {"size": (3, 7), "mode": "bilinear"}),
    ("Upsample", {"scale_factor": (1.5, 2), "mode": "bilinear", "align_corners": True}),
    ("Upsample", {"size": 5, "mode": "nearest-exact"}),
    ("Upsample", {"scale_factor": 0.5, "mode": "area"}),
    ("UpsamplingNearest2d", {"scale_factor": 3}),
    ("UpsamplingNearest2d", {"size": (2, 9)}),
    ("UpsamplingBilinear2d", {"scale_factor": 2}),
    ("UpsamplingBilinear2d", {"size": 3}),
]


@pytest.mark.parametrize("name, kwargs", LAYERS, ids=[f"{n}-{k}" for n, k in LAYERS])
def test_layers_match_torch(name, kwargs):
    layer, tlayer = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(layer) == repr(tlayer)
    assert list(layer.parameters()) == [] and list(tlayer.parameters()) == []
    x = rand(2, 3, 4, 6, seed=5)
    check_against_torch(layer, tlayer, x, rtol=1e-10, atol=1e-12)
    rebuilt = type(layer).from_config(layer.get_config())
    assert repr(rebuilt) == repr(layer)


def test_upsample_in_a_model_trains():
    model = nn.Sequential(
        nn.Conv2d(1, 2, 3, padding=1), nn.Upsample(scale_factor=2, mode="bilinear")
    )
    x = mg.randn(2, 1, 4, 4)
    model(x).square().mean().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters())
