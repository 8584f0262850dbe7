"""mg.cuda tells the truth about the GPU, data moves between devices as in PyTorch, and mixing
devices fails with PyTorch's error."""

import numpy as np
import pytest

import minigrad as mg


def test_mg_cuda_answers_about_the_gpu(gpu):
    assert mg.cuda.is_available() and mg.cuda.device_count() >= 1
    name = mg.cuda.get_device_name()
    assert isinstance(name, str) and name
    before = mg.cuda.memory_allocated()
    x = mg.zeros(1024, 1024, device="cuda")  # 4 MiB of float32
    mg.cuda.synchronize()
    assert mg.cuda.memory_allocated() - before >= 4 * 2**20
    assert mg.cuda.memory_reserved() >= mg.cuda.memory_allocated()
    del x


def test_tensors_move_between_devices(gpu):
    data = np.arange(6.0).reshape(2, 3)
    t = mg.tensor(data, device="cuda")
    assert t.device.type == "cuda" and t.is_cuda and isinstance(t.array, gpu.ndarray)
    assert t.cpu().device.type == "cpu" and np.array_equal(t.cpu().numpy(), data)
    assert np.array_equal(mg.tensor(data).cuda().cpu().numpy(), data)
    assert t.sum().item() == 15.0 and t.tolist() == data.tolist()
    assert "device='cuda:0'" in repr(t)
    with pytest.raises(TypeError, match="cuda"):
        t.numpy()


def test_mixed_devices_raise_pytorchs_error(gpu):
    a, b = mg.ones(3, device="cuda"), mg.ones(3)
    for op in (lambda: a + b, lambda: b * a, lambda: mg.cat([a, b])):
        with pytest.raises(
            RuntimeError, match="Expected all tensors to be on the same device.*cuda:0.*cpu"
        ):
            op()


def test_gradient_flows_back_across_to(gpu):
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x.to("cuda") * mg.tensor([2.0, 3.0, 4.0], device="cuda")).sum().backward()
    assert x.grad.device.type == "cpu" and x.grad.tolist() == [2.0, 3.0, 4.0]


def test_save_and_load_across_devices(gpu, tmp_path):
    model = mg.nn.Linear(3, 2).cuda()
    mg.save(model.state_dict(), tmp_path / "m.pt")
    on_cpu = mg.load(tmp_path / "m.pt", map_location="cpu")
    on_gpu = mg.load(tmp_path / "m.pt", map_location="cuda")
    assert on_cpu["weight"].device.type == "cpu" and on_gpu["weight"].device.type == "cuda"
    np.testing.assert_array_equal(on_cpu["weight"].numpy(), model.weight.detach().cpu().numpy())


def test_seeded_random_numbers_on_the_gpu_repeat(gpu):
    mg.manual_seed(7)
    a = mg.randn(5, device="cuda")
    mg.manual_seed(7)
    b = mg.randn(5, device="cuda")
    assert a.device.type == "cuda" and a.tolist() == b.tolist()
