"""Devices as PyTorch has them, for a framework whose tensors live in host memory:
mg.device against torch.device, Tensor/Module .to/.cpu/.cuda, device= on the creation
functions, the default device, and mg.cuda / mg.accelerator / mg.backends / mg.distributed."""

import copy
import pickle

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn

from .helpers import leaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.cpu",
    "torch.Tensor.device",
    "torch.Tensor.to",
    "torch.accelerator",
    "torch.accelerator.current_accelerator",
    "torch.accelerator.device_count",
    "torch.accelerator.is_available",
    "torch.are_deterministic_algorithms_enabled",
    "torch.as_tensor",
    "torch.backends",
    "torch.backends.cuda.is_built",
    "torch.backends.cudnn.benchmark",
    "torch.backends.cudnn.deterministic",
    "torch.backends.cudnn.enabled",
    "torch.backends.cudnn.is_available",
    "torch.backends.mps.is_available",
    "torch.backends.mps.is_built",
    "torch.cuda",
    "torch.cuda.device_count",
    "torch.cuda.empty_cache",
    "torch.cuda.is_available",
    "torch.cuda.is_initialized",
    "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all",
    "torch.cuda.synchronize",
    "torch.device",
    "torch.distributed",
    "torch.distributed.init_process_group",
    "torch.distributed.is_available",
    "torch.distributed.is_initialized",
    "torch.get_default_device",
    "torch.get_float32_matmul_precision",
    "torch.is_deterministic_algorithms_warn_only_enabled",
    "torch.nn.DataParallel",
    "torch.nn.Module.cpu",
    "torch.nn.Module.to",
    "torch.nn.parallel",
    "torch.set_default_device",
    "torch.set_float32_matmul_precision",
    "torch.use_deterministic_algorithms",
]

# ---- mg.device against torch.device ------------------------------------------------------
DEVICE_ARGS = [
    ("cpu",),
    ("cpu", 0),
    ("cuda",),
    ("cuda:0",),
    ("cuda", 1),
    ("cuda:12",),
    ("mps",),
    ("meta",),
]


@pytest.mark.parametrize("args", DEVICE_ARGS, ids=repr)
def test_device_parses_prints_and_compares_as_torch(args):
    mine, theirs = mg.device(*args), torch.device(*args)
    assert (mine.type, mine.index) == (theirs.type, theirs.index)
    assert str(mine) == str(theirs)
    assert repr(mine) == repr(theirs)
    for other in DEVICE_ARGS:
        assert (mine == mg.device(*other)) == (theirs == torch.device(*other)), other


def test_device_hash_follows_equality_and_a_device_is_not_a_string():
    assert hash(mg.device("cpu")) == hash(mg.device("cpu"))
    assert {mg.device("cuda:0"): 1}[mg.device("cuda", 0)] == 1
    assert len({mg.device("cpu"), mg.device("cpu"), mg.device("cpu", 0)}) == 2
    assert (mg.device("cpu") == "cpu") is (torch.device("cpu") == "cpu") is False


def test_device_from_a_device_an_int_and_a_torch_device():
    assert mg.device(mg.device("cuda:1")) == mg.device("cuda", 1)
    assert mg.device(torch.device("cpu")) == mg.device("cpu")
    assert mg.device(2) == mg.device("cuda:2")  # a bare ordinal names an accelerator, as torch


def test_device_survives_pickle_and_deepcopy():
    d = mg.device("cuda", 3)
    assert pickle.loads(pickle.dumps(d)) == d and copy.deepcopy(d) == d


@pytest.mark.parametrize(
    "args, error, match",
    [
        (("foo",), RuntimeError, "expected one of cpu, cuda"),
        (("CPU",), RuntimeError, "expected one of cpu, cuda"),
        (("cuda:-1",), RuntimeError, "invalid device string"),
        (("cuda:x",), RuntimeError, "invalid device string"),
        (("cuda:01",), RuntimeError, "invalid device string"),
        (("cpu:0:1",), RuntimeError, "invalid device string"),
        (("cpu", -1), RuntimeError, "must not be negative"),
        (("cuda:0", 1), RuntimeError, "must not include an index"),
        (("cuda", "0"), TypeError, "index must be an int"),
        ((1.5,), TypeError, "got float"),
        ((None,), TypeError, "got NoneType"),
    ],
    ids=repr,
)
def test_bad_device_arguments_raise_as_torch(args, error, match):
    with pytest.raises(error, match=match):
        mg.device(*args)
    with pytest.raises(error):  # the same kind of error as PyTorch's
        torch.device(*args)


