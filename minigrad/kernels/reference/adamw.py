"""One Adam / AdamW step on one parameter, as NumPy passes: the reference (Adam.update in
optim/adam.py calls it).

At step t = 1, 2, ..., with g the gradient, θ the parameter, m and v the running means:

    g ← −g                                        only with maximize
    θ ← θ · (1 − lr · weight_decay)               AdamW (decoupled weight decay)
    g ← g + weight_decay · θ                      Adam (L2 penalty)
    m ← m + (1 − β1) (g − m)                      = β1 m + (1 − β1) g
    v ← β2 v + (1 − β2) g²
    v ← max(v_max, v), v_max ← v                  only with amsgrad
    θ ← θ − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + eps)

(m / (1 − β1^t) and v / (1 − β2^t) are the bias-corrected means m̂ and v̂; the divisions
are moved onto the scalars, so no array is divided by them.)

θ, m, v and v_max are updated in place, in the parameter's dtype. Each line below is one
pass over the parameter, in place (out=): the textbook expressions would make a
temporary array per operator, and the step is memory traffic, not arithmetic. `work` is
the one scratch array. Written with NumPy's functions, which hand CuPy arrays to CuPy, so
this is also a CUDA tensor's update. The CPU kernel (kernels/cpu/adamw.py) does the same
arithmetic, in the same order, in one pass.
"""

import numpy as np


def adam_step(
    param, grad, m, v, max_v, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize
):
    """Update the arrays param, m, v (and max_v, None without amsgrad) in place for step
    `step` (1, 2, ...) with gradient `grad`; `decoupled` chooses AdamW's weight decay."""
    if maximize:
        grad = -grad
    # --8<-- [start:weight_decay]
    if weight_decay != 0:
        if decoupled:
            # AdamW: shrink θ itself. Every weight decays at the rate lr·weight_decay.
            np.multiply(param, 1 - lr * weight_decay, out=param)
        else:
            # Adam: add the L2 gradient to g. It then passes through m and √v,
            # so weights with large gradients are decayed less.
            grad = grad + weight_decay * param
    # --8<-- [end:weight_decay]

    work = np.subtract(grad, m)  # g − m
    work *= 1 - beta1
    m += work  # m ← m + (1 − β1)(g − m) = β1·m + (1 − β1)·g: a step of m towards g
    np.multiply(grad, grad, out=work)  # g²
    work *= 1 - beta2
    v *= beta2
    v += work  # v ← β2·v + (1 − β2)·g²
    if max_v is not None:
        # amsgrad: never let the denominator shrink, keep the largest v seen so far
        np.maximum(max_v, v, out=max_v)
        v = max_v

    step_size = lr / (1 - beta1**step)  # lr · m̂ = (lr / (1 − β1^t)) · m
    np.sqrt(v, out=work)
    work /= (1 - beta2**step) ** 0.5
    work += eps  # √v̂ + eps
    np.divide(m, work, out=work)
    work *= step_size  # lr · m̂ / (√v̂ + eps)
    np.subtract(param, work, out=param)
