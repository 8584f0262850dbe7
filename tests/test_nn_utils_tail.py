"""nn.utils and nn.init's long tail against torch: the two halves of gradient clipping,
parametrizations (the mechanism, weight_norm, spectral_norm), fusing a batch norm into
the layer before it, skip_init, and the dirac_ / eye_ initialisers. (The padding and
packing of sequences, nn.utils.rnn, are rows of tests/test_api_surface_nn.py.)"""

import numpy as np
import pytest
import torch

import minigrad as mg
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.init.dirac_",
    "torch.nn.init.eye_",
    "torch.nn.utils.clip_grads_with_norm_",
    "torch.nn.utils.fuse_conv_bn_eval",
    "torch.nn.utils.fuse_conv_bn_weights",
    "torch.nn.utils.fuse_linear_bn_eval",
    "torch.nn.utils.fuse_linear_bn_weights",
    "torch.nn.utils.get_total_norm",
    "torch.nn.utils.parametrizations.spectral_norm",
    "torch.nn.utils.parametrizations.weight_norm",
    "torch.nn.utils.parametrize.cached",
    "torch.nn.utils.parametrize.is_parametrized",
    "torch.nn.utils.parametrize.register_parametrization",
    "torch.nn.utils.parametrize.remove_parametrizations",
    "torch.nn.utils.parametrize.type_before_parametrizations",
    "torch.nn.utils.remove_spectral_norm",
    "torch.nn.utils.skip_init",
    "torch.nn.utils.spectral_norm",
]


def state_of(t):
    return {k: v.detach().numpy() for k, v in t.state_dict().items()}


def twins(make):
    """make(lib) in both libraries, float64, minigrad's loaded with torch's state."""
    t, m = make(torch).double(), make(mg).double()
    m.load_state_dict(state_of(t))
    return m, t


def run_both(m, t, x, seed=1):
    """Outputs of both for input x, and the gradients of every parameter for one random
    output gradient (compared by name)."""
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ym, yt = m(xm), t(xt)
    assert_close(ym, yt, rtol=1e-10)
    g = rand(*yt.shape, seed=seed)
    ym.backward(mg.tensor(g)), yt.backward(torch.tensor(g))
    assert_close(xm.grad, xt.grad, rtol=1e-10)
    theirs = dict(t.named_parameters())
    mine = dict(m.named_parameters())
    assert sorted(mine) == sorted(theirs)
    for name, p in mine.items():
        assert_close(p.grad, theirs[name].grad, rtol=1e-9, atol=1e-12)


# ---- gradient clipping in two steps ----------------------------------------------------------
@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_get_total_norm_and_clip_grads_with_norm_match_torch(norm_type, max_norm):
    grads = [rand(3, 4, seed=1), rand(5, seed=2), rand(2, 2, 2, seed=3)]
    results = []
    for lib in (mg, torch):
        params = [lib.tensor(np.zeros_like(g), requires_grad=True) for g in grads]
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g)
        total = lib.nn.utils.get_total_norm([p.grad for p in params], norm_type)
        assert lib.nn.utils.clip_grads_with_norm_(params, max_norm, total) is None
        results.append((total, [p.grad for p in params]))
    (total, clipped), (ttotal, tclipped) = results
    assert_close(total, ttotal, rtol=1e-12)
    for a, b in zip(clipped, tclipped):
        assert_close(a, b, rtol=1e-12)


def test_get_total_norm_edge_cases_match_torch():
    for lib in (mg, torch):
        assert lib.nn.utils.get_total_norm([]).item() == 0.0
        with pytest.raises(RuntimeError, match="non-finite"):
            lib.nn.utils.get_total_norm([lib.tensor([1.0, float("inf")])], error_if_nonfinite=True)
        single = lib.nn.utils.get_total_norm(lib.tensor([3.0, 4.0]))  # one tensor, not a list
        assert single.item() == 5.0


# ---- parametrizations ----------------------------------------------------------------------------
def symmetric(lib):
    """torch's tutorial parametrization: the upper triangle mirrored, with a right inverse."""

    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def scaled(lib):
    """A parametrization without a right inverse, to chain after another."""

    class Scaled(lib.nn.Module):
        def forward(self, X):
            return X * 3.0

    return Scaled()


def parametrized_linear(lib):
    layer = lib.nn.Linear(4, 4)
    lib.nn.utils.parametrize.register_parametrization(layer, "weight", symmetric(lib))
    return layer


