"""Training end to end on the (simulated) GPU (#21): a model trained on CUDA tensors gives the
CPU's losses, a training step copies nothing between host and GPU, the optimizers, clipping,
schedules, checkpoints (mg.save / mg.load map_location), the DataLoader, generation and
`minigrad-train --device` work with CUDA tensors, and a machine without a GPU says so.

The `simulated_gpu` fixture (tests/conftest.py) puts CUDA tensors in host memory under
CuPy's rules; the same tests pass on a real GPU, where `no_gpu` tests are what CI checks.
"""

import contextlib
import copy
import io

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim
from minigrad.models import GPT, MLP, LeNet5
from minigrad.nn.utils import clip_grad_norm_, clip_grad_value_


# ---- three tiny models and a batch for each --------------------------------------------------
def mlp_case():
    mg.manual_seed(0)
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((12, 8)), dtype=mg.float32)
    y = mg.tensor(rng.integers(0, 3, 12))
    return MLP(8, hidden_sizes=(16,), out_features=3), x, y, F.cross_entropy


def cnn_case():
    mg.manual_seed(0)
    rng = np.random.default_rng(1)
    x = mg.tensor(rng.standard_normal((4, 1, 12, 12)), dtype=mg.float32)
    y = mg.tensor(rng.integers(0, 3, 4))
    return LeNet5(num_classes=3, image_size=12), x, y, F.cross_entropy


def gpt_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def gpt_case():
    mg.manual_seed(0)
    ids = np.random.default_rng(2).integers(0, 11, (3, 9))
    x, y = mg.tensor(ids[:, :-1]), mg.tensor(ids[:, 1:])
    return GPT(11, d_model=16, n_layers=1, n_heads=2, max_len=8), x, y, gpt_loss


CASES = {"mlp": mlp_case, "cnn": cnn_case, "gpt": gpt_case}


def setup(case, device):
    """The model, its batch, loss, AdamW and a warm-up + cosine schedule, all on `device`."""
    model, x, y, loss_fn = CASES[case]()
    model.to(device)
    optimizer = optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    scheduler = optim.lr_scheduler.get_cosine_schedule_with_warmup(optimizer, 2, 10)
    return model, x.to(device), y.to(device), loss_fn, optimizer, scheduler


def step(model, x, y, loss_fn, optimizer, scheduler):
    """One training step, as minigrad-train's: forward, loss, backward, clip, step, schedule."""
    loss = loss_fn(model(x), y)
    loss.backward()
    total = clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    return loss, total


# ---- the same run on the CPU and on the GPU --------------------------------------------------
@pytest.mark.parametrize("case", CASES)
def test_training_on_the_gpu_gives_the_cpu_losses(simulated_gpu, case):
    runs = {}
    for device in ("cpu", "cuda"):
        model, *batch = setup(case, device)
        losses, norms = [], []
        for _ in range(8):
            loss, total = step(model, *batch)
            assert loss.device.type == device and total.device.type == device
            losses.append(loss.item())
            norms.append(total.item())
        runs[device] = losses, norms, {k: v.cpu().numpy() for k, v in model.state_dict().items()}
        assert {p.device.type for p in model.parameters()} == {device}
        optimizer = batch[3]
        arrays = [a for s in optimizer.state.values() for a in s.values() if hasattr(a, "shape")]
        # the state is on the device
        assert arrays and all(mg.from_numpy(a).device.type == device for a in arrays)
    (cpu_losses, cpu_norms, cpu_weights), (gpu_losses, gpu_norms, gpu_weights) = (
        runs["cpu"],
        runs["cuda"],
    )
    assert cpu_losses[-1] < cpu_losses[0]  # it trains
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gpu_norms, cpu_norms, rtol=1e-5, atol=1e-6)
    # Adam divides by √v: a near-zero gradient's rounding moves a weight by up to ~lr/100
    for name in cpu_weights:
        np.testing.assert_allclose(
            gpu_weights[name], cpu_weights[name], rtol=1e-3, atol=1e-4, err_msg=name
        )


