"""The gradient checks that the lessons show, run here so that the code on the pages
cannot rot: each lesson includes its section of this file (the `--8<--` markers) under
its "The gradient check" heading.

Every check is in float64 against finite differences (`mg.autograd.gradcheck`), and each
can fail: gradcheck raises GradcheckError naming the input and element where a backward
disagrees with the finite difference. The optimizers have no backward of their own, so
their section checks what stands for it: the gradient they consume, and their update
against PyTorch's for the same gradient.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.autograd import GradcheckError, gradcheck, gradgradcheck


def test_linear():
    # --8<-- [start:linear]
    mg.manual_seed(0)
    # a batch of 5 samples with 4 features, and a layer from 4 features to 3
    x = mg.randn(5, 4, dtype=mg.float64, requires_grad=True)
    weight = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)  # (out, in)
    bias = mg.randn(3, dtype=mg.float64, requires_grad=True)
    # dL/dx = G W, dL/dW = G^T x and dL/db = sum_n G, each against finite differences
    assert gradcheck(F.linear, (x, weight, bias))
    assert gradgradcheck(F.linear, (x, weight, bias))
    # a batch of sequences (N, T, in): the product broadcasts over the leading dims
    x3 = mg.randn(2, 3, 4, dtype=mg.float64, requires_grad=True)
    assert gradcheck(F.linear, (x3, weight, bias))
    # the module: its Parameters are the inputs that gradcheck perturbs
    layer = nn.Linear(4, 3).double()
    assert gradcheck(lambda x, w, b: layer(x), (x, layer.weight, layer.bias))
    # --8<-- [end:linear]


def test_gradcheck_catches_a_wrong_linear_backward():
    """The check above can fail: a backward that forgets to transpose is caught."""

    class WrongMatMul(mg.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a.array @ b.array

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g @ b.mT, g.mT @ a  # the second should be a^T g

    a = mg.randn(3, 3, dtype=mg.float64, requires_grad=True)
    b = mg.randn(3, 3, dtype=mg.float64, requires_grad=True)
    with pytest.raises(GradcheckError):
        gradcheck(WrongMatMul.apply, (a, b))


def test_losses():
    # --8<-- [start:losses]
    mg.manual_seed(0)
    logits = mg.randn(6, 5, dtype=mg.float64, requires_grad=True)  # 6 samples, 5 classes
    target = mg.tensor([0, 3, 4, 1, 1, 2])
    # the fused Function's backward, softmax(x) sum_c A - A, in its variants
    assert gradcheck(lambda x: F.cross_entropy(x, target), (logits,))
    assert gradcheck(lambda x: F.cross_entropy(x, target, reduction="none"), (logits,))
    weight = mg.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=mg.float64)
    ignored = mg.tensor([0, 3, -100, 1, 1, 2])  # the third sample takes no part
    options = dict(weight=weight, label_smoothing=0.1)
    assert gradcheck(lambda x: F.cross_entropy(x, ignored, **options), (logits,))
    # probability targets: the loss is differentiable in the target too
    probs = F.softmax(mg.randn(6, 5, dtype=mg.float64), dim=1).detach().requires_grad_()
    assert gradcheck(F.cross_entropy, (logits, probs))
    # and to second order: the backward is made of recorded ops
    assert gradgradcheck(lambda x: F.cross_entropy(x, target), (logits,))
    # the binary losses, with float targets in [0, 1]
    y = mg.rand(6, 5, dtype=mg.float64)
    assert gradcheck(lambda x: F.binary_cross_entropy_with_logits(x, y), (logits,))
    assert gradcheck(lambda x: F.binary_cross_entropy(F.sigmoid(x), y), (logits,))
    # --8<-- [end:losses]


def test_normalization():
    # --8<-- [start:normalization]
    mg.manual_seed(0)
    x = mg.randn(4, 6, 3, 3, dtype=mg.float64, requires_grad=True)  # (N, C, H, W)
    # one scale and one shift per channel
    w = mg.randn(6, dtype=mg.float64, requires_grad=True)
    b = mg.randn(6, dtype=mg.float64, requires_grad=True)

    # batch norm in training mode: each channel standardized over (N, H, W)
    def batch_norm(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True)

    assert gradcheck(batch_norm, (x, w, b))
    # group norm: each sample's group of 3 channels standardized together
    assert gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    # layer norm and RMS norm over the last two dims, with their own (3, 3) weights
    w2 = mg.randn(3, 3, dtype=mg.float64, requires_grad=True)
    b2 = mg.randn(3, 3, dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, (3, 3), w, b), (x, w2, b2))
    assert gradcheck(lambda x, w: F.rms_norm(x, (3, 3), w), (x, w2))
    # second order, through ctx.stats.of(x) (section 4)
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, (3, 3), w, b), (x, w2, b2))
    assert gradgradcheck(batch_norm, (x, w, b))
    # --8<-- [end:normalization]


def test_recurrent():
    # --8<-- [start:recurrent]
    from minigrad.ops.recurrent import GRUSequence, LSTMSequence

    mg.manual_seed(0)

    def leaf(*shape):
        return mg.randn(*shape, dtype=mg.float64, requires_grad=True)

    # 1. The Functions whose backward is backpropagation through time written out, also
    #    backwards in time (reverse=True, a bidirectional layer's second direction).
    #    x_part (T, B, G * H) is the input's part x W_ih^T + b_ih, the states are (B, H)
    T, B, H = 3, 2, 2
    x4, x3, h0, c0 = leaf(T, B, 4 * H), leaf(T, B, 3 * H), leaf(B, H), leaf(B, H)
    w4, b4, w3, b3 = leaf(4 * H, H), leaf(4 * H), leaf(3 * H, H), leaf(3 * H)
    assert gradcheck(lambda *a: LSTMSequence.apply(*a, None), (x4, h0, c0, w4, b4))
    assert gradcheck(lambda *a: LSTMSequence.apply(*a, None, reverse=True), (x4, h0, c0, w4, b4))
    assert gradcheck(lambda *a: GRUSequence.apply(*a), (x3, h0, w3, b3))
    # second derivatives: a recorded backward runs the Tensor-op cells again
    assert gradgradcheck(lambda *a: GRUSequence.apply(*a), (leaf(2, 1, 3 * H), leaf(1, H), w3, b3))

    # 2. The modules with all their parameters: two layers in both directions, projections
    x = leaf(3, 2, 2)  # (T, B, input_size)
    rnn = nn.RNN(2, 2, num_layers=2, bidirectional=True).double()
    assert gradcheck(lambda x, *params: rnn(x)[0], (x, *rnn.parameters()))
    lstm = nn.LSTM(2, 3, proj_size=1).double()
    assert gradcheck(lambda x, *params: lstm(x)[0], (x, *lstm.parameters()))
    gru = nn.GRU(2, 2, batch_first=True).double()
    assert gradcheck(lambda x, *params: gru(x)[1], (x, *gru.parameters()))  # the final state h_n
    # --8<-- [end:recurrent]


def test_optimizers():
    # --8<-- [start:optimizers]
    def rosenbrock(p):
        x, y = p[0], p[1]
        return (1 - x) ** 2 + 100 * (y - x**2) ** 2

    # 1. The gradient the optimizer consumes is right, against finite differences ...
    start = mg.tensor([-1.5, 2.0], dtype=mg.float64, requires_grad=True)
    assert gradcheck(rosenbrock, (start,))

    # 2. ... and each optimizer turns the same gradient into PyTorch's step.
    cases = [
        (optim.SGD, torch.optim.SGD, dict(lr=1e-3, momentum=0.9, nesterov=True)),
        (optim.Adam, torch.optim.Adam, dict(lr=0.05, weight_decay=0.1, amsgrad=True)),
        (optim.AdamW, torch.optim.AdamW, dict(lr=0.05, weight_decay=0.1)),
        (optim.RMSprop, torch.optim.RMSprop, dict(lr=0.01, momentum=0.5)),
    ]
    for ours, theirs, hyper in cases:
        p = nn.Parameter(mg.tensor([-1.5, 2.0], dtype=mg.float64))
        q = torch.nn.Parameter(torch.tensor([-1.5, 2.0], dtype=torch.float64))
        opt, torch_opt = ours([p], **hyper), theirs([q], **hyper)
        for _ in range(20):
            opt.zero_grad()
            rosenbrock(p).backward()
            torch_opt.zero_grad()
            rosenbrock(q).backward()
            # the same gradient in ...
            assert np.allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
            opt.step()
            torch_opt.step()
            # ... the same step out
            assert np.allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-10, atol=1e-12)
    # --8<-- [end:optimizers]
