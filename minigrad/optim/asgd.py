"""ASGD: averaged stochastic gradient descent.

Polyak & Juditsky 1992. Plain SGD with a decaying step size wanders around a minimum
with the noise of its gradients; the *average* of the points it visited lands much
closer. ASGD takes ordinary (decaying) SGD steps on θ and keeps, beside them, a running
average `ax` of the iterates from step t0 on. The average is the answer (PyTorch's ASGD
leaves it in `state['ax']`; the parameters themselves follow the SGD steps), so copy
it into the model for evaluation.
"""

import numpy as np

from minigrad.optim.optimizer import Optimizer


class ASGD(Optimizer):
    """`ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
    maximize=False, differentiable=False, capturable=False)`, PyTorch's algorithm, at
    step t = 1, 2, ... with η_1 = lr and μ_1 = 1:

        g ← ∇θ L + weight_decay · θ
        θ ← θ · (1 − lambd · η_t) − η_t · g        (a decay towards 0, and an SGD step)
        ax ← ax + μ_t · (θ − ax)                    (ax ← θ while μ_t = 1)
        η_{t+1} ← lr / (1 + lambd · lr · t)^alpha    the step size decays
        μ_{t+1} ← 1 / max(1, t − t0)                 averaging starts after t0 steps

    `ax` is the running average of θ over the steps after t0. η and μ are kept in the
    state (`eta`, `mu`) as 0-d arrays of the parameter's dtype, as PyTorch keeps them in
    tensors. `foreach`, `capturable` and `differentiable=False` are accepted as in
    PyTorch and change nothing (see `Optimizer`).
    """

    _host_state = frozenset(("eta", "mu"))  # scalars read back as numbers each step

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        self._check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
        self._check(
            group["weight_decay"] >= 0,
            f"Invalid weight_decay value: {group['weight_decay']} (expected weight_decay >= 0)",
        )

    def update(self, param, grad, state, group):
        lr, lambd, weight_decay = group["lr"], group["lambd"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = 0
            state["eta"] = np.array(lr, dtype=param.dtype)  # η
            state["mu"] = np.ones((), dtype=param.dtype)  # μ
            state["ax"] = np.zeros_like(param.array)  # the average of θ
        state["step"] += 1
        t = state["step"]
        if weight_decay != 0:
            grad = grad + weight_decay * param.array

        eta = float(state["eta"])
        param.mul_(1 - lambd * eta)
        param.sub_(eta * grad)
        ax = state["ax"]
        mu = float(state["mu"])  # η and μ are host numbers (as torch's): no copy from the GPU
        if mu != 1:
            ax += (param.array - ax) * mu
        else:
            ax[...] = param.array  # before t0 the "average" is the last iterate

        state["eta"][...] = lr / ((1 + lambd * lr * t) ** group["alpha"])
        state["mu"][...] = 1 / max(1, t - group["t0"])
