"""Adadelta: a step size built from the optimizer's own history, with no learning rate.

Zeiler 2012. Adagrad's steps shrink forever; Adadelta keeps running averages instead
(like RMSprop) and adds one more idea: the *units* of the step. g / √E[g²] has no
units, so Adadelta multiplies it by √E[Δθ²], the root-mean-square of its own recent
steps, which has the units of θ. The step therefore adapts its size to the problem
without a hand-tuned rate (lr = 1.0 by default only scales it).
"""

import numpy as np

from minigrad.optim.optimizer import Optimizer


class Adadelta(Optimizer):
    """`Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
    capturable=False, maximize=False, differentiable=False)`, PyTorch's algorithm:

        g ← ∇θ L + weight_decay · θ
        s ← ρ · s + (1 − ρ) · g²                      square_avg, starts at 0
        Δ ← √(u + eps) / √(s + eps) · g               u: acc_delta, starts at 0
        u ← ρ · u + (1 − ρ) · Δ²
        θ ← θ − lr · Δ

    `foreach`, `capturable` and `differentiable=False` are accepted as in PyTorch and
    change nothing (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            capturable=capturable,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        self._check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
        self._check(
            0 <= group["rho"] <= 1, f"Invalid rho value: {group['rho']} (expected 0 <= rho <= 1)"
        )
        self._check(group["eps"] >= 0, f"Invalid epsilon value: {group['eps']} (expected eps >= 0)")
        self._check(
            group["weight_decay"] >= 0,
            f"Invalid weight_decay value: {group['weight_decay']} (expected weight_decay >= 0)",
        )

    def update(self, param, grad, state, group):
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = 0
            state["square_avg"] = np.zeros_like(param.array)  # s = E[g²]
            state["acc_delta"] = np.zeros_like(param.array)  # u = E[Δ²]
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param.array
        s, u = state["square_avg"], state["acc_delta"]
        s *= rho
        s += (1 - rho) * grad * grad
        # √(u + eps) carries θ's units; at the start u = 0 and eps alone sets the scale
        delta = np.sqrt(u + eps) / np.sqrt(s + eps) * grad
        u *= rho
        u += (1 - rho) * delta * delta
        param.sub_(lr * delta)
