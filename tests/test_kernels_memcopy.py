"""copy_run (minigrad/kernels/cpu/memcopy.py): dst[:] = src for contiguous runs inside a
kernel, one memmove, with the lengths checked."""

import numba
import numpy as np
import pytest

from minigrad.kernels.cpu.memcopy import copy_run


@numba.njit
def _copy(dst, d0, d1, src, s0, s1):
    copy_run(dst[d0:d1], src[s0:s1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("n", [0, 1, 5, 257])
def test_copies_a_run_and_nothing_else(dtype, n):
    src = np.arange(300, dtype=dtype) + 1
    dst = np.zeros(300, dtype=dtype)
    _copy(dst, 7, 7 + n, src, 3, 3 + n)
    expected = np.zeros(300, dtype=dtype)
    expected[7 : 7 + n] = src[3 : 3 + n]
    np.testing.assert_array_equal(dst, expected)


def test_src_longer_than_dst_copies_dst_length():
    src, dst = np.arange(10.0), np.zeros(4)
    _copy(dst, 0, 4, src, 2, 10)
    np.testing.assert_array_equal(dst, [2.0, 3.0, 4.0, 5.0])


def test_src_shorter_than_dst_is_refused():
    # memmove would read past the end of src: an error instead
    src, dst = np.arange(10.0), np.zeros(8)
    with pytest.raises(ValueError, match="src is shorter than dst"):
        _copy(dst, 0, 8, src, 5, 10)
    np.testing.assert_array_equal(dst, np.zeros(8))


def test_overlapping_runs_copy_as_if_through_a_buffer():
    a = np.arange(10.0)
    _copy(a, 2, 8, a, 0, 6)  # memmove, not memcpy: right even where the runs overlap
    np.testing.assert_array_equal(a, [0, 1, 0, 1, 2, 3, 4, 5, 8, 9])


def test_strided_or_mixed_dtype_runs_are_refused_when_compiled():
    @numba.njit
    def strided(dst, src):
        copy_run(dst, src[::2])

    @numba.njit
    def mixed(dst, src):
        copy_run(dst, src)

    with pytest.raises(numba.TypingError, match="copy_run"):
        strided(np.zeros(3), np.arange(6.0))
    with pytest.raises(numba.TypingError, match="copy_run"):
        mixed(np.zeros(3), np.arange(3, dtype=np.float32))
