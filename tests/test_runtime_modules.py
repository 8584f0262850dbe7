"""The runtime names real PyTorch programs use around their models, held against torch.

torch.nn.modules.* import paths, torch.amp / torch.cuda.amp (GradScaler, autocast),
torch.onnx, torch.distributed without a process group, DistributedSampler, and
torch.multiprocessing. Where minigrad differs from torch on purpose (no process groups,
no low-precision compute under autocast), the test says so and checks minigrad's own
documented behaviour.
"""

import importlib
import inspect
import multiprocessing
import warnings

import numpy as np
import pytest
import torch
import torch.multiprocessing
import torch.utils.data.distributed

import minigrad as mg
import minigrad.nn as nn

TORCH_API = [
    "torch.nn.modules",
    "torch.nn.modules.linear",
    "torch.nn.modules.conv",
    "torch.nn.modules.activation",
    "torch.nn.modules.loss",
    "torch.nn.modules.batchnorm",
    "torch.nn.modules.normalization",
    "torch.nn.modules.dropout",
    "torch.nn.modules.container",
    "torch.nn.modules.module",
    "torch.nn.modules.pooling",
    "torch.nn.modules.sparse",
    "torch.nn.modules.transformer",
    "torch.nn.modules.flatten",
    "torch.nn.modules.rnn",
    "torch.amp",
    "torch.GradScaler",
    "torch.amp.GradScaler",
    "torch.amp.autocast",
    "torch.amp.custom_fwd",
    "torch.amp.custom_bwd",
    "torch.autocast",
    "torch.is_autocast_enabled",
    "torch.cuda.amp",
    "torch.cuda.amp.GradScaler",
    "torch.cuda.amp.autocast",
    "torch.cuda.amp.custom_fwd",
    "torch.onnx",
    "torch.onnx.export",
    "torch.onnx.is_in_onnx_export",
    "torch.distributed.is_initialized",
    "torch.distributed.get_rank",
    "torch.distributed.get_world_size",
    "torch.distributed.destroy_process_group",
    "torch.utils.data.distributed",
    "torch.utils.data.distributed.DistributedSampler",
    "torch.utils.data.DistributedSampler",
    "torch.multiprocessing",
    "torch.multiprocessing.set_sharing_strategy",
    "torch.multiprocessing.get_sharing_strategy",
    "torch.multiprocessing.get_all_sharing_strategies",
]


