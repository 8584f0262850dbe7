"""The simulated GPU keeps the rules where CuPy is not NumPy (minigrad/cuda/simulator_rules.py),
each as CuPy documents it: keywords and host arguments it refuses, ufunc methods it lacks,
and calls that read a value back from the GPU (a copy to the host, refused inside
forbid_transfers())."""

import numpy as np
import pytest


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda x: np.max(x, initial=0.0), "amax"),
        (lambda x: np.amin(x, initial=0.0), "amin"),
        (lambda x: x.max(initial=0.0), "max"),
        (lambda x: x.min(axis=0, initial=0.0), "min"),
    ],
)
def test_amax_and_amin_take_no_initial(simulated_gpu, call, name):
    x = simulated_gpu.asarray(np.array([3.0, -1.0, 2.0]))
    message = rf"^{name}\(\) got an unexpected keyword argument 'initial'"
    with pytest.raises(TypeError, match=message):
        call(x)
    assert np.max(x).item() == 3.0 and x.min().item() == -1.0  # without it they work


def test_polyval_takes_its_coefficients_on_the_device_only(simulated_gpu):
    x = simulated_gpu.asarray(np.array([0.0, 1.0, 2.0]))
    for coefficients in ([1.0, 0.0, -1.0], (1.0, 0.0, -1.0)):
        with pytest.raises(TypeError, match="p must be 1d ndarray or poly1d object"):
            np.polyval(coefficients, x)
    p = simulated_gpu.asarray(np.array([1.0, 0.0, -1.0]))
    np.testing.assert_array_equal(np.polyval(p, x).get(), [-1.0, 0.0, 3.0])  # x^2 - 1


def test_accumulate_only_for_add_and_multiply(simulated_gpu):
    x = simulated_gpu.asarray(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(np.add.accumulate(x).get(), [1.0, 3.0, 6.0])
    np.testing.assert_array_equal(np.multiply.accumulate(x).get(), [1.0, 2.0, 6.0])
    for ufunc in (np.logaddexp, np.maximum):
        message = f"`cupy_{ufunc.__name__}.accumulate` is not supported yet"
        with pytest.raises(NotImplementedError, match=message):
            ufunc.accumulate(x)


def _mask_set(a, mask):
    a[mask] = 0.0


READS = {  # CuPy calls that read from the GPU, each on arrays made by `_arrays`
    "mask get": lambda xp, a, mask, i: a[mask],
    "mask set": lambda xp, a, mask, i: _mask_set(a, mask),
    "mask in a tuple": lambda xp, a, mask, i: a[mask, ...],
    "shares_memory": lambda xp, a, mask, i: np.shares_memory(a, a[1:]),
    "bincount": lambda xp, a, mask, i: np.bincount(i),
    "bincount minlength": lambda xp, a, mask, i: np.bincount(i, minlength=9),
    "histogram, device bins": lambda xp, a, mask, i: np.histogram(a, bins=a[:3]),
    "linalg.pinv": lambda xp, a, mask, i: xp.linalg.pinv(a.reshape(2, 2)),
    "np.linalg.pinv": lambda xp, a, mask, i: np.linalg.pinv(a.reshape(2, 2)),
    "triu_indices": lambda xp, a, mask, i: xp.triu_indices(3, 1),
    "tril_indices": lambda xp, a, mask, i: xp.tril_indices(3),
}


def _arrays(xp):
    a = xp.asarray(np.array([1.0, 2.0, 4.0, 3.0]))
    return a, a > 2.0, xp.asarray(np.array([0, 2, 2]))


@pytest.mark.parametrize("name", list(READS))
def test_calls_that_read_from_the_gpu(simulated_gpu, name):
    a, mask, i = _arrays(simulated_gpu)
    with simulated_gpu.forbid_transfers(), pytest.raises(RuntimeError, match="copy to host"):
        READS[name](simulated_gpu, a, mask, i)
    simulated_gpu.transfers.update(to_host=0, to_device=0)
    READS[name](simulated_gpu, a, mask, i)  # outside the block: counted, once
    assert simulated_gpu.transfers == {"to_host": 1, "to_device": 0}


def test_calls_that_read_nothing_back(simulated_gpu):
    a, mask, i = _arrays(simulated_gpu)
    with simulated_gpu.forbid_transfers():
        assert np.shares_memory(a, a)  # the same array: answered on the host
        assert np.may_share_memory(a, a[1:])  # bounds compared on the host
        assert not np.may_share_memory(a, a.copy())
        a[1:3] = a[:2]  # slices and integer arrays need no size from the GPU
        a[i] = 0.0
        hist, _ = np.histogram(a, bins=3, range=(0.0, 4.0))  # edges from the range given
    np.testing.assert_array_equal(a.get(), [0.0, 1.0, 0.0, 3.0])
    np.testing.assert_array_equal(hist.get(), [3, 0, 1])  # 0, 1, 0 | - | 3


def test_fill_diagonal_copies_a_host_value_over(simulated_gpu):
    a = simulated_gpu.zeros((3, 3))
    with simulated_gpu.forbid_transfers(), pytest.raises(RuntimeError, match="copy to device"):
        simulated_gpu.fill_diagonal(a, 5.0)
    simulated_gpu.transfers.update(to_host=0, to_device=0)
    simulated_gpu.fill_diagonal(a, 5.0)
    assert simulated_gpu.transfers == {"to_host": 0, "to_device": 1}
    with simulated_gpu.forbid_transfers():  # a value already on the device: no copy
        simulated_gpu.fill_diagonal(a, simulated_gpu.ones(()))
    np.testing.assert_array_equal(a.get(), np.eye(3))
