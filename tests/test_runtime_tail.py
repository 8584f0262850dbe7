"""torch's runtime names, against torch: the RNG state, print options, dtype/layout/memory
format values, device probes and queries, the device exception classes, torch.cpu,
torch.testing.assert_close, torch.func's grad and functional_call, and the Tensor's
legacy and runtime methods (new, apply_/map_/map2_, resize_, sum_to_size, ...).
"""

import re
import threading
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

from .surface import case, ids, run

TORCH_API = [
    "torch.get_rng_state",
    "torch.set_rng_state",
    "torch.set_printoptions",
    "torch.typename",
    "torch.is_complex",
    "torch.is_inference",
    "torch.is_storage",
    "torch.is_anomaly_enabled",
    "torch.is_anomaly_check_nan_enabled",
    "torch.set_anomaly_enabled",
    "torch.set_warn_always",
    "torch.is_warn_always_enabled",
    "torch.set_deterministic_debug_mode",
    "torch.get_deterministic_debug_mode",
    "torch.dtype",
    "torch.layout",
    "torch.strided",
    "torch.memory_format",
    "torch.contiguous_format",
    "torch.channels_last",
    "torch.channels_last_3d",
    "torch.preserve_format",
    "torch.get_device",
    "torch.cpu",
    "torch.OutOfMemoryError",
    "torch.AcceleratorError",
    "torch.testing",
    "torch.func",
    "torch.vmap",
    "torch.Tensor.get_device",
    "torch.Tensor.register_post_accumulate_grad_hook",
    "torch.Tensor.is_pinned",
    "torch.Tensor.pin_memory",
    "torch.Tensor.new",
    "torch.Tensor.apply_",
    "torch.Tensor.map_",
    "torch.Tensor.map2_",
    "torch.Tensor.resize_",
    "torch.Tensor.resize_as_",
    "torch.Tensor.layout",
    "torch.Tensor.const_data_ptr",
    "torch.Tensor.is_ipu",
    "torch.Tensor.is_maia",
    "torch.Tensor.is_mtia",
    "torch.Tensor.is_vulkan",
    "torch.Tensor.is_xla",
]

LIBS = [torch, mg]


def constant(lib, values, dtype=None):
    """A tensor that takes no part in the rows' gradient checks."""
    return lib.tensor(values, dtype=dtype)


def relaid(lib, x):
    """A 4-D tensor laid out channels-last, and what it says about its layout."""
    y = x.contiguous(memory_format=lib.channels_last)
    return (
        y,
        y.stride(),
        y.is_contiguous(),
        y.is_contiguous(memory_format=lib.channels_last),
        x.is_contiguous(memory_format=lib.channels_last),
        y.contiguous().stride(),
        x.to(memory_format=lib.channels_last).stride(),
    )