def caught(fn):
    """(result or exception, [(warning category, text)]) of fn()."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as err:  # the test compares what was raised
            result = err
    return result, [(w.category, str(w.message)) for w in seen]


# ---- torch.nn.modules.* -----------------------------------------------------------------------
SUBMODULES = [
    "linear",
    "conv",
    "activation",
    "loss",
    "batchnorm",
    "normalization",
    "dropout",
    "container",
    "module",
    "pooling",
    "sparse",
    "transformer",
    "flatten",
    "rnn",
]


def public_classes(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, v in vars(module).items()
            if inspect.isclass(v) and v.__module__ == module.__name__
        ]
    return [n for n in names if not n.startswith("_")]


@pytest.mark.parametrize("name", SUBMODULES)
def test_every_torch_nn_modules_class_minigrad_has_imports_from_the_same_path(name):
    theirs = importlib.import_module(f"torch.nn.modules.{name}")
    mine = importlib.import_module(f"minigrad.nn.modules.{name}")
    shared = [n for n in public_classes(theirs) if hasattr(nn, n)]
    for cls in shared:
        assert getattr(mine, cls) is getattr(nn, cls), cls
        exec(f"from minigrad.nn.modules.{name} import {cls}", {})
    # and nothing that torch keeps elsewhere
    assert set(mine.__all__) == set(shared)
    assert mine.__all__ or name == "rnn"  # the recurrent layers are still to come to minigrad.nn


def test_minigrad_nn_modules_holds_what_torch_nn_modules_holds():
    shared = [n for n in torch.nn.modules.__all__ if hasattr(nn, n)]
    assert len(shared) > 40
    assert all(getattr(nn.modules, n) is getattr(nn, n) for n in shared)
    # reachable after `import minigrad`, as in torch
    assert nn.modules.linear.Linear is mg.nn.Linear


def test_rnn_hands_out_what_minigrad_nn_has_when_it_has_it(monkeypatch):
    rnn = importlib.import_module("minigrad.nn.modules.rnn")
    assert set(rnn.NAMES) == set(public_classes(importlib.import_module("torch.nn.modules.rnn")))
    missing = [n for n in rnn.NAMES if not hasattr(nn, n)]
    if missing:
        with pytest.raises(ImportError, match=f"cannot import name '{missing[0]}'"):
            exec(f"from minigrad.nn.modules.rnn import {missing[0]}", {})
        layer = type(missing[0], (nn.Module,), {})
        monkeypatch.setattr(nn, missing[0], layer, raising=False)  # as if minigrad.nn defined it
        namespace = {}
        exec(f"from minigrad.nn.modules.rnn import {missing[0]}", namespace)
        assert namespace[missing[0]] is layer and missing[0] in rnn.__all__
    for name in rnn.NAMES:
        if hasattr(nn, name):
            assert getattr(rnn, name) is getattr(nn, name)


# ---- GradScaler, against torch's on the CPU ----------------------------------------------------
def twin_models(seed=0):
    rng = np.random.default_rng(seed)
    w, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    mine, theirs = nn.Linear(4, 3), torch.nn.Linear(4, 3)
    mine.load_state_dict({"weight": w, "bias": b})
    theirs.load_state_dict({"weight": torch.tensor(w), "bias": torch.tensor(b)})
    return mine, theirs


@pytest.mark.parametrize("clip", [False, True])
def test_grad_scaler_skips_backs_off_and_grows_as_torchs(clip):
    # a scale so large that the first scaled losses overflow float32, and a short growth
    # interval: steps are skipped, the scale backs off, then grows
    kwargs = dict(
        init_scale=2.0**125, growth_factor=4.0, backoff_factor=2.0**-20, growth_interval=2
    )
    mine, theirs = twin_models()
    runs = []
    for lib, model in ((mg, mine), (torch, theirs)):
        opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        scaler = lib.amp.GradScaler("cpu", **kwargs)
        x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
        history = []
        for _ in range(10):
            opt.zero_grad()
            before = model.weight.detach().numpy().copy()
            scaler.scale((model(lib.tensor(x)) ** 2).mean() * 100).backward()
            if clip:
                scaler.unscale_(opt)
                lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            skipped = np.array_equal(model.weight.detach().numpy(), before)
            history.append((skipped, scaler.get_scale(), scaler.state_dict()))
        runs.append((history, [p.detach().numpy().copy() for p in model.parameters()]))
    (mine_history, mine_params), (torch_history, torch_params) = runs
    assert mine_history == torch_history
    assert {skipped for skipped, _, _ in mine_history} == {True, False}  # both paths were taken
    assert len({scale for _, scale, _ in mine_history}) >= 3  # backed off, and grew
    for a, b in zip(mine_params, torch_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_grad_scaler_scales_what_torchs_scales():
    for lib in (mg, torch):
        assert lib.GradScaler is lib.amp.GradScaler  # torch.GradScaler is torch.amp's
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        assert scaler.is_enabled() and scaler.get_scale() == 8.0
        one = lib.tensor(1.5)
        assert scaler.scale(one).item() == 12.0
        pair = scaler.scale([one, (one, lib.tensor(2.0, dtype=lib.float64))])
        assert isinstance(pair, list) and isinstance(pair[1], tuple)
        assert pair[1][1].dtype == lib.float64 and pair[1][1].item() == 16.0
        assert [t.item() for t in scaler.scale(t for t in [one])] == [12.0]
        with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
            scaler.scale(3)


def test_grad_scaler_misuse_raises_as_torch():
    for lib, model in zip((mg, torch), twin_models()):
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
            scaler.step(opt)
        scaler.scale(model(lib.ones(1, 4)).sum()).backward()
        scaler.unscale_(opt)
        with pytest.raises(
            RuntimeError, match="unscale_\\(\\) has already been called on this optimizer"
        ):
            scaler.unscale_(opt)
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            scaler.step(opt, closure=lambda: 0.0)
        scaler.step(opt)
        with pytest.raises(
            RuntimeError, match="step\\(\\) has already been called since the last update"
        ):
            scaler.step(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
            scaler.unscale_(opt)
        scaler.update()
        with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
            scaler.update()
        with pytest.raises(AssertionError, match="The growth factor must be > 1.0"):
            lib.amp.GradScaler("cpu", growth_factor=1.0)
        with pytest.raises(AssertionError, match="The backoff factor must be < 1.0"):
            lib.amp.GradScaler("cpu", backoff_factor=1.0)


def test_grad_scaler_refuses_float16_gradients_as_torch():
    for lib in (mg, torch):
        p = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
        opt = lib.optim.SGD([p], lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale((p * 2).sum()).backward()
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
            scaler.step(opt)


def test_grad_scaler_state_dict_round_trips_as_torchs():
    states = []
    for lib, model in zip((mg, torch), twin_models()):
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=3)
        scaler.scale(model(lib.ones(1, 4)).sum()).backward()
        scaler.step(opt)
        scaler.update()  # one clean step: the growth tracker is at 1
        fresh = lib.amp.GradScaler("cpu")
        fresh.load_state_dict(scaler.state_dict())
        states.append((fresh.state_dict(), fresh.get_scale(), fresh.get_growth_interval()))
        with pytest.raises(RuntimeError, match="The source state dict is empty"):
            fresh.load_state_dict({})
    assert states[0] == states[1]
    assert states[0][0] == {
        "scale": 4.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 3,
        "_growth_tracker": 1,
    }


def test_a_disabled_grad_scaler_passes_everything_through_as_torchs():
    for lib, model in zip((mg, torch), twin_models()):
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler, messages = caught(lambda lib=lib: lib.amp.GradScaler("cpu", enabled=False))
        assert messages == [] and not scaler.is_enabled()
        loss = model(lib.ones(2, 4)).sum()
        assert scaler.scale(loss) is loss and scaler.scale(3) == 3
        loss.backward()
        before = model.weight.detach().numpy().copy()
        assert scaler.unscale_(opt) is None and scaler.step(opt) is None and scaler.update() is None
        assert not np.array_equal(model.weight.detach().numpy(), before)  # the optimizer stepped
        assert (
            scaler.get_scale() == 1.0
            and scaler.state_dict() == {}
            and scaler.load_state_dict({}) is None
        )


@pytest.mark.parametrize("make", ["amp cuda", "amp default", "cuda.amp"])
def test_a_cuda_grad_scaler_without_cuda_warns_and_disables_itself_as_torchs(make):
    results = []
    for lib in (mg, torch):
        factory = {
            "amp cuda": lambda lib=lib: lib.amp.GradScaler("cuda"),
            "amp default": lambda lib=lib: lib.amp.GradScaler(),
            "cuda.amp": lambda lib=lib: lib.cuda.amp.GradScaler(init_scale=4.0),
        }[make]
        scaler, messages = caught(factory)
        results.append((scaler.is_enabled(), scaler.get_scale(), messages))
    mine, theirs = results
    assert mine == theirs
    assert (
        UserWarning,
        "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
    ) in mine[2]


def test_cuda_amp_grad_scaler_enabled_false_only_warns_its_deprecation_as_torchs():
    mine = caught(lambda: mg.cuda.amp.GradScaler(enabled=False))[1]
    theirs = caught(lambda: torch.cuda.amp.GradScaler(enabled=False))[1]
    assert mine == theirs and [category for category, _ in mine] == [FutureWarning]


# ---- autocast ------------------------------------------------------------------------------------
def inside(lib, device, **kwargs):
    """What is_autocast_enabled says inside the block, and the block's warnings."""

    def run():
        with lib.autocast(device, **kwargs):
            return lib.is_autocast_enabled(device)

    return caught(run)


