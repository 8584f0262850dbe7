"""The empty-batch cases of tests/test_empty_batch.py with the CUDA kernels: a launch of
zero blocks is an error in CUDA, so each kernel's wrapper must not launch one."""

import pytest

import minigrad as mg
from tests.test_empty_batch import CASES, pytestmark  # noqa: F401  (pytestmark: its warning filters)
from tests.test_empty_batch import test_empty_batch_matches_torch as check_case

KERNEL_CASES = [
    name
    for name in CASES
    if any(
        word in name for word in ("Conv", "Pool", "Attention", "Transformer", "scaled_dot_product")
    )
]


@pytest.fixture
def backend():
    with mg.backends.use("cuda"):
        yield "cuda"


@pytest.mark.parametrize("name", KERNEL_CASES)
def test_empty_batch_through_the_cuda_kernels_matches_torch(name, backend):
    check_case(name, backend)
