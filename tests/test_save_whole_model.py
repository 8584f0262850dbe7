"""mg.save(model, path) / mg.load(path, weights_only=False): whole models in files, no pickle.

The file names each module's class by import path and records its constructor arguments
and its tensors; loading builds the model again from minigrad's own classes and those
allow-listed with mg.serialization.safe_globals, and runs no code from the file. Where
torch has the same behaviour (its refusals, its allow-list, the random stream left
alone) the test holds minigrad against it.
"""

import io
import json
import os
import pickle
import re
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.models
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.models import GPT, MLP, BasicBlock, LeNet5, ResNet, Seq2SeqTransformer
from minigrad.serialization import STRUCTURE_ENTRY

ROOT = Path(__file__).resolve().parents[1]

TORCH_API = [
    "torch.save",
    "torch.load",
    "torch.serialization.safe_globals",
    "torch.serialization.add_safe_globals",
    "torch.serialization.get_safe_globals",
    "torch.serialization.clear_safe_globals",
    "torch.serialization.get_unsafe_globals_in_checkpoint",
]


# ---- models of a user's own, defined at the top level of this module (importable) ------------
class Net(nn.Module):
    """A user's model whose constructor takes a submodule and a function."""

    def __init__(self, backbone, hidden=4, act=F.gelu):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(hidden, 2)
        self.act = act
        self.head.tag = "set by Net.__init__"  # a plain attribute the parent sets on a child

    def forward(self, x):
        return self.head(self.act(self.backbone(x)))


class TorchNet(torch.nn.Module):
    """The same model in torch, for torch's behaviour."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())

    def forward(self, x):
        return self.fc(x)


class MgNet(nn.Module):
    """TorchNet in minigrad."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(2, 3), nn.ReLU())

    def forward(self, x):
        return self.fc(x)


class Containers(nn.Module):
    """ModuleList, ModuleDict, ParameterList and ParameterDict in one model."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(2))
        self.acts = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})
        self.scales = nn.ParameterList([nn.Parameter(mg.ones(2)), nn.Parameter(mg.full((2,), 2.0))])
        self.shifts = nn.ParameterDict({"a": nn.Parameter(mg.zeros(2))})

    def forward(self, x):
        for layer, scale in zip(self.layers, self.scales):
            x = self.acts["tanh"](self.acts["relu"](layer(x)) * scale)
        return x + self.shifts["a"]


class TorchHolder(torch.nn.Module):
    """A torch module holding a function."""

    def __init__(self, f):
        super().__init__()
        self.f = f


class Counter(nn.Module):
    """A module with extra state (get_extra_state / set_extra_state)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.lin(x)

    def get_extra_state(self):
        return {"calls": self.calls}

    def set_extra_state(self, state):
        self.calls = state["calls"]


@pytest.fixture(autouse=True)
def _empty_allow_list():
    mg.serialization.clear_safe_globals()
    yield
    mg.serialization.clear_safe_globals()


def round_trip(model, **load_kwargs):
    buffer = io.BytesIO()
    mg.save(model, buffer)
    buffer.seek(0)
    return mg.load(buffer, **{"weights_only": False, **load_kwargs})


def saved_bytes(model):
    buffer = io.BytesIO()
    mg.save(model, buffer)
    return buffer.getvalue()


def outputs(model, inputs):
    """The model's outputs as a list of arrays."""
    with mg.no_grad():
        out = model(*inputs)
    return (
        [out.numpy()] if isinstance(out, mg.Tensor) else [o.numpy() for o in out if o is not None]
    )


def assert_same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for key in sa:
        assert sa[key].dtype == sb[key].dtype, key
        np.testing.assert_array_equal(sa[key].numpy(), sb[key].numpy(), err_msg=key)


# ---- every model in minigrad.models, and a set of layers and containers ------------------------
def tokens(high, *shape):
    return mg.tensor(np.random.default_rng(1).integers(0, high, shape))


def floats(*shape, dtype=np.float32):
    return mg.tensor(np.random.default_rng(2).standard_normal(shape).astype(dtype))


def bn_trained(bn, shape):
    bn(floats(*shape))  # one training step moves the running statistics off their start
    return bn


