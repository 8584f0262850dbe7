"""Errors are part of the interface: a table of wrong calls and what each must raise.

Every row is one mistake a user makes, across tensors, ops, layers, losses, optimizers,
the data loader, autograd and serialization: the call, the exception type, and the words
its message must hold (the op's name, the shapes or values involved, what was expected).
A message from deep inside NumPy ("operands could not be broadcast together") names
none of these; each row here was checked to fail clearly, at the call.

Where PyTorch has the same call, the row gives it too, and a second test checks that
PyTorch raises the same type of exception: minigrad mirrors PyTorch's types
(RuntimeError for shapes that do not fit, IndexError, TypeError, ValueError as torch).
"""

import io
import pickle
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.data import DataLoader, TensorDataset, random_split


class Case:
    def __init__(self, call, error, words, torch_call=None):
        self.call, self.error, self.words, self.torch_call = call, error, words, torch_call


def _assign(t, index, value):
    t[index] = value


def _backward_twice():
    x = mg.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _torch_backward_twice():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _bytes(make):
    buffer = io.BytesIO()
    make(buffer)
    return io.BytesIO(buffer.getvalue())


def _bomb():
    """16 MiB of zeros, compressed to about 16 KiB, in an archive mg.load would accept."""
    structure = '{"format": "minigrad", "version": 1, "root": {"type": "none"}}'
    return _bytes(
        lambda f: np.savez_compressed(
            f, zeros=np.zeros(2**22, np.float32), __minigrad__=np.array(structure)
        )
    )


def _param():
    return nn.Parameter(mg.ones(2))


def _tparam():
    return torch.nn.Parameter(torch.ones(2))


o, to = mg.ones, torch.ones  # short names keep the table to one line a row