@pytest.mark.parametrize("case", CASES)
def test_a_training_step_copies_nothing_between_host_and_gpu(simulated_gpu, case):
    model, x, y, loss_fn, optimizer, scheduler = setup(case, "cuda")
    # the first fills caches (RoPE's table is copied over once)
    step(model, x, y, loss_fn, optimizer, scheduler)
    simulated_gpu.transfers.update(to_host=0, to_device=0)
    with simulated_gpu.forbid_transfers():  # any copy either way raises in here
        for _ in range(2):
            loss, total = step(model, x, y, loss_fn, optimizer, scheduler)
    assert simulated_gpu.transfers == {"to_host": 0, "to_device": 0}
    assert loss.is_cuda and total.is_cuda


# ---- optimizers and clipping -------------------------------------------------------------------
OPTIMIZERS = {
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam": dict(lr=0.01, amsgrad=True, weight_decay=0.1),
    "AdamW": dict(lr=0.01),
    "Adamax": dict(lr=0.01),
    "NAdam": dict(lr=0.01),
    "RAdam": dict(lr=0.01),
    "RMSprop": dict(lr=0.01, momentum=0.5, centered=True),
    "Adagrad": dict(lr=0.1),
    "Adadelta": dict(lr=1.0),
    "Rprop": dict(lr=0.01),
    "ASGD": dict(lr=0.01, t0=1),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_every_optimizer_steps_on_the_gpu_as_on_the_cpu_without_copies(simulated_gpu, name):
    rng = np.random.default_rng(3)
    w0, x = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    weights = {}
    for device in ("cpu", "cuda"):
        w = mg.tensor(w0, dtype=mg.float32, device=device, requires_grad=True)
        xs = mg.tensor(x, dtype=mg.float32, device=device)
        optimizer = getattr(optim, name)([w], **OPTIMIZERS[name])
        with simulated_gpu.forbid_transfers() if device == "cuda" else contextlib.nullcontext():
            for _ in range(4):
                (xs @ w.T).pow(2).mean().backward()
                optimizer.step()
                optimizer.zero_grad()
        weights[device] = w.detach().cpu().numpy()
    np.testing.assert_allclose(weights["cuda"], weights["cpu"], rtol=1e-6, atol=1e-7)


SCHEDULES = {
    "StepLR": lambda opt: optim.lr_scheduler.StepLR(opt, 2, gamma=0.5),
    "OneCycleLR": lambda opt: optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=6),
    "CosineAnnealingLR": lambda opt: optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6),
    "cosine_with_warmup": lambda opt: optim.lr_scheduler.get_cosine_schedule_with_warmup(opt, 2, 6),
}


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_learning_rate_schedules_step_with_gpu_parameters_without_copies(simulated_gpu, schedule):
    # the schedule is host numbers: it gives the same rates (and weights) as on the CPU
    runs = {}
    for device in ("cpu", "cuda"):
        w = mg.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)
        optimizer = optim.SGD([w], lr=0.1, momentum=0.9)
        scheduler = SCHEDULES[schedule](optimizer)
        rates = []
        with simulated_gpu.forbid_transfers() if device == "cuda" else contextlib.nullcontext():
            for _ in range(6):
                w.pow(2).sum().backward()
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                rates.append(optimizer.param_groups[0]["lr"])
        runs[device] = rates, w.detach().cpu().numpy()
    assert runs["cuda"][0] == runs["cpu"][0] and len(set(runs["cpu"][0])) > 1
    np.testing.assert_allclose(runs["cuda"][1], runs["cpu"][1], rtol=1e-6)


def test_lbfgs_runs_on_the_gpu_as_on_the_cpu(simulated_gpu):
    # L-BFGS reads the loss and its tests back as numbers each iteration, as torch's does
    weights = {}
    for device in ("cpu", "cuda"):
        w = mg.tensor([[1.0, -2.0], [0.5, 3.0]], device=device, requires_grad=True)
        target = mg.tensor([[0.0, 1.0], [2.0, 0.0]], device=device)
        optimizer = optim.LBFGS([w], lr=0.5, line_search_fn="strong_wolfe")

        def closure(w=w, target=target, optimizer=optimizer):
            optimizer.zero_grad()
            loss = (w - target).pow(2).sum()
            loss.backward()
            return loss

        optimizer.step(closure)
        weights[device] = w.detach().cpu().numpy()
    np.testing.assert_allclose(weights["cuda"], weights["cpu"], rtol=1e-6)
    np.testing.assert_allclose(weights["cpu"], [[0.0, 1.0], [2.0, 0.0]], atol=1e-4)