CASES = {
    "GPT rope tied": (lambda: GPT(11, 16, 2, 4, 8), lambda: [tokens(11, 2, 5)]),
    "GPT learned gqa": (
        lambda: GPT(11, 16, 1, 4, 8, n_kv_heads=2, pos="learned", tie_weights=False),
        lambda: [tokens(11, 2, 5)],
    ),
    "MLP": (lambda: MLP(64, (16, 8), 10, activation="gelu"), lambda: [floats(3, 64)]),
    "LeNet5": (lambda: LeNet5(image_size=28), lambda: [floats(2, 1, 28, 28)]),
    "ResNet": (lambda: ResNet(blocks=(1, 1, 1), widths=(4, 8, 8)), lambda: [floats(2, 1, 8, 8)]),
    "BasicBlock": (
        lambda: bn_trained(BasicBlock(2, 3, stride=2), (2, 2, 5, 5)),
        lambda: [floats(2, 2, 5, 5)],
    ),
    "Seq2SeqTransformer": (
        lambda: Seq2SeqTransformer(
            7,
            9,
            d_model=8,
            nhead=2,
            num_encoder_layers=1,
            num_decoder_layers=1,
            dim_feedforward=16,
            pad_id=0,
        ),
        lambda: [tokens(7, 2, 4), tokens(9, 2, 3)],
    ),
    "Sequential": (
        lambda: nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)),
        lambda: [floats(2, 3)],
    ),
    "Sequential OrderedDict": (
        lambda: nn.Sequential(OrderedDict(fc=nn.Linear(3, 4), act=nn.Tanh(), drop=nn.Dropout(0.5))),
        lambda: [floats(2, 3)],
    ),
    "Dense built": (lambda: nn.Dense(4).build(3), lambda: [floats(2, 3)]),
    "Conv2d same float64": (
        lambda: nn.Conv2d(2, 3, 3, padding="same", dtype=mg.float64),
        lambda: [floats(1, 2, 5, 5, dtype=np.float64)],
    ),
    "Conv1d": (
        lambda: nn.Conv1d(2, 4, 3, stride=2, dilation=1, groups=2),
        lambda: [floats(2, 2, 9)],
    ),
    "ConvTranspose2d": (
        lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1),
        lambda: [floats(1, 2, 4, 4)],
    ),
    "BatchNorm2d with statistics": (
        lambda: bn_trained(nn.BatchNorm2d(3), (4, 3, 2, 2)),
        lambda: [floats(4, 3, 2, 2)],
    ),
    "BatchNorm1d": (
        lambda: bn_trained(nn.BatchNorm1d(3, momentum=0.5), (5, 3)),
        lambda: [floats(5, 3)],
    ),
    "LayerNorm": (lambda: nn.LayerNorm((2, 3), eps=1e-3, bias=False), lambda: [floats(4, 2, 3)]),
    "GroupNorm": (lambda: nn.GroupNorm(2, 4), lambda: [floats(2, 4, 3)]),
    "RMSNorm": (lambda: nn.RMSNorm(4), lambda: [floats(2, 4)]),
    "Embedding": (lambda: nn.Embedding(7, 3, padding_idx=0), lambda: [tokens(7, 2, 4)]),
    "pooling": (
        lambda: nn.Sequential(
            nn.MaxPool2d(2, ceil_mode=True),
            nn.AvgPool2d(2, count_include_pad=False, padding=1),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        ),
        lambda: [floats(1, 2, 7, 7)],
    ),
    "activations": (
        lambda: nn.Sequential(
            nn.GELU("tanh"),
            nn.LeakyReLU(0.3),
            nn.Softplus(),
            nn.Softmax(dim=1),
            nn.Unflatten(1, (2, 2)),
        ),
        lambda: [floats(3, 4)],
    ),
    "MultiheadAttention": (
        lambda: nn.MultiheadAttention(8, 2, kdim=4, vdim=6),
        lambda: [floats(3, 2, 8), floats(5, 2, 4), floats(5, 2, 6)],
    ),
    "TransformerEncoder of a layer": (
        lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
            2,
            norm=nn.LayerNorm(8),
        ),
        lambda: [floats(2, 3, 8)],
    ),
    "TransformerDecoderLayer": (
        lambda: nn.TransformerDecoderLayer(
            8, 2, 16, dropout=0.0, activation="gelu", norm_first=True
        ),
        lambda: [floats(3, 2, 8), floats(4, 2, 8)],
    ),
    "Attention": (
        lambda: nn.Attention(8, heads=2, dim_head=4, qk_norm="layer_norm"),
        lambda: [floats(2, 3, 8)],
    ),
    "ModuleList ModuleDict ParameterList ParameterDict": (Containers, lambda: [floats(3, 2)]),
    "Identity and Dropout": (
        lambda: nn.Sequential(nn.Identity(54, unused=1), nn.Dropout(0.3)),
        lambda: [floats(3, 2)],
    ),
    "CrossEntropyLoss with weights": (
        lambda: nn.CrossEntropyLoss(weight=mg.tensor([1.0, 2.0, 0.5]), label_smoothing=0.1),
        lambda: [floats(4, 3), tokens(3, 4)],
    ),
}


