"""mg.save / mg.load: round trips, a format that runs no code, clear errors, PyTorch interop."""

import io
import json
import math
import pathlib
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn
from minigrad.serialization import STRUCTURE_ENTRY

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.load",
    "torch.save",
]


def roundtrip(obj):
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    buffer.seek(0)
    return mg.load(buffer)


def assert_identical(a, b, where="obj"):
    """Same types all the way down (Parameter vs Tensor, tuple vs list, OrderedDict vs
    dict, np.float32 vs float) and the same values, dtypes and shapes."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, mg.Tensor):
        assert a.requires_grad == b.requires_grad, where
        a, b = a.array, b.array
    if isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype and a.shape == b.shape, (
            f"{where}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        )
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        assert [type(k) for k in a] == [type(k) for k in b], where
        for key in a:
            assert_identical(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_identical(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b), where
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


# ---- round trips ------------------------------------------------------------------------------
ROUNDTRIP_CASES = {
    "float32 tensor": mg.randn(3, 4),
    "float64 tensor": mg.tensor(np.random.default_rng(0).standard_normal((2, 5))),
    "int64 tensor": mg.arange(10).reshape(2, 5),
    "bool tensor": mg.tensor([True, False, True]),
    "float16 tensor": mg.tensor(np.array([1.5, -2.0], np.float16)),
    "0-d tensor": mg.tensor(3.25),
    "empty tensor": mg.zeros(0, 3),
    "tensor requiring grad": mg.randn(2, 2, requires_grad=True),
    "parameter": nn.Parameter(mg.randn(3)),
    "frozen parameter": nn.Parameter(mg.randn(3), requires_grad=False),
    "ndarrays of many dtypes": [
        np.arange(6, dtype=np.uint8).reshape(2, 3),
        np.array([-1, 2], dtype=np.int32),
        np.array([1.0, np.nan, np.inf], dtype=np.float64),
        np.array([1 + 2j], dtype=np.complex64),
        np.array(["a", "words"]),
        np.array([True]),
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        np.arange(10.0)[::3],
    ],
    "numpy scalars": (np.float32(1.5), np.int64(-3), np.bool_(True), np.float64(0.1)),
    "python scalars": [
        None,
        True,
        False,
        0,
        -7,
        2**80,
        0.1,
        -0.0,
        float("inf"),
        float("nan"),
        "",
        "héllo ✓",
    ],
    "nested lists and tuples": [[1, [2, (3, (4.0,))]], (), [], ((),)],
    "dict keys of every kind": {"a": 1, 0: "zero", -5: None, 1.5: 2, True: "t", None: [1]},
    "ordered dict": OrderedDict([("z", 1), ("a", mg.ones(2))]),
    "empty dicts": {"inner": {}, "ordered": OrderedDict()},
}


@pytest.mark.parametrize("name", ROUNDTRIP_CASES)
def test_roundtrip_keeps_types_values_and_dtypes(name):
    obj = ROUNDTRIP_CASES[name]
    assert_identical(obj, roundtrip(obj))


def test_roundtrip_of_a_module_state_dict():
    model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2, bias=False))
    model.register_buffer("steps", mg.tensor(12))
    state = model.state_dict()
    loaded = roundtrip(state)
    assert_identical(state, loaded)
    fresh = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2, bias=False))
    fresh.register_buffer("steps", mg.tensor(0))
    fresh.load_state_dict(loaded)
    x = mg.randn(3, 4)
    np.testing.assert_array_equal(fresh(x).array, model(x).array)
    assert fresh.steps.item() == 12


def test_roundtrip_of_an_optimizer_state_dict():
    """The structure of PyTorch's (and minigrad's) optimizer state: int keys, lists, tuples."""
    state = {
        "state": {
            0: {
                "step": np.array(3.0, np.float32),
                "exp_avg": mg.randn(2, 3),
                "exp_avg_sq": mg.rand(2, 3),
            },
            1: {
                "step": np.array(3.0, np.float32),
                "exp_avg": mg.randn(3),
                "exp_avg_sq": mg.rand(3),
            },
        },
        "param_groups": [
            {
                "lr": 1e-3,
                "betas": (0.9, 0.999),
                "eps": 1e-8,
                "weight_decay": 0,
                "amsgrad": False,
                "params": [0, 1],
            },
        ],
    }
    assert_identical(state, roundtrip(state))


def test_tensors_sharing_an_array_are_stored_once_and_share_it_again():
    weight = nn.Parameter(mg.randn(5, 5))
    state = {
        "encoder.weight": weight.detach(),
        "decoder.weight": weight.detach(),
        "other": mg.randn(5, 5),
    }
    buffer = io.BytesIO()
    mg.save(state, buffer)
    assert sorted(zipfile.ZipFile(io.BytesIO(buffer.getvalue())).namelist()) == [
        "0.npy",
        "1.npy",
        "__minigrad__.npy",
    ]
    buffer.seek(0)
    loaded = mg.load(buffer)
    assert loaded["encoder.weight"].array is loaded["decoder.weight"].array
    assert loaded["other"].array is not loaded["encoder.weight"].array
    np.testing.assert_array_equal(loaded["decoder.weight"].array, weight.array)


def test_loaded_arrays_are_writable_copies():
    t = mg.ones(3)
    loaded = roundtrip(t)
    loaded.array[0] = 5
    assert t.array[0] == 1 and loaded.array.flags.writeable


# ---- paths and files ---------------------------------------------------------------------------
def test_save_to_a_str_path_uses_exactly_that_name(tmp_path):
    path = str(tmp_path / "model.pt")  # np.savez alone would write "model.pt.npz"
    mg.save({"w": mg.ones(2)}, path)
    assert [p.name for p in tmp_path.iterdir()] == ["model.pt"]
    assert mg.load(path)["w"].tolist() == [1.0, 1.0]


def test_save_and_load_with_pathlib_and_open_files(tmp_path):
    obj = {"x": mg.arange(4), "note": "hi"}
    path = tmp_path / "ckpt.npz"
    mg.save(obj, path)
    assert_identical(obj, mg.load(path))
    with open(tmp_path / "f.npz", "wb") as f:
        mg.save(obj, f)
    with open(tmp_path / "f.npz", "rb") as f:
        assert_identical(obj, mg.load(f))


def test_the_file_is_a_plain_npz_that_numpy_opens_without_pickle(tmp_path):
    path = tmp_path / "t.npz"
    mg.save({"w": mg.ones(2, 3)}, path)
    with np.load(path, allow_pickle=False) as archive:
        structure = json.loads(archive[STRUCTURE_ENTRY].item())
        assert structure["format"] == "minigrad" and structure["version"] == 1
        node = structure["root"]["items"][0][1]
        assert node == {
            "type": "tensor",
            "array": "0",
            "dtype": "<f4",
            "shape": [2, 3],
            "requires_grad": False,
        }
        np.testing.assert_array_equal(archive["0"], np.ones((2, 3), np.float32))


def test_missing_file_and_wrong_argument_types(tmp_path):
    with pytest.raises(FileNotFoundError):
        mg.load(tmp_path / "nope.npz")
    with pytest.raises(TypeError, match="load: expected a path .* got int"):
        mg.load(3)
    with pytest.raises(TypeError, match="save: expected a path .* got list"):
        mg.save(mg.ones(1), [])


def test_a_text_file_is_refused_as_text_naming_the_file(tmp_path):
    """A JSON config or a log given to mg.load by mistake: a ValueError that names the
    file, says it is text and what mg.load expected, not a zip-format puzzle."""
    for name, text in (
        ("config.json", '{"lr": 0.1, "layers": [1, 2]}'),
        ("notes.txt", "epoch 1: loss 0.5\n"),
    ):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(
            ValueError, match=rf"load: '.*{name}' is not a minigrad file .*\.npz.*it is text"
        ):
            mg.load(path)


@pytest.mark.parametrize("content", ["minigrad file", "json"])
def test_a_file_opened_in_text_mode_is_a_type_error_that_says_rb(tmp_path, content):
    """open(path) instead of open(path, "rb"): the error names the file and the fix,
    whether the file is a real checkpoint (which text mode would fail to decode) or text."""
    path = tmp_path / "model.npz"
    if content == "json":
        path.write_text('{"w": [1.0]}')
    else:
        mg.save({"w": mg.ones(2)}, path)
    with open(path) as f:
        with pytest.raises(
            TypeError, match=r"load: '.*model.npz' is open in text mode.*open\(path, 'rb'\)"
        ):
            mg.load(f)
    with pytest.raises(TypeError, match=r"load: '<StringIO>' is open in text mode"):
        mg.load(io.StringIO('{"w": [1.0]}'))


def test_save_to_a_file_opened_in_text_mode_is_a_type_error_that_says_wb(tmp_path):
    with open(tmp_path / "model.npz", "w") as f:
        with pytest.raises(
            TypeError, match=r"save: '.*model.npz' is open in text mode.*open\(path, 'wb'\)"
        ):
            mg.save({"w": mg.ones(2)}, f)


# ---- what cannot be saved ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "obj, message",
    [
        (
            mg.optim.SGD([nn.Parameter(mg.ones(2))], lr=0.1),
            r"cannot save a minigrad.optim.sgd.SGD at obj .*save its state_dict\(\) instead",
        ),
        (
            {"w": [torch.zeros(2)]},
            r"cannot save a torch.Tensor at obj\['w'\]\[0\] .*\.detach\(\)\.cpu\(\)\.numpy\(\)",
        ),
        ({"s": {1, 2}}, r"cannot save a builtins.set at obj\['s'\]"),
        ([print], r"cannot save a builtins.builtin_function_or_method at obj\[0\]"),
        ({"a": np.array([object()])}, r"cannot save the object array at obj\['a'\]"),
        ({(1, 2): 3}, r"dict key \(1, 2\) at obj is a tuple"),
    ],
    ids=["optimizer", "torch tensor", "set", "builtin function", "object array", "tuple key"],
)
def test_save_refuses_what_it_cannot_store_and_says_where(obj, message):
    with pytest.raises(TypeError, match=message):
        mg.save(obj, io.BytesIO())


# ---- what cannot be loaded -----------------------------------------------------------------------
GOOD_OBJECT = {"state": {0: {"m": np.ones((2, 3))}}, "w": mg.randn(4, 5), "lr": 0.1}


def good_bytes():
    buffer = io.BytesIO()
    mg.save(GOOD_OBJECT, buffer)
    return buffer.getvalue()


def rewrite(structure_edit=None, arrays_edit=None):
    """A copy of a good file with its JSON structure and/or arrays changed (a tampered file)."""
    with np.load(io.BytesIO(good_bytes()), allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    structure = json.loads(arrays.pop(STRUCTURE_ENTRY).item())
    if structure_edit:
        structure = structure_edit(structure)
    if arrays_edit:
        arrays_edit(arrays)
    arrays[STRUCTURE_ENTRY] = np.array(
        structure if isinstance(structure, str) else json.dumps(structure)
    )
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def root_item(key):
    def edit(structure, change):
        for k, node in structure["root"]["items"]:
            if k["value"] == key:
                change(node)
        return structure

    return edit


def set_dtype(node):
    node["dtype"] = "<f8"


def set_shape(node):
    node["shape"] = [5, 4]


def set_missing_array(node):
    node["array"] = "99"


def set_unknown_type(node):
    node["type"] = "function"


def set_requires_grad_on_int(node):
    node["requires_grad"] = "yes"


TAMPERED = {
    "dtype": (
        lambda s: root_item("w")(s, set_dtype),
        None,
        r"is float32 \[4, 5\] in the archive but <f8",
    ),
    "shape": (lambda s: root_item("w")(s, set_shape), None, r"but <f4 \[5, 4\] in the structure"),
    "missing array": (
        lambda s: root_item("w")(s, set_missing_array),
        None,
        r"refers to a missing entry '99'",
    ),
    "unknown type": (
        lambda s: root_item("w")(s, set_unknown_type),
        None,
        r"unknown type 'function'",
    ),
    "requires_grad": (
        lambda s: root_item("w")(s, set_requires_grad_on_int),
        None,
        r"requires_grad='yes'",
    ),
    "version": (
        lambda s: {**s, "version": 2},
        None,
        r"format version 2; this minigrad reads version 1",
    ),
    "format": (lambda s: {**s, "format": "other"}, None, r"format name 'minigrad'"),
    "not json": (lambda s: "{not json", None, r"structure is not valid JSON"),
    "bad node": (lambda s: {**s, "root": [1, 2]}, None, r"the node at obj is \[1, 2\]"),
    "bad key": (
        lambda s: {
            **s,
            "root": {"type": "dict", "items": [[{"type": "list", "items": []}, {"type": "none"}]]},
        },
        None,
        "a key of the dict",
    ),
    "int value": (
        lambda s: {**s, "root": {"type": "int", "value": "7"}},
        None,
        r"the int at obj has the value '7'",
    ),
    "extra entry": (
        None,
        lambda a: a.update(extra=np.zeros(1)),
        r"array entries \['extra'\] that its structure does not mention",
    ),
    "array swapped": (None, lambda a: a.update({"0": np.zeros(3, np.int8)}), r"in the archive but"),
}


@pytest.mark.parametrize("case", TAMPERED)
def test_tampered_files_raise_value_error_naming_the_file(tmp_path, case):
    structure_edit, arrays_edit, message = TAMPERED[case]
    path = tmp_path / "tampered.npz"
    path.write_bytes(rewrite(structure_edit, arrays_edit))
    with pytest.raises(ValueError, match=message) as info:
        mg.load(path)
    assert "tampered.npz" in str(info.value)


class Payload:
    """Unpickling this runs code (it calls `_ran`): what a malicious checkpoint does."""

    def __reduce__(self):
        return (_ran, ())


RAN = []


def _ran():
    RAN.append(True)
    return "pwned"


def torch_checkpoint():
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buffer)
    return buffer.getvalue()


def npy_bytes():
    buffer = io.BytesIO()
    np.save(buffer, np.ones(3))
    return buffer.getvalue()


def plain_npz():
    buffer = io.BytesIO()
    np.savez(buffer, w=np.ones(3))
    return buffer.getvalue()


BAD_FILES = {
    "empty": (lambda: b"", r"is not a minigrad file"),
    "text": (lambda: b"hello, this is text\n" * 10, r"is not a minigrad file"),
    "pickle": (lambda: pickle.dumps(Payload()), r"is not a minigrad file"),
    "npy": (npy_bytes, r"is a single .npy array"),
    "npz without structure": (
        plain_npz,
        r"no '__minigrad__' entry, so it was not written by mg.save$",
    ),
    "torch checkpoint": (torch_checkpoint, r"no '__minigrad__' entry.*a PyTorch checkpoint"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_files_of_the_wrong_kind_raise_value_error_and_run_no_code(tmp_path, case):
    make, message = BAD_FILES[case]
    path = tmp_path / f"{case.replace(' ', '_')}.bin"
    path.write_bytes(make())
    RAN.clear()
    with pytest.raises(ValueError, match=message) as info:
        mg.load(path)
    assert path.name in str(info.value)
    assert not RAN, "loading ran code from the file"


def test_object_array_entry_is_refused_without_unpickling(tmp_path):
    """A file whose structure is valid but whose array entry is pickled objects."""
    buffer = io.BytesIO()
    structure = {
        "format": "minigrad",
        "version": 1,
        "root": {"type": "ndarray", "array": "0", "dtype": "|O", "shape": [1]},
    }
    np.savez(
        buffer,
        **{
            "0": np.array([Payload()], dtype=object),
            STRUCTURE_ENTRY: np.array(json.dumps(structure)),
        },
    )
    RAN.clear()
    with pytest.raises(
        ValueError, match=r"entry '0' holds pickled Python objects, which mg.load never unpickles"
    ):
        mg.load(io.BytesIO(buffer.getvalue()))
    assert not RAN


def test_every_truncation_of_a_file_raises_value_error(tmp_path):
    data = good_bytes()
    path = tmp_path / "cut.npz"
    for n in range(0, len(data), 31):
        path.write_bytes(data[:n])
        with pytest.raises(ValueError, match="cut.npz"):
            mg.load(path)


def test_flipped_bits_are_caught_or_harmless():
    """Flip one bit at many places: the load either fails with ValueError, or (for bits
    in zip metadata that guard nothing) returns exactly the saved object."""
    data = good_bytes()
    rng = np.random.default_rng(0)
    failures = 0
    for position in rng.choice(len(data), size=300, replace=False):
        damaged = bytearray(data)
        damaged[position] ^= 1 << int(rng.integers(8))
        try:
            loaded = mg.load(io.BytesIO(bytes(damaged)))
        except ValueError:
            failures += 1
            continue
        assert_identical(GOOD_OBJECT, loaded)
    assert failures > 200  # most bytes are data or structure, guarded by CRCs and checks


def test_a_flipped_bit_in_the_weights_is_caught(tmp_path):
    data = bytearray(good_bytes())
    weights = mg.load(io.BytesIO(bytes(data)))["w"].array.tobytes()
    start = bytes(data).index(weights)
    data[start + 5] ^= 0x10
    path = tmp_path / "flipped.npz"
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="flipped.npz.*(CRC|cannot be read)"):
        mg.load(path)


# ---- PyTorch interop -----------------------------------------------------------------------------
def mg_model():
    return nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 3))


def torch_model():
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 3))


def test_a_minigrad_state_dict_loads_into_the_same_pytorch_model(tmp_path):
    mg.manual_seed(0)
    model = mg_model()
    mg.save(model.state_dict(), tmp_path / "mg.npz")
    state = mg.load(tmp_path / "mg.npz")
    theirs = torch_model()
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in state.items()})
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(
        model(mg.tensor(x)).array,
        theirs(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-6,
        atol=1e-6,
    )


def test_a_pytorch_state_dict_saved_with_mg_save_loads_into_minigrad(tmp_path):
    torch.manual_seed(0)
    theirs = torch_model()
    mg.save(
        {k: v.detach().cpu().numpy() for k, v in theirs.state_dict().items()},
        tmp_path / "torch.npz",
    )
    model = mg_model()
    model.load_state_dict(mg.load(tmp_path / "torch.npz"))
    x = np.random.default_rng(2).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(
        model(mg.tensor(x)).array,
        theirs(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-6,
        atol=1e-6,
    )


def to_numpy(obj):
    if isinstance(obj, torch.Tensor):
        return obj.numpy()
    if isinstance(obj, dict):
        return {k: to_numpy(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_numpy(v) for v in obj)
    return obj


def to_torch(obj):
    if isinstance(obj, np.ndarray):
        return torch.from_numpy(obj)
    if isinstance(obj, dict):
        return {k: to_torch(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_torch(v) for v in obj)
    return obj


def test_a_pytorch_adam_state_survives_the_trip_and_continues_identically():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))
    x = torch.randn(4, 3)

    def step(optimizer):
        optimizer.zero_grad()
        model(x).pow(2).sum().backward()
        optimizer.step()

    step(opt)
    state = opt.state_dict()
    restored_state = to_torch(roundtrip(to_numpy(state)))
    assert restored_state["param_groups"][0]["betas"] == (0.8, 0.9)
    assert list(restored_state["state"]) == [0, 1]

    snapshot = {k: v.clone() for k, v in model.state_dict().items()}
    step(opt)
    after_original = [p.detach().clone() for p in model.parameters()]

    model.load_state_dict(snapshot)
    restored = torch.optim.Adam(model.parameters(), lr=0.5)
    restored.load_state_dict(restored_state)
    step(restored)
    for p, expected in zip(model.parameters(), after_original):
        torch.testing.assert_close(p.detach(), expected, rtol=0, atol=0)


def test_pathlib_and_str_names_in_errors(tmp_path):
    path = tmp_path / "garbage.npz"
    path.write_bytes(b"\x00" * 100)
    with pytest.raises(ValueError, match=r"load: '.*garbage.npz' is not a minigrad file"):
        mg.load(pathlib.Path(path))
    with pytest.raises(ValueError, match=r"load: '<BytesIO>' is not a minigrad file"):
        mg.load(io.BytesIO(b"\x00" * 100))


def test_a_structure_nested_too_deeply_is_a_value_error_not_a_crash():
    root = '{"type": "list", "items": [' * 5000 + '{"type": "none"}' + "]}" * 5000
    buffer = io.BytesIO()
    np.savez(
        buffer,
        **{STRUCTURE_ENTRY: np.array('{"format": "minigrad", "version": 1, "root": ' + root + "}")},
    )
    with pytest.raises(ValueError, match="is not a valid minigrad file"):
        mg.load(io.BytesIO(buffer.getvalue()))


# ---- files made to hurt: decompression bombs, lying headers, pickles --------------------------
def _archive(entries, compress=False):
    """An .npz holding `entries` (name -> array) plus a structure naming them as ndarrays."""
    root = {
        "type": "list",
        "items": [
            {"type": "ndarray", "array": k, "dtype": v.dtype.str, "shape": list(v.shape)}
            for k, v in entries.items()
        ],
    }
    structure = np.array(json.dumps({"format": "minigrad", "version": 1, "root": root}))
    buffer = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(
        buffer, **entries, **{STRUCTURE_ENTRY: structure}
    )
    return buffer.getvalue()


def test_a_decompression_bomb_is_refused_before_decompressing(tmp_path):
    """16 MiB of zeros compress to about 16 KiB: 1000 times the file's size."""
    data = _archive({"0": np.zeros(2**22, np.float32)}, compress=True)
    assert len(data) < 2**15
    path = tmp_path / "bomb.npz"
    path.write_bytes(data)
    with pytest.raises(
        ValueError, match=r"bomb.npz.*decompress to 16,77\d,\d+ bytes.*max_expansion"
    ):
        mg.load(path)
    # a file the user trusts: a larger limit, or none
    for limit in (10_000, None):
        (zeros,) = mg.load(path, max_expansion=limit)
        assert zeros.shape == (2**22,) and not zeros.any()