@pytest.mark.parametrize(
    "device, kwargs",
    [
        ("cuda", {}),  # no CUDA: torch warns and disables
        ("cuda", {"enabled": False}),  # disabled: nothing happens
        ("cpu", {"enabled": False}),
        ("cpu", {"dtype": "float32"}),  # not a CPU autocast dtype: torch warns and disables
        ("cpu", {"dtype": "float64"}),
    ],
)
def test_autocast_cases_torch_disables_are_disabled_with_torchs_warning(device, kwargs):
    results = []
    for lib in (mg, torch):
        args = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        results.append(inside(lib, device, **args))
    assert results[0] == results[1]
    assert results[0][0] is False


def test_autocast_to_a_lower_precision_warns_that_minigrad_stays_in_full_precision():
    # torch would run matmuls in bfloat16 here; minigrad cannot, says so, and disables autocast
    model = nn.Linear(4, 3)
    x = mg.randn(2, 4)
    for dtype in (None, mg.bfloat16, mg.float16):
        kwargs = {} if dtype is None else {"dtype": dtype}
        with pytest.warns(
            UserWarning, match="minigrad does not run ops in a lower precision"
        ) as record:
            with mg.autocast("cpu", **kwargs):
                assert not mg.is_autocast_enabled("cpu")
                out = model(x)
        assert "bfloat16" in str(record[0].message) or dtype is mg.float16
        assert out.dtype == mg.float32
        np.testing.assert_array_equal(out.detach().numpy(), model(x).detach().numpy())