# ---- tensors: device, is_cuda, cpu, cuda, to ----------------------------------------------
def test_tensor_device_is_the_cpu_device():
    t = mg.zeros(2)
    assert t.device == mg.device("cpu") and isinstance(t.device, mg.device)
    assert str(t.device) == "cpu" and repr(t.device) == "device(type='cpu')"
    assert t.is_cpu and not t.is_cuda
    assert nn.Parameter(mg.zeros(2)).device == mg.device("cpu")


def test_cpu_returns_the_tensor_itself_as_torch_on_a_cpu_tensor():
    t, tt = mg.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])
    assert t.cpu() is t and tt.cpu() is tt


@pytest.mark.parametrize("call", ["t.cuda()", "t.cuda(0)", "t.to('cuda')",
                                  "t.to('cuda:1', mg.float64)", "t.to(mg.device('cuda'))",
                                  "t.to(device='cuda')", "t.to(0)", "t.to(torch.device('cuda'))",
                                  "t.to('mps')"])  # fmt: skip
def test_asking_for_a_gpu_tensor_without_one_says_what_is_missing(call, no_gpu):
    t = mg.tensor([1.0])  # noqa: F841  (used by eval)
    missing = r"no CUDA device is available: CuPy is not installed.*MINIGRAD_CUDA_SIMULATOR=1"
    with pytest.raises(
        RuntimeError, match="cannot be placed on 'mps'" if "mps" in call else missing
    ):
        eval(call)


def test_cuda_with_a_cpu_device_is_rejected_as_torch():
    with pytest.raises(RuntimeError, match="must be a cuda device"):
        mg.tensor([1.0]).cuda("cpu")


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (("cpu",), {}),
        ((mg.device("cpu"),), {}),
        ((torch.device("cpu"),), {}),
        ((mg.float32,), {}),
        (("cpu", mg.float32), {}),
        ((), {"device": "cpu"}),
        ((), {"device": "cpu", "dtype": mg.float32, "non_blocking": True}),
        ((mg.float32, True), {}),  # non_blocking given positionally
        ((), {}),
    ],
    ids=repr,
)
def test_to_without_a_change_returns_self_and_with_copy_a_copy(args, kwargs):
    t = mg.tensor([1.0, 2.0])
    assert t.to(*args, **kwargs) is t
    c = t.to(*args, copy=True, **kwargs)
    assert c is not t and c.dtype == t.dtype and c.tolist() == t.tolist()
    c.array[0] = 9.0  # a real copy: t is unchanged
    assert t.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "make_args",
    [
        lambda: ((mg.float64,), {}),
        lambda: (("cpu", mg.float64), {}),
        lambda: ((mg.device("cpu"), mg.float64, False, False), {}),
        lambda: ((), {"dtype": mg.float64}),
        lambda: ((), {"device": mg.device("cpu"), "dtype": mg.float64}),
        lambda: ((mg.zeros(1, dtype=mg.float64),), {}),
        lambda: ((torch.float64,), {}),
        lambda: (("cpu", torch.float64), {}),
    ],
)
def test_to_forms_match_torch_and_the_cast_is_differentiable(make_args):
    args, kwargs = make_args()
    x = mg.tensor([1.5, -2.0], requires_grad=True)
    y = x.to(*args, **kwargs)
    tx = torch.tensor([1.5, -2.0], requires_grad=True)
    targs = tuple(
        torch.zeros(1, dtype=torch.float64) if isinstance(a, mg.Tensor) else a for a in args
    )
    targs = tuple(torch.device(str(a)) if isinstance(a, mg.device) else a for a in targs)
    targs = tuple(torch.float64 if a is mg.float64 else a for a in targs)
    tkwargs = {k: torch.float64 if v is mg.float64 else torch.device(str(v)) if k == "device" else v
               for k, v in kwargs.items()}  # fmt: skip
    ty = tx.to(*targs, **tkwargs)
    assert str(y.dtype) == str(ty.dtype).removeprefix("torch.") and y.device == mg.device(
        ty.device.type
    )
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert x.grad.dtype == mg.float32
    np.testing.assert_allclose(x.grad.array, tx.grad.numpy())


def test_to_copy_is_differentiable():
    x = leaf([1.0, 2.0])
    y = x.to("cpu", copy=True)
    assert y is not x and y.grad_fn is not None
    (y * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.array, [3.0, 3.0])


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (("float99",), {}, "float99"),
        (([1],), {}, "not a dtype"),
        ((mg.float32, 1), {}, "expected"),
        ((), {"colour": "red"}, "colour"),
        ((mg.bfloat16,), {}, "bfloat16"),
    ],
    ids=repr,
)
def test_to_rejects_bad_arguments_clearly(args, kwargs, match):
    with pytest.raises(TypeError, match=match):
        mg.tensor([1.0]).to(*args, **kwargs)


