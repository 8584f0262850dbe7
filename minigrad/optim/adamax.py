"""Adamax: Adam with the infinity norm in place of the root mean square.

Kingma & Ba 2015, section 7.1. Adam divides by √v, an exponentially weighted L2 norm
of past gradients. Letting the 2 become ∞ turns that average into a decayed maximum,
u = max(β2 · u, |g|), which needs no bias correction and cannot be dragged down by one
small gradient: a coordinate's step is at most lr / (1 − β1^t) in size.
"""

import numpy as np

from minigrad.optim.optimizer import Optimizer, _check_adam_family


class Adamax(Optimizer):
    """`Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None,
    *, maximize=False, differentiable=False, capturable=False)`, PyTorch's algorithm, at
    step t = 1, 2, ...:

        g ← ∇θ L + weight_decay · θ
        m ← β1 · m + (1 − β1) · g                    exp_avg, starts at 0
        u ← max(β2 · u, |g| + eps)                   exp_inf, starts at 0
        θ ← θ − lr / (1 − β1^t) · m / u

    `foreach`, `capturable` and `differentiable=False` are accepted as in PyTorch and
    change nothing (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        _check_adam_family(self, group)

    def update(self, param, grad, state, group):
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(param.array)  # m
            state["exp_inf"] = np.zeros_like(param.array)  # u
        state["step"] += 1
        if weight_decay != 0:
            grad = grad + weight_decay * param.array
        m, u = state["exp_avg"], state["exp_inf"]
        m += (1 - beta1) * (grad - m)
        # eps inside the max keeps u > 0, so the division below is always defined
        np.maximum(u * beta2, np.abs(grad) + eps, out=u)
        step_size = lr / (1 - beta1 ** state["step"])  # only m is biased towards 0; u is not
        param.sub_(step_size * (m / u))
