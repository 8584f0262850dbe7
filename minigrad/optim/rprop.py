"""Rprop: resilient backpropagation, which uses only the sign of the gradient.

Riedmiller & Braun 1993. Each coordinate has its own step size. While the gradient keeps
its sign, the minimum is further on in that direction: the step grows (× eta_plus).
When the sign flips, the last step jumped over the minimum: the step shrinks
(× eta_minus) and this coordinate waits one step. The size of the gradient never
enters, which makes Rprop immune to badly scaled gradients, but also a full-batch
method: the noise of mini-batches flips signs at random.
"""

import numpy as np

from minigrad.optim.optimizer import Optimizer


class Rprop(Optimizer):
    """`Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
    foreach=None, maximize=False, differentiable=False)`, PyTorch's algorithm (the
    variant without weight backtracking, "Rprop−"), per coordinate:

        s ← sign(g · g_prev)                        g_prev starts at 0
        Δ ← clip(Δ · eta_plus,  min, max)   if s > 0   (Δ starts at lr)
        Δ ← clip(Δ · eta_minus, min, max)   if s < 0,  and then g ← 0 (skip this step)
        θ ← θ − sign(g) · Δ
        g_prev ← g

    with (eta_minus, eta_plus) = etas and (min, max) = step_sizes. `foreach`,
    `capturable` and `differentiable=False` are accepted as in PyTorch and change nothing
    (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        defaults = dict(
            lr=lr,
            etas=tuple(etas),
            step_sizes=tuple(step_sizes),
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        self._check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
        eta_minus, eta_plus = group["etas"]
        self._check(
            0.0 < eta_minus < 1.0 < eta_plus,
            f"Invalid eta values: {eta_minus}, {eta_plus} (expected 0 < etas[0] < 1 < etas[1])",
        )

    def update(self, param, grad, state, group):
        eta_minus, eta_plus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = 0
            state["prev"] = np.zeros_like(param.array)  # g_prev
            state["step_size"] = np.full_like(param.array, group["lr"])  # Δ
        state["step"] += 1

        step_size = state["step_size"]
        agreement = np.sign(grad * state["prev"])  # +1: the same sign as last step, −1: it flipped
        # np.where, not a mask: on a GPU a mask's write waits to learn how many places it has
        factor = np.where(agreement > 0, eta_plus, np.where(agreement < 0, eta_minus, 1.0))
        step_size *= factor.astype(step_size.dtype)
        np.clip(step_size, step_size_min, step_size_max, out=step_size)
        # After a sign flip, stand still this step; the zero stored in g_prev then makes
        # the next step neither grow nor shrink Δ.
        grad = np.where(agreement < 0, 0, grad)
        param.sub_(np.sign(grad) * step_size)
        state["prev"][...] = grad