def test_register_parametrization_matches_torch():
    m, t = twins(parametrized_linear)
    assert repr(m) == repr(t) and type(m).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert (
        list(m.state_dict()) == list(t.state_dict()) == ["bias", "parametrizations.weight.original"]
    )
    assert_close(m.weight, t.weight)
    np.testing.assert_allclose(m.weight.detach().numpy(), m.weight.detach().numpy().T)  # symmetric
    run_both(m, t, rand(3, 4, seed=4))
    mg_p = mg.nn.utils.parametrize
    assert (
        mg_p.is_parametrized(m)
        and mg_p.is_parametrized(m, "weight")
        and not mg_p.is_parametrized(m, "bias")
    )
    assert mg_p.type_before_parametrizations(m) is mg.nn.Linear and isinstance(m, mg.nn.Linear)


def test_the_original_is_the_layers_parameter_and_right_inverse_sets_it():
    layer = mg.nn.Linear(3, 3)
    weight = layer.weight
    mg.nn.utils.parametrize.register_parametrization(layer, "weight", symmetric(mg))
    # an optimizer built before still holds it
    assert layer.parametrizations.weight.original is weight
    value = rand(3, 3, seed=5)
    value = value + value.T
    layer.weight = mg.tensor(value)  # through right_inverse
    np.testing.assert_allclose(layer.weight.detach().numpy(), value)
    np.testing.assert_allclose(weight.detach().numpy(), np.triu(value))


def test_chained_parametrizations_and_cached_values_match_torch():
    def make(lib):
        layer = parametrized_linear(lib)
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", scaled(lib))
        return layer

    m, t = twins(make)
    assert repr(m) == repr(t)
    run_both(m, t, rand(2, 4, seed=6))
    with mg.nn.utils.parametrize.cached():
        first = m.weight
        assert m.weight is first  # computed once
    assert m.weight is not first


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations_matches_torch(leave_parametrized):
    m, t = twins(parametrized_linear)
    for lib, layer in ((mg, m), (torch, t)):
        lib.nn.utils.parametrize.remove_parametrizations(
            layer, "weight", leave_parametrized=leave_parametrized
        )
    assert type(m) is mg.nn.Linear and type(t) is torch.nn.Linear
    assert list(m.state_dict()) == list(t.state_dict()) and repr(m) == repr(t)
    assert_close(m.weight, t.weight)
    with pytest.raises(ValueError):
        mg.nn.utils.parametrize.remove_parametrizations(m, "weight")


def test_a_parametrization_may_not_change_the_shape_unless_unsafe():
    class Row(mg.nn.Module):
        def forward(self, X):
            return X[0]

    for unsafe in (False, True):
        layer = mg.nn.Linear(3, 2)
        if unsafe:
            mg.nn.utils.parametrize.register_parametrization(layer, "weight", Row(), unsafe=True)
            assert layer.weight.shape == (3,)
        else:
            with pytest.raises(ValueError, match="shape"):
                mg.nn.utils.parametrize.register_parametrization(layer, "weight", Row())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    def make(lib):
        return lib.nn.utils.parametrizations.weight_norm(lib.nn.Conv2d(2, 3, 3), dim=dim)

    m, t = twins(make)
    assert repr(m) == repr(t)
    assert [(k, v.shape) for k, v in m.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in t.state_dict().items()
    ]
    run_both(m, t, rand(2, 2, 5, 5, seed=7))


def test_weight_norm_keeps_the_weight_it_starts_from():
    layer = mg.nn.Linear(5, 3)
    before = layer.weight.detach().numpy().copy()
    mg.nn.utils.parametrizations.weight_norm(layer)
    np.testing.assert_allclose(layer.weight.detach().numpy(), before, rtol=1e-6)
    g = layer.parametrizations.weight.original0.detach().numpy()
    np.testing.assert_allclose(g.ravel(), np.linalg.norm(before, axis=1), rtol=1e-6)


@pytest.mark.parametrize(
    "make_layer, shape",
    [
        (lambda lib: lib.nn.Linear(4, 3), (2, 4)),
        (lambda lib: lib.nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
        (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), (1, 3, 4, 4)),  # dim 1 by default
    ],
    ids=["Linear", "Conv2d", "ConvTranspose2d"],
)
def test_spectral_norm_matches_torch_in_training_and_evaluation(make_layer, shape):
    """torch's u and v (random) are loaded into minigrad's; from there the power
    iteration is deterministic: each training forward takes one step in both."""

    def make(lib):
        return lib.nn.utils.parametrizations.spectral_norm(make_layer(lib), n_power_iterations=2)

    m, t = twins(make)
    assert repr(m) == repr(t) and list(m.state_dict()) == list(t.state_dict())
    for step in range(2):
        run_both(m, t, rand(*shape, seed=8 + step))
        for mine, theirs in zip(m.state_dict().values(), t.state_dict().values()):
            assert_close(mine, theirs, rtol=1e-9)
    m.eval(), t.eval()
    run_both(m, t, rand(*shape, seed=10))


