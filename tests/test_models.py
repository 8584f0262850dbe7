"""Reference models: shapes, parameter counts against the same architecture in PyTorch,
state-dict compatibility, and a gradient check through a residual block."""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import nn
from minigrad.autograd import gradcheck
from minigrad.models import MLP, BasicBlock, LeNet5, ResNet


def _torch_lenet(image_size):
    side = (image_size // 2 - 4) // 2
    t = torch.nn
    return t.Sequential(
        t.Sequential(
            t.Conv2d(1, 6, 5, padding=2),
            t.ReLU(),
            t.MaxPool2d(2),
            t.Conv2d(6, 16, 5),
            t.ReLU(),
            t.MaxPool2d(2),
        ),
        t.Sequential(
            t.Flatten(),
            t.Linear(16 * side * side, 120),
            t.ReLU(),
            t.Linear(120, 84),
            t.ReLU(),
            t.Linear(84, 10),
        ),
    )


@pytest.mark.parametrize("image_size", [28, 32, 16])
def test_lenet5_matches_the_same_torch_network(image_size):
    mg.manual_seed(0)
    model = LeNet5(image_size=image_size).eval()
    reference = _torch_lenet(image_size)
    # minigrad's "features.0.weight" is the torch Sequential's "0.0.weight", and so on
    mapping = {
        k: k.replace("features.", "0.").replace("classifier.", "1.") for k in model.state_dict()
    }
    reference.load_state_dict(
        {mapping[k]: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()}
    )
    x = np.random.default_rng(0).standard_normal((3, 1, image_size, image_size)).astype(np.float32)
    out = model(mg.tensor(x))
    assert out.shape == (3, 10)
    np.testing.assert_allclose(
        out.array, reference(torch.from_numpy(x)).detach().numpy(), rtol=1e-4, atol=1e-5
    )


def test_lenet5_rejects_images_too_small():
    with pytest.raises(ValueError, match="image_size"):
        LeNet5(image_size=8)


def test_resnet_shapes_and_parameter_count():
    model = ResNet(blocks=(1, 1, 1), widths=(16, 32, 64), num_classes=10)
    out = model(mg.randn(2, 1, 8, 8))
    assert out.shape == (2, 10)
    # stem 144 + bn 32; block1 2x(2304+32); block2 4608+9216+64+... computed from the layers:
    expected = sum(int(np.prod(p.shape)) for p in model.parameters())
    convs = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    assert len(convs) == 1 + 2 * 3 + 2  # stem, two per block, two 1x1 shortcuts
    torch_count = sum(
        p.numel()
        for p in torch.nn.ModuleList(
            [
                torch.nn.Conv2d(c.in_channels, c.out_channels, c.kernel_size, bias=False)
                for c in convs
            ]
        ).parameters()
    )
    bn_and_fc = sum(
        int(np.prod(p.shape))
        for m in model.modules()
        if isinstance(m, (nn.BatchNorm2d, nn.Linear))
        for p in m.parameters(recurse=False)
    )
    assert expected == torch_count + bn_and_fc
    assert ResNet.from_config(model.get_config()).get_config() == model.get_config()


def test_basic_block_gradients_in_float64():
    mg.manual_seed(0)
    block = BasicBlock(2, 3, stride=2).double().eval()  # eval: BatchNorm uses running stats
    x = mg.randn(1, 2, 5, 5, dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda t: block(t), (x,))
    block.train()
    y = block(x)
    assert y.shape == (1, 3, 3, 3)
    assert (y.array >= 0).all()  # ends with a ReLU


def test_mlp_flattens_images_and_validates_arguments():
    model = MLP(64, (32,), 10)
    assert model(mg.randn(4, 1, 8, 8)).shape == (4, 10)
    with pytest.raises(ValueError, match="activation"):
        MLP(64, (32,), 10, activation="swishy")
    with pytest.raises(ValueError, match="dropout"):
        MLP(64, (32,), 10, dropout=1.0)