CASES = [
    # -- conversions and probes --
    case("torch.Tensor.byte", lambda lib: constant(lib, [1.7, 200.2, 3.0]).byte()),
    case("torch.Tensor.char", lambda lib: constant(lib, [1.7, -100.2, 3.0]).char()),
    case("torch.Tensor.short", lambda lib: constant(lib, [1.7, -1000.2, 3.0]).short()),
    case("torch.Tensor.get_device", lambda lib, x: (x.get_device(), lib.get_device(x)), (2,)),
    case(
        "torch.Tensor.layout",
        lambda lib, x: (str(x.layout).split(".")[-1], x.layout is lib.strided),
        (2,),
    ),
    case("torch.Tensor.is_pinned", lambda lib, x: x.is_pinned(), (2,)),
    case("torch.Tensor.pin_memory", lambda lib, x: x.pin_memory(), (2,), raises=RuntimeError),
    case(
        "torch.Tensor.is_xla",
        lambda lib, x: (x.is_xla, x.is_ipu, x.is_maia, x.is_mtia, x.is_vulkan),
        (2,),
    ),
    case("torch.Tensor.const_data_ptr", lambda lib, x: x.const_data_ptr() == x.data_ptr(), (2, 3)),
    case("torch.Tensor.const_data_ptr", lambda lib, x: x[1:].const_data_ptr() - x.data_ptr(), (4,)),
    case("torch.is_complex", lambda lib, x: (lib.is_complex(x), lib.is_complex(x.long())), (2,)),
    case("torch.is_complex", lambda lib: lib.is_complex(3), raises=TypeError),
    case("torch.is_inference", lambda lib, x: lib.is_inference(x), (2,)),
    case("torch.get_device", lambda lib: lib.get_device([1.0]), raises=TypeError),
    case(
        "torch.is_storage",
        lambda lib, x: (lib.is_storage(x), lib.is_storage(np.zeros(2)), lib.is_storage(3)),
        (2,),
    ),
    # -- memory formats: channels_last strides, as torch --
    case("torch.channels_last", relaid, (2, 3, 4, 5)),
    case(
        "torch.channels_last_3d",
        lambda lib, x: (
            x.contiguous(memory_format=lib.channels_last_3d).stride(),
            x.contiguous(memory_format=lib.channels_last_3d).is_contiguous(
                memory_format=lib.channels_last_3d
            ),
            x.contiguous(memory_format=lib.channels_last_3d) * 2,
        ),
        (2, 3, 2, 4, 5),
    ),
    case(
        "torch.channels_last",
        lambda lib, x: x.contiguous(memory_format=lib.channels_last),
        (2, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.channels_last_3d",
        lambda lib, x: x.contiguous(memory_format=lib.channels_last_3d),
        (2, 3, 4, 5),
        raises=RuntimeError,
    ),
    case(
        "torch.contiguous_format",
        lambda lib, x: (
            x.mT.contiguous(memory_format=lib.contiguous_format).stride(),
            x.is_contiguous(memory_format=lib.contiguous_format),
            x.mT.to(memory_format=lib.contiguous_format).stride(),
            x.contiguous(memory_format=lib.contiguous_format) is x,
        ),
        (3, 4),
    ),
    case(
        "torch.preserve_format",
        lambda lib, x: x.mT.contiguous(memory_format=lib.preserve_format),
        (2, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.preserve_format",
        lambda lib, x: (
            x.mT.to(memory_format=lib.preserve_format).stride(),
            x.contiguous(memory_format=lib.preserve_format),
            x.is_contiguous(memory_format=lib.preserve_format),
        ),
        (3, 4),
    ),
    case(
        "torch.memory_format",
        lambda lib, x: (
            x.to(memory_format=lib.channels_last).to(memory_format=lib.contiguous_format).stride(),
            # suggests row-major: kept
            x.permute(0, 1, 3, 2).to(memory_format=lib.contiguous_format).stride(),
            x.to(memory_format=lib.channels_last).stride(),
            x.to(memory_format=lib.channels_last).to(memory_format=lib.channels_last).stride(),
        ),
        (2, 3, 4, 5),
    ),
    # -- the legacy constructor --
    case(
        "torch.Tensor.new",
        lambda lib, x: (
            x.new().shape,
            x.new(2, 3).shape,
            x.new((2, 3)),
            x.new([1, 2]),
            x.new(lib.tensor([5.0, 6.0], dtype=x.dtype)),
            x.long().new([1.5, 2.5]),
            x.new(2, 3).requires_grad,
        ),
        (2,),
    ),
    case("torch.Tensor.new", lambda lib, x: x.new(lib.tensor([1, 2])), (2,), raises=TypeError),
    case("torch.Tensor.new", lambda lib, x: x.new(2.5), (2,), raises=TypeError),
    # -- Python callables per element --
    case(
        "torch.Tensor.apply_",
        lambda lib: constant(lib, [1.0, 2.0, 3.0]).apply_(lambda v: v * 10 + 0.5),
    ),
    case("torch.Tensor.apply_", lambda lib: constant(lib, [1, 2, 3]).apply_(lambda v: v * 2.7)),
    case("torch.Tensor.apply_", lambda lib, x: x.apply_(lambda v: v), (2,), raises=RuntimeError),
    case(
        "torch.Tensor.map_",
        lambda lib: constant(lib, [[1.0, 2.0], [3.0, 4.0]]).map_(
            constant(lib, [10.0, 20.0]), lambda a, b: a * b + 1
        ),
    ),
    case(
        "torch.Tensor.map_",
        lambda lib, x: lib.ones(2).map_(x, lambda a, b: a),
        (2,),
        raises=RuntimeError,
    ),
    case(
        "torch.Tensor.map_",
        lambda lib: lib.ones(2).map_(lib.ones(2, dtype=lib.long), lambda a, b: a),
        raises=TypeError,
    ),
    case(
        "torch.Tensor.map2_",
        lambda lib: constant(lib, [1.0, 2.0, 3.0]).map2_(
            constant(lib, [1.0, 1.0, 1.0]), constant(lib, 2.0), lambda a, b, c: a + b * c
        ),
    ),
    case(
        "torch.Tensor.map2_",
        lambda lib, x: x.map2_(x, x, lambda a, b, c: a),
        (2,),
        raises=RuntimeError,
    ),
    # -- resizing the storage --
    case(
        "torch.Tensor.resize_",
        lambda lib: (
            lib.arange(6.0).resize_(2, 2),
            lib.arange(6.0).resize_(2, 2).resize_(6),  # the storage kept its elements
            lib.arange(6.0).resize_((3, 2)).stride(),
            lib.arange(6.0)[2:].resize_(2),
            lib.arange(12.0).reshape(3, 4).mT.resize_(2, 2),
            # grown: the old elements come first (the rest is new)
            lib.arange(6.0).resize_(3, 4)[:1],
        ),
    ),
    case("torch.Tensor.resize_", lambda lib, x: x.resize_(2), (3,), raises=RuntimeError),
    case(
        "torch.Tensor.resize_as_",
        lambda lib: lib.arange(6.0).reshape(2, 3).resize_as_(lib.ones(3)),
    ),
    # -- reductions to a size --
    case("torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size(1, 3), (2, 3)),
    case("torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size((4, 1)), (2, 4, 3)),
    case("torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size(3), (2, 3)),
    case("torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size(2, 3), (2, 3)),
    case(
        "torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size(2, 2), (2, 3), raises=RuntimeError
    ),
    # -- typename --
    case(
        "torch.typename",
        lambda lib, x: (
            lib.typename(x),
            lib.typename(x.float()),
            lib.typename(x.long()),
            lib.typename(3),
            lib.typename("a"),
            lib.typename(lib.nn.Linear).split(".")[-1],
            lib.typename(lib.nn.Linear(1, 1)).split(".")[-1],
        ),
        (2,),
    ),
]


@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)


# ---- the random number generator's state ---------------------------------------------------------
def test_rng_state_round_trip_restores_the_stream():
    for lib in LIBS:
        lib.manual_seed(3)
        state = lib.get_rng_state()
        assert state.dtype == lib.uint8 and state.ndim == 1 and not state.requires_grad
        first = (lib.rand(4), lib.randn(2, 3), lib.randint(0, 10, (5,)))
        lib.set_rng_state(state)
        again = (lib.rand(4), lib.randn(2, 3), lib.randint(0, 10, (5,)))
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert lib.set_rng_state(state) is None


def test_generator_state_restores_a_stream_halfway_through_a_32_bit_draw():
    """NumPy keeps half of a 64-bit draw for the next 32-bit one: the state holds it too."""
    g = mg.Generator().manual_seed(11)
    mg.randint(0, 100, (3,), generator=g, dtype=mg.int32)
    mg.rand(1, generator=g, dtype=mg.float32)
    state = g.get_state()
    first = [
        mg.rand(5, generator=g, dtype=mg.float32).numpy(),
        mg.randint(0, 9, (4,), generator=g).numpy(),
    ]
    assert g.set_state(state) is g
    again = [
        mg.rand(5, generator=g, dtype=mg.float32).numpy(),
        mg.randint(0, 9, (4,), generator=g).numpy(),
    ]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert mg.Generator().set_state(state).initial_seed() == 11


def test_a_bad_rng_state_raises_as_torch():
    for lib in LIBS:
        state = lib.get_rng_state()
        with pytest.raises(TypeError):
            lib.set_rng_state(state.float())
        with pytest.raises(TypeError):
            lib.Generator().set_state({})
        with pytest.raises(RuntimeError, match="size"):
            lib.set_rng_state(state[:10])


def test_rng_state_in_a_thread_is_the_global_one():
    mg.manual_seed(4)
    state = mg.get_rng_state()
    seen = []
    worker = threading.Thread(target=lambda: seen.append(mg.get_rng_state().numpy()))
    worker.start()
    worker.join()
    np.testing.assert_array_equal(seen[0], state.numpy())


# ---- printing ------------------------------------------------------------------------------------
PRINTED = [
    np.array([1e-5, 1.0]),
    np.array([1e10, 1.0]),
    np.array([np.nan, np.inf, 1.0, 2.0]),
    np.array([np.nan, 1.5]),
    np.array([-0.0, 0.0, 3.0]),
    np.arange(2000.0),
    np.arange(2000),
    np.random.default_rng(0).standard_normal((4, 5, 6)),
    np.random.default_rng(1).standard_normal((40, 40)) * 100,
    np.random.default_rng(2).standard_normal(30) * 1000,
    np.array(3.5),
    np.array(7),
    np.array([True, False, True]),
    np.arange(12).reshape(3, 4) - 5,
    np.zeros((0, 3)),
    np.zeros((2, 0, 3)),
    np.array([123456.789, 1.5]),
    np.linspace(-1, 1, 25).reshape(5, 5),
]


def reprs(lib, options, arrays=PRINTED, dtypes=(np.float32, np.float64)):
    lib.set_printoptions(**options)
    try:
        out = []
        for a in arrays:
            for dtype in dtypes if a.dtype.kind == "f" else (a.dtype,):
                t = lib.tensor(a.astype(dtype))
                # the library's name is in the dtype suffix, 3 characters longer in minigrad: where
                # torch's fits the line and minigrad's does not, minigrad wraps it to the next
                text = repr(t).replace("torch.", "").replace("minigrad.", "")
                out.append(re.sub(r",\n +dtype=", ", dtype=", text))
        t = lib.tensor([[1.25, -2.5]], requires_grad=True)
        out.append(repr(t))
        out.append(repr(t * 2).split("grad_fn")[0])
        return out
    finally:
        lib.set_printoptions(profile="default")


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"precision": 2},
        {"precision": 7},
        {"threshold": 5},
        {"threshold": 5, "edgeitems": 1},
        {"threshold": 5, "edgeitems": 0},
        {"linewidth": 40},
        {"sci_mode": True},
        {"sci_mode": False},
        {"profile": "short"},
        {"profile": "full", "linewidth": 200},
        {"profile": "short", "precision": 3},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default",
)
def test_reprs_are_torchs(options):
    mine, theirs = reprs(mg, options), reprs(torch, options)
    for a, b in zip(mine, theirs):
        assert a == b, f"\nminigrad:\n{a}\ntorch:\n{b}"


def test_sci_mode_is_reset_by_every_call_as_torch():
    for lib in LIBS:
        lib.set_printoptions(sci_mode=True)
        lib.set_printoptions(precision=4)  # sci_mode back to None (automatic), as torch does
        try:
            assert repr(lib.tensor([1.5, 2.25])) == "tensor([1.5000, 2.2500])"
        finally:
            lib.set_printoptions(profile="default")
    with pytest.raises(ValueError, match="profile"):
        mg.set_printoptions(profile="loud")


# ---- switches ------------------------------------------------------------------------------------
def test_anomaly_switches_as_torch():
    for lib in LIBS:
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
        lib.set_anomaly_enabled(True, False)
        try:
            assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
            lib.set_anomaly_enabled(True)
            assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, True)
        finally:
            lib.set_anomaly_enabled(False)
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
    x = mg.tensor([-1.0], requires_grad=True)
    mg.set_anomaly_enabled(True)
    try:
        with pytest.raises(RuntimeError, match="Log"), np.errstate(invalid="ignore"):
            x.log()
    finally:
        mg.set_anomaly_enabled(False)


def test_warn_always_as_torch_and_it_repeats_minigrads_once_only_warning(monkeypatch):
    for lib in LIBS:
        assert lib.is_warn_always_enabled() is False
        lib.set_warn_always(True)
        assert lib.is_warn_always_enabled() is True
        lib.set_warn_always(False)
        assert lib.is_warn_always_enabled() is False
    from minigrad.kernels import jit

    monkeypatch.setattr(jit, "_warned_uncached", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jit._warn_uncached()
        jit._warn_uncached()  # once only
        mg.set_warn_always(True)
        try:
            jit._warn_uncached()  # again, now
        finally:
            mg.set_warn_always(False)
    assert len(caught) == 2 and "Numba's cache" in str(caught[0].message)


def test_deterministic_debug_mode_as_torch():
    try:
        for lib in LIBS:
            assert lib.get_deterministic_debug_mode() == 0
            lib.set_deterministic_debug_mode("warn")
            assert lib.get_deterministic_debug_mode() == 1
            assert (
                lib.are_deterministic_algorithms_enabled()
                and lib.is_deterministic_algorithms_warn_only_enabled()
            )
            lib.set_deterministic_debug_mode(2)
            assert (
                lib.get_deterministic_debug_mode() == 2
                and not lib.is_deterministic_algorithms_warn_only_enabled()
            )
            lib.use_deterministic_algorithms(False)
            assert lib.get_deterministic_debug_mode() == 0
            lib.set_deterministic_debug_mode("error")
            lib.set_deterministic_debug_mode("default")
            assert lib.get_deterministic_debug_mode() == 0
            with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
                lib.set_deterministic_debug_mode("loud")
            with pytest.raises(RuntimeError, match="expected 0, 1, or 2"):
                lib.set_deterministic_debug_mode(3)
            with pytest.raises(TypeError, match="debug_mode must be str or int"):
                lib.set_deterministic_debug_mode(1.0)
    finally:
        for lib in LIBS:
            lib.use_deterministic_algorithms(False)


# ---- dtype, layout and memory format values ------------------------------------------------------
def test_dtype_layout_and_memory_format_values_as_torch():
    for lib in LIBS:
        t = lib.tensor([1.0])
        assert isinstance(t.dtype, lib.dtype) and isinstance(lib.int64, lib.dtype)
        assert isinstance(lib.strided, lib.layout) and t.layout is lib.strided
        for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
            value = getattr(lib, name)
            assert isinstance(value, lib.memory_format) and repr(value).split(".")[-1] == name
            assert value == value and value != (
                lib.channels_last if name != "channels_last" else lib.contiguous_format
            )
        assert repr(lib.strided).split(".")[-1] == "strided"


def test_channels_last_gradients_pass_through():
    x = mg.tensor(np.random.default_rng(0).standard_normal((2, 3, 2, 2)), requires_grad=True)
    y = x.contiguous(memory_format=mg.channels_last)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())
    assert mg.autograd.gradcheck(lambda t: t.contiguous(memory_format=mg.channels_last) * 3, [x])


# ---- device modules and exceptions ---------------------------------------------------------------
def test_cpu_module_as_torch():
    for lib in LIBS:
        assert lib.cpu.is_available() is True
        assert lib.cpu.device_count() == 1
        assert lib.cpu.current_device() == "cpu"
        assert lib.cpu.synchronize() is None
        assert lib.cpu.synchronize("cpu") is None


def test_device_exceptions_are_runtime_errors_and_can_be_caught():
    for lib in LIBS:
        for error in (lib.OutOfMemoryError, lib.AcceleratorError):
            assert issubclass(error, RuntimeError)
            try:
                raise error("out of memory")
            except RuntimeError as caught:
                assert str(caught) == "out of memory"
        assert not issubclass(lib.OutOfMemoryError, lib.AcceleratorError)


# ---- torch.testing.assert_close ------------------------------------------------------------------
def closeness_cases(lib):
    t = lib.tensor
    return [
        (t([1.0, 2.0, 3.0]), t([1.0, 2.5, 3.0]), {}),
        (t([1.0, 2.0, 3.0]), t([1.0, 2.0, 3.0], dtype=lib.float64), {}),
        (t([1.0, 2.0]), t([1.0, 2.0, 3.0]), {}),
        (t([[1.0, 2.0], [3.0, 4.0]]), t([[1.0, 2.0], [3.0, 4.1]]), {}),
        (t([1, 2]), t([1, 3]), {}),
        (t([1.0, float("nan")]), t([1.0, float("nan")]), {}),
        (t([1.0, float("nan")]), t([1.0, float("nan")]), {"equal_nan": True}),
        (t([1.0, 2.0]), t([1.0, 2.1]), {"rtol": 0.1, "atol": 0}),
        (t([1.0, 2.0]), t([1.0, 2.1]), {"rtol": 0.1}),
        (1.0, 1.0001, {}),
        (1.0, 1.00000001, {}),
        (1, 2, {}),
        (True, False, {}),
        (None, None, {}),
        (None, 1, {}),
        ([t(1.0), t(2.0)], [t(1.0), t(2.5)], {}),
        ([t(1.0), t(2.0)], [t(1.0)], {}),
        ({"a": t(1.0)}, {"a": t(1.5)}, {}),
        ({"a": t(1.0)}, {"b": t(1.0)}, {}),
        ({"a": [t([1.0, 2.0]), 3]}, {"a": [t([1.0, 2.0]), 4]}, {}),
        (t([True, False]), t([True, True]), {}),
        (t([1.0, 2.0]), [1.0, 2.0], {}),
        (t([0.0, 0.0, 0.0]), t([1e-6, 2e-5, 0.0]), {}),
        (t([1.0, 2.0]).half(), t([1.0, 2.001]).half(), {}),
        (t([1.0, 2.0]), t([1.0, 2.1]), {"msg": "custom"}),
        (t([1.0, 2.0]), t([1.0, 2.1]), {"msg": lambda m: "wrapped: " + m}),
        (t([1.0, 2.0]), t([1.0, 2.0]).double(), {"check_dtype": False}),
        (t([1.0, 2.0]), t([1.0, 2.0 + 1e-6], dtype=lib.float64), {"check_dtype": False}),
        (t([1.0, float("inf")]), t([1.0, float("inf")]), {}),
        (t([1.0, float("inf")]), t([1.0, -float("inf")]), {}),
        (t(1.0), t(1.5), {}),
        (t([5, 7], dtype=lib.int32), t([5, 9], dtype=lib.int32), {}),
        (t([[1.0, 2.0], [3.0, 4.0]]).mT, t([[1.0, 3.0], [2.0, 4.0]]), {"check_stride": True}),
        (lib.nn.Parameter(t([1.0])), t([1.0]), {}),
        (lib.nn.Parameter(t([1.0])), t([1.0]), {"allow_subclasses": False}),
        (np.array([1.0, 2.0]), np.array([1.0, 2.5]), {}),
    ]


def outcome(lib, actual, expected, options):
    try:
        lib.testing.assert_close(actual, expected, **options)
        return "passed"
    except Exception as error:  # the type and the message are what is compared
        message = re.sub(r"torch\.Size\((\[[^]]*\])\)", r"\1", str(error))
        message = (
            message.replace("torch.", "")
            .replace("minigrad.", "")
            .replace("<class 'Tensor'>", "<class 'tensor'>")
        )
        return type(error).__name__, message


def test_assert_close_as_torch():
    for (a, b, options), (c, d, _) in zip(closeness_cases(mg), closeness_cases(torch)):
        mine, theirs = outcome(mg, a, b, options), outcome(torch, c, d, options)
        if isinstance(mine, tuple) and "attribute 'shape'" in mine[1]:  # (2,) against [2]
            mine = (mine[0], mine[1].replace("(2,)", "[2]").replace("(3,)", "[3]"))
        if isinstance(mine, tuple) and "No comparison pair" in mine[1]:  # the class paths differ
            mine, theirs = (mine[0], "no pair"), (theirs[0], "no pair")
        assert mine == theirs, f"{options}: {a!r} vs {b!r}"


def test_assert_close_messages_in_full():
    with pytest.raises(AssertionError) as caught:
        mg.testing.assert_close(mg.tensor([1.0, 2.0, 3.0]), mg.tensor([1.0, 2.5, 3.0]))
    assert str(caught.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)"
    )


# ---- torch.func ----------------------------------------------------------------------------------
def dict_gradients(lib, x, y):
    """grad of a function of a dict (of a tensor and a list of one): the same structure back."""
    g = lib.func.grad(lambda p: (p["w"] * p["b"][0]).sum())({"w": x.detach(), "b": [y.detach()]})
    return g["w"], g["b"][0], sorted(g)


FUNC_CASES = [
    case("torch.func", lambda lib, x: lib.func.grad(lambda t: (t**3).sum())(x.detach()), (3,)),
    # differentiable in x
    case("torch.func", lambda lib, x: lib.func.grad(lambda t: (t**3).sum())(x), (3,)),
    case(
        "torch.func",
        lambda lib, x: lib.func.grad(lib.func.grad(lambda t: (t**3).sin().sum()))(x.detach().sum()),
        (3,),
    ),
    case(
        "torch.func",
        lambda lib, x, y: lib.func.grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(
            x.detach(), y.detach()
        ),
        (3,),
        (3,),
    ),
    case(
        "torch.func",
        lambda lib, x, y: lib.func.grad(lambda a, b: (a * b).sum(), argnums=1)(
            x.detach(), y.detach()
        ),
        (3,),
        (3,),
    ),
    case(
        "torch.func",
        lambda lib, x: lib.func.grad(lambda t: ((t * 2).sum(), t.mean()), has_aux=True)(x.detach()),
        (3,),
    ),
    case(
        "torch.func",
        lambda lib, x: lib.func.grad_and_value(lambda t: (t * t).sum())(x.detach()),
        (3,),
    ),
    case(
        "torch.func",
        lambda lib, x, y: lib.func.grad(lambda a, b: a.sum())(x.detach(), y.detach()),
        (2,),
        (2,),
    ),
    case(
        "torch.func",
        lambda lib, x, y: dict_gradients(lib, x, y),
        (2,),
        (2,),
    ),
    case(
        "torch.func",
        lambda lib, x: lib.func.grad(lambda t: t * 2)(x.detach()),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.func",
        lambda lib, x: lib.func.grad(lambda t: t.sum(), argnums=3)(x.detach()),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.func",
        lambda lib, x: lib.func.grad(lambda t: t.sum(), has_aux=True)(x.detach()),
        (3,),
        raises=RuntimeError,
    ),
]


@pytest.mark.parametrize("row", FUNC_CASES, ids=list(ids(FUNC_CASES)))
def test_func_grad_as_torch(row):
    run(row)


def linear(lib):
    lib.manual_seed(0)
    layer = lib.nn.Linear(3, 2)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        layer.bias.copy_(lib.tensor([0.01, -0.02]))
    return layer


def functional_calls(lib):
    layer = linear(lib)
    x = lib.tensor([[1.0, 2.0, 3.0]])
    w = lib.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], requires_grad=True)
    out = lib.func.functional_call(layer, {"weight": w, "bias": lib.zeros(2)}, (x,))
    out.sum().backward()
    results = [out.detach().numpy().tolist(), w.grad.numpy().tolist(), layer.weight.grad]
    results.append(
        lib.func.functional_call(layer, {"weight": w.detach()}, x).detach().numpy().tolist()
    )
    results.append(
        lib.func.functional_call(
            layer, ({"weight": w.detach()}, {"bias": lib.ones(2)}), (x,)
        ).tolist()
    )
    results.append(layer(x).detach().numpy().round(6).tolist())  # restored afterwards
    net = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
    params = {name: lib.zeros_like(p) for name, p in net.named_parameters()}
    results.append(lib.func.functional_call(net, params, (x,), strict=True).tolist())
    for call in (
        lambda: lib.func.functional_call(layer, {"weight": w}, (x,), strict=True),
        lambda: lib.func.functional_call(layer, ({"weight": w}, {"weight": w}), (x,)),
    ):
        try:
            call()
            results.append("passed")
        except Exception as error:
            results.append((type(error).__name__, str(error)))
    return results


