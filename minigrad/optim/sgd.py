"""SGD: stochastic gradient descent, with optional momentum and Nesterov momentum.

Plain SGD steps straight down the gradient. Momentum keeps a running sum of past
gradients (a "velocity"), so that directions in which the gradient keeps its sign speed
up, and directions in which it flips (the walls of a narrow valley) cancel out.
"""

from minigrad.optim.optimizer import Optimizer


class SGD(Optimizer):
    """`SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
    *, maximize=False, foreach=None, differentiable=False, fused=None)`, PyTorch's algorithm:

        g ← ∇θ L + weight_decay · θ                 (L2 penalty, folded into the gradient)
        b ← g                                       at the first step
        b ← momentum · b + (1 − dampening) · g      afterwards
        g ← g + momentum · b    if nesterov,  else  g ← b
        θ ← θ − lr · g

    b is the velocity, kept in `state['momentum_buffer']`. With `momentum=0` it is
    θ ← θ − lr · g. `maximize=True` climbs instead (g ← −∇θ L). `foreach`, `fused` and
    `differentiable=False` are accepted as in PyTorch and change nothing (see `Optimizer`).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    def _check_group(self, group):
        self._check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
        self._check(
            group["momentum"] >= 0,
            f"Invalid momentum value: {group['momentum']} (expected momentum >= 0)",
        )
        self._check(
            group["weight_decay"] >= 0,
            f"Invalid weight_decay value: {group['weight_decay']} (expected weight_decay >= 0)",
        )
        self._check(
            not group["nesterov"] or (group["momentum"] > 0 and group["dampening"] == 0),
            "Nesterov momentum requires a momentum and zero dampening "
            f"(got momentum={group['momentum']}, dampening={group['dampening']})",
        )

    def update(self, param, grad, state, group):
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = grad + weight_decay * param.array  # d/dθ of (weight_decay / 2)·|θ|²
        if momentum != 0:
            velocity = state.get("momentum_buffer")
            if velocity is None:
                # Start the velocity at the first gradient rather than at zero, where
                # dampening would shrink the first step to (1 - dampening)·g.
                velocity = state["momentum_buffer"] = grad.copy()
            else:
                velocity *= momentum
                velocity += (1 - group["dampening"]) * grad
            if group["nesterov"]:
                # Look ahead: the gradient plus where the velocity is about to carry us.
                grad = grad + momentum * velocity
            else:
                grad = velocity
        param.sub_(lr * grad)  # in place, so the model's reference sees the new value