# ---- creation functions ----------------------------------------------------------------
CREATORS = {
    "tensor": lambda **kw: mg.tensor([1.0, 2.0], **kw),
    "as_tensor": lambda **kw: mg.as_tensor([1.0, 2.0], **kw),
    "zeros": lambda **kw: mg.zeros(2, 3, **kw),
    "ones": lambda **kw: mg.ones(2, **kw),
    "empty": lambda **kw: mg.empty(2, **kw),
    "full": lambda **kw: mg.full((2,), 1.5, **kw),
    "arange": lambda **kw: mg.arange(5, **kw),
    "linspace": lambda **kw: mg.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: mg.eye(3, **kw),
    "rand": lambda **kw: mg.rand(2, **kw),
    "randn": lambda **kw: mg.randn(2, **kw),
    "randint": lambda **kw: mg.randint(0, 5, (3,), **kw),
    "randperm": lambda **kw: mg.randperm(4, **kw),
    "zeros_like": lambda **kw: mg.zeros_like(mg.ones(2), **kw),
    "ones_like": lambda **kw: mg.ones_like(mg.ones(2), **kw),
    "empty_like": lambda **kw: mg.empty_like(mg.ones(2), **kw),
    "full_like": lambda **kw: mg.full_like(mg.ones(2), 7.0, **kw),
    "rand_like": lambda **kw: mg.rand_like(mg.ones(2), **kw),
    "randn_like": lambda **kw: mg.randn_like(mg.ones(2), **kw),
}


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize("device", ["cpu", mg.device("cpu"), torch.device("cpu"), None], ids=repr)
def test_creation_functions_take_a_cpu_device(name, device):
    t = CREATORS[name](device=device)
    assert t.device == mg.device("cpu")
    # the torch function of the same name takes the same keyword
    assert "device" in torch.__dict__[name].__doc__


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize(
    "device", ["cuda", "cuda:0", mg.device("cuda", 1), torch.device("cuda")], ids=str
)
def test_creation_functions_refuse_a_gpu_naming_the_function(name, device, no_gpu):
    with pytest.raises(
        RuntimeError, match=rf"^{name}: no CUDA device is available: CuPy is not installed"
    ):
        CREATORS[name](device=device)


def test_creation_rejects_a_device_of_the_wrong_type():
    with pytest.raises(TypeError, match=r"zeros: expected a device .* got list"):
        mg.zeros(2, device=["cpu"])


def test_from_numpy_has_no_device_keyword_as_torch():
    with pytest.raises(TypeError):
        mg.from_numpy(np.zeros(2), device="cpu")
    with pytest.raises(TypeError):
        torch.from_numpy(np.zeros(2), device="cpu")


def test_as_tensor_shares_a_numpy_array_of_the_same_dtype_as_torch():
    a = np.zeros(3, dtype=np.float64)
    t, tt = mg.as_tensor(a), torch.as_tensor(a)
    a[0] = 5.0
    assert t.tolist() == tt.tolist() == [5.0, 0.0, 0.0]
    c = mg.as_tensor(a, dtype=mg.float32)  # another dtype: a converted copy
    a[1] = 7.0
    assert c.dtype == mg.float32 and c.tolist() == [5.0, 0.0, 0.0]
    t2 = mg.tensor([1.0])
    assert mg.as_tensor(t2) is t2


# ---- the default device ------------------------------------------------------------------
def test_default_device_is_the_cpu_and_can_be_set_to_it():
    assert mg.get_default_device() == mg.device("cpu") == mg.device(str(torch.get_default_device()))
    mg.set_default_device("cpu")
    assert mg.get_default_device() == mg.device("cpu")
    mg.set_default_device(None)
    assert mg.get_default_device() == mg.device("cpu")


def test_default_device_cannot_be_a_gpu():
    with pytest.raises(RuntimeError, match="set_default_device: .*host memory"):
        mg.set_default_device("cuda")
    assert mg.get_default_device() == mg.device("cpu")


def test_device_as_context_manager_sets_the_default_device_inside():
    with mg.device("cpu") as d:
        assert d == mg.device("cpu") and mg.zeros(1).device == d
    with pytest.raises(RuntimeError, match="host memory"):
        with mg.device("cuda"):
            pass
    assert mg.get_default_device() == mg.device("cpu")


