"""Tensor's own methods on CUDA tensors (the simulated GPU of minigrad/cuda/simulator.py):
new tensors like one (`new_zeros`, `new_tensor`, ...), the in-place writes (`fill_`,
`copy_`, ...), the random fills, the memory-layout probes, and the conversions that are
host transfers by nature. Each is checked against the same method on the CPU: the result
is on the GPU (where torch puts it), its values and gradients are the CPU's, and no data
crosses between host and device where torch copies nothing.
"""

import copy
import types

import numpy as np
import pytest

import minigrad as mg

VALUES = np.array([[0.5, -1.0, 2.0, 3.0], [-0.25, 4.0, -2.0, 1.5], [1.0, 0.0, -3.0, 0.75]])


@pytest.fixture
def gpu(simulated_gpu, monkeypatch):
    """The simulated GPU, held to two more of CuPy's edges that minigrad's code must
    respect: a CuPy array has no `__array_interface__` (NumPy must not read it as host
    memory) and its `flags` are only c_contiguous, f_contiguous and owndata (no
    `writeable`); its address is `data.ptr`. (On a real GPU, where `simulated_gpu` may
    stand for CuPy itself, CuPy is held to its own rules: nothing to add.)"""
    from minigrad.cuda import simulator

    if simulated_gpu is not simulator:
        return simulated_gpu
    array_type = simulated_gpu.SimulatedArray
    forward = array_type.__getattr__

    def strict_getattr(self, name):
        if name.startswith("__array"):  # __array_interface__, __array_struct__
            raise AttributeError(name)
        if name == "flags":
            host = self._host.flags
            return types.SimpleNamespace(
                c_contiguous=host.c_contiguous, f_contiguous=host.f_contiguous, owndata=host.owndata
            )
        return forward(self, name)

    monkeypatch.setattr(array_type, "__getattr__", strict_getattr)
    if not isinstance(array_type.__dict__.get("data"), property):  # CuPy's MemoryPointer.ptr
        pointer = property(lambda self: types.SimpleNamespace(ptr=self._host.ctypes.data))
        monkeypatch.setattr(array_type, "data", pointer, raising=False)
    return simulated_gpu


def both(dtype=np.float32, requires_grad=False):
    """The same values as a CPU tensor and as a CUDA tensor."""
    cpu = mg.tensor(VALUES.astype(dtype), requires_grad=requires_grad)
    return cpu, mg.tensor(VALUES.astype(dtype), device="cuda", requires_grad=requires_grad)


def host(t):
    return t.cpu().detach().numpy()


# ---- new tensors like this one: on its device unless device= says otherwise ------------------
NEW = {
    "new_zeros": lambda t: t.new_zeros(2, 3),
    "new_ones": lambda t: t.new_ones((2, 3), dtype=mg.int64),
    "new_empty": lambda t: t.new_empty(4),
    "new_full": lambda t: t.new_full((2, 2), 7.5),
    "new_full_int": lambda t: t.new_full((3,), 7.5, dtype=mg.int32),
    "new(sizes)": lambda t: t.new(2, 2),
    "new()": lambda t: t.new(),
    "new_tensor(cuda data)": lambda t: t.new_tensor(t[0].detach() * 2),
}


@pytest.mark.parametrize("name", list(NEW))
def test_new_tensors_are_made_on_the_tensors_device_without_a_copy(gpu, name):
    cpu, cuda = both()
    with gpu.forbid_transfers():
        with pytest.warns(UserWarning, match="detach") if "tensor(" in name else _nothing():
            result = NEW[name](cuda)
    with pytest.warns(UserWarning, match="detach") if "tensor(" in name else _nothing():
        expected = NEW[name](cpu)
    assert result.device == mg.device("cuda", 0) and result.dtype == expected.dtype
    np.testing.assert_array_equal(host(result), expected.numpy())


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def test_new_tensor_copies_host_data_to_the_device_and_device_overrides(gpu):
    _, cuda = both()
    made = cuda.new_tensor([[1, 2], [3, 4]])
    assert made.device.type == "cuda" and made.dtype == mg.float32
    np.testing.assert_array_equal(host(made), [[1, 2], [3, 4]])
    for back in (
        cuda.new_zeros(2, device="cpu"),
        cuda.new_tensor([1.0], device="cpu"),
        cuda.new(2, device="cpu"),
    ):
        assert back.device.type == "cpu"
    assert mg.zeros(2).new_ones(3, device="cuda").device.type == "cuda"
    assert cuda.new([1.0, 2.0]).device.type == "cuda"
    strided = cuda.new_empty_strided((2, 3), (1, 2))
    assert strided.device.type == "cuda" and strided.shape == (2, 3)