def test_spectral_norm_divides_by_the_largest_singular_value():
    mg.manual_seed(0)
    layer = mg.nn.utils.parametrizations.spectral_norm(mg.nn.Linear(6, 4))
    for _ in range(30):  # power iteration converges
        layer(mg.ones(1, 6))
    w = layer.weight.detach().numpy()
    assert abs(np.linalg.svd(w, compute_uv=False)[0] - 1.0) < 1e-4
    with pytest.raises(ValueError, match="no parameter or buffer"):
        mg.nn.utils.parametrizations.spectral_norm(mg.nn.Linear(2, 2), name="scale")


# ---- fusing a batch norm -------------------------------------------------------------------------
def trained_bn(lib, bn):
    """A batch norm with running statistics and affine parameters away from their start."""
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor(rand(bn.num_features, seed=11)))
        bn.running_var.copy_(lib.tensor(np.abs(rand(bn.num_features, seed=12)) + 0.5))
        if bn.weight is not None:
            bn.weight.copy_(lib.tensor(rand(bn.num_features, seed=13)))
            bn.bias.copy_(lib.tensor(rand(bn.num_features, seed=14)))
    return bn.eval()


def pair(make):
    """make(lib) in both libraries, float64, in eval mode, minigrad's loaded with torch's state."""
    m, t = twins(make)
    return m.eval(), t.eval()


@pytest.mark.parametrize("conv_bias, affine", [(True, True), (False, False)])
def test_fuse_conv_bn_eval_matches_torch_and_the_two_layers(conv_bias, affine):
    m_conv, t_conv = pair(lambda lib: lib.nn.Conv2d(3, 4, 3, bias=conv_bias))
    m_bn, t_bn = pair(lambda lib: trained_bn(lib, lib.nn.BatchNorm2d(4, affine=affine)))
    m_fused, t_fused = (
        mg.nn.utils.fuse_conv_bn_eval(m_conv, m_bn),
        torch.nn.utils.fuse_conv_bn_eval(t_conv, t_bn),
    )
    assert repr(m_fused) == repr(t_fused) and m_fused is not m_conv
    x = rand(2, 3, 6, 6, seed=15)
    assert_close(m_fused(mg.tensor(x)), t_fused(torch.tensor(x)), rtol=1e-10)
    # one layer, the same map
    assert_close(m_fused(mg.tensor(x)), m_bn(m_conv(mg.tensor(x))), rtol=1e-10)
    assert (
        isinstance(m_fused.bias, mg.nn.Parameter)
        and m_fused.bias.requires_grad == t_fused.bias.requires_grad
    )
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        mg.nn.utils.fuse_conv_bn_eval(m_conv.train(), m_bn)


def test_fuse_conv_bn_weights_of_a_transposed_convolution_matches_torch():
    m_conv, t_conv = pair(lambda lib: lib.nn.ConvTranspose2d(3, 4, 3))
    m_bn, t_bn = pair(lambda lib: trained_bn(lib, lib.nn.BatchNorm2d(4)))

    def args(conv, bn):
        return (conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)

    mine = mg.nn.utils.fuse_conv_bn_weights(*args(m_conv, m_bn), transpose=True)
    theirs = torch.nn.utils.fuse_conv_bn_weights(*args(t_conv, t_bn), transpose=True)
    for a, b in zip(mine, theirs):
        assert isinstance(a, mg.nn.Parameter)
        assert_close(a, b, rtol=1e-12)
    m_conv.weight, m_conv.bias = mine
    x = rand(1, 3, 4, 4, seed=16)
    assert_close(m_conv(mg.tensor(x)), t_bn(t_conv(torch.tensor(x))), rtol=1e-10)