def test_every_model_in_minigrad_models_is_among_the_cases():
    made = {type(make()).__name__ for make, _ in CASES.values()}
    assert set(minigrad.models.__all__) <= made


@pytest.mark.parametrize("name", list(CASES))
def test_a_model_round_trips_whole(name):
    make, make_inputs = CASES[name]
    mg.manual_seed(0)
    model = make().eval()
    mg.serialization.add_safe_globals([Containers])
    loaded = round_trip(model)
    inputs = make_inputs()
    assert type(loaded) is type(model) and repr(loaded) == repr(model)
    assert loaded.training is False and not any(m.training for m in loaded.modules())
    assert_same_state(model, loaded)
    got, want = outputs(loaded, inputs), outputs(model, inputs)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "name",
    [
        "GPT rope tied",
        "ResNet",
        "TransformerEncoder of a layer",
        "ModuleList ModuleDict ParameterList ParameterDict",
    ],
)
def test_a_loaded_model_trains_as_the_original_would(name):
    make, make_inputs = CASES[name]
    model = make()
    mg.serialization.add_safe_globals([Containers])
    loaded = round_trip(model)
    assert loaded.training and all(m.training for m in loaded.modules())
    assert [n for n, _ in loaded.named_parameters()] == [n for n, _ in model.named_parameters()]
    inputs = make_inputs()
    for m in (model, loaded):
        opt = optim.Adam(m.parameters(), lr=1e-2)
        for _ in range(2):
            opt.zero_grad()
            m(*inputs).float().pow(2).mean().backward()
            opt.step()
    assert_same_state(model, loaded)


def test_tied_weights_dtype_and_frozen_parameters_are_as_saved():
    model = GPT(11, 16, 1, 4, 8).double()
    model.blocks[0].requires_grad_(False)
    loaded = round_trip(model)
    assert loaded.lm_head.weight is loaded.tok_emb.weight  # still one matrix
    assert len(list(loaded.parameters())) == len(list(model.parameters()))
    assert {p.dtype for p in loaded.parameters()} == {np.dtype(np.float64)}
    assert [p.requires_grad for p in loaded.parameters()] == [
        p.requires_grad for p in model.parameters()
    ]
    assert loaded.rope.cos_cached.dtype == model.rope.cos_cached.dtype  # a non-persistent buffer


def test_a_shared_module_is_shared_again():
    shared = nn.Linear(2, 2)
    loaded = round_trip(nn.Sequential(shared, nn.ReLU(), shared))
    assert loaded[0] is loaded[2] and len(list(loaded.parameters())) == 2


def test_training_modes_are_kept_module_by_module():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.BatchNorm1d(2))
    model[2].eval()
    loaded = round_trip(model)
    assert [m.training for m in loaded.modules()] == [True, True, True, False]


def test_structure_changed_after_construction_is_what_loads():
    model = ResNet(blocks=(1, 1, 1), widths=(4, 8, 8))
    model.fc = nn.Linear(8, 5)  # a new head, as in transfer learning
    model.stages.append(nn.Identity())
    loaded = round_trip(model)
    assert repr(loaded) == repr(model)
    assert loaded.fc.weight.shape == (5, 8)
    x = floats(2, 1, 8, 8)
    np.testing.assert_array_equal(outputs(loaded.eval(), [x]), outputs(model.eval(), [x]))


def test_a_child_the_constructor_made_is_kept_when_it_matches():
    mg.serialization.add_safe_globals([Net])
    loaded = round_trip(Net(nn.Linear(3, 4)))
    assert loaded.head.tag == "set by Net.__init__"
    assert loaded.act is F.gelu


def test_extra_state_is_restored():
    mg.serialization.add_safe_globals([Counter])
    model = Counter()
    model(floats(1, 2))
    model(floats(1, 2))
    assert round_trip(model).calls == 2


