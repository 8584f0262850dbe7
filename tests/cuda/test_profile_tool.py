"""tools/profile_cuda_kernels.py's `--parts` steps run and time what they say: attention's
kernel functions on device arrays (equal to the reference), and the two clocks. At a tiny
shape, on the simulator here (or on a GPU); the tool itself needs a GPU to report."""

import sys
from pathlib import Path

import numpy as np

from minigrad.kernels.reference import attention as ref
from tests.cuda.device import host

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import profile_cuda_kernels as tool  # noqa: E402


def test_the_attention_parts_are_the_kernel_functions():
    shape = (1, 2, 5, 2)  # (B, H, T, d)
    steps = dict(tool.attention_parts(shape))
    assert list(steps)[:2] == ["attention_forward", "attention_backward"]
    q, k, v, _ = (a.reshape(2, 5, 2) for a in tool.bench_attention.make_inputs(*shape))
    out, lse = steps["attention_forward"]()
    out_ref, lse_ref = ref.attention_forward(q, k, v, 2**-0.5, True, None)
    np.testing.assert_allclose(host(out), out_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(lse), lse_ref, rtol=1e-5, atol=1e-6)
    dq, dk, dv = steps["attention_backward"]()
    assert host(dq).shape == q.shape and host(dv).shape == v.shape


def test_the_clocks_count_the_steps():
    calls = []
    wall = tool.bench_cuda.median_ms  # the wall clock, bench_cuda.py's
    assert wall(lambda: calls.append("step"), 2, lambda: calls.append("sync")) >= 0
    # a warm-up, then each step followed by its wait
    assert calls == ["step", "sync"] * 3
    calls.clear()
    assert tool.host_ms(lambda: calls.append("step"), lambda: calls.append("sync"), n=3) >= 0
    # a warm-up and its wait, then the steps queued, one wait at the end
    assert calls == ["step", "sync"] + ["step"] * 3 + ["sync"]