def test_autocast_as_a_decorator_and_its_argument_checks_as_torchs():
    for lib in (mg, torch):

        @lib.autocast("cpu", enabled=False)
        def double(x):
            return x * 2

        assert double(lib.tensor(2.0)).item() == 4.0
        assert lib.amp.autocast is lib.autocast
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(lib.device("cpu"))
        with pytest.raises(RuntimeError, match="tpu"):
            lib.autocast("tpu")
        assert not lib.is_autocast_enabled()


def test_cuda_amp_autocast_warns_its_deprecation_and_disables_as_torchs():
    results = []
    for lib in (mg, torch):

        def run(lib=lib):
            with lib.cuda.amp.autocast():
                return lib.is_autocast_enabled("cuda")

        results.append(caught(run))
    assert results[0] == results[1]
    assert [category for category, _ in results[0][1]] == [FutureWarning, UserWarning]


def test_custom_fwd_and_custom_bwd_leave_a_function_as_torchs_do_without_autocast():
    grads = []
    for lib in (mg, torch):

        class Cube(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu")
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 3 * x**2 * grad

        x = lib.tensor([1.0, -2.0], requires_grad=True)
        Cube.apply(x).sum().backward()
        grads.append(x.grad.numpy())
        with pytest.raises(TypeError, match="device_type"):
            lib.amp.custom_fwd(lambda ctx, x: x)
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.amp.custom_bwd(device_type=None)
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[0], [3.0, 12.0])
    for lib in (mg, torch):
        assert [
            c for c, _ in caught(lambda lib=lib: lib.cuda.amp.custom_fwd(lambda ctx, x: x))[1]
        ] == [FutureWarning]


# ---- onnx ----------------------------------------------------------------------------------------
def test_onnx_is_importable_and_export_says_it_is_not_supported(tmp_path):
    import minigrad.onnx

    assert minigrad.onnx is mg.onnx
    assert mg.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    with pytest.raises(
        NotImplementedError, match="mg.onnx.export: minigrad cannot export models to ONNX"
    ):
        mg.onnx.export(nn.Linear(2, 2), (mg.ones(1, 2),), tmp_path / "model.onnx")
    assert not (tmp_path / "model.onnx").exists()


# ---- distributed without a process group ---------------------------------------------------------
def test_distributed_without_a_process_group_behaves_as_torchs():
    assert mg.distributed.is_initialized() is torch.distributed.is_initialized() is False
    # torch's is True: it was built with gloo; minigrad has none
    assert mg.distributed.is_available() is False
    for name, error in (
        ("get_rank", ValueError),
        ("get_world_size", ValueError),
        ("destroy_process_group", AssertionError),
    ):
        for lib in (mg, torch):
            with pytest.raises(error) as raised:
                getattr(lib.distributed, name)()
            message = str(raised.value)
            assert message.startswith(
                "Process group cannot be None"
                if error is AssertionError
                else "Default process group has not been"
            ), message


def sampler_lists(lib, n, num_replicas, **kwargs):
    sampler_class = lib.utils.data.distributed.DistributedSampler
    samplers = [
        sampler_class(list(range(n)), num_replicas=num_replicas, rank=r, **kwargs)
        for r in range(num_replicas)
    ]
    return [list(s) for s in samplers], [len(s) for s in samplers]


CASES = [(n, r, drop) for n in (0, 1, 5, 10, 12) for r in (1, 3, 4) for drop in (False, True)]


@pytest.mark.parametrize("n, num_replicas, drop_last", CASES)
def test_distributed_sampler_without_shuffle_gives_torchs_index_lists(n, num_replicas, drop_last):
    mine = sampler_lists(mg, n, num_replicas, shuffle=False, drop_last=drop_last)
    theirs = sampler_lists(torch, n, num_replicas, shuffle=False, drop_last=drop_last)
    assert mine == theirs