def test_a_model_inside_a_checkpoint_dict():
    model = MLP(4, (3,), 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    checkpoint = {
        "model": model,
        "optimizer": opt.state_dict(),
        "epoch": 3,
        "dtype": mg.float64,
        "device": mg.device("cpu"),
    }
    loaded = round_trip(checkpoint)
    assert (
        loaded["epoch"] == 3
        and loaded["dtype"] is mg.float64
        and loaded["device"] == mg.device("cpu")
    )
    assert_same_state(model, loaded["model"])
    optim.SGD(loaded["model"].parameters(), lr=0.5).load_state_dict(loaded["optimizer"])


def test_loading_leaves_the_random_stream_where_it_was_as_torch_load_does(tmp_path):
    model, torch_model = GPT(11, 16, 1, 4, 8), TorchNet()
    mg.save(model, tmp_path / "mg.pt")
    torch.save(torch_model, tmp_path / "torch.pt")
    for lib, path in ((mg, tmp_path / "mg.pt"), (torch, tmp_path / "torch.pt")):
        lib.manual_seed(0)
        expected = lib.rand(4).numpy()
        lib.manual_seed(0)
        with (
            mg.serialization.safe_globals([TorchNet]),
            torch.serialization.safe_globals([TorchNet]),
        ):
            lib.load(path, weights_only=False)
        np.testing.assert_array_equal(lib.rand(4).numpy(), expected)


# ---- weights_only and the allow-list, against torch ----------------------------------------------
def both_files(tmp_path):
    mg.save(MgNet(), tmp_path / "mg.pt")
    torch.save(TorchNet(), tmp_path / "torch.pt")
    return tmp_path / "mg.pt", tmp_path / "torch.pt"


def test_the_default_weights_only_refuses_a_whole_model_as_torch_does(tmp_path):
    mine, theirs = both_files(tmp_path)
    with pytest.raises(pickle.UnpicklingError) as torch_error:
        torch.load(theirs)
    with pytest.raises(pickle.UnpicklingError) as mg_error:
        mg.load(mine)
    for error, lib, cls in ((torch_error, "torch", TorchNet), (mg_error, "mg", MgNet)):
        message = str(error.value)
        assert "Weights only load failed" in message and "`weights_only` set to `False`" in message
        assert f"Unsupported global: GLOBAL {cls.__module__}.{cls.__qualname__}" in message
        assert (
            f"`{lib}.serialization.add_safe_globals([" in message
            and f"`{lib}.serialization.safe_globals([" in message
        )


def test_weights_only_true_loads_when_every_class_is_allowed_as_torch_does(tmp_path):
    mine, theirs = both_files(tmp_path)
    with torch.serialization.safe_globals([TorchNet, torch.nn.Sequential, torch.nn.Linear]):
        with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.activation.ReLU"):
            torch.load(theirs)  # one class not allowed is enough to refuse
    with mg.serialization.safe_globals([MgNet, nn.Sequential, nn.Linear]):
        with pytest.raises(pickle.UnpicklingError, match="minigrad.nn.activation.ReLU"):
            mg.load(mine)
    with torch.serialization.safe_globals(
        [TorchNet, torch.nn.Sequential, torch.nn.Linear, torch.nn.ReLU]
    ):
        assert isinstance(torch.load(theirs), TorchNet)
    with mg.serialization.safe_globals([MgNet, nn.Sequential, nn.Linear, nn.ReLU]):
        assert isinstance(mg.load(mine), MgNet)


def test_weights_only_false_allows_minigrads_own_classes_but_not_a_users():
    model = nn.Sequential(nn.Linear(2, 2))
    assert isinstance(round_trip(model), nn.Sequential)
    data = saved_bytes(MgNet())
    with pytest.raises(pickle.UnpicklingError) as error:
        mg.load(io.BytesIO(data), weights_only=False)
    message = str(error.value)
    assert f"names the class {__name__}.MgNet" in message
    assert (
        "mg.serialization.add_safe_globals([MgNet])" in message
        and "mg.serialization.safe_globals([MgNet])" in message
    )
    with mg.serialization.safe_globals([MgNet]):
        assert isinstance(mg.load(io.BytesIO(data), weights_only=False), MgNet)
    with pytest.raises(pickle.UnpicklingError):  # allowed only inside the block
        mg.load(io.BytesIO(data), weights_only=False)


def test_a_pickle_module_makes_weights_only_default_false_as_in_torch():
    # torch.load(f, pickle_module=pickle) defaults weights_only to False
    loaded = mg.load(io.BytesIO(saved_bytes(nn.Linear(2, 3))), pickle_module=pickle)
    assert isinstance(loaded, nn.Linear)


def test_the_allow_list_api_behaves_as_torchs():
    for lib, cls in ((torch.serialization, TorchNet), (mg.serialization, MgNet)):
        assert cls not in lib.get_safe_globals()
        with lib.safe_globals([cls]):
            assert cls in lib.get_safe_globals()
        assert cls not in lib.get_safe_globals()
        lib.add_safe_globals([cls, (nn.Linear, "old.place.Linear")])
        assert (
            cls in lib.get_safe_globals()
            and (nn.Linear, "old.place.Linear") in lib.get_safe_globals()
        )
        lib.clear_safe_globals()
        assert cls not in lib.get_safe_globals()
    with pytest.raises(ValueError, match="Expected tuple of length 2"):
        mg.serialization.add_safe_globals([(MgNet,)])
    with pytest.raises(TypeError, match="second item in tuple to be str"):
        mg.serialization.add_safe_globals([(MgNet, 3)])


def test_an_allow_listed_path_names_a_class_that_moved():
    moved = retitled(saved_bytes(MgNet()), f"{__name__}.MgNet", "old_project.models.MgNet")
    with pytest.raises(pickle.UnpicklingError, match="old_project.models.MgNet"):
        mg.load(io.BytesIO(moved), weights_only=False)
    with mg.serialization.safe_globals([(MgNet, "old_project.models.MgNet")]):
        assert isinstance(mg.load(io.BytesIO(moved), weights_only=False), MgNet)


def test_get_unsafe_globals_in_checkpoint_lists_what_torchs_lists(tmp_path):
    mine, theirs = both_files(tmp_path)
    torch_names = [
        p.rpartition(".")[2] for p in torch.serialization.get_unsafe_globals_in_checkpoint(theirs)
    ]
    mg_names = [
        p.rpartition(".")[2] for p in mg.serialization.get_unsafe_globals_in_checkpoint(mine)
    ]
    # the same classes (torch's order varies from run to run; minigrad's is the file's)
    assert {n.removeprefix("Torch") for n in torch_names} == {
        n.removeprefix("Mg") for n in mg_names
    }
    assert mg_names == ["MgNet", "Sequential", "Linear", "ReLU"]
    with mg.serialization.safe_globals([nn.Linear]):
        assert "minigrad.nn.linear.Linear" not in mg.serialization.get_unsafe_globals_in_checkpoint(
            mine
        )
    assert (
        mg.serialization.get_unsafe_globals_in_checkpoint(
            io.BytesIO(saved_bytes({"w": mg.ones(2)}))
        )
        == []
    )


# ---- what cannot be saved ------------------------------------------------------------------------
def test_a_lambda_argument_is_refused_at_save_time_naming_the_argument():
    # torch.save refuses it too: a PicklingError, or an AttributeError for a lambda made in a
    # function
    with pytest.raises((pickle.PicklingError, AttributeError), match="pickle"):
        torch.save(TorchHolder(lambda x: x), io.BytesIO())
    with pytest.raises(pickle.PicklingError, match=r"argument 'act' of Net.*a lambda"):
        mg.save(Net(nn.Linear(3, 4), act=lambda x: x), io.BytesIO())


def test_a_class_defined_inside_a_function_is_refused_at_save_time():
    class Local(nn.Module):
        pass

    with pytest.raises(
        pickle.PicklingError, match="Local.*not defined at the top level of a module"
    ):
        mg.save(nn.Sequential(Local()), io.BytesIO())


def test_a_module_made_without_its_constructor_is_refused_at_save_time():
    made = nn.Linear.__new__(nn.Linear)
    nn.Module.__init__(made)  # as copy or pickle would make it: no constructor call recorded
    with pytest.raises(
        TypeError,
        match="cannot save the Linear at obj: its constructor arguments were not recorded",
    ):
        mg.save(made, io.BytesIO())


def test_a_bare_module_with_children_added_round_trips():
    holder = nn.Module()  # nn.Module's own constructor takes no arguments
    holder.add_module("encoder", nn.Linear(2, 3))
    holder.register_buffer("step", mg.tensor(4))
    loaded = round_trip(holder)
    assert type(loaded) is nn.Module and loaded.step.item() == 4
    assert_same_state(holder, loaded)


def test_an_argument_no_file_can_hold_is_refused_naming_it():
    with pytest.raises(
        TypeError, match=r"cannot save a builtins.object at obj \(argument 'act' of Net\)"
    ):
        mg.save(Net(nn.Linear(3, 4), act=object()), io.BytesIO())


# ---- tampered files ------------------------------------------------------------------------------
def retitled(data, old, new):
    """The file `data` with the text `old` replaced by `new` in its JSON structure."""
    return with_structure(data, lambda text: text.replace(json.dumps(old), json.dumps(new)))


def with_structure(data, edit):
    """The file `data` with its structure entry's text replaced by edit(text)."""
    archive = np.load(io.BytesIO(data), allow_pickle=False)
    arrays = {name: archive[name] for name in archive.files}
    arrays[STRUCTURE_ENTRY] = np.array(edit(arrays[STRUCTURE_ENTRY].item()))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def edit_root(data, change):
    def edit(text):
        structure = json.loads(text)
        change(structure["root"])
        return json.dumps(structure)

    return with_structure(data, edit)


LINEAR = "minigrad.nn.linear.Linear"
REFUSED_PATHS = [
    "os.system",
    "subprocess.Popen",
    "this.s",
    "http.server.HTTPServer",
    "minigrad.__main__.main",
    "builtins.eval",
]


@pytest.mark.parametrize("path", REFUSED_PATHS)
@pytest.mark.parametrize("where", ["class", "argument"])
def test_a_path_outside_the_allowed_set_is_refused_and_imports_nothing(path, where):
    data = saved_bytes(nn.Sequential(nn.Linear(2, 3)))
    if where == "class":
        tampered = retitled(data, LINEAR, path)
    else:  # a global node passed to a constructor
        tampered = edit_root(
            data,
            lambda root: root["args"][0]["kwargs"].update(bias={"type": "global", "path": path}),
        )
    before = set(sys.modules)
    with pytest.raises(
        pickle.UnpicklingError, match=f"names the class( or function)? {path}, which is neither"
    ):
        mg.load(io.BytesIO(tampered), weights_only=False)
    assert set(sys.modules) - before == set()


@pytest.mark.parametrize(
    "path, message",
    [
        (
            "minigrad.nn.linear.Lineer",
            "but minigrad.nn.linear defines no class or function 'Lineer'",
        ),
        # numpy, imported there
        ("minigrad.nn.linear.np", "but minigrad.nn.linear defines no class or function 'np'"),
        ("minigrad.nn.nowhere.Linear", "but there is no module 'minigrad.nn.nowhere'"),
        (
            "minigrad.nn.linear.Linear.__init__.__globals__",
            "but there is no module 'minigrad.nn.linear.Linear.__init__'",
        ),
        (
            "minigrad.nn.linear.__builtins__",
            "but minigrad.nn.linear defines no class or function '__builtins__'",
        ),
        # a function where a class belongs
        ("minigrad.nn.functional.activation.gelu", "which is not an nn.Module"),
    ],
)
def test_a_wrong_class_path_gives_a_clear_error(path, message):
    tampered = retitled(saved_bytes(nn.Sequential(nn.Linear(2, 3))), LINEAR, path)
    before = set(sys.modules)
    with pytest.raises(
        ValueError, match=rf"not a valid minigrad file: .*{re.escape(path)}, {re.escape(message)}"
    ):
        mg.load(io.BytesIO(tampered), weights_only=False)
    # the only modules a path may import are minigrad's own
    assert all(
        name.startswith(("minigrad.nn.", "minigrad.models.")) for name in set(sys.modules) - before
    )


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda r: r["args"][0].update(
                kwargs={"in_features": {"type": "pickle", "value": "cos\nsystem"}}
            ),
            "unknown type 'pickle'",
        ),
        (
            lambda r: r["args"][0].update(kwargs={"in_features": 2}),
            r"is 2, not a \{'type': ...\} object",
        ),
        (lambda r: r["args"][0].update(args="in_features=2"), "no list of args"),
        (
            lambda r: r["args"][0]["kwargs"].update(in_features={"type": "int", "value": -4}),
            r"Linear\(...\) at obj \(argument 0 of Sequential\) failed .* features must be "
            r"non-negative",
        ),
        (
            lambda r: r["args"][0]["kwargs"].update(surprise={"type": "int", "value": 1}),
            "unexpected keyword argument 'surprise'",
        ),
        (
            lambda r: r["modules"].update(x={"type": "module_ref", "id": 7}),
            "refers to a module record 7",
        ),
        (
            lambda r: r["args"][0]["parameters"].update(weight={"type": "int", "value": 1}),
            r"parameter obj \(argument 0 of Sequential\).weight is a int",
        ),
        (lambda r: r["args"][0].update(training="yes"), "training='yes'"),
        (lambda r: r["args"][0]["modules"].update({"a.b": {"type": "none"}}), "named 'a.b'"),
        (lambda r: r.update(id=r["args"][0]["id"]), "record id"),
    ],
    ids=[
        "unknown node",
        "not a node",
        "args not a list",
        "bad argument",
        "extra argument",
        "dangling ref",
        "parameter not a tensor",
        "training not a bool",
        "dotted name",
        "id twice",
    ],
)
def test_a_tampered_record_gives_a_clear_error(change, message):
    tampered = edit_root(saved_bytes(nn.Sequential(nn.Linear(2, 3))), change)
    with pytest.raises(ValueError, match=f"not a valid minigrad file: .*{message}"):
        mg.load(io.BytesIO(tampered), weights_only=False)


