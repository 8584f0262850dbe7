"""The rotary embedding's rotation as a kernel family (issue #24): the compiled pass
(kernels/cpu/rotary.py) gives the NumPy reference's result (kernels/reference/rotary.py)
to the last bit, on strided views like the GPT's q and k, at odd shapes, in float32 and
float64, on one core and on every core; RotaryEmbedding on the kernel matches PyTorch's
formula and passes the float64 gradient checks; other inputs go to the reference.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import backends, nn
from minigrad.kernels.cpu import rotary as cpu
from minigrad.kernels.reference import rotary as reference
from tests.helpers import check_grads, rand


def tables(length, d, dtype, seed=1):
    angles = np.random.default_rng(seed).standard_normal((length, d // 2))
    angles = np.concatenate((angles, angles), axis=-1)  # RoPE's: the angles twice
    return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)


@pytest.fixture(params=["serial", "parallel"])
def on_kernel(request, monkeypatch):
    """Every size on the kernel, on one core or on every core."""
    monkeypatch.setattr(cpu, "MIN_KERNEL", 0)
    monkeypatch.setattr(cpu, "MIN_PARALLEL", 0 if request.param == "parallel" else 10**12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape, transposed",
    [((3, 7, 5, 6), True), ((3, 5, 7, 6), False), ((7, 10), False), ((2, 3, 4, 5, 2), False)],
)
def test_kernel_equals_the_reference_to_the_bit(on_kernel, dtype, shape, transposed):
    x = rand(*shape, seed=2, dtype=dtype)
    if transposed:  # (B, T, H, d) seen as (B, H, T, d), as split_heads makes q and k
        x = x.transpose(0, 2, 1, 3)
    cos, sin = tables(x.shape[-2], x.shape[-1], dtype)
    got, want = cpu.rotate(x, cos, sin), reference.rotate(x, cos, sin)
    assert got.dtype == dtype and got.shape == x.shape and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    # and the reference is the formula: y1 = x1 cos - x2 sin, y2 = x2 cos + x1 sin
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h].astype(np.float64), x[..., h:].astype(np.float64)
    c, s = cos[:, :h].astype(np.float64), sin[:, :h].astype(np.float64)
    formula = np.concatenate((x1 * c - x2 * s, x2 * c + x1 * s), axis=-1)
    eps = np.finfo(dtype).eps  # each output: two rounded products and a rounded sum
    np.testing.assert_allclose(got, formula, rtol=0, atol=4 * eps * np.abs(x).max())


@pytest.mark.parametrize("serial", [True, False])
def test_the_kernel_reads_a_contiguous_copy_made_by_the_threads(monkeypatch, serial):
    """The kernel gets x in C order, one compiled layout with a vectorised loop: a copy of
    the strided q, made block by block over the threads when the rotation runs on every
    core; a contiguous x (the backward's gradient) is read as it is."""
    monkeypatch.setattr(cpu, "MIN_KERNEL", 0)
    monkeypatch.setattr(cpu, "MIN_PARALLEL", 10**12 if serial else 0)
    monkeypatch.setattr(cpu.workers, "count", lambda: 2)  # two threads, whatever this machine has
    seen, copies = [], []
    run, run_jobs = cpu.workers.run, cpu.workers.run_jobs
    monkeypatch.setattr(
        cpu.workers,
        "run",
        lambda kernel, n, x, *a, **k: (seen.append(x), run(kernel, n, x, *a, **k)),
    )
    monkeypatch.setattr(
        cpu.workers, "run_jobs", lambda jobs: (copies.append(len(jobs)), run_jobs(jobs))
    )
    x = rand(2, 9, 3, 12, seed=8, dtype=np.float32).transpose(0, 2, 1, 3)  # as q
    cos, sin = tables(9, 12, np.float32)
    np.testing.assert_array_equal(cpu.rotate(x, cos, sin), reference.rotate(x, cos, sin))
    (x4,) = seen
    assert x4.flags.c_contiguous and not np.shares_memory(x4, x)
    assert copies[0] == (1 if serial else 2)  # the copy: one block, or one per thread
    contiguous = np.ascontiguousarray(x)
    seen.clear()
    cpu.rotate(contiguous, cos, sin)
    assert np.shares_memory(seen[0], contiguous)  # no copy


@pytest.mark.parametrize(
    "case", ["small", "float16", "broadcast tables", "odd width", "mixed dtypes"]
)
def test_other_inputs_take_the_reference(monkeypatch, case):
    rotate = reference.rotate
    calls = []
    monkeypatch.setattr(reference, "rotate", lambda *a: calls.append(a) or rotate(*a))
    dtype = np.float16 if case == "float16" else np.float32
    shape = (2, 3, 8, 7) if case == "odd width" else (4, 4, 64, 32)
    x = rand(*shape, seed=3, dtype=dtype)
    if case == "small":
        x = x[0, 0, :4]  # (4, 32)
        assert x.size < cpu.MIN_KERNEL
    cos, sin = tables(x.shape[-2], shape[-1] + shape[-1] % 2, dtype)
    cos, sin = cos[:, : shape[-1]], sin[:, : shape[-1]]
    if case == "broadcast tables":
        cos, sin = cos[None], sin[None]
    if case == "mixed dtypes":
        cos = cos.astype(np.float64)
    got = cpu.rotate(x, cos, sin)
    assert len(calls) == 1
    np.testing.assert_array_equal(got, rotate(x, cos, sin))


def test_rope_on_the_kernel_matches_pytorch(on_kernel):
    asked = []
    real = backends.kernels

    def spy(family, backend=None, array=None):
        asked.append(real(family, backend, array).__name__)
        return real(family, backend, array)

    x = rand(2, 9, 3, 12, seed=8).transpose(0, 2, 1, 3)  # a strided view, as q is
    inv_freq = 10000.0 ** (-np.arange(0, 12, 2) / 12)
    freqs = torch.outer(torch.arange(3, 12, dtype=torch.float64), torch.tensor(inv_freq))
    emb = torch.cat((freqs, freqs), dim=-1)
    tx = torch.tensor(x)
    expected = tx * emb.cos() + torch.cat((-tx[..., 6:], tx[..., :6]), dim=-1) * emb.sin()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(backends, "kernels", spy)
        got = nn.RotaryEmbedding(12).rotate(mg.tensor(x), offset=3).numpy()
    assert asked == ["minigrad.kernels.cpu.rotary"]
    np.testing.assert_allclose(got, expected.numpy(), rtol=0, atol=1e-14)


def test_float64_gradcheck_and_gradgradcheck_on_the_kernel(on_kernel):
    rope = nn.RotaryEmbedding(6).double()
    check_grads(lambda t: rope.rotate(t, offset=2), rand(2, 3, 5, 6, seed=4), second=True)


def test_numpy_backend_hands_out_the_reference():
    assert backends.kernels("rotary", backend="numpy") is reference
    assert backends.kernels("rotary", backend="numba") is cpu