# ---- modules -------------------------------------------------------------------------
def test_module_to_cpu_and_device_forms_return_the_module_unchanged():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    before = [p.array.copy() for p in model.parameters()]
    for result in (model.to("cpu"), model.to(mg.device("cpu")), model.to(torch.device("cpu")),
                   model.to(device="cpu", non_blocking=True), model.cpu()):  # fmt: skip
        assert result is model
    for p, b in zip(model.parameters(), before, strict=True):
        assert p.device == mg.device("cpu") and p.dtype == mg.float32
        np.testing.assert_array_equal(p.array, b)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((mg.float64,), {}),
        (("cpu", mg.float64), {}),
        ((), {"device": "cpu", "dtype": mg.float64}),
        ((mg.zeros(1, dtype=mg.float64),), {}),
        ((torch.float64,), {}),
    ],
    ids=repr,
)
def test_module_to_converts_float_parameters_and_buffers_as_torch(args, kwargs):
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    tmodel = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    targs = tuple(
        torch.zeros(1, dtype=torch.float64) if isinstance(a, mg.Tensor) else a for a in args
    )
    targs = tuple(torch.float64 if a is mg.float64 else a for a in targs)
    tkwargs = {k: torch.float64 if v is mg.float64 else v for k, v in kwargs.items()}
    assert model.to(*args, **kwargs) is model
    tmodel.to(*targs, **tkwargs)
    mine = {k: str(v.dtype) for k, v in model.state_dict().items()}
    theirs = {k: str(v.dtype).removeprefix("torch.") for k, v in tmodel.state_dict().items()}
    assert mine == theirs  # num_batches_tracked stays int64 in both


def test_module_gpu_requests_raise_clearly(no_gpu):
    model = nn.Linear(2, 2)
    for call in (model.cuda, lambda: model.to("cuda"), lambda: model.to("cuda:0", mg.float64)):
        with pytest.raises(RuntimeError, match=r"Module\.(cuda|to): no CUDA device is available"):
            call()
    assert model.weight.dtype == mg.float32  # nothing was converted before the error


def test_module_to_an_integer_dtype_is_refused_as_torch():
    with pytest.raises(TypeError, match="floating point"):
        nn.Linear(2, 2).to(mg.int64)
    with pytest.raises(TypeError, match="floating point"):
        torch.nn.Linear(2, 2).to(torch.int64)


# ---- the PyTorch idioms run unchanged ------------------------------------------------
def test_device_agnostic_training_loop_runs_on_the_cpu(monkeypatch):
    """The usual device-agnostic PyTorch loop, written once with `torch` = mg."""
    monkeypatch.setattr(mg.backends.cudnn, "benchmark", False)  # restored after the test
    torch_ = mg
    device = torch_.device("cuda" if torch_.cuda.is_available() else "cpu")
    accelerator = torch_.accelerator.current_accelerator() or torch_.device("cpu")
    assert device == accelerator == mg.device("cpu")
    torch_.manual_seed(0)
    torch_.cuda.manual_seed_all(0)
    torch_.backends.cudnn.benchmark = True
    model = torch_.nn.Linear(3, 1).to(device)
    opt = torch_.optim.SGD(model.parameters(), lr=0.1)
    x = torch_.randn(16, 3, device=device)
    y = (x @ torch_.tensor([[1.0], [-2.0], [0.5]], device=device)).to(device, non_blocking=True)
    losses = []
    for _ in range(50):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch_.cuda.synchronize()
        losses.append(loss.item())
    assert losses[-1] < 1e-3 * losses[0]
    assert model.weight.device == device and loss.device.type == "cpu"


# ---- mg.cuda, mg.accelerator, mg.backends, mg.distributed -----------------------------
def test_cuda_module_reports_no_device(no_gpu):
    assert mg.cuda.is_available() is False and mg.cuda.device_count() == 0
    assert mg.cuda.is_initialized() is False
    assert mg.cuda.manual_seed(1) is None and mg.cuda.manual_seed_all(1) is None
    assert mg.cuda.synchronize() is None and mg.cuda.empty_cache() is None
    for call in (mg.cuda.current_device, mg.cuda.get_device_name):
        with pytest.raises(RuntimeError, match="no CUDA device"):
            call()
    with pytest.raises(ValueError):  # a bad seed still fails, as torch's
        mg.cuda.manual_seed("a")


def test_cuda_seeding_does_not_touch_the_cpu_generator():
    mg.manual_seed(5)
    a = mg.rand(3).tolist()
    mg.manual_seed(5)
    mg.cuda.manual_seed(123)
    mg.cuda.manual_seed_all(123)
    assert mg.rand(3).tolist() == a


