"""A PyTorch training script runs on minigrad with only its imports changed.

The script below is ordinary PyTorch. The test runs it once with torch and once with
the import lines rewritten to minigrad, and both must train an MLP on the digits.
"""

import re

import numpy as np
import torch

from minigrad.data import Digits, load_digits

SCRIPT = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train_set = TensorDataset(torch.tensor(x_train), torch.tensor(y_train))
loader = DataLoader(train_set, batch_size=32, shuffle=True)

model = nn.Sequential(
    nn.Flatten(),
    nn.Linear(64, 128),
    nn.ReLU(),
    nn.Dropout(0.1),
    nn.Linear(128, 10),
)
optimizer = optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)

for epoch in range(10):
    model.train()
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        optimizer.step()
    scheduler.step()

model.eval()
with torch.no_grad():
    logits = model(torch.tensor(x_test))
    accuracy = (logits.argmax(dim=1) == torch.tensor(y_test)).float().mean().item()
    probabilities = F.softmax(logits, dim=1)
state = model.state_dict()
"""

PORT = {
    "import torch\n": "import minigrad as torch\n",
    "import torch.nn as nn\n": "import minigrad.nn as nn\n",
    "import torch.nn.functional as F\n": "import minigrad.nn.functional as F\n",
    "import torch.optim as optim\n": "import minigrad.optim as optim\n",
    "from torch.utils.data import": "from minigrad.utils.data import",
}


def ported(script):
    for old, new in PORT.items():
        assert old in script
        script = script.replace(old, new)
    # only import lines changed
    changed = [a for a, b in zip(script.splitlines(), SCRIPT.splitlines()) if a != b]
    assert changed and all(re.match(r"(import|from) ", line) for line in changed)
    return script


def _data():
    test = Digits(train=False)
    train = Digits(train=True)
    scale = np.float32(16)
    return {
        "x_train": (train.data / scale).astype(np.float32)[:, None],
        "y_train": train.targets.astype(np.int64),
        "x_test": (test.data / scale).astype(np.float32)[:, None],
        "y_test": test.targets.astype(np.int64),
    }


def test_the_same_script_trains_on_pytorch_and_on_minigrad():
    images, labels = load_digits()
    assert images.shape == (1797, 8, 8) and labels.shape == (1797,)
    results = {}
    for name, code in (("torch", SCRIPT), ("minigrad", ported(SCRIPT))):
        namespace = _data()
        exec(compile(code, f"<{name} script>", "exec"), namespace)
        results[name] = namespace
    assert results["torch"]["accuracy"] > 0.93  # the script itself is sound
    assert results["minigrad"]["accuracy"] > 0.93
    assert abs(results["minigrad"]["accuracy"] - results["torch"]["accuracy"]) < 0.03
    # same state-dict keys and shapes: the trained weights could go either way
    mine, theirs = results["minigrad"]["state"], results["torch"]["state"]
    assert list(mine) == list(theirs)
    assert all(tuple(mine[k].shape) == tuple(theirs[k].shape) for k in mine)
    np.testing.assert_allclose(
        results["minigrad"]["probabilities"].numpy().sum(axis=1), 1.0, rtol=1e-5
    )
    assert isinstance(results["torch"]["probabilities"], torch.Tensor)
