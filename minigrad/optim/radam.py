"""RAdam: Adam that waits until its variance estimate can be trusted.

Liu et al. 2020. In Adam's first steps v is an average of very few squared gradients,
so 1/√v̂ varies wildly and the first updates can be huge; that is why Adam often needs
a learning-rate warm-up. RAdam measures how reliable v̂ is by ρ_t, the length of the
simple moving average its exponential average is worth. While ρ_t ≤ 5 it takes plain
momentum steps (no division by √v̂); after that it divides, scaled by a rectification
term r_t ≤ 1 that undoes the extra variance and tends to 1 as t grows.
"""

import math

import numpy as np

from minigrad.optim.optimizer import Optimizer, _check_adam_family


class RAdam(Optimizer):
    """`RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)`, PyTorch's algorithm, at step t = 1, 2, ...:

        g ← ∇θ L + weight_decay · θ        (decoupled: θ ← θ − lr · weight_decay · θ)
        m ← β1 · m + (1 − β1) · g,   v ← β2 · v + (1 − β2) · g²
        m̂ ← m / (1 − β1^t)
        ρ_∞ ← 2 / (1 − β2) − 1,   ρ_t ← ρ_∞ − 2 t β2^t / (1 − β2^t)
        if ρ_t > 5:  r_t ← √((ρ_t − 4)(ρ_t − 2) ρ_∞ / ((ρ_∞ − 4)(ρ_∞ − 2) ρ_t))
                     θ ← θ − lr · m̂ · r_t · √(1 − β2^t) / (√v + eps)
        else:        θ ← θ − lr · m̂

    `foreach`, `capturable` and `differentiable=False` are accepted as in PyTorch and
    change nothing (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
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
            state["exp_avg_sq"] = np.zeros_like(param.array)  # v
        state["step"] += 1
        t = state["step"]

        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad + weight_decay * param.array

        m, v = state["exp_avg"], state["exp_avg_sq"]
        m += (1 - beta1) * (grad - m)
        v *= beta2
        v += (1 - beta2) * grad * grad
        bias_correction1 = 1 - beta1**t
        bias_correction2 = 1 - beta2**t
        m_hat = m / bias_correction1

        # ρ_t: how many gradients v's average is worth; below 5 its variance is unbounded
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * beta2**t / bias_correction2
        if rho_t > 5.0:
            rect = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            adaptive_lr = bias_correction2**0.5 / (np.sqrt(v) + eps)  # = 1 / √v̂, up to eps
            param.sub_(m_hat * lr * adaptive_lr * rect)
        else:
            param.sub_(m_hat * lr)  # plain momentum SGD until v̂ is trustworthy