@pytest.mark.parametrize("bias, features", [(True, 5), (False, 1)])
def test_fuse_linear_bn_eval_and_weights_match_torch(bias, features):
    m_lin, t_lin = pair(lambda lib: lib.nn.Linear(3, 5, bias=bias))
    m_bn, t_bn = pair(lambda lib: trained_bn(lib, lib.nn.BatchNorm1d(features)))
    m_fused, t_fused = (
        mg.nn.utils.fuse_linear_bn_eval(m_lin, m_bn),
        torch.nn.utils.fuse_linear_bn_eval(t_lin, t_bn),
    )
    x = rand(4, 3, seed=17)
    assert_close(m_fused(mg.tensor(x)), t_fused(torch.tensor(x)), rtol=1e-10)

    def args(lin, bn):
        return (lin.weight, lin.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)

    for a, b in zip(
        mg.nn.utils.fuse_linear_bn_weights(*args(m_lin, m_bn)),
        torch.nn.utils.fuse_linear_bn_weights(*args(t_lin, t_bn)),
    ):
        assert_close(a, b, rtol=1e-12)
    with pytest.raises(AssertionError, match="out_features"):
        mg.nn.utils.fuse_linear_bn_eval(m_lin, mg.nn.BatchNorm1d(4).eval())


# ---- skip_init and the structured initialisers --------------------------------------------------
def test_skip_init_builds_the_layer_without_initialising_it():
    for lib in (mg, torch):
        layer = lib.nn.utils.skip_init(lib.nn.Linear, 10, 5, bias=False)
        assert type(layer) is lib.nn.Linear and layer.weight.shape == (5, 10) and layer.bias is None
        assert layer.weight.requires_grad and str(layer.weight.dtype).endswith("float32")
        with pytest.raises(RuntimeError, match="device"):
            lib.nn.utils.skip_init(lib.nn.Dropout, 0.5)
    layer = mg.nn.utils.skip_init(mg.nn.Conv2d, 2, 3, 3, dtype=mg.float64)
    assert layer.weight.dtype == mg.float64 and layer.weight.shape == (3, 2, 3, 3)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (4, 2)])
def test_eye_matches_torch(shape):
    mine, theirs = mg.nn.init.eye_(mg.empty(*shape)), torch.nn.init.eye_(torch.empty(*shape))
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "shape, groups", [((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((3, 5, 2, 3), 1), ((4, 2, 3, 1, 2), 2)]
)
def test_dirac_matches_torch(shape, groups):
    mine = mg.nn.init.dirac_(mg.ones(*shape), groups)
    theirs = torch.nn.init.dirac_(torch.ones(*shape), groups)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_dirac_conv_is_the_identity_and_the_errors_are_torchs():
    conv = mg.nn.Conv2d(3, 3, 3, padding=1, bias=False)
    mg.nn.init.dirac_(conv.weight)
    x = rand(1, 3, 5, 5, seed=18).astype(np.float32)
    np.testing.assert_allclose(conv(mg.tensor(x)).detach().numpy(), x, rtol=1e-6)
    for lib in (mg, torch):
        with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
            lib.nn.init.dirac_(lib.ones(2, 2))
        with pytest.raises(ValueError, match="divisible by groups"):
            lib.nn.init.dirac_(lib.ones(3, 2, 3), groups=2)
        with pytest.raises(ValueError, match="2 dimensions"):
            lib.nn.init.eye_(lib.ones(2, 2, 2))


# ---- spectral_norm, the hook form ----------------------------------------------------------------
@pytest.mark.parametrize(
    "make_layer, shape",
    [
        (lambda lib: lib.nn.Linear(4, 3), (2, 4)),
        (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), (1, 3, 4, 4)),
    ],
    ids=["Linear", "ConvTranspose2d"],
)
def test_hook_spectral_norm_matches_torch(make_layer, shape):
    def make(lib):
        return lib.nn.utils.spectral_norm(make_layer(lib), n_power_iterations=2)

    m, t = twins(make)  # torch's random u and v loaded into minigrad's
    assert list(m.state_dict()) == list(t.state_dict())
    for step in range(2):
        run_both(m, t, rand(*shape, seed=20 + step))
        assert_close(m.weight_u, t.weight_u, rtol=1e-10)
    m.eval(), t.eval()
    run_both(m, t, rand(*shape, seed=22))
    for lib, layer in ((mg, m), (torch, t)):
        with pytest.raises(RuntimeError, match="two spectral_norm hooks"):
            lib.nn.utils.spectral_norm(layer)
        lib.nn.utils.remove_spectral_norm(layer)
        assert isinstance(layer.weight, lib.nn.Parameter)
        with pytest.raises(ValueError, match="not found"):
            lib.nn.utils.remove_spectral_norm(layer)
    assert list(m.state_dict()) == list(t.state_dict())
    assert_close(m.weight, t.weight, rtol=1e-10)