@pytest.mark.parametrize("n, num_replicas, drop_last", [c for c in CASES if c[0] > 0])
def test_distributed_sampler_shuffled_splits_its_order_as_torch_splits_it(
    n, num_replicas, drop_last, monkeypatch
):
    # minigrad's permutations are its own (PCG64), so torch is handed minigrad's order
    # and must cut it into the same shares
    seed, epoch = 7, 3
    whole = mg.utils.data.distributed.DistributedSampler(
        list(range(n)), num_replicas=1, rank=0, seed=seed
    )
    whole.set_epoch(epoch)
    order = list(whole)
    assert sorted(order) == list(range(n))
    monkeypatch.setattr(torch, "randperm", lambda k, generator=None: torch.tensor(order))
    mine, theirs = [], []
    for lib, lists in ((mg, mine), (torch, theirs)):
        for rank in range(num_replicas):
            sampler = lib.utils.data.distributed.DistributedSampler(
                list(range(n)), num_replicas=num_replicas, rank=rank, seed=seed, drop_last=drop_last
            )
            sampler.set_epoch(epoch)
            lists.append(list(sampler))
    assert mine == theirs


def test_distributed_sampler_order_depends_on_seed_and_epoch_only():
    def order(seed=0, epoch=0, rank=0):
        sampler = mg.utils.data.distributed.DistributedSampler(
            range(50), num_replicas=2, rank=rank, seed=seed
        )
        sampler.set_epoch(epoch)
        return list(sampler)

    mg.manual_seed(0)
    first = order()
    mg.manual_seed(1)  # the global stream does not matter: every replica must agree
    assert order() == first
    assert order(epoch=1) != first and order(seed=1) != first
    assert sorted(order(rank=0) + order(rank=1)) == list(range(50))


def test_distributed_sampler_errors_as_torchs():
    for lib in (mg, torch):
        cls = lib.utils.data.distributed.DistributedSampler
        for rank in (3, -1):
            with pytest.raises(
                ValueError, match=rf"Invalid rank {rank}, rank should be in the interval \[0, 1\]"
            ):
                cls(range(10), num_replicas=2, rank=rank)
    # without num_replicas or rank torch asks its process group; minigrad has no process groups,
    # which is torch's case of a build without distributed support
    with pytest.raises(
        RuntimeError, match="Requires distributed package to be available.*pass num_replicas="
    ):
        mg.utils.data.distributed.DistributedSampler(range(10))
    assert (
        mg.utils.data.DistributedSampler
        is mg.data.DistributedSampler
        is mg.utils.data.distributed.DistributedSampler
    )
    assert torch.utils.data.DistributedSampler is torch.utils.data.distributed.DistributedSampler


def test_a_data_loader_reads_one_replicas_share():
    data = mg.data.TensorDataset(mg.arange(10))
    sampler = mg.data.DistributedSampler(data, num_replicas=3, rank=1, shuffle=False)
    batches = [
        batch[0].tolist() for batch in mg.data.DataLoader(data, batch_size=2, sampler=sampler)
    ]
    assert batches == [[1, 4], [7, 0]]


# ---- multiprocessing -----------------------------------------------------------------------------
def test_multiprocessing_is_the_standard_library_with_torchs_extra_names():
    assert set(mg.multiprocessing.__all__) == set(torch.multiprocessing.__all__)
    for name in multiprocessing.__all__:
        assert getattr(mg.multiprocessing, name) is getattr(multiprocessing, name), name
    assert mg.multiprocessing.cpu_count() == torch.multiprocessing.cpu_count()


@pytest.fixture
def sharing_strategies():
    before = mg.multiprocessing.get_sharing_strategy(), torch.multiprocessing.get_sharing_strategy()
    yield
    mg.multiprocessing.set_sharing_strategy(before[0])
    torch.multiprocessing.set_sharing_strategy(before[1])


def test_the_sharing_strategy_is_kept_as_torchs(sharing_strategies):
    for lib in (mg.multiprocessing, torch.multiprocessing):
        assert lib.get_sharing_strategy() == "file_descriptor"
        assert lib.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
        lib.set_sharing_strategy("file_system")
        assert lib.get_sharing_strategy() == "file_system"
        with pytest.raises(AssertionError, match="invalid sharing strategy 'bogus'"):
            lib.set_sharing_strategy("bogus")


def _total(tensor, queue):
    queue.put(tensor * 2)


def test_a_process_gets_and_returns_minigrad_tensors():
    context = mg.multiprocessing.get_context("fork")
    queue = context.SimpleQueue()
    process = context.Process(target=_total, args=(mg.tensor([1.0, 2.0]), queue))
    process.start()
    result = queue.get()
    process.join(timeout=60)
    assert process.exitcode == 0
    assert isinstance(result, mg.Tensor) and result.tolist() == [2.0, 4.0]
