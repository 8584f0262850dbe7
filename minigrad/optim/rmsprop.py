"""RMSprop: divide each coordinate's step by a running root-mean-square of its gradient.

Hinton's idea (Lecture 6e of his 2012 Coursera course): a coordinate whose gradients are
large gets a small step, one whose gradients are small gets a large one. Adam adds
momentum and bias correction to the same division; Adagrad divides by a sum that never
forgets instead of by a running average.
"""

import numpy as np

from minigrad.optim.optimizer import Optimizer


class RMSprop(Optimizer):
    """`RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, capturable=False, foreach=None, maximize=False, differentiable=False)`,
    PyTorch's algorithm:

        g ← ∇θ L + weight_decay · θ
        s ← α · s + (1 − α) · g²                  s starts at 0
        d ← √s + eps,  or if centered:  ḡ ← α · ḡ + (1 − α) · g,  d ← √(s − ḡ²) + eps
        b ← momentum · b + g / d,   θ ← θ − lr · b       if momentum > 0 (b starts at 0)
        θ ← θ − lr · g / d                                 otherwise

    Centered RMSprop divides by an estimate of the gradient's standard deviation
    instead of its root mean square. `foreach`, `capturable` and `differentiable=False`
    are accepted as in PyTorch and change nothing (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        self._check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
        self._check(group["eps"] >= 0, f"Invalid epsilon value: {group['eps']} (expected eps >= 0)")
        self._check(
            group["momentum"] >= 0,
            f"Invalid momentum value: {group['momentum']} (expected momentum >= 0)",
        )
        self._check(
            group["weight_decay"] >= 0,
            f"Invalid weight_decay value: {group['weight_decay']} (expected weight_decay >= 0)",
        )
        self._check(
            group["alpha"] >= 0, f"Invalid alpha value: {group['alpha']} (expected alpha >= 0)"
        )

    def update(self, param, grad, state, group):
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = 0
            state["square_avg"] = np.zeros_like(param.array)  # s
            if momentum > 0:
                state["momentum_buffer"] = np.zeros_like(param.array)
            if group["centered"]:
                state["grad_avg"] = np.zeros_like(param.array)  # ḡ
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param.array

        square_avg = state["square_avg"]
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg += (1 - alpha) * (grad - grad_avg)  # = α·ḡ + (1 − α)·g
            denom = np.sqrt(square_avg - grad_avg * grad_avg) + eps  # E[g²] − E[g]² is the variance
        else:
            denom = np.sqrt(square_avg) + eps

        if momentum > 0:
            velocity = state["momentum_buffer"]
            velocity *= momentum
            velocity += grad / denom
            param.sub_(lr * velocity)
        else:
            param.sub_(lr * (grad / denom))