def test_accelerator_is_absent():
    assert mg.accelerator.is_available() is False
    assert mg.accelerator.current_accelerator() is None
    assert mg.accelerator.device_count() == 0


def test_backends_switches_are_stored_with_torch_defaults():
    cudnn, tcudnn = mg.backends.cudnn, torch.backends.cudnn
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (
        tcudnn.enabled,
        tcudnn.benchmark,
        tcudnn.deterministic,
    )
    assert cudnn.is_available() is False and mg.backends.mps.is_available() is False
    assert mg.backends.mps.is_built() is False and mg.backends.cuda.is_built() is False
    saved = cudnn.benchmark, cudnn.deterministic, mg.backends.cuda.matmul.allow_tf32
    try:
        cudnn.benchmark, cudnn.deterministic = True, True
        mg.backends.cuda.matmul.allow_tf32 = True
        import minigrad.backends.cudnn as cudnn_module  # the ImageNet example's import

        assert cudnn_module.benchmark is True and cudnn_module.deterministic is True
        assert mg.backends.cuda.matmul.allow_tf32 is True
    finally:
        cudnn.benchmark, cudnn.deterministic, mg.backends.cuda.matmul.allow_tf32 = saved


def test_backends_kernel_selection_is_unchanged_by_the_switch_modules():
    assert mg.backends.current() in mg.backends.BACKENDS
    with mg.backends.use("numpy"):
        assert mg.backends.current() == "numpy"
        assert mg.backends.kernels("conv").__name__ == "minigrad.kernels.reference.conv"
    with pytest.raises(ValueError, match="unknown backend 'cudnn'"):
        mg.backends.use("cudnn")


def test_deterministic_algorithms_and_matmul_precision_are_stored():
    assert (
        mg.are_deterministic_algorithms_enabled()
        is torch.are_deterministic_algorithms_enabled()
        is False
    )
    assert mg.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    try:
        mg.use_deterministic_algorithms(True, warn_only=True)
        mg.set_float32_matmul_precision("high")
        assert (
            mg.are_deterministic_algorithms_enabled()
            and mg.is_deterministic_algorithms_warn_only_enabled()
        )
        assert mg.get_float32_matmul_precision() == "high"
    finally:
        mg.use_deterministic_algorithms(False)
        mg.set_float32_matmul_precision("highest")
    with pytest.raises(TypeError, match="must be a bool"):
        mg.use_deterministic_algorithms(1)
    with pytest.raises(RuntimeError, match="'highest', 'high' or 'medium'"):
        mg.set_float32_matmul_precision("fast")


def test_distributed_is_unavailable():
    assert mg.distributed.is_available() is False and mg.distributed.is_initialized() is False
    with pytest.raises(RuntimeError, match="not available"):
        mg.distributed.init_process_group("gloo")


# ---- nn.parallel --------------------------------------------------------------------------
def test_data_parallel_runs_the_module_and_prefixes_state_dict_keys_as_torch():
    mg.manual_seed(0)
    inner = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    model = nn.DataParallel(inner)
    tmodel = torch.nn.DataParallel(
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    )
    assert model.module is inner and model.device_ids == tmodel.device_ids == []
    assert list(model.state_dict()) == list(tmodel.state_dict())
    assert list(model.module.state_dict()) == list(tmodel.module.state_dict())
    assert repr(model) == repr(tmodel)
    tmodel.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()}
    )
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        model(mg.tensor(x)).array, tmodel(torch.tensor(x)).detach().numpy(), rtol=1e-6
    )
    assert nn.DataParallel is nn.parallel.DataParallel


def test_data_parallel_trains_the_wrapped_parameters():
    model = nn.DataParallel(nn.Linear(2, 1))
    assert [id(p) for p in model.parameters()] == [id(p) for p in model.module.parameters()]
    model(mg.ones(4, 2)).sum().backward()
    assert model.module.weight.grad is not None


def test_data_parallel_argument_errors():
    with pytest.raises(TypeError, match="expected an nn.Module"):
        nn.DataParallel(lambda x: x)
    with pytest.raises(RuntimeError, match="DataParallel: .*host memory"):
        nn.DataParallel(nn.Linear(2, 2), device_ids=[0, 1])
    assert (
        nn.DataParallel(nn.Linear(2, 2), device_ids=["cpu"], output_device="cpu").device_ids == []
    )
    with pytest.raises(RuntimeError, match="distributed training is not available"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