def test_clipping_on_the_gpu_keeps_the_norm_there_and_copies_nothing(simulated_gpu):
    grads = [np.array([3.0, 4.0], dtype=np.float32), np.array([[12.0]], dtype=np.float32)]
    results = {}
    for device in ("cpu", "cuda"):
        params = [mg.zeros(g.shape, device=device, requires_grad=True) for g in grads]
        for p, g in zip(params, grads):
            p.grad = mg.tensor(g, device=device)
        with simulated_gpu.forbid_transfers() if device == "cuda" else contextlib.nullcontext():
            total = clip_grad_norm_(params, 1.3)
            clip_grad_value_(params, 0.5)
        assert total.device.type == device  # a tensor on the device, as torch's
        results[device] = total.item(), [p.grad.cpu().numpy() for p in params]
    assert results["cpu"][0] == pytest.approx(13.0)  # sqrt(3² + 4² + 12²)
    assert results["cuda"][0] == pytest.approx(results["cpu"][0], rel=1e-6)
    for gpu, cpu in zip(results["cuda"][1], results["cpu"][1]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-6)
    # scaled by 1.3/13, then clamped
    np.testing.assert_allclose(results["cpu"][1][0], [0.3, 0.4], rtol=1e-5)


def test_an_optimizer_state_saved_on_the_cpu_loads_onto_gpu_parameters(simulated_gpu):
    w = mg.ones(3, requires_grad=True)
    optimizer = optim.Adam([w])
    w.sum().backward()
    optimizer.step()
    saved = optimizer.state_dict()
    w_gpu = mg.ones(3, device="cuda", requires_grad=True)
    restored = optim.Adam([w_gpu])
    restored.load_state_dict(saved)
    state = restored.state[w_gpu]
    assert state["step"] == 1
    assert mg.from_numpy(state["exp_avg"]).is_cuda and mg.from_numpy(state["exp_avg_sq"]).is_cuda
    np.testing.assert_allclose(
        mg.from_numpy(state["exp_avg"]).cpu().numpy(), saved["state"][0]["exp_avg"]
    )


# ---- layers made on the GPU --------------------------------------------------------------------
LAYERS = {
    "Linear": lambda device: nn.Linear(3, 4, device=device),
    "Conv2d": lambda device: nn.Conv2d(1, 2, 3, device=device),
    "BatchNorm1d": lambda device: nn.BatchNorm1d(4, device=device),
    "LayerNorm": lambda device: nn.LayerNorm(4, device=device),
    "Embedding": lambda device: nn.Embedding(5, 3, device=device),
    "LSTM": lambda device: nn.LSTM(3, 4, device=device),
    "MultiheadAttention": lambda device: nn.MultiheadAttention(4, 2, device=device),
    "TransformerEncoderLayer": lambda device: nn.TransformerEncoderLayer(4, 2, 8, device=device),
}


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_made_with_device_cuda_has_its_parameters_and_buffers_there(simulated_gpu, layer):
    mg.manual_seed(5)
    cpu = LAYERS[layer](None)
    mg.manual_seed(5)
    gpu = LAYERS[layer]("cuda")
    tensors = dict(gpu.named_parameters()) | dict(gpu.named_buffers())
    assert tensors and {t.device for t in tensors.values()} == {mg.device("cuda", 0)}
    for name, t in (dict(cpu.named_parameters()) | dict(cpu.named_buffers())).items():
        assert t.device.type == "cpu"
        np.testing.assert_array_equal(
            tensors[name].detach().cpu().numpy(), t.detach().numpy(), err_msg=name
        )  # the same seed: same init