def test_legacy_constructor_makes_sizes_on_the_device_and_copies_data_there(gpu):
    with gpu.forbid_transfers():
        zeros = mg.Tensor(2, 3, device="cuda")
    assert zeros.device.type == "cuda" and zeros.shape == (2, 3) and not host(zeros).any()
    data = mg.Tensor([1, 2], device="cuda")
    assert data.device.type == "cuda" and data.dtype == mg.float32
    np.testing.assert_array_equal(host(data), [1.0, 2.0])


def test_new_full_reads_a_tensor_fill_value_as_a_number(gpu):
    _, cuda = both()
    made = cuda.new_full((2,), mg.tensor(3.0, device="cuda"))
    assert made.device.type == "cuda"
    np.testing.assert_array_equal(host(made), [3.0, 3.0])


# ---- in-place writes: on the device, no copy, gradients as on the CPU --------------------------
def _scalar_like(t, value):
    """A 0-d tensor requiring grad on t's device, for fill_ with a tensor value."""
    return mg.tensor(value, dtype=t.dtype, device=t.device, requires_grad=True)


INPLACE = {
    "fill_": lambda t, x: t.fill_(2.5),
    "zero_": lambda t, x: t.zero_(),
    "copy_": lambda t, x: t.copy_(x * 3),
    "copy_ broadcast": lambda t, x: t.copy_(x.mean(0) - 1),
    "fill_diagonal_": lambda t, x: t.fill_diagonal_(9.0),
    "fill_diagonal_ wrap": lambda t, x: t.view(6, 2).fill_diagonal_(9.0, wrap=True).view(3, 4),
    "masked_fill_": lambda t, x: t.masked_fill_(x > 0, -1.0),
    "add_": lambda t, x: t.add_(x, alpha=2),
    "add_ 0-d cpu": lambda t, x: t.add_(mg.tensor(0.5, dtype=t.dtype)),
    "mul_": lambda t, x: t.mul_(x),
    "div_": lambda t, x: t.div_(4.0),
    "sub_": lambda t, x: t.sub_(1),
    "clamp_": lambda t, x: t.clamp_(-1.0, 1.0),
    "setitem": lambda t, x: _assigned(t, (0, slice(1, 3)), x[1, :2]),
}


def _assigned(t, index, value):
    t[index] = value
    return t


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_writes_stay_on_the_device_and_give_the_cpus_values(gpu, name, dtype):
    cpu, cuda = both(dtype)
    expected = INPLACE[name](cpu.clone(), cpu)
    target = cuda.clone()
    with gpu.forbid_transfers():
        result = INPLACE[name](target, cuda)
    assert result.device.type == "cuda" and result.dtype == expected.dtype
    np.testing.assert_allclose(host(result), expected.numpy(), rtol=1e-6)


