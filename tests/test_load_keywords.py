"""mg.load takes torch.load's keywords, so PyTorch checkpoint-loading code runs unchanged.

(The file format itself is tested in test_serialization.py.)
"""

import inspect
import io

import numpy as np
import pytest
import torch

import minigrad as mg


@pytest.fixture
def saved():
    buffer = io.BytesIO()
    mg.save({"w": mg.tensor([1.0, 2.0]), "step": 3}, buffer)
    return buffer.getvalue()


def test_the_signature_is_torch_loads():
    # every torch.load parameter, in torch's order and kind; minigrad adds one keyword of
    # its own, max_expansion (the decompression-bomb limit), before **pickle_load_args
    mine, theirs = inspect.signature(mg.load).parameters, inspect.signature(torch.load).parameters
    ours = [(n, p.kind) for n, p in mine.items() if n != "max_expansion"]
    assert ours == [(n, p.kind) for n, p in theirs.items()]
    assert mine["max_expansion"].kind is inspect.Parameter.KEYWORD_ONLY
    assert all(mine[n].default == theirs[n].default for n in theirs if n != "f")


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"map_location": "cpu"},
        {"map_location": torch.device("cpu")},
        {"map_location": "cpu:0"},
        {"map_location": lambda storage, location: storage},
        {"map_location": {"cuda:0": "cpu"}},
        {"weights_only": True},
        {"weights_only": False},
        {"mmap": True},
        {"map_location": "cpu", "weights_only": True, "mmap": False},
        {"pickle_module": None, "encoding": "latin1"},
    ],
    # repr, but a function's address differs from one process to the next (pytest-xdist's
    # workers must collect the same ids)
    ids=lambda kwargs: repr(kwargs).split(" at 0x")[0],
)
def test_torch_load_keywords_are_accepted_and_change_nothing(saved, kwargs):
    loaded = mg.load(io.BytesIO(saved), **kwargs)
    assert list(loaded) == ["w", "step"] and loaded["step"] == 3
    np.testing.assert_array_equal(loaded["w"].array, [1.0, 2.0])


@pytest.mark.parametrize(
    "location", ["cuda", "cuda:1", torch.device("meta"), {"cpu": "cuda:0"}], ids=repr
)
def test_a_gpu_location_raises_as_torch_load_does_without_cuda(saved, location, no_gpu):
    expected = (
        "minigrad tensors live on the CPU or an NVIDIA GPU"
        if str(location) == "meta"
        else "no CUDA"
    )
    with pytest.raises(RuntimeError, match=f"load: map_location=.*: {expected}"):
        mg.load(io.BytesIO(saved), map_location=location)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            {"map_location": 3},
            TypeError,
            "map_location must be None, a device, a string, a dict or a callable",
        ),
        ({"weights_only": "yes"}, TypeError, "weights_only must be True, False or None"),
        ({"mmap": 1}, TypeError, "mmap must be True, False or None"),
    ],
)
def test_nonsense_keywords_are_refused(saved, kwargs, error, message):
    with pytest.raises(error, match=message):
        mg.load(io.BytesIO(saved), **kwargs)


def test_weights_only_false_still_runs_no_code(tmp_path):
    # a torch checkpoint (a pickle inside a zip) is refused, not unpickled, even when asked to
    # trust it
    path = tmp_path / "torch.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(ValueError, match="not a minigrad file|not a valid minigrad file"):
        mg.load(path, weights_only=False)