CASES = {
    # ---- tensors: creation -----------------------------------------------------------------------
    "tensor of strings": Case(
        lambda: mg.tensor(np.array(["a", "b"])),
        TypeError,
        ["mg.tensor", "numpy.str_"],
        lambda: torch.tensor(np.array(["a", "b"])),
    ),
    "tensor of objects": Case(
        lambda: mg.tensor(np.array([1, "a"], dtype=object)),
        TypeError,
        ["mg.tensor", "numpy.object_"],
        lambda: torch.tensor(np.array([1, "a"], dtype=object)),
    ),
    "tensor of a ragged list": Case(
        lambda: mg.tensor([[1, 2], [3]]),
        ValueError,
        ["mg.tensor", "expected sequence of length 2 at dim 1 (got 1)"],
        lambda: torch.tensor([[1, 2], [3]]),
    ),
    # PyTorch: RuntimeError "Could not infer dtype", or a TypeError when a dtype is given
    "tensor holding None": Case(
        lambda: mg.tensor([1.0, None]), TypeError, ["mg.tensor", "NoneType"]
    ),
    "from_numpy of strings": Case(
        lambda: mg.from_numpy(np.array(["a"])),
        TypeError,
        ["from_numpy", "numpy.str_"],
        lambda: torch.from_numpy(np.array(["a"])),
    ),
    "zeros of a negative size": Case(
        lambda: mg.zeros(-1, 2),
        RuntimeError,
        ["zeros", "negative dimension -1", "(-1, 2)"],
        lambda: torch.zeros(-1, 2),
    ),
    "randn of a negative size": Case(
        lambda: mg.randn(3, -2),
        RuntimeError,
        ["randn", "negative dimension -2"],
        lambda: torch.randn(3, -2),
    ),
    "full of a negative size": Case(
        lambda: mg.full((-1,), 2.0),
        RuntimeError,
        ["full", "negative"],
        lambda: torch.full((-1,), 2.0),
    ),
    "eye of a negative size": Case(
        lambda: mg.eye(-1), RuntimeError, ["eye", "n=-1"], lambda: torch.eye(-1)
    ),
    "arange with step 0": Case(
        lambda: mg.arange(0, 5, 0),
        RuntimeError,
        ["arange", "step must be nonzero"],
        lambda: torch.arange(0, 5, 0),
    ),
    "randint with low >= high": Case(
        lambda: mg.randint(5, 2, (3,)),
        RuntimeError,
        ["randint", "low=5", "high=2"],
        lambda: torch.randint(5, 2, (3,)),
    ),
    "integer tensor requiring grad": Case(
        lambda: mg.tensor([1, 2], requires_grad=True),
        RuntimeError,
        ["floating point", "int64"],
        lambda: torch.tensor([1, 2], requires_grad=True),
    ),
    # ---- tensors: elementwise ops and broadcasting -----------------------------------------------
    "add of shapes that do not broadcast": Case(
        lambda: o(2, 3) + o(4),
        RuntimeError,
        ["add", "(2, 3)", "(4,)", "dimension 1"],
        lambda: to(2, 3) + to(4),
    ),
    "mul of shapes that do not broadcast": Case(
        lambda: o(3) * o(3, 4), RuntimeError, ["mul", "(3,)", "(3, 4)"], lambda: to(3) * to(3, 4)
    ),
    "sub with an ndarray": Case(
        lambda: o(2, 3) - np.ones(4),
        RuntimeError,
        ["sub", "(2, 3)", "(4,)"],
        lambda: to(2, 3) - torch.ones(4),
    ),
    "div with a list": Case(
        lambda: o(2, 3) / [1.0, 2.0],
        RuntimeError,
        ["div", "(2,)"],
        lambda: to(2, 3) / torch.tensor([1.0, 2.0]),
    ),
    "comparison of shapes that do not broadcast": Case(
        lambda: o(2, 3) < o(4), RuntimeError, ["less", "(2, 3)", "(4,)"], lambda: to(2, 3) < to(4)
    ),
    "maximum of shapes that do not broadcast": Case(
        lambda: mg.maximum(o(2), o(3)),
        RuntimeError,
        ["maximum", "(2,)", "(3,)"],
        lambda: torch.maximum(to(2), to(3)),
    ),
    "where of shapes that do not broadcast": Case(
        lambda: mg.where(o(2, 3) > 0, o(4), o(2, 3)),
        RuntimeError,
        ["where", "(4,)", "(2, 3)"],
        lambda: torch.where(to(2, 3) > 0, to(4), to(2, 3)),
    ),
    "where with a condition that does not broadcast": Case(
        lambda: mg.where(o(5) > 0, o(2, 3), 0.0),
        RuntimeError,
        ["where", "condition (5,)", "(2, 3)"],
        lambda: torch.where(to(5) > 0, to(2, 3), 0.0),
    ),
    "where with a float condition": Case(
        lambda: mg.where(o(2), o(2), o(2)),
        RuntimeError,
        ["where", "bool", "float32"],
        lambda: torch.where(to(2), to(2), to(2)),
    ),
    "in-place add that would grow the tensor": Case(
        lambda: o(3).add_(o(2, 3)),
        RuntimeError,
        ["add_", "output with shape (3,)", "(2, 3)"],
        lambda: to(3).add_(to(2, 3)),
    ),
    "copy_ from a shape that does not broadcast": Case(
        lambda: o(3).copy_(o(4)),
        RuntimeError,
        ["copy_", "(4,)", "(3,)"],
        lambda: to(3).copy_(to(4)),
    ),
    "in-place op on a leaf that requires grad": Case(
        lambda: mg.ones(2, requires_grad=True).mul_(2),
        RuntimeError,
        ["mul_", "leaf", "no_grad"],
        lambda: torch.ones(2, requires_grad=True).mul_(2),
    ),
    # ---- tensors: matmul, indexing, shapes, reductions -------------------------------------------
    "matmul of mismatched inner dims": Case(
        lambda: o(2, 3) @ o(4, 5),
        RuntimeError,
        ["matmul", "(2, 3)", "(4, 5)", "3 and 4"],
        lambda: to(2, 3) @ to(4, 5),
    ),
    "batched matmul of batch dims that do not broadcast": Case(
        lambda: o(2, 3, 4) @ o(3, 4, 5),
        RuntimeError,
        ["matmul", "batch dims", "(2, 3, 4)", "(3, 4, 5)"],
        lambda: to(2, 3, 4) @ to(3, 4, 5),
    ),
    "matmul of a 0-d tensor": Case(
        lambda: mg.matmul(mg.tensor(2.0), o(2)),
        RuntimeError,
        ["matmul", "at least 1"],
        lambda: torch.matmul(torch.tensor(2.0), to(2)),
    ),
    "setitem of a value that does not fit": Case(
        lambda: _assign(o(2, 3), 0, o(4)),
        RuntimeError,
        ["setitem", "(4,)", "(3,)"],
        lambda: _assign(to(2, 3), 0, to(4)),
    ),
    "setitem out of range": Case(
        lambda: _assign(o(2, 3), 5, 1.0),
        IndexError,
        ["setitem", "[5]", "(2, 3)"],
        lambda: _assign(to(2, 3), 5, 1.0),
    ),
    "setitem of a string": Case(
        lambda: _assign(o(2), 0, "a"),
        TypeError,
        ["setitem", "str", "float32"],
        lambda: _assign(to(2), 0, "a"),
    ),
    "getitem out of range": Case(
        lambda: o(2, 3)[5], IndexError, ["index [5]", "(2, 3)"], lambda: to(2, 3)[5]
    ),
    "indexing with a float tensor": Case(
        lambda: o(3)[mg.tensor([0.0])],
        IndexError,
        ["long, int or bool", "float32"],
        lambda: to(3)[torch.tensor([0.0])],
    ),
    "reshape to the wrong size": Case(
        lambda: o(2, 3).reshape(4, 2),
        RuntimeError,
        ["reshape", "(4, 2)", "6"],
        lambda: to(2, 3).reshape(4, 2),
    ),
    "view to the wrong size": Case(
        lambda: o(2, 3).view(5), RuntimeError, ["view", "(5,)", "6"], lambda: to(2, 3).view(5)
    ),
    "expand of a non-singleton dim": Case(
        lambda: o(2, 3).expand(4, 3),
        RuntimeError,
        ["expand", "4", "2"],
        lambda: to(2, 3).expand(4, 3),
    ),
    "permute that is not a permutation": Case(
        lambda: o(2, 3).permute(0, 0),
        RuntimeError,
        ["permute", "(0, 0)"],
        lambda: to(2, 3).permute(0, 0),
    ),
    "cat of mismatched shapes": Case(
        lambda: mg.cat([o(2, 3), o(2, 4)]),
        RuntimeError,
        ["cat", "(2, 3)", "(2, 4)"],
        lambda: torch.cat([to(2, 3), to(2, 4)]),
    ),
    "stack of mismatched shapes": Case(
        lambda: mg.stack([o(2, 3), o(2, 4)]),
        RuntimeError,
        ["stack", "(2, 3)", "(2, 4)"],
        lambda: torch.stack([to(2, 3), to(2, 4)]),
    ),
    "sum over a dim out of range": Case(
        lambda: o(2, 3).sum(dim=5), IndexError, ["sum", "[-2, 1]", "5"], lambda: to(2, 3).sum(dim=5)
    ),
    "argmax of an empty tensor": Case(
        lambda: mg.tensor([]).argmax(),
        IndexError,
        ["argmax", "empty"],
        lambda: torch.tensor([]).argmax(),
    ),
    "argmin over a dim of size 0": Case(
        lambda: mg.zeros(2, 0).argmin(1),
        IndexError,
        ["argmin", "dim 1", "size 0"],
        lambda: torch.zeros(2, 0).argmin(1),
    ),
    "max of an empty tensor": Case(
        lambda: mg.tensor([]).max(),
        RuntimeError,
        ["max: cannot reduce an empty tensor"],
        lambda: torch.tensor([]).max(),
    ),
    "item of several elements": Case(
        lambda: o(2).item(), RuntimeError, ["item", "2 elements"], lambda: to(2).item()
    ),
    "numpy of a tensor that requires grad": Case(
        lambda: mg.ones(2, requires_grad=True).numpy(),
        RuntimeError,
        ["numpy", "detach"],
        lambda: torch.ones(2, requires_grad=True).numpy(),
    ),
    # ---- autograd --------------------------------------------------------------------------------
    "backward of a non-scalar without a gradient": Case(
        lambda: (mg.ones(2, requires_grad=True) * 2).backward(),
        RuntimeError,
        ["backward", "scalar", "(2,)"],
        lambda: (torch.ones(2, requires_grad=True) * 2).backward(),
    ),
    "backward twice through a freed graph": Case(
        _backward_twice, RuntimeError, ["second time", "retain_graph=True"], _torch_backward_twice
    ),
    "grad of an input the output does not use": Case(
        lambda: mg.autograd.grad((_p := _param()).sum(), [_p, _param()]),
        RuntimeError,
        ["autograd.grad", "input 1", "allow_unused"],
        lambda: torch.autograd.grad((_q := _tparam()).sum(), [_q, _tparam()]),
    ),
    # ---- layers and their functional forms -------------------------------------------------------
    "conv2d with the wrong number of channels": Case(
        lambda: nn.Conv2d(3, 4, 3)(o(1, 2, 5, 5)),
        RuntimeError,
        ["conv2d", "3 channels", "got 2"],
        lambda: torch.nn.Conv2d(3, 4, 3)(to(1, 2, 5, 5)),
    ),
    "conv2d on an input smaller than the kernel": Case(
        lambda: nn.Conv2d(3, 4, 3)(o(1, 3, 2, 2)),
        RuntimeError,
        ["conv2d", "(2, 2)", "(3, 3)"],
        lambda: torch.nn.Conv2d(3, 4, 3)(to(1, 3, 2, 2)),
    ),
    "conv2d of mixed dtypes": Case(
        lambda: nn.Conv2d(1, 1, 1)(o(1, 1, 2, 2, dtype=mg.float64)),
        RuntimeError,
        ["conv2d", "float64", "float32"],
        lambda: torch.nn.Conv2d(1, 1, 1)(to(1, 1, 2, 2, dtype=torch.float64)),
    ),
    "max_pool2d on an input smaller than the window": Case(
        lambda: F.max_pool2d(o(1, 1, 2, 2), 3),
        RuntimeError,
        ["max_pool2d", "too small", "(3, 3)"],
        lambda: TF.max_pool2d(to(1, 1, 2, 2), 3),
    ),
    "BatchNorm1d with the wrong number of features": Case(
        lambda: nn.BatchNorm1d(3)(o(4, 5)),
        RuntimeError,
        ["BatchNorm1d", "3", "(4, 5)"],
        lambda: torch.nn.BatchNorm1d(3)(to(4, 5)),
    ),
    "LayerNorm of the wrong trailing shape": Case(
        lambda: nn.LayerNorm(4)(o(2, 3)),
        RuntimeError,
        ["layer_norm", "(4,)", "(2, 3)"],
        lambda: torch.nn.LayerNorm(4)(to(2, 3)),
    ),
    "Embedding index out of range": Case(
        lambda: nn.Embedding(3, 2)(mg.tensor([5])),
        IndexError,
        ["embedding", "index 5", "3 rows"],
        lambda: torch.nn.Embedding(3, 2)(torch.tensor([5])),
    ),
    "softmax over a dim out of range": Case(
        lambda: F.softmax(o(2, 3), dim=2),
        IndexError,
        ["softmax", "2"],
        lambda: TF.softmax(to(2, 3), dim=2),
    ),
    "dropout with p > 1": Case(
        lambda: F.dropout(o(2), p=1.5),
        ValueError,
        ["dropout", "1.5"],
        lambda: TF.dropout(to(2), p=1.5),
    ),
    "pad to a negative size": Case(
        lambda: F.pad(o(2, 3), (-2, -2)),
        RuntimeError,
        ["pad", "negative", "-1"],
        lambda: TF.pad(to(2, 3), (-2, -2)),
    ),
    "pad of odd length": Case(
        lambda: F.pad(o(2, 3), (1,)),
        RuntimeError,
        ["pad", "even", "(1,)"],
        lambda: TF.pad(to(2, 3), (1,)),
    ),
    "one_hot of a class past num_classes": Case(
        lambda: F.one_hot(mg.tensor([3]), 2),
        RuntimeError,
        ["one_hot", "3", "num_classes=2"],
        lambda: TF.one_hot(torch.tensor([3]), 2),
    ),
    "attention with mismatched head dims": Case(
        lambda: F.scaled_dot_product_attention(o(3, 4), o(5, 3), o(5, 2)),
        RuntimeError,
        ["scaled_dot_product_attention", "(3, 4)", "(5, 3)"],
        lambda: TF.scaled_dot_product_attention(to(3, 4), to(5, 3), to(5, 2)),
    ),
    "load_state_dict of a wrong shape": Case(
        lambda: nn.Linear(2, 3).load_state_dict({"weight": o(3, 3), "bias": o(3)}),
        RuntimeError,
        ["size mismatch for weight", "(3, 3)", "(3, 2)"],
        lambda: torch.nn.Linear(2, 3).load_state_dict({"weight": to(3, 3), "bias": to(3)}),
    ),
    "load_state_dict missing a key": Case(
        lambda: nn.Linear(2, 3).load_state_dict({"weight": o(3, 2)}),
        RuntimeError,
        ["Missing key", "bias"],
        lambda: torch.nn.Linear(2, 3).load_state_dict({"weight": to(3, 2)}),
    ),
    "Conv2d with channels not divisible by groups": Case(
        lambda: nn.Conv2d(3, 4, 3, groups=2),
        ValueError,
        ["in_channels (3)", "groups (2)"],
        lambda: torch.nn.Conv2d(3, 4, 3, groups=2),
    ),
    # ---- losses ----------------------------------------------------------------------------------
    "nll_loss with a class weight of the wrong length": Case(
        lambda: F.nll_loss(o(4, 3), mg.tensor([0, 1, 2, 0]), weight=o(5)),
        RuntimeError,
        ["nll_loss", "3 classes", "(5,)"],
        lambda: TF.nll_loss(to(4, 3), torch.tensor([0, 1, 2, 0]), weight=to(5)),
    ),
    "cross_entropy with a class weight of the wrong length": Case(
        lambda: F.cross_entropy(o(4, 3), mg.tensor([0, 1, 2, 0]), weight=o(2)),
        RuntimeError,
        ["cross_entropy", "3 classes", "(2,)"],
        lambda: TF.cross_entropy(to(4, 3), torch.tensor([0, 1, 2, 0]), weight=to(2)),
    ),
    "cross_entropy with a class out of range": Case(
        lambda: F.cross_entropy(o(4, 3), mg.tensor([0, 1, 5, 0])),
        IndexError,
        ["cross_entropy", "target 5", "3 classes"],
        lambda: TF.cross_entropy(to(4, 3), torch.tensor([0, 1, 5, 0])),
    ),
    "cross_entropy with probability targets of the wrong shape": Case(
        lambda: F.cross_entropy(o(4, 3), o(4, 4)),
        RuntimeError,
        ["cross_entropy", "(4, 3)", "(4, 4)"],
        lambda: TF.cross_entropy(to(4, 3), to(4, 4)),
    ),
    "cross_entropy with an unknown reduction": Case(
        lambda: F.cross_entropy(o(4, 3), mg.tensor([0, 1, 2, 0]), reduction="avg"),
        ValueError,
        ["cross_entropy", "'avg'"],
        lambda: TF.cross_entropy(to(4, 3), torch.tensor([0, 1, 2, 0]), reduction="avg"),
    ),
    "mse_loss of shapes that do not match": Case(
        lambda: F.mse_loss(o(4, 3), o(4, 4)),
        RuntimeError,
        ["mse_loss", "(4, 3)", "(4, 4)"],
        lambda: TF.mse_loss(to(4, 3), to(4, 4)),
    ),
    "binary_cross_entropy of a value above 1": Case(
        lambda: F.binary_cross_entropy(mg.tensor([1.5]), mg.tensor([1.0])),
        RuntimeError,
        ["binary_cross_entropy", "between 0 and 1"],
        lambda: TF.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])),
    ),
    "cross_entropy of integer logits": Case(
        lambda: F.cross_entropy(mg.tensor([[1, 2]]), mg.tensor([0])),
        TypeError,
        ["cross_entropy", "floating point", "int64"],
    ),
    # ---- optimizers and schedulers ---------------------------------------------------------------
    "SGD with a negative learning rate": Case(
        lambda: optim.SGD([_param()], lr=-1),
        ValueError,
        ["SGD", "learning rate", "-1"],
        lambda: torch.optim.SGD([_tparam()], lr=-1),
    ),
    "Adam with beta1 >= 1": Case(
        lambda: optim.Adam([_param()], betas=(1.5, 0.9)),
        ValueError,
        ["Adam", "beta", "1.5"],
        lambda: torch.optim.Adam([_tparam()], betas=(1.5, 0.9)),
    ),
    "Adam with a negative weight decay": Case(
        lambda: optim.Adam([_param()], weight_decay=-1),
        ValueError,
        ["Adam", "weight_decay", "-1"],
        lambda: torch.optim.Adam([_tparam()], weight_decay=-1),
    ),
    "an optimizer of no parameters": Case(
        lambda: optim.SGD([], lr=0.1),
        ValueError,
        ["SGD", "empty parameter list"],
        lambda: torch.optim.SGD([], lr=0.1),
    ),
    "Nesterov without momentum": Case(
        lambda: optim.SGD([_param()], lr=0.1, nesterov=True),
        ValueError,
        ["SGD", "Nesterov", "momentum=0"],
        lambda: torch.optim.SGD([_tparam()], lr=0.1, nesterov=True),
    ),
    "load_state_dict with the wrong number of groups": Case(
        lambda: optim.SGD([_param()], lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
        ValueError,
        ["load_state_dict", "0 parameter groups", "1"],
        lambda: torch.optim.SGD([_tparam()], lr=0.1).load_state_dict(
            {"state": {}, "param_groups": []}
        ),
    ),
    "StepLR with step_size 0": Case(
        lambda: optim.lr_scheduler.StepLR(optim.SGD([_param()], lr=0.1), step_size=0),
        ValueError,
        ["StepLR", "step_size", "0"],
    ),
    # ---- data ------------------------------------------------------------------------------------
    "DataLoader with batch_size 0": Case(
        lambda: DataLoader(TensorDataset(o(3)), batch_size=0),
        ValueError,
        ["DataLoader", "batch_size", "0"],
        lambda: torch.utils.data.DataLoader(torch.utils.data.TensorDataset(to(3)), batch_size=0),
    ),
    "DataLoader of something that is not a dataset": Case(
        lambda: DataLoader(5), TypeError, ["DataLoader", "__getitem__", "int"]
    ),
    "TensorDataset of different lengths": Case(
        lambda: TensorDataset(o(3), o(4)), ValueError, ["TensorDataset", "(3,)", "(4,)"]
    ),
    "random_split with lengths that do not add up": Case(
        lambda: random_split(TensorDataset(o(10)), [3, 3]),
        ValueError,
        ["random_split", "[3, 3]", "10"],
        lambda: torch.utils.data.random_split(range(10), [3, 3]),
    ),
    # ---- serialization ---------------------------------------------------------------------------
    "load of a pickle": Case(
        lambda: mg.load(io.BytesIO(pickle.dumps({"w": [1.0]}))),
        ValueError,
        ["load", "not a minigrad file", "pickle", "runs whatever code"],
    ),
    "load of a decompression bomb": Case(
        lambda: mg.load(_bomb()), ValueError, ["load", "decompress to", "max_expansion"]
    ),
    "load of a plain .npz": Case(
        lambda: mg.load(_bytes(lambda f: np.savez(f, w=np.ones(3)))),
        ValueError,
        ["load", "__minigrad__", "mg.save"],
    ),
    "load of a .npy": Case(
        lambda: mg.load(_bytes(lambda f: np.save(f, np.ones(3)))),
        ValueError,
        ["load", "single .npy array"],
    ),
    "load of a missing file": Case(
        lambda: mg.load("no/such/file.npz"),
        FileNotFoundError,
        ["no/such/file.npz"],
        lambda: torch.load("no/such/file.npz"),
    ),
    "save of a module whose argument is a lambda": Case(
        lambda: mg.save(nn.TransformerEncoderLayer(8, 2, activation=lambda x: x), io.BytesIO()),
        pickle.PicklingError,
        ["save", "lambda", "activation", "TransformerEncoderLayer"],
    ),
    "save of an object array": Case(
        lambda: mg.save(np.array([None]), io.BytesIO()), TypeError, ["save", "object"]
    ),
}


def _all_words(words):
    """A regex that matches a message holding every one of `words` (as plain text)."""
    return "(?s)" + "".join(f"(?=.*{re.escape(w)})" for w in words)


@pytest.mark.parametrize("name", list(CASES))
def test_wrong_call_raises_a_clear_error(name):
    case = CASES[name]
    with np.errstate(all="raise"):  # no NumPy warning may stand in for the error
        with pytest.raises(case.error, match=_all_words(case.words)):
            case.call()


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch warns before it fails on some
@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.torch_call is not None])
def test_pytorch_raises_the_same_type_for_the_same_call(name):
    case = CASES[name]
    with pytest.raises(Exception) as info:
        case.torch_call()
    assert isinstance(info.value, case.error), (
        f"PyTorch raised {type(info.value).__name__}: {info.value}"
    )


def test_the_table_is_long_enough():
    assert len(CASES) >= 60
