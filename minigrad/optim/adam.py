"""Adam and AdamW: momentum, plus a step size scaled per coordinate.

Adam keeps two running averages of each parameter's gradient: the mean `m` (a momentum)
and the mean square `v`. Dividing by √v makes every coordinate move at about the same
speed whatever the scale of its gradient. Both averages start at zero, which biases
them towards zero for the first steps; dividing by (1 − β^t) removes that bias.

AdamW differs from Adam with weight decay in one line: where the decay is applied.
"""

import numpy as np

from minigrad import backends
from minigrad.optim.optimizer import Optimizer, _check_adam_family


class Adam(Optimizer):
    """`Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, *, foreach=None, maximize=False, capturable=False, differentiable=False,
    fused=None, decoupled_weight_decay=False)`, PyTorch's algorithm (Kingma & Ba 2015), at
    step t = 1, 2, ...:

        g ← ∇θ L + weight_decay · θ          (L2 penalty; AdamW instead: θ ← θ − lr·weight_decay·θ)
        m ← β1 · m + (1 − β1) · g            first moment, m starts at 0
        v ← β2 · v + (1 − β2) · g²           second moment, v starts at 0
        m̂ ← m / (1 − β1^t),  v̂ ← v / (1 − β2^t)        bias correction
        v̂ ← max(v̂_max, v̂)                   only with amsgrad (the largest v seen so far)
        θ ← θ − lr · m̂ / (√v̂ + eps)

    `maximize=True` climbs (g ← −∇θ L). `foreach`, `capturable`, `fused` and
    `differentiable=False` are accepted as in PyTorch and change nothing (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        _check_adam_family(self, group)

    def update(self, param, grad, state, group):
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(param.array)  # m
            state["exp_avg_sq"] = np.zeros_like(param.array)  # v
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(param.array)
        state["step"] += 1
        beta1, beta2 = group["betas"]
        # The step itself is a kernel family (kernels/reference/adamw.py holds the formulas
        # as NumPy passes, kernels/cpu/adamw.py does them in one compiled pass): it updates
        # θ, m and v in place, so the model's reference to θ sees the new values.
        kernels = backends.kernels("adamw", array=param.array)
        kernels.adam_step(
            param.array,
            grad,
            state["exp_avg"],
            state["exp_avg_sq"],
            state["max_exp_avg_sq"] if group["amsgrad"] else None,
            state["step"],
            group["lr"],
            beta1,
            beta2,
            group["eps"],
            group["weight_decay"],
            group["decoupled_weight_decay"],
            group["maximize"],
        )
        param._version_counter().value += 1  # written in place, as param.sub_ would count it


class AdamW(Adam):
    """`AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False, *, maximize=False, foreach=None, capturable=False, differentiable=False,
    fused=None)`: Adam with decoupled weight decay
    (Loshchilov & Hutter 2019). Before the Adam step, every weight shrinks:

        θ ← θ − lr · weight_decay · θ

    and the gradient that feeds m and v is the loss's alone. Adam with weight_decay
    instead adds weight_decay·θ to the gradient, where the division by √v̂ rescales it.
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        super().__init__(
            params,
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