# the backward of these ops (ops/elementwise.py Clamp, ops/index.py GetItem) is not on
# the device yet: add them to this table when it is
NOT_YET = {"clamp_", "setitem"}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", [name for name in INPLACE if name not in NOT_YET])
def test_recorded_inplace_writes_give_the_cpus_gradients(gpu, name, dtype):
    def run(x):
        y = x * 1.0  # not a leaf: the in-place write is recorded in the graph
        out = INPLACE[name](y, x)
        (out * out).sum().backward()  # the square makes the gradient depend on the values
        return out, x.grad

    cpu, cuda = both(dtype, requires_grad=True)
    expected, expected_grad = run(cpu)
    with gpu.forbid_transfers():
        result, grad = run(cuda)
    assert grad.device.type == "cuda"
    np.testing.assert_allclose(host(result), expected.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(host(grad), expected_grad.numpy(), rtol=1e-6)


def test_fill_with_a_tensor_value_sends_it_the_gradient_on_its_device(gpu):
    results = []
    for device in ("cpu", "cuda"):
        x = mg.tensor(VALUES, device=device, requires_grad=True)
        value = _scalar_like(x, 2.0)
        y = (x * 1.0).fill_(value)
        (y * mg.arange(12.0, dtype=x.dtype, device=device).reshape(3, 4)).sum().backward()
        results.append((value.grad, x.grad))
    (cpu_value, cpu_x), (cuda_value, cuda_x) = results
    assert cuda_value.device.type == "cuda" and cuda_x.device.type == "cuda"
    assert cuda_value.item() == cpu_value.item() == 66.0  # the sum of 0..11
    np.testing.assert_array_equal(host(cuda_x), np.zeros((3, 4)))


def test_fill_takes_a_0d_tensor_from_the_other_device_as_a_number(gpu):
    cuda = mg.zeros(3, device="cuda")
    cuda.fill_(mg.tensor(1.5))  # a CPU number, read on the host: nothing copied to the GPU
    cpu = mg.zeros(3).fill_(mg.tensor(2.5, device="cuda"))  # read from the GPU, as torch
    assert cuda.device.type == "cuda" and cpu.device.type == "cpu"
    np.testing.assert_array_equal(host(cuda), [1.5] * 3)
    np.testing.assert_array_equal(cpu.numpy(), [2.5] * 3)


def test_assigning_a_cpu_tensor_into_a_cuda_tensor_copies_it_over(gpu):
    cuda = mg.zeros(3, 4, device="cuda")
    cuda[:, 0] = mg.tensor([7.0, 8.0, 9.0])
    assert cuda.device.type == "cuda"
    np.testing.assert_array_equal(host(cuda)[:, 0], [7.0, 8.0, 9.0])


def test_inplace_on_an_expanded_cuda_tensor_is_refused_as_on_the_cpu(gpu):
    for device in ("cpu", "cuda"):
        row = mg.ones(1, 4, device=device).expand(3, 4)
        with pytest.raises(
            RuntimeError, match="add_: unsupported operation: more than one element"
        ):
            row.add_(1.0)


def test_inplace_with_a_cpu_tensor_of_dimensions_raises_torchs_device_error(gpu):
    cuda = mg.zeros(3, device="cuda")
    with pytest.raises(RuntimeError, match="add_: Expected all tensors to be on the same device"):
        cuda.add_(mg.ones(3))


# ---- copy_ between host and GPU ---------------------------------------------------------------
@pytest.mark.parametrize("source, target", [("cpu", "cuda"), ("cuda", "cpu")])
def test_copy_between_devices_copies_the_values_and_sends_the_gradient_back(gpu, source, target):
    src = mg.tensor(VALUES[0].astype(np.float32), device=source, requires_grad=True)
    dst = mg.zeros(3, 4, dtype=mg.float64, device=target)
    result = (dst * 1.0).copy_(src)  # recorded: the gradient reaches src across the devices
    assert result.device.type == target and result.dtype == mg.float64
    np.testing.assert_array_equal(
        host(result), np.broadcast_to(VALUES[0], (3, 4)).astype(np.float32)
    )
    (result * mg.tensor(VALUES, device=target)).sum().backward()
    assert src.grad.device.type == source and src.grad.dtype == mg.float32
    np.testing.assert_allclose(host(src.grad), VALUES.sum(axis=0), rtol=1e-6)


def test_plain_copy_between_devices_is_one_transfer(gpu):
    dst = mg.zeros(3, 4, device="cuda")
    gpu.transfers.update(to_host=0, to_device=0)
    dst.copy_(mg.tensor(VALUES))
    assert gpu.transfers == {"to_host": 0, "to_device": 1}
    back = mg.zeros(3, 4).copy_(dst)
    assert gpu.transfers == {"to_host": 1, "to_device": 1}
    np.testing.assert_array_equal(back.numpy(), VALUES.astype(np.float32))


# ---- the random fills: drawn on the GPU's generator ---------------------------------------------
FILLS = {
    "uniform_": (lambda t: t.uniform_(2.0, 3.0), lambda v: (v >= 2).all() and (v < 3).all()),
    "normal_": (lambda t: t.normal_(10.0, 0.1), lambda v: abs(v.mean() - 10) < 0.5),
    "bernoulli_": (lambda t: t.bernoulli_(0.5), lambda v: set(np.unique(v)) <= {0.0, 1.0}),
    "exponential_": (lambda t: t.exponential_(2.0), lambda v: (v >= 0).all()),
    "random_": (lambda t: t.random_(3, 7), lambda v: set(np.unique(v)) <= {3.0, 4.0, 5.0, 6.0}),
    "random_(to)": (
        lambda t: t.random_(5),
        lambda v: set(np.unique(v)) <= {0.0, 1.0, 2.0, 3.0, 4.0},
    ),
    "cauchy_": (lambda t: t.cauchy_(), lambda v: np.isfinite(v).all()),
    "log_normal_": (lambda t: t.log_normal_(0.0, 0.5), lambda v: (v > 0).all()),
    "geometric_": (
        lambda t: t.geometric_(0.5),
        lambda v: (v >= 1).all() and (v == v.round()).all(),
    ),
}


@pytest.mark.parametrize("name", list(FILLS))
def test_random_fills_draw_on_the_gpu_without_touching_the_cpu_stream(gpu, name):
    fill, plausible = FILLS[name]
    mg.manual_seed(0)
    cpu_state = mg.random.default_generator.get_state()
    x = mg.zeros(64, device="cuda")
    with gpu.forbid_transfers():
        result = fill(x)
    assert result is x and x.device.type == "cuda"
    values = host(x)
    assert plausible(values), values
    assert len(np.unique(values)) > 1  # drawn, not one value
    np.testing.assert_array_equal(
        mg.random.default_generator.get_state().numpy(), cpu_state.numpy()
    )
    mg.manual_seed(0)  # seeds the GPU's generator too: the same draws again
    np.testing.assert_array_equal(host(fill(mg.zeros(64, device="cuda"))), values)


def test_random_fill_of_an_integer_cuda_tensor_keeps_its_dtype(gpu):
    x = mg.zeros(50, dtype=mg.int64, device="cuda").random_(0, 3)
    assert x.dtype == mg.int64 and set(np.unique(host(x))) == {0, 1, 2}
    big = mg.zeros(20, dtype=mg.int64, device="cuda").random_()  # the whole int64 range
    assert (host(big) >= 0).all() and len(np.unique(host(big))) == 20


@pytest.mark.parametrize(
    "fill, mean",
    [
        (lambda t: t.exponential_(4.0), 0.25),
        (lambda t: t.geometric_(0.25), 4.0),
        (lambda t: t.geometric_(1.0), 1.0),
        (lambda t: t.random_(5), 2.0),  # not a power of two: drawn from U(0, 1) on the GPU
        (lambda t: t.random_(10, 14), 11.5),  # a power of two: CuPy's randint masks bits
    ],
)
def test_random_fills_drawn_on_the_gpu_have_their_distributions_mean(gpu, fill, mean):
    mg.manual_seed(1)
    values = host(fill(mg.zeros(20000, dtype=mg.float64, device="cuda")))
    assert abs(values.mean() - mean) < 0.05 * mean  # the standard error is under 1% of it


def test_random_fill_in_the_graph_gives_its_input_a_zero_gradient_on_the_device(gpu):
    x = mg.tensor(VALUES, device="cuda", requires_grad=True)
    with gpu.forbid_transfers():
        (x * 2.0).normal_().sum().backward()
    assert x.grad.device.type == "cuda"
    np.testing.assert_array_equal(host(x.grad), np.zeros((3, 4)))


def test_a_cpu_generator_for_a_cuda_tensor_raises_torchs_error(gpu):
    with pytest.raises(
        RuntimeError, match="uniform_: Expected a 'cuda' device type for generator but found 'cpu'"
    ):
        mg.zeros(3, device="cuda").uniform_(generator=mg.Generator())


# ---- device and memory probes --------------------------------------------------------------------
def test_get_device_is_the_gpus_index_or_minus_one(gpu):
    assert mg.zeros(2, device="cuda").get_device() == 0
    assert mg.zeros(2).get_device() == -1


def test_pin_memory_copies_a_cpu_tensor_and_refuses_a_cuda_one(gpu):
    cpu = mg.tensor(VALUES, requires_grad=True)
    pinned = cpu.pin_memory()
    assert pinned.device.type == "cpu" and pinned.data_ptr() != cpu.data_ptr()
    np.testing.assert_array_equal(pinned.detach().numpy(), cpu.detach().numpy())
    pinned.sum().backward()  # a copy in the graph, as torch's
    np.testing.assert_array_equal(cpu.grad.numpy(), np.ones((3, 4)))
    assert not cpu.is_pinned() and not mg.zeros(2, device="cuda").is_pinned()
    with pytest.raises(
        RuntimeError, match="cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors"
    ):
        mg.zeros(2, device="cuda").pin_memory()


def test_pin_memory_without_a_gpu_raises_as_torch(no_gpu):
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        mg.zeros(2).pin_memory()


LAYOUT = {
    "stride": lambda t: t.stride(),
    "stride of the transpose": lambda t: t.t().stride(),
    "stride of an expand": lambda t: t[:1].expand(3, 4).stride(),
    "storage_offset": lambda t: t[1:, 2:].storage_offset(),
    "storage_offset of a view of a view": lambda t: t[1:][1:].storage_offset(),
    "data_ptr step": lambda t: t[1].data_ptr() - t.data_ptr(),
    "data_ptr shared": lambda t: t.view(12)[4:].data_ptr() - t[1].data_ptr(),
    "is_contiguous": lambda t: (t.is_contiguous(), t.t().is_contiguous()),
    "channels_last": lambda t: t.reshape(1, 3, 2, 2).is_contiguous(memory_format=mg.channels_last),
    "element_size, nbytes": lambda t: (t.element_size(), t.nbytes),
}


@pytest.mark.parametrize("name", list(LAYOUT))
def test_memory_layout_of_a_cuda_tensor_is_read_without_a_copy(gpu, name):
    cpu, cuda = both()
    with gpu.forbid_transfers():
        answer = LAYOUT[name](cuda)
    assert answer == LAYOUT[name](cpu)


def test_resize_of_a_cuda_tensor_keeps_its_storage_and_grows_on_the_device(gpu):
    cpu, cuda = both()
    for t in (cpu, cuda):
        t.resize_(5, 3)  # grow past the storage: a new one, the old values first, then zeros
    assert cuda.device.type == "cuda"
    np.testing.assert_array_equal(host(cuda), cpu.numpy())
    cpu, cuda = both()
    with gpu.forbid_transfers():
        cuda.resize_(2, 2).resize_(3, 3)  # shrink, then grow back within the storage
    assert cuda.device.type == "cuda"
    np.testing.assert_array_equal(host(cuda), cpu.resize_(2, 2).resize_(3, 3).numpy())


def test_python_maps_are_cpu_only_as_in_torch(gpu):
    _, cuda = both()
    with pytest.raises(TypeError, match="apply_ is only implemented on CPU tensors"):
        cuda.apply_(lambda v: v)
    with pytest.raises(TypeError, match="map_ is only implemented on CPU tensors"):
        cuda.map_(cuda, lambda a, b: a)
    with pytest.raises(TypeError, match="map2_ is only implemented on CPU tensors"):
        cuda.map2_(cuda, cuda, lambda a, b, c: a)


# ---- conversions: host transfers by nature, or refused as torch refuses them ---------------------
def test_numbers_lists_and_iteration_copy_to_the_host(gpu):
    cpu, cuda = both()
    assert cuda.tolist() == cpu.tolist()
    assert cuda[1, 1].item() == float(cuda[1, 1]) == 4.0 and int(cuda[1, 1]) == 4
    assert bool(cuda[0, 0]) is True and cuda[1, 2].is_nonzero()
    assert len(cuda) == 3 and [row.device.type for row in cuda] == ["cuda"] * 3
    assert 4.0 in cuda and 5.0 not in cuda
    assert [10, 20, 30][mg.tensor(2, device="cuda")] == 30
    assert f"{cuda[0, 0]:.2f}" == "0.50"


def test_numpy_of_a_cuda_tensor_raises_as_torch_unless_forced(gpu):
    _, cuda = both()
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        cuda.numpy()
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        np.asarray(cuda)
    forced = cuda.numpy(force=True)
    assert isinstance(forced, np.ndarray)
    np.testing.assert_array_equal(forced, VALUES.astype(np.float32))


def test_type_names_say_the_device_as_torchs(gpu):
    cpu, cuda = both()
    assert cuda.type() == "torch.cuda.FloatTensor" and cpu.type() == "torch.FloatTensor"
    moved = cpu.type("torch.cuda.DoubleTensor")
    assert moved.device.type == "cuda" and moved.dtype == mg.float64
    back = cuda.type("torch.LongTensor")
    assert back.device.type == "cpu" and back.dtype == mg.int64


def test_deepcopy_of_a_cuda_tensor_stays_on_the_device(gpu):
    _, cuda = both(requires_grad=True)
    with gpu.forbid_transfers():
        twin = copy.deepcopy(cuda)
    assert twin.device.type == "cuda" and twin.requires_grad and twin.data_ptr() != cuda.data_ptr()
    np.testing.assert_array_equal(host(twin), VALUES.astype(np.float32))


def test_comparisons_and_nan_tests_stay_on_the_device(gpu):
    cpu, cuda = both()
    checks = {
        "==": lambda t: t == 2.0,
        "<": lambda t: t < t.flip(0),
        ">= 0-d cpu": lambda t: t >= mg.tensor(1.0),
        "isnan": lambda t: (t / 0.0).isnan(),
        "isinf": lambda t: (t / 0.0).isinf(),
        "isfinite": lambda t: t.isfinite(),
    }
    for name, check in checks.items():
        with gpu.forbid_transfers():
            result = check(cuda)
        assert result.device.type == "cuda", name
        np.testing.assert_array_equal(host(result), check(cpu).numpy(), err_msg=name)
