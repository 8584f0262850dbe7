"""Adagrad: divide each coordinate's step by the root of its summed squared gradients.

Duchi, Hazan & Singer 2011. A coordinate that has seen large gradients takes small steps
from then on, and a rarely-updated one (a rare word's embedding) keeps large steps. The
sum only grows, so every step size shrinks over time; RMSprop replaces the sum by a
running average to stop that.
"""

import numpy as np

from minigrad.optim.optimizer import Optimizer


class Adagrad(Optimizer):
    """`Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
    eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None)`, PyTorch's
    algorithm, at step t = 1, 2, ...:

        g ← ∇θ L + weight_decay · θ
        lr_t ← lr / (1 + (t − 1) · lr_decay)
        s ← s + g²                          s starts at initial_accumulator_value
        θ ← θ − lr_t · g / (√s + eps)

    `foreach`, `fused` and `differentiable=False` are accepted as in PyTorch and change
    nothing (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        self._check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
        self._check(
            group["lr_decay"] >= 0,
            f"Invalid lr_decay value: {group['lr_decay']} (expected lr_decay >= 0)",
        )
        self._check(
            group["weight_decay"] >= 0,
            f"Invalid weight_decay value: {group['weight_decay']} (expected weight_decay >= 0)",
        )
        self._check(
            group["initial_accumulator_value"] >= 0,
            f"Invalid initial_accumulator_value value: {group['initial_accumulator_value']} "
            "(expected initial_accumulator_value >= 0)",
        )
        self._check(group["eps"] >= 0, f"Invalid epsilon value: {group['eps']} (expected eps >= 0)")

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        # Unlike the others, Adagrad's state exists from the start (as in PyTorch), so a
        # state_dict taken before the first step already holds the accumulators.
        group = self.param_groups[-1]
        for p in group["params"]:
            self._init_state(self.state[p], p, group)

    @staticmethod
    def _init_state(state, param, group):
        state["step"] = 0
        state["sum"] = np.full_like(param.array, group["initial_accumulator_value"])

    def update(self, param, grad, state, group):
        if group["maximize"]:
            grad = -grad
        if not state:  # a state_dict loaded from elsewhere may lack it
            self._init_state(state, param, group)
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param.array
        lr_t = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        state["sum"] += grad * grad
        denom = np.sqrt(state["sum"]) + group["eps"]
        param.sub_(lr_t * (grad / denom))