def test_functional_call_as_torch():
    mine, theirs = functional_calls(mg), functional_calls(torch)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6)
    assert mine[2] is None and theirs[2] is None  # the module's own weight got no gradient
    for a, b in zip(mine[3:], theirs[3:]):
        if isinstance(a, list):
            np.testing.assert_allclose(a, b, rtol=1e-5)
        else:
            assert a == b


def test_functional_call_restores_the_module_after_an_error():
    layer = linear(mg)
    weight = layer.weight
    with pytest.raises(RuntimeError):
        mg.func.functional_call(layer, {"weight": mg.zeros(5, 5)}, (mg.ones(1, 3),))
    assert layer.weight is weight and layer._parameters["weight"] is weight


def test_functional_call_ties_shared_weights():
    for lib in LIBS:
        embed = lib.nn.Embedding(4, 2)
        head = lib.nn.Linear(2, 4, bias=False)
        head.weight = embed.weight  # tied, as a language model's input and output
        model = lib.nn.Sequential(embed, head)
        new = lib.ones(4, 2)
        out = lib.func.functional_call(model, {"0.weight": new}, (lib.tensor([1]),))
        np.testing.assert_allclose(out.detach().numpy(), [[2.0, 2.0, 2.0, 2.0]])


# ---- the hook after a leaf's gradient is accumulated ---------------------------------------------
def post_accumulate(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = w.register_post_accumulate_grad_hook(lambda t: seen.append((t is w, t.grad.tolist())))
    (w * w).sum().backward()
    (w * 3).sum().backward()
    handle.remove()
    (w * 3).sum().backward()
    lib.autograd.grad((w * w).sum(), w)  # autograd.grad fills no .grad: no call
    return seen


def test_post_accumulate_grad_hooks_as_torch():
    assert post_accumulate(mg) == post_accumulate(torch) == [(True, [2.0, 4.0]), (True, [5.0, 7.0])]
    for lib in LIBS:
        x = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="non-leaf"):
            (x * 2).register_post_accumulate_grad_hook(lambda t: None)
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            lib.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None)


