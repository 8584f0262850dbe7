"""`.data` is a Tensor, as in PyTorch: it shares storage, is cut from the graph, and can be
assigned; `.grad` assignments are checked for shape and dtype. Each case runs against torch."""

import numpy as np
import pytest
import torch

import minigrad as mg

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.data",
    "torch.Tensor.grad",
]


def pair(values, requires_grad=True):
    values = np.asarray(values, dtype=np.float32)
    return mg.tensor(values, requires_grad=requires_grad), torch.tensor(
        values, requires_grad=requires_grad
    )


def test_data_is_a_detached_tensor_sharing_storage():
    p, tp = pair([1.0, 2.0, 3.0])
    d, td = p.data, tp.data
    assert isinstance(d, mg.Tensor)
    assert d.requires_grad is td.requires_grad is False
    assert d.is_leaf and d.grad_fn is None
    d.add_(1.0)  # the optimizer-update idiom: not recorded, but changes p
    td.add_(1.0)
    assert p.tolist() == tp.tolist() == [2.0, 3.0, 4.0]
    assert p.requires_grad  # p itself is untouched


def test_data_updates_from_the_sgd_idiom_match_torch():
    p, tp = pair([0.5, -1.0])
    for param in (p, tp):
        (param**2).sum().backward()
        param.data.add_(param.grad, alpha=-0.1)  # p.data.add_(-lr * grad)
        param.data = param.data - 0.1 * param.grad  # p.data = p.data - lr * p.grad
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-6)
    assert p.requires_grad and p.is_leaf
    assert p.data.norm().item() == pytest.approx(tp.data.norm().item(), rel=1e-6)


def test_assigning_data_keeps_identity_and_may_change_shape():
    p = mg.nn.Parameter(mg.zeros(2))
    model_ref = p
    p.data = mg.ones(3)
    assert model_ref is p and p.shape == (3,) and p.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError, match="data"):
        p.data = [1.0, 2.0]


def test_writes_through_data_are_not_seen_by_the_version_check_as_torch():
    # torch's .data does not share the version counter (that is what detach() is for)
    x, tx = pair([1.0, 2.0])
    for t in (x, tx):
        y = t.exp()
        t.data.mul_(2)
        y.sum().backward()  # no error, and the gradient uses the saved output
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    z = mg.ones(2, requires_grad=True)
    w = z.sin()  # saves z itself
    with pytest.raises(RuntimeError, match="in-place"):
        with mg.no_grad():
            z.detach().mul_(2)
        w.sum().backward()


@pytest.mark.parametrize(
    "grad, error, words",
    [
        (np.ones(3, np.float32), RuntimeError, "different size"),
        (np.ones(2, np.float64), RuntimeError, "different type"),
        ([1.0, 1.0], TypeError, "Tensor or None"),
    ],
)
def test_assigning_grad_checks_shape_and_dtype_as_torch(grad, error, words):
    p, tp = pair([1.0, 2.0])
    mine = mg.tensor(grad) if isinstance(grad, np.ndarray) else grad
    theirs = torch.tensor(grad) if isinstance(grad, np.ndarray) else grad
    with pytest.raises(error, match=words):
        p.grad = mine
    with pytest.raises(error):
        tp.grad = theirs


def test_assigning_a_matching_grad_or_none_works():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    p.grad = mg.tensor([0.5, 0.5])
    assert p.grad.tolist() == [0.5, 0.5]
    p.grad = None
    assert p.grad is None


def test_numpy_returns_the_storage_itself():
    t = mg.tensor([1.0, 2.0])
    t.numpy()[0] = 9.0
    assert t.tolist() == [9.0, 2.0]
    with pytest.raises(RuntimeError, match="requires grad"):
        mg.tensor([1.0], requires_grad=True).numpy()