def test_a_layer_asked_for_cuda_without_a_gpu_says_what_is_missing(no_gpu):
    with pytest.raises(
        RuntimeError, match="Linear: no CUDA device is available: CuPy is not installed"
    ):
        nn.Linear(3, 4, device="cuda")


# ---- checkpoints -------------------------------------------------------------------------------
def saved_from_the_gpu():
    """A Linear's state dict and its Adam state after one step on the GPU, saved to a buffer."""
    model = nn.Linear(3, 2, device="cuda")
    optimizer = optim.Adam(model.parameters())
    model(mg.ones(4, 3, device="cuda")).sum().backward()
    optimizer.step()
    # a CUDA model's state dict stays there
    assert all(t.is_cuda for t in model.state_dict().values())
    buffer = io.BytesIO()
    mg.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
    return model, buffer.getvalue()


@pytest.mark.parametrize(
    "map_location, device",
    [
        (None, "cuda"),
        ("cpu", "cpu"),
        ("cuda", "cuda"),
        (mg.device("cpu"), "cpu"),
        ("cuda:0", "cuda"),
        ({"cuda:0": "cpu"}, "cpu"),
        (lambda storage, location: storage, "cpu"),
        (lambda storage, location: storage.cuda(), "cuda"),
        (lambda storage, location: None, "cuda"),
    ],
    ids=[
        "none",
        "cpu",
        "cuda",
        "device-cpu",
        "cuda:0",
        "dict",
        "keep-on-cpu",
        "callable-cuda",
        "callable-none",
    ],
)
def test_a_gpu_checkpoint_loads_where_map_location_says(simulated_gpu, map_location, device):
    model, saved = saved_from_the_gpu()
    loaded = mg.load(io.BytesIO(saved), map_location=map_location)
    weight, exp_avg = loaded["model"]["weight"], loaded["optimizer"]["state"][0]["exp_avg"]
    assert weight.device.type == device and mg.from_numpy(exp_avg).device.type == device
    np.testing.assert_array_equal(weight.cpu().numpy(), model.weight.detach().cpu().numpy())


def test_a_cpu_checkpoint_loads_onto_the_gpu_and_training_resumes_there(simulated_gpu):
    mg.manual_seed(0)
    model = nn.Linear(3, 2)
    buffer = io.BytesIO()
    mg.save(model.state_dict(), buffer)
    loaded = mg.load(io.BytesIO(buffer.getvalue()), map_location="cuda")
    assert all(t.is_cuda for t in loaded.values())
    gpu = nn.Linear(3, 2, device="cuda")
    gpu.load_state_dict(mg.load(io.BytesIO(buffer.getvalue())))  # CPU values into GPU parameters
    assert gpu.weight.is_cuda
    np.testing.assert_array_equal(gpu.weight.detach().cpu().numpy(), model.weight.detach().numpy())


def test_a_gpu_checkpoint_on_a_machine_without_one(simulated_gpu, monkeypatch):
    _, saved = saved_from_the_gpu()
    from minigrad.cuda import runtime

    # the GPU goes away: as opening the file elsewhere
    monkeypatch.setattr(runtime, "_module", None)
    monkeypatch.setattr(runtime, "_simulated", False)
    monkeypatch.setattr(runtime, "_why_not", "CuPy is not installed")
    with pytest.raises(
        RuntimeError, match="load: no CUDA device is available: CuPy is not installed"
    ):
        mg.load(io.BytesIO(saved))
    with pytest.raises(RuntimeError, match="map_location='cuda'.*no CUDA device is available"):
        mg.load(io.BytesIO(saved), map_location="cuda")
    loaded = mg.load(io.BytesIO(saved), map_location="cpu")  # what torch's error advises
    assert loaded["model"]["weight"].device.type == "cpu"


