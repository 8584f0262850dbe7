"""NAdam: Adam with Nesterov momentum.

Dozat 2016. Nesterov's trick is to take the gradient step from where momentum is
about to carry θ, not from where θ is now. In Adam's terms: the step uses the
*next* momentum coefficient on m and the current one on g, so the update looks one
step ahead. PyTorch's version also warms the momentum up: μ_t = β1 (1 − ½ · 0.96^(t ψ))
grows from β1/2 towards β1 (ψ = momentum_decay), and the bias correction divides by
the running product of the μ's instead of by 1 − β1^t.
"""

import numpy as np

from minigrad.optim.optimizer import Optimizer, _check_adam_family


class NAdam(Optimizer):
    """`NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False)`, PyTorch's algorithm, at step t = 1, 2, ...:

        g ← ∇θ L + weight_decay · θ        (decoupled: θ ← θ − lr · weight_decay · θ)
        μ_t ← β1 · (1 − ½ · 0.96^(t · ψ)),  μ_{t+1} likewise;  Π_t ← Π_{t−1} · μ_t   (Π_0 = 1)
        m ← β1 · m + (1 − β1) · g
        v ← β2 · v + (1 − β2) · g²
        d ← √(v / (1 − β2^t)) + eps
        θ ← θ − lr · (1 − μ_t) / (1 − Π_t) · g / d − lr · μ_{t+1} / (1 − Π_t · μ_{t+1}) · m / d

    The state holds `mu_product` (Π_t) as a 0-d array of the parameter's dtype.
    `foreach`, `capturable` and `differentiable=False` are accepted as in PyTorch and
    change nothing (see `Optimizer`).
    """

    _host_state = frozenset(("mu_product",))  # scalars read back as numbers each step

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
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
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        _check_adam_family(self, group)
        self._check(
            group["momentum_decay"] >= 0,
            f"Invalid momentum_decay value: {group['momentum_decay']} (expected momentum_decay >= "
            "0)",
        )

    def update(self, param, grad, state, group):
        lr, eps, weight_decay, psi = (
            group["lr"],
            group["eps"],
            group["weight_decay"],
            group["momentum_decay"],
        )
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = 0
            state["mu_product"] = np.ones((), dtype=param.dtype)  # Π_0 = 1
            state["exp_avg"] = np.zeros_like(param.array)  # m
            state["exp_avg_sq"] = np.zeros_like(param.array)  # v
        state["step"] += 1
        t = state["step"]

        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad + weight_decay * param.array

        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        state["mu_product"] *= mu
        mu_product = float(state["mu_product"])  # read back: Π is rounded to the parameter's dtype

        m, v = state["exp_avg"], state["exp_avg_sq"]
        m += (1 - beta1) * (grad - m)
        v *= beta2
        v += (1 - beta2) * grad * grad
        denom = np.sqrt(v / (1 - beta2**t)) + eps
        # the gradient's part uses this step's μ, the momentum's part the next one: the look-ahead
        param.sub_(lr * (1 - mu) / (1 - mu_product) * (grad / denom))
        param.sub_(lr * mu_next / (1 - mu_product * mu_next) * (m / denom))
