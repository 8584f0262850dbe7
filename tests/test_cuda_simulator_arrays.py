"""The simulated GPU's arrays keep CuPy's rules where the ops depend on them: no implicit
copy to the host, a view knows its base, and strided views share memory."""

import numpy as np
import pytest

from minigrad import array_module


def test_numpy_cannot_read_a_device_array_implicitly(simulated_gpu):
    x = simulated_gpu.asarray(np.arange(6.0))
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(x)
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.array(x * 2)


def test_a_view_names_the_same_base_each_time(simulated_gpu):
    x = simulated_gpu.asarray(np.arange(12.0).reshape(3, 4))
    view = x[1:].T
    assert x.base is None
    assert view.base is x and view.base is x  # one device array, as CuPy's base is
    assert x.reshape(-1)[2:].base is x


def test_strided_views_and_contiguous_copies(simulated_gpu):
    x = simulated_gpu.asarray(np.arange(12.0).reshape(3, 4))
    diagonal = simulated_gpu.lib.stride_tricks.as_strided(x, (3,), (5 * 8,))
    diagonal[...] = -1.0  # a view: the write reaches x
    np.testing.assert_array_equal(x.get().diagonal(), [-1.0, -1.0, -1.0])
    assert diagonal.base is None  # CuPy's as_strided makes a new ndarray on x's memory
    assert diagonal.reshape(3, 1).base is diagonal
    copy = simulated_gpu.ascontiguousarray(x.T)
    assert isinstance(copy, simulated_gpu.ndarray) and copy.flags.c_contiguous


def test_scatter_max_and_min_take_every_repeat(simulated_gpu):
    index = simulated_gpu.asarray(np.array([0, 2, 0, 2]))
    values = simulated_gpu.asarray(np.array([3.0, -1.0, 5.0, -4.0]))
    high = simulated_gpu.zeros(3)
    low = simulated_gpu.zeros(3)
    array_module.scatter_max(high, index, values)
    array_module.scatter_min(low, index, values)
    np.testing.assert_array_equal(high.get(), [5.0, 0.0, 0.0])
    np.testing.assert_array_equal(low.get(), [0.0, 0.0, -4.0])


def test_data_mem_is_one_object_per_allocation(simulated_gpu):
    x = simulated_gpu.asarray(np.arange(12.0).reshape(3, 4))
    strided = simulated_gpu.lib.stride_tricks.as_strided(x, (3,), (5 * 8,))
    for view in (x[1:].T, x.reshape(-1)[2:], strided, strided.reshape(3, 1)):
        assert view.data.mem is x.data.mem  # CuPy's MemoryPointer.mem: the allocation
    assert x.data.mem.ptr == x.data.ptr and x[1:].data.ptr == x.data.ptr + 4 * 8
    for other in (x.copy(), simulated_gpu.zeros((3, 4)), simulated_gpu.ascontiguousarray(x.T)):
        assert other.data.mem is not x.data.mem


def test_an_index_of_integers_only_is_a_zero_d_view(simulated_gpu):
    flat = simulated_gpu.asarray(np.arange(6.0))
    old = flat[2]  # CuPy: a 0-d array looking into flat (NumPy: a scalar copy)
    flat[2] = old + 0.5
    assert isinstance(old, simulated_gpu.ndarray) and old.shape == ()
    assert old.item() == 2.5  # the write through flat changed it
    grid = simulated_gpu.asarray(np.arange(6.0).reshape(2, 3))
    corner = grid[-1, np.int64(2)]
    grid[...] = 0.0
    assert corner.shape == () and corner.item() == 0.0
    assert corner.data.mem is grid.data.mem
