"""Linear algebra on CUDA tensors (the simulated GPU): forward and backward equal the
CPU's, results stay on the device, and nothing is copied to the host inside the op.

Families: linalg (matmul and its kin, einsum, diag, trace, tril/triu, ...), matmul_split,
matrix_powers, inverse, cholesky, norms, distance. See tests/device_compare.py for what
each case checks.
"""

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels.cpu import matmul as matmul_split
from minigrad.ops.cholesky import cholesky, solve_triangular
from tests.device_compare import Case, check_case, rand

A = rand(3, 4)
B = rand(4, 2, seed=1)
BATCH = rand(2, 3, 4, seed=2)
BATCH_B = rand(2, 4, 2, seed=3)
V3 = rand(3, seed=4)
V4 = rand(4, seed=5)
SQ = rand(3, 3, seed=6) + 2 * np.eye(3)  # well away from singular
SPD = SQ @ SQ.T + np.eye(3)  # symmetric positive definite
SQ_BATCH = rand(2, 3, 3, seed=7) + 2 * np.eye(3)

CASES = [
    # linalg.py: products
    Case("matmul", lambda a, b: (a @ b, mg.matmul(a, b)), (A, B)),
    Case("matmul batch @ matrix", lambda a, b: a @ b, (BATCH, B)),
    Case("matmul batches", lambda a, b: a @ b, (BATCH, BATCH_B)),
    Case("matmul vectors", lambda a, v, w: (v @ a, a @ w, w @ w), (A, V3, V4)),
    Case("mm bmm", lambda a, b, c, d: (mg.mm(a, b), mg.bmm(c, d)), (A, B, BATCH, BATCH_B)),
    Case("addmm baddbmm", lambda c, a, b: mg.addmm(c, a, b, beta=0.5, alpha=2.0), (A[:, :2], A, B)),
    Case("addmm beta 0", lambda c, a, b: mg.addmm(c, a, b, beta=0), (A[:, :2], A, B)),
    Case(
        "baddbmm",
        lambda c, a, b: mg.baddbmm(c, a, b, alpha=0.5),
        (BATCH[:, :, :2], BATCH, BATCH_B),
    ),
    Case(
        "mv addmv addr",
        lambda a, v, w: (mg.mv(a, w), mg.addmv(v, a, w), mg.addr(a, v, w)),
        (A, V3, V4),
    ),
    Case("addbmm", lambda c, a, b: mg.addbmm(c, a, b), (A[:, :2], BATCH, BATCH_B)),
    Case("kron", lambda a, b: mg.kron(a, b), (A[:2, :2], B)),
    Case(
        "tensordot",
        lambda a, b: (mg.tensordot(a, b, dims=1), mg.tensordot(a, a, dims=([0, 1], [0, 1]))),
        (A, B),
    ),
    Case(
        "outer dot vdot inner",
        lambda v, w: (mg.outer(v, w), mg.dot(v, v), mg.vdot(w, w), mg.inner(v, v)),
        (V3, V4),
    ),
    Case(
        "cross",
        lambda a, b: (mg.cross(a, b, dim=1), mg.cross(a, b, dim=0)),
        (SQ, SPD),
    ),
    Case(
        "einsum",
        lambda a, b: (
            mg.einsum("ij,jk->ik", a, b),
            mg.einsum("bij->bji", a[None]),
            mg.einsum("ij->", a),
        ),
        (A, B),
    ),
    # linalg.py: diagonals and triangles
    Case("diag", lambda a, v: (mg.diag(a), mg.diag(a, 1), mg.diag(v), mg.diag(v, -1)), (A, V3)),
    Case("diag_embed diagflat", lambda a, v: (mg.diag_embed(a), mg.diagflat(v, 1)), (A, V3)),
    Case("trace", lambda a: mg.trace(a), (A,)),
    Case("tril triu", lambda a: (mg.tril(a), mg.triu(a, 1), a.tril(-1)), (A,)),
    Case(
        "tril_indices triu_indices",
        lambda a: (a[tuple(mg.tril_indices(3, 4, device="cuda" if a.is_cuda else "cpu"))],),
        (A,),
    ),
    Case(
        "vander",
        lambda v: mg.vander(v, 4),
        (V3,),
        host_value=True,
    ),  # a cumprod: its backward asks for zeros
    # matmul_split.py: a product large enough to be cut over the cores on the CPU
    Case("large matmul", lambda a, b: a @ b, (rand(256, 200, seed=8), rand(200, 160, seed=9))),
    # matrix_powers.py
    Case(
        "matrix_power",
        lambda a: (mg.matrix_power(a, 3), mg.matrix_power(a, 0), mg.matrix_power(a, -2)),
        (SQ,),
    ),
    Case(
        "matrix_exp",
        lambda a: mg.matrix_exp(a * 0.3),
        (SQ_BATCH,),
        host_value=True,
    ),  # its norm sets the squarings
    # inverse.py
    Case("inverse", lambda a: (mg.inverse(a), mg.linalg.inv(a)), (SQ_BATCH,)),
    Case(
        "solve",
        lambda a, b: (mg.linalg.solve(a, b), mg.linalg.solve(a, b[:, 0], left=True)),
        (SQ, SPD),
    ),
    Case(
        "det",
        lambda a: (mg.det(a), mg.linalg.det(a[0])),
        (SQ_BATCH,),
        host_value=True,
    ),  # singular? read on the host
    Case("slogdet logdet", lambda a, s: (*mg.slogdet(a), mg.logdet(s)), (SQ_BATCH, SPD)),
    Case("pinverse", lambda a: mg.pinverse(a), (A,)),
    Case(
        "cholesky_inverse cholesky_solve",
        lambda s, b: (mg.cholesky_inverse(cholesky(s)), mg.cholesky_solve(b, cholesky(s))),
        (SPD, SQ),
    ),
    # cholesky.py
    Case("cholesky", lambda s: (cholesky(s), cholesky(s).mT), (SPD,)),
    Case("solve_triangular", lambda s, b: solve_triangular(mg.tril(s), b, upper=False), (SPD, SQ)),
    # the norms of mg.linalg, norms.py and distance.py
    Case(
        "vector_norm matrix_norm",
        lambda a: (mg.linalg.vector_norm(a, 3), mg.linalg.matrix_norm(a), mg.linalg.norm(a, dim=1)),
        (A,),
    ),
    Case(
        "matrix_norm 1 inf",
        lambda a: (mg.linalg.matrix_norm(a, 1), mg.linalg.matrix_norm(a, float("inf"))),
        (A,),
    ),
    Case(
        "dist",
        lambda a, b: (mg.dist(a, b), mg.dist(a, b, 1), mg.dist(a, b, float("inf"))),
        (A, A[::-1]),
    ),
    Case("renorm", lambda a: mg.renorm(a, 2, 0, 0.9), (A,)),
    Case(
        "cdist",
        lambda a, b: (mg.cdist(a, b), mg.cdist(a, b, p=1), mg.cdist(a, b, p=float("inf"))),
        (A, A[:2] * 2),
    ),
    Case(
        "cdist batched mm",
        lambda a, b: mg.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
        (BATCH, BATCH[:, :2]),
    ),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_on_cuda_equals_cpu(case, dtype, simulated_gpu):
    check_case(case, dtype, simulated_gpu)


def test_a_gpu_product_is_one_call_not_cut_over_the_cpu_cores(simulated_gpu, monkeypatch):
    """matmul_split hands device arrays straight to `@`: its CPU helper threads are not used."""
    monkeypatch.setattr(matmul_split.threads, "MATMUL_SPLIT_THREADS", 2)
    monkeypatch.setattr(matmul_split.workers, "_Helper", None)  # starting a helper would fail
    a, b = rand(256, 200, seed=8), rand(200, 160, seed=9)
    y = matmul_split.matmul(simulated_gpu.asarray(a), simulated_gpu.asarray(b))
    assert isinstance(y, simulated_gpu.ndarray)
    np.testing.assert_allclose(y.get(), a @ b, rtol=1e-12)