def test_a_post_accumulate_hook_can_step_an_optimizer_per_parameter():
    """The use torch documents: update each parameter as soon as its gradient is ready."""
    results = []
    for lib in LIBS:
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        with lib.no_grad():
            model.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
            model.bias.zero_()
        optimizers = {p: lib.optim.SGD([p], lr=0.1) for p in model.parameters()}

        def step(p, optimizers=optimizers):
            optimizers[p].step()
            optimizers[p].zero_grad()

        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step)
        model(lib.tensor([[1.0, 2.0, 3.0]])).pow(2).sum().backward()
        results.append(
            [p.detach().numpy().copy() for p in model.parameters()] + [model.weight.grad]
        )
    for a, b in zip(results[0][:2], results[1][:2]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert results[0][2] is None and results[1][2] is None


def test_resize_refuses_to_strand_views_when_it_must_grow():
    base = mg.arange(6.0)
    view = base.view(2, 3)
    base.resize_(4)  # shrinking keeps the storage: the view still sees it
    base[0] = 100.0
    assert view[0, 0].item() == 100.0
    with pytest.raises(RuntimeError, match="larger storage"):
        base.resize_(12)


# ---- vmap ----------------------------------------------------------------------------------------
def scaled(x, y):
    return x * y


VMAP_CASES = [
    case("torch.vmap", lambda lib, x, y: lib.vmap(scaled)(x, y), (4, 3), (4, 3)),
    case("torch.vmap", lambda lib, x, y: lib.vmap(scaled, in_dims=(0, None))(x, y), (4, 3), (3,)),
    case(
        "torch.vmap",
        lambda lib, x, y: lib.vmap(scaled, in_dims=(1, 0), out_dims=1)(x, y),
        (3, 2),
        (2, 3),
    ),
    case("torch.vmap", lambda lib, x, y: lib.vmap(scaled, in_dims=(-1, 0))(x, y), (3, 2), (2, 3)),
    case("torch.vmap", lambda lib, x: lib.vmap(lambda t: (t, t.sum()), out_dims=(1, 0))(x), (4, 3)),
    case("torch.vmap", lambda lib, x: lib.vmap(lambda t: [t.exp(), (t * t).sum()])(x), (2, 3)),
    case("torch.vmap", lambda lib, x: lib.vmap(lib.vmap(lambda t: t.sin() * 2))(x), (2, 3, 4)),
    case(
        "torch.vmap",
        lambda lib, x: lib.vmap(lambda d: d["a"] * 2, in_dims=({"a": 0},))({"a": x}),
        (2, 3),
    ),
    case("torch.vmap", lambda lib, x: lib.vmap(lambda t: t @ t)(x), (5, 3)),
    case("torch.vmap", lambda lib, x, y: lib.vmap(scaled, chunk_size=1)(x, y), (2, 3), (2, 3)),
    case(
        "torch.vmap", lambda lib, x: lib.vmap(lambda t: t, out_dims=2)(x), (2, 3), raises=IndexError
    ),
    case("torch.vmap", lambda lib, x: lib.vmap(lambda t: t, out_dims=1)(x), (2, 3)),
    case("torch.vmap", lambda lib, x, y: lib.vmap(scaled)(x, y), (2, 3), (3, 3), raises=ValueError),
    case(
        "torch.vmap",
        lambda lib, x, y: lib.vmap(scaled, in_dims=None)(x, y),
        (2,),
        (2,),
        raises=ValueError,
    ),
    case(
        "torch.vmap",
        lambda lib, x, y: lib.vmap(scaled, in_dims=(0,))(x, y),
        (2,),
        (2,),
        raises=ValueError,
    ),
    case(
        "torch.vmap",
        lambda lib, x, y: lib.vmap(scaled, in_dims=(3, 0))(x, y),
        (2, 3),
        (2, 3),
        raises=ValueError,
    ),
    case("torch.vmap", lambda lib, x: lib.vmap(scaled)(x, 3.0), (2, 3), raises=ValueError),
    case("torch.vmap", lambda lib, x: lib.vmap(lambda t: 3)(x), (2, 3), raises=ValueError),
    case(
        "torch.vmap",
        lambda lib, x: lib.vmap(lambda t: t + lib.rand(3))(x),
        (2, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.vmap",
        lambda lib, x: lib.vmap(lambda t: t, out_dims=None)(x),
        (2, 3),
        raises=ValueError,
    ),
    case(
        "torch.vmap",
        lambda lib, x: lib.vmap(lambda t: t + lib.rand(3), randomness="different")(x).shape,
        (2, 3),
    ),
]


@pytest.mark.parametrize("row", VMAP_CASES, ids=list(ids(VMAP_CASES)))
def test_vmap_as_torch(row):
    run(row)


def test_vmap_randomness_same_gives_every_element_the_same_draws():
    for lib in LIBS:
        out = lib.vmap(lambda t, lib=lib: t + lib.rand(3), randomness="same")(lib.zeros(4, 3))
        values = out.numpy()
        assert all(np.array_equal(values[0], row) for row in values)
        out = lib.vmap(lambda t, lib=lib: t + lib.rand(3), randomness="different")(
            lib.zeros(4, 3)
        ).numpy()
        assert not np.array_equal(out[0], out[1])


def per_example_gradients(lib):
    """The torch.func tutorial's per-sample gradients: vmap over grad over functional_call."""
    model = linear(lib)
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss(params, x, y):
        out = lib.func.functional_call(model, params, (x.unsqueeze(0),))
        return ((out - y) ** 2).mean()

    xs = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.0, 1.0, -1.0], [2.0, 0.0, 1.0]])
    ys = lib.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
    grads = lib.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
    return {name: g.numpy() for name, g in grads.items()}


def test_per_example_gradients_as_torch():
    mine, theirs = per_example_gradients(mg), per_example_gradients(torch)
    assert set(mine) == set(theirs) == {"weight", "bias"}
    for name in mine:
        assert mine[name].shape == theirs[name].shape
        np.testing.assert_allclose(mine[name], theirs[name], rtol=1e-5, atol=1e-6)
