"""torch.optim.swa_utils against torch: AveragedModel (the running mean, an EMA by avg_fn
and multi_avg_fn, buffers), SWALR's learning rates, and update_bn's BatchNorm statistics.
Each scenario runs unchanged on both libraries from the same weights and data, and the
numbers must agree.
"""

import numpy as np
import pytest
import torch

import minigrad as mg

TORCH_API = ["torch.optim.swa_utils"]

rng = np.random.default_rng(0)
X = rng.standard_normal((16, 3)).astype(np.float32)
Y = rng.standard_normal((16, 1)).astype(np.float32)
W1, B1 = rng.standard_normal((4, 3)).astype(np.float32) * 0.5, np.zeros(4, np.float32)
W2, B2 = rng.standard_normal((1, 4)).astype(np.float32) * 0.5, np.zeros(1, np.float32)


def network(lib):
    net = lib.nn.Sequential(
        lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 1)
    )
    with lib.no_grad():
        for p, value in zip(
            net.parameters(), [W1, B1, np.ones(4, np.float32), np.zeros(4, np.float32), W2, B2]
        ):
            p.copy_(lib.tensor(value))
    return net


def train(lib, make_average, anneal_strategy="cos", epochs=6, swa_start=2):
    net = network(lib)
    optimizer = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    swa = make_average(lib, net)
    scheduler = lib.optim.swa_utils.SWALR(
        optimizer, swa_lr=0.05, anneal_epochs=3, anneal_strategy=anneal_strategy
    )
    rates = []
    x, y = lib.tensor(X), lib.tensor(Y)
    for epoch in range(epochs):
        for i in range(0, 16, 4):
            optimizer.zero_grad()
            loss = ((net(x[i : i + 4]) - y[i : i + 4]) ** 2).mean()
            loss.backward()
            optimizer.step()
        if epoch >= swa_start:
            swa.update_parameters(net)
            scheduler.step()
        rates.append(optimizer.param_groups[0]["lr"])
    loader = [(x[i : i + 4], y[i : i + 4]) for i in range(0, 16, 4)]
    lib.optim.swa_utils.update_bn(loader, swa)
    swa.eval()
    return {
        "rates": rates,
        "n_averaged": int(swa.n_averaged.item()),
        "params": [p.detach().numpy().copy() for p in swa.parameters()],
        "buffers": [b.detach().numpy().copy() for b in swa.buffers()],
        "output": swa(x).detach().numpy(),
        "training": swa.training,
    }


AVERAGES = {
    "swa": lambda lib, net: lib.optim.swa_utils.AveragedModel(net),
    "ema": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.9)
    ),
    "ema multi": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    ),
    "swa multi": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()
    ),
    "swa of buffers": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, avg_fn=lib.optim.swa_utils.get_swa_avg_fn(), use_buffers=True
    ),
}


@pytest.mark.parametrize("name", list(AVERAGES))
@pytest.mark.parametrize("anneal", ["cos", "linear"])
def test_averaged_training_as_torch(name, anneal):
    mine, theirs = train(mg, AVERAGES[name], anneal), train(torch, AVERAGES[name], anneal)
    np.testing.assert_allclose(mine["rates"], theirs["rates"], rtol=1e-12)
    assert mine["n_averaged"] == theirs["n_averaged"] == 4
    assert mine["training"] == theirs["training"] is False
    for a, b in zip(mine["params"], theirs["params"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    for a, b in zip(mine["buffers"], theirs["buffers"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(mine["output"], theirs["output"], rtol=1e-4, atol=1e-5)


def test_swalr_rates_and_state_dict_as_torch():
    results = []
    for lib in (torch, mg):
        optimizer = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=1.0)
        optimizer.add_param_group({"params": [lib.nn.Parameter(lib.zeros(1))], "lr": 0.5})
        scheduler = lib.optim.swa_utils.SWALR(optimizer, swa_lr=[0.1, 0.2], anneal_epochs=4)
        rates = []
        for _ in range(6):
            optimizer.step()
            scheduler.step()
            rates.append(scheduler.get_last_lr())
        state = scheduler.state_dict()
        fresh = lib.optim.swa_utils.SWALR(
            optimizer, swa_lr=0.3, anneal_epochs=1, anneal_strategy="linear"
        )
        fresh.load_state_dict(state)
        optimizer.step()
        fresh.step()
        results.append((rates, fresh.get_last_lr(), sorted(k for k in state if k != "_last_lr")))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert set(results[0][2]) >= {"anneal_epochs", "_anneal_strategy", "base_lrs", "last_epoch"}
    assert {"anneal_epochs", "_anneal_strategy", "base_lrs", "last_epoch"} <= set(results[1][2])


@pytest.mark.parametrize(
    "make, error",
    [
        (
            lambda lib, opt: lib.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="step"),
            ValueError,
        ),
        (lambda lib, opt: lib.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1), ValueError),
        (lambda lib, opt: lib.optim.swa_utils.SWALR(opt, swa_lr=[0.1, 0.2]), ValueError),
        (lambda lib, opt: lib.optim.swa_utils.get_ema_avg_fn(1.5), ValueError),
        (
            lambda lib, opt: lib.optim.swa_utils.AveragedModel(
                lib.nn.Linear(1, 1),
                avg_fn=lib.optim.swa_utils.get_swa_avg_fn(),
                multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn(),
            ),
            AssertionError,
        ),
    ],
)
def test_bad_arguments_raise_as_torch(make, error):
    for lib in (torch, mg):
        optimizer = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=1.0)
        with pytest.raises(error):
            make(lib, optimizer)


def test_update_bn_leaves_a_model_without_batchnorm_alone():
    for lib in (torch, mg):
        model = lib.nn.Linear(3, 1)
        model.eval()
        lib.optim.swa_utils.update_bn([lib.ones(2, 3)], model)
        assert not model.training


def test_the_average_is_a_copy_that_forwards():
    for lib in (torch, mg):
        net = lib.nn.Linear(2, 1)
        swa = lib.optim.swa_utils.AveragedModel(net)
        assert swa.module is not net and swa.module.weight is not net.weight
        assert [name for name, _ in swa.named_buffers()] == ["n_averaged"]
        x = lib.ones(3, 2)
        np.testing.assert_allclose(swa(x).detach().numpy(), net(x).detach().numpy())
        assert swa.n_averaged.dtype == lib.int64
