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
    assert diagonal.base is x
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