def test_a_structure_that_is_not_json_or_a_truncated_file_gives_a_clear_error():
    data = saved_bytes(nn.Sequential(nn.Linear(2, 3)))
    with pytest.raises(ValueError, match="its structure is not valid JSON"):
        mg.load(io.BytesIO(with_structure(data, lambda text: text[:-5])), weights_only=False)
    with pytest.raises(ValueError, match="load: '<BytesIO>' is not a .*minigrad file"):
        mg.load(io.BytesIO(data[: len(data) // 2]), weights_only=False)


# ---- a user's script, and the PyTorch pattern with its imports switched --------------------------
USER_SCRIPT = """
import sys
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, 2))

    def forward(self, x):
        return self.body(x)


x = torch.ones(4, 3)
if sys.argv[1] == "save":
    torch.manual_seed(0)
    model = Net(8)
    torch.save(model, "model.pt")
    np.save("expected.npy", model(x).detach().numpy())
else:
    if sys.argv[1] == "allow":
        torch.serialization.add_safe_globals([Net])
    model = torch.load("model.pt", weights_only=False)
    model.eval()
    assert np.array_equal(model(x).detach().numpy(), np.load("expected.npy"))
    print(type(model).__module__, type(model).__name__)
"""


def switch_imports(source):
    """The PyTorch program with its imports switched to minigrad."""
    return source.replace("import torch\n", "import minigrad as torch\n").replace(
        "import torch.nn as nn", "import minigrad.nn as nn"
    )


def run_script(tmp_path, source, *args):
    (tmp_path / "script.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's minigrad
    return subprocess.run(
        [sys.executable, "script.py", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_class_in_the_users_script_round_trips_once_allowed(tmp_path):
    source = switch_imports(USER_SCRIPT)
    assert "minigrad" in source and "import torch\n" not in source
    saved = run_script(tmp_path, source, "save")
    assert saved.returncode == 0, saved.stderr
    refused = run_script(tmp_path, source, "load")  # a new program, as an inference script is
    assert "UnpicklingError" in refused.stderr and "names the class __main__.Net" in refused.stderr
    assert "mg.serialization.add_safe_globals([Net])" in refused.stderr
    allowed = run_script(tmp_path, source, "allow")
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout.split() == ["__main__", "Net"]


PYTORCH_PATTERN = """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
torch.save(model, "model.pt")
model = torch.load("model.pt", weights_only=False)
model.eval()
with torch.no_grad():
    out = model(x)
"""


def test_the_pytorch_whole_model_pattern_runs_with_its_imports_switched(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    for lib, source in ((torch, PYTORCH_PATTERN), (mg, switch_imports(PYTORCH_PATTERN))):
        namespace = {"x": lib.tensor(x)}
        exec(compile(source, "pattern.py", "exec"), namespace)
        assert isinstance(namespace["model"], lib.nn.Sequential) and not namespace["model"].training
        assert tuple(namespace["out"].shape) == (2, 10)
    # the file mg.save wrote, no pickle in it
    assert STRUCTURE_ENTRY in np.load(tmp_path / "model.pt").files