def test_mg_save_files_and_small_compressed_files_pass_the_expansion_check():
    big = {"w": mg.zeros(1000, 1000)}  # 4 MB of zeros, stored uncompressed by mg.save
    assert roundtrip(big)["w"].shape == (1000, 1000)
    # 512 KiB: under the 1 MiB floor
    small = _archive({"0": np.zeros(2**17, np.float32)}, compress=True)
    (zeros,) = mg.load(io.BytesIO(small))
    assert zeros.shape == (2**17,)


def test_a_header_claiming_more_than_its_entry_holds_is_refused():
    """An .npy header for 10^12 float64s over 8 bytes of data: NumPy would allocate first."""
    data = _archive({"0": np.zeros(1)})
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    fake = io.BytesIO()
    np.lib.format.write_array_header_1_0(fake, {**header, "shape": (10**12,)})
    real = io.BytesIO()
    np.lib.format.write_array_header_1_0(real, header)
    assert len(fake.getvalue()) == len(real.getvalue())  # same length: only the shape changes
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {name: z.read(name) for name in z.namelist()}
    members["0.npy"] = members["0.npy"].replace(real.getvalue(), fake.getvalue())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    with pytest.raises(
        ValueError,
        match=r"entry '0' claims a float64 array of shape \(1000000000000,\).* holds 8 bytes",
    ):
        mg.load(io.BytesIO(buffer.getvalue()))


@pytest.mark.parametrize("case", [*BAD_FILES, "object array", "pickle protocol 0"])
def test_no_error_suggests_unpickling(case):
    """NumPy's own message for these says to load with pickle.load() or allow_pickle=True,
    which would run the file's code: mg.load never passes that advice on."""
    if case == "object array":
        buffer = io.BytesIO()
        np.savez(buffer, **{"0": np.array([Payload()], dtype=object)})
        data = buffer.getvalue()
    elif case == "pickle protocol 0":
        data = pickle.dumps({"a": 1}, protocol=0)
    else:
        data = BAD_FILES[case][0]()
    with pytest.raises(ValueError) as info:
        mg.load(io.BytesIO(data))
    message = str(info.value)
    assert (
        "pickle.load" not in message
        and "allow_pickle=True" not in message
        and "trust" not in message
    )
    if case == "pickle":
        assert "minigrad does not read pickles" in message
