"""`mg.backends.use("numpy")` runs the whole library on the NumPy references: every
kernel family a GPT training step uses (the matrix product, GELU, attention, layer norm,
the softmax of the cross-entropy) comes from
minigrad/kernels/reference/ under it, and from minigrad/kernels/cpu/ under "numba"; the
two give the same loss and gradients (issue #24, "one home for speed").

The step is a small GPT (models/gpt.py) in float64, where the kernels agree to rounding,
and in float32, where the CPU kernels' vectorised erf and exp (kernels/cpu/vecmath.py)
are within a few units in the last place of the reference's formulas. The product split
is switched on for these small products (SPLIT_MIN_MACS = 1, two blocks), so that the
"numba" step really cuts its products over helper threads.
"""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import backends
from minigrad.models.gpt import GPT


def gpt_step(backend, dtype):
    """(loss, {name: gradient}, {family: kernel module names}) of one step on `backend`."""
    mg.manual_seed(0)
    model = GPT(13, d_model=16, n_layers=2, n_heads=2, max_len=12).to(dtype)
    ids = np.random.default_rng(4).integers(0, 13, (3, 12))
    x, y = mg.tensor(ids[:, :-1]), mg.tensor(ids[:, 1:])
    with backends.use(backend):
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, 13), y.reshape(-1))
        loss.backward()
    return loss.item(), {name: p.grad.numpy() for name, p in model.named_parameters()}


@pytest.fixture
def kernels_asked(monkeypatch):
    """{family: set of the kernel modules `backends.kernels` handed out}, and the product
    split on for small products."""
    from minigrad.kernels.cpu import matmul

    monkeypatch.setattr(matmul, "SPLIT_MIN_MACS", 1)
    monkeypatch.setattr(matmul.threads, "MATMUL_SPLIT_THREADS", 2)
    asked = {}
    real = backends.kernels

    def spy(family, backend=None, array=None):
        module = real(family, backend, array)
        asked.setdefault(family, set()).add(module.__name__)
        return module

    monkeypatch.setattr(backends, "kernels", spy)
    return asked


TOLERANCES = [(mg.float64, 1e-10, 1e-12), (mg.float32, 2e-4, 2e-6)]


@pytest.mark.parametrize("dtype, rtol, atol", TOLERANCES)
def test_a_gpt_step_on_references_equals_the_cpu_kernels(kernels_asked, dtype, rtol, atol):
    loss_ref, grads_ref = gpt_step("numpy", dtype)
    on_reference = {family: set(names) for family, names in kernels_asked.items()}
    kernels_asked.clear()
    loss_cpu, grads_cpu = gpt_step("numba", dtype)

    for family in ("matmul", "gelu", "attention", "layer_norm", "softmax"):
        assert on_reference[family] == {f"minigrad.kernels.reference.{family}"}, on_reference
        assert kernels_asked[family] == {f"minigrad.kernels.cpu.{family}"}, kernels_asked
    every_module = [name for names in on_reference.values() for name in names]
    assert all(name.startswith("minigrad.kernels.reference.") for name in every_module)

    assert np.isfinite(loss_ref) and loss_ref > 1.0  # about ln 13 = 2.56 before training
    np.testing.assert_allclose(loss_cpu, loss_ref, rtol=rtol)
    assert grads_cpu.keys() == grads_ref.keys() and len(grads_ref) > 10
    for name, grad in grads_ref.items():
        assert np.abs(grad).max() > 0, name  # every parameter takes part
        np.testing.assert_allclose(grads_cpu[name], grad, rtol=rtol, atol=atol, err_msg=name)


def test_mg_erf_follows_the_backend():
    """erf (mg.erf, and GELU's Phi) is a kernel family too: the reference's series under
    "numpy", the compiled loop under "numba", equal to within a few units in the last place."""
    x = np.linspace(-5.0, 5.0, 101)
    with backends.use("numpy"):
        ref = mg.erf(mg.tensor(x)).numpy()
        assert backends.kernels("special").__name__ == "minigrad.kernels.reference.special"
    with backends.use("numba"):
        cpu = mg.erf(mg.tensor(x)).numpy()
        assert backends.kernels("special").__name__ == "minigrad.kernels.cpu.special"
    exact = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(ref, exact, rtol=1e-14, atol=1e-16)
    np.testing.assert_array_equal(cpu, exact)  # the float64 loop is math.erf itself