# ---- data, generation and the command line -------------------------------------------------------
def test_pin_memory_is_accepted_and_batches_move_with_to(simulated_gpu):
    data = mg.data.TensorDataset(mg.arange(10.0).reshape(5, 2), mg.arange(5))
    plain = list(mg.data.DataLoader(data, batch_size=2))
    pinned = list(mg.data.DataLoader(data, batch_size=2, pin_memory=True))
    assert len(pinned) == len(plain) == 3
    for (x, y), (px, py) in zip(plain, pinned):
        assert px.device.type == "cpu"  # pinning changes nothing in minigrad
        gx, gy = px.to("cuda"), py.to("cuda")
        assert gx.is_cuda and gy.is_cuda
        np.testing.assert_array_equal(gx.cpu().numpy(), x.numpy())
        np.testing.assert_array_equal(gy.cpu().numpy(), y.numpy())


def test_generate_on_the_gpu_stays_there(simulated_gpu):
    mg.manual_seed(0)
    model = GPT(11, d_model=16, n_layers=1, n_heads=2, max_len=8)
    gpu = copy.deepcopy(model).cuda()
    prompt = mg.tensor([[1, 2, 3], [4, 5, 6]])
    greedy = model.generate(prompt, 7, temperature=0)
    on_gpu = prompt.cuda()
    # RoPE's table of all 8 positions, copied over once
    gpu(mg.zeros(1, 8, dtype=mg.int64, device="cuda"))
    with simulated_gpu.forbid_transfers():  # the whole generation, cache and sampling included
        gpu_greedy = gpu.generate(on_gpu, 7, temperature=0)
        sampled = gpu.generate(on_gpu, 7, temperature=0.8, top_k=5)
    assert gpu_greedy.is_cuda and sampled.is_cuda and sampled.shape == (2, 10)
    np.testing.assert_array_equal(gpu_greedy.cpu().numpy(), greedy.numpy())
    tokens = sampled.cpu().numpy()
    np.testing.assert_array_equal(tokens[:, :3], prompt.numpy())
    assert tokens.min() >= 0 and tokens.max() < 11


def test_train_device_cuda_without_a_gpu_is_a_clear_usage_error(no_gpu, tmp_path, capsys):
    from minigrad import train

    for argv in (["--device", "cuda"], ["--model", "gpt", "--quick", "--device", "cuda"]):
        with pytest.raises(SystemExit) as stop:
            train.main([*argv, "--no-plot", "--out", str(tmp_path)])
        assert stop.value.code == 2
        error = capsys.readouterr().err.strip().splitlines()[-1]
        assert (
            "error: argument --device: no CUDA device is available: CuPy is not installed" in error
        )
    assert not any(tmp_path.iterdir())  # refused before any work


def test_train_device_auto_picks_the_cpu_without_a_gpu(no_gpu, tmp_path, capsys):
    from minigrad import train

    train.run(
        [
            "--device",
            "auto",
            "--max-steps",
            "1",
            "--epochs",
            "1",
            "--no-plot",
            "--out",
            str(tmp_path),
        ]
    )
    assert "device: cpu\n" in capsys.readouterr().out


@pytest.mark.parametrize("model", ["mlp", "cnn", "resnet", "gpt"])
def test_train_device_cuda_trains_every_model_on_the_gpu(
    simulated_gpu, tmp_path, capsys, model, monkeypatch
):
    from minigrad import train, train_gpt

    if model == "gpt":  # a few steps, small evaluations, no sample
        monkeypatch.setitem(train_gpt.SETTINGS["quick"], "eval_iters", 1)
        argv = [
            "--model",
            "gpt",
            "--quick",
            "--iters",
            "2",
            "--sample-tokens",
            "3",
            "--text",
            str(tiny_text(tmp_path)),
        ]
    else:
        argv = ["--model", model, "--max-steps", "2", "--epochs", "1", "--batch-size", "8"]
    train.run([*argv, "--device", "auto", "--no-plot", "--out", str(tmp_path / "out")])
    assert "device: cuda:0 (minigrad CUDA simulator (host memory))\n" in capsys.readouterr().out
    weights = mg.load(tmp_path / "out" / "model.npz")  # saved from the GPU: loads back there
    assert weights and all(t.is_cuda for t in weights.values())


def tiny_text(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text("to be or not to be, that is the question.\n" * 12, encoding="utf-8")
    return path
