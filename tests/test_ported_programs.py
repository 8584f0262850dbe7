"""Real PyTorch programs run on minigrad with only their imports switched.

Each program in `tests/ported/` is plain PyTorch. It runs here twice: as written (with
torch) and with every `import torch...`/`from torch... import` line rewritten to minigrad,
the way a student would port it. Programs that start from the same weights and draw no
random numbers must give the same losses; the programs that draw their own random numbers
(the VAE: each framework's generator gives different
numbers from one seed) must land in the same loss band.

The programs from public sources (the PyTorch tutorials and examples) say in their docstrings where they come from and what
was cut down for size.
"""

import contextlib
import io
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch

from minigrad.data import Digits

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.autograd.Function",
    "torch.autograd.gradcheck",
    "torch.cat",
    "torch.flatten",
    "torch.from_numpy",
    "torch.manual_seed",
    "torch.nn.AdaptiveAvgPool2d",
    "torch.nn.BatchNorm2d",
    "torch.nn.Conv2d",
    "torch.nn.CrossEntropyLoss",
    "torch.nn.Embedding",
    "torch.nn.Flatten",
    "torch.nn.LayerNorm",
    "torch.nn.Linear",
    "torch.nn.MaxPool2d",
    "torch.nn.Module",
    "torch.nn.ReLU",
    "torch.nn.Sequential",
    "torch.nn.functional.cross_entropy",
    "torch.nn.functional.relu",
    "torch.nn.utils.clip_grad_norm_",
    "torch.no_grad",
    "torch.optim.Adam",
    "torch.optim.AdamW",
    "torch.optim.SGD",
    "torch.optim.lr_scheduler.StepLR",
    "torch.stack",
    "torch.tensor",
    "torch.utils.data.DataLoader",
    "torch.utils.data.TensorDataset",
]

PORTED = Path(__file__).parent / "ported"


def switch_imports(source):
    """`import torch` -> `import minigrad as torch`, `import torch.nn as nn` ->
    `import minigrad.nn as nn`, `from torch.x import y` -> `from minigrad.x import y`."""
    source = re.sub(r"^import torch$", "import minigrad as torch", source, flags=re.M)
    source = re.sub(r"^import torch\.", "import minigrad.", source, flags=re.M)
    return re.sub(r"^from torch(\.| )", r"from minigrad\1", source, flags=re.M)


def run_program(name, data, framework):
    """Run tests/ported/<name>.py's `main(data)` on torch or minigrad. The program runs as a
    module of its own (registered in sys.modules while it runs, so that `torch.save(model)`
    can name its classes), and what it prints is kept: a dict result gets it as "printed"."""
    source = (PORTED / f"{name}.py").read_text()
    if framework == "minigrad":
        source = switch_imports(source)
        assert "import torch" not in source.replace("import minigrad as torch", "")
    module = types.ModuleType(f"ported_{name}")
    sys.modules[module.__name__] = module
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(source, f"{name}.py ({framework})", "exec"), module.__dict__)
            result = module.main(data)
    finally:
        del sys.modules[module.__name__]
    if isinstance(result, dict):
        result["printed"] = printed.getvalue()
    return result


def numbers(text):
    """Every number in a program's printed log, in order (ints and decimals, signs kept)."""
    return np.array([float(x) for x in re.findall(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?|[-+]?\d+", text)])


def skeleton(text):
    """A printed log with its numbers (and the spaces that pad them) taken out: the words and
    the layout, to compare."""
    return re.sub(r" *[-+]?\d+\.\d+(?:e[-+]?\d+)?| *[-+]?\d+", "#", text)


@pytest.fixture(scope="module")
def digits():
    train, test = Digits(train=True), Digits(train=False)
    return {
        "x_train": train.data.astype(np.float32),
        "y_train": train.targets.astype(np.int64),
        "x_test": test.data.astype(np.float32),
        "y_test": test.targets.astype(np.int64),
    }


@pytest.fixture(autouse=True)
def _torch_single_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def both(name, data):
    return run_program(name, data, "torch"), run_program(name, data, "minigrad")


def test_switching_imports_rewrites_every_torch_import():
    source = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\nfrom torch import optim\n"
    assert switch_imports(source) == (
        "import minigrad as torch\nimport minigrad.nn as nn\nfrom minigrad.utils.data import DataLoader\n"
        "from minigrad import optim\n"
    )


def test_mlp_with_dataloader_and_scheduler(digits):
    theirs, mine = both("mlp_scheduler", digits)
    np.testing.assert_allclose(mine["losses"], theirs["losses"], rtol=2e-4, atol=2e-5)
    assert mine["accuracy"] == pytest.approx(theirs["accuracy"], abs=0.01)
    assert mine["accuracy"] > 0.85
    assert [line.rsplit(" lr ", 1)[1] for line in mine["log"]] == [line.rsplit(" lr ", 1)[1] for line in theirs["log"]]


def test_cnn_with_batchnorm(digits):
    theirs, mine = both("cnn_batchnorm", digits)
    np.testing.assert_allclose(mine["losses"], theirs["losses"], rtol=2e-3, atol=2e-4)
    np.testing.assert_allclose(mine["running_mean"], theirs["running_mean"], rtol=2e-3, atol=2e-4)
    assert mine["accuracy"] == pytest.approx(theirs["accuracy"], abs=0.03)


def test_vae_reaches_the_same_loss_band(digits):
    theirs, mine = both("vae", digits)
    assert mine["samples_shape"] == theirs["samples_shape"] == (16, 64)
    for result in (theirs, mine):
        assert result["epoch_losses"][-1] < 0.8 * result["epoch_losses"][0]
    assert mine["epoch_losses"][-1] == pytest.approx(theirs["epoch_losses"][-1], rel=0.05)


def test_char_model_trains_and_samples():
    text = ("first citizen: before we proceed any further, hear me speak. " * 6).strip()
    theirs, mine = both("char_model", {"text": text})
    np.testing.assert_allclose(mine["losses"], theirs["losses"], rtol=1e-3, atol=1e-4)
    assert mine["losses"][-1] < 0.5 * mine["losses"][0]
    assert len(mine["generated"]) == 8 + 40
    assert set(mine["generated"]) <= set(mine["vocab"])


def test_custom_autograd_function(digits):
    theirs, mine = both("custom_function", digits)
    assert theirs["gradcheck"] is True and mine["gradcheck"] is True
    np.testing.assert_allclose(mine["losses"], theirs["losses"], rtol=1e-4, atol=1e-5)
    assert mine["grad_fn"] and theirs["grad_fn"]


# ---- programs from public sources --------------------------------------------------------


def test_the_log_helpers_see_every_number():
    assert numbers("loss: 2.310652  [  320/ 1438] mean -0.00, std 1.5e-03") == pytest.approx(
        [2.310652, 320, 1438, -0.0, 1.5e-03]
    )
    assert skeleton("loss: 2.310652  [  320/ 1438]") == "loss:#  [#/#]"
