"""Gradient checking: compare autograd's gradients with finite differences.

For an input element x_i the central difference

    (f(x + eps e_i) - f(x - eps e_i)) / (2 eps)

approximates column i of the Jacobian with error O(eps^2). Autograd gives the rows of
the same Jacobian, one backward pass per output element (with a one-hot output
gradient). If the two disagree beyond `atol + rtol * |numerical|`, the backward is
wrong (or the function is not differentiable there). This only works in float64:
in float32, rounding error in f is about 1e-7 * |f|, which divided by 2 eps = 2e-6 is
already larger than the tolerance.

On a CUDA tensor the inputs are perturbed and the function run on the GPU; the columns and
rows of the two Jacobians are copied to the host (`to_host`) to be compared.
"""

import numpy as np

from minigrad.array_module import array_module, same_memory, to_host
from minigrad.autograd.engine import grad as autograd_grad
from minigrad.tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised when an analytical gradient disagrees with the numerical one."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _differentiable(inputs):
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def numerical_jacobian(fn, inputs, k, eps):
    """d(all outputs, flattened and concatenated)/d(inputs[k]) by central differences."""
    x = inputs[k].array
    flat = x.reshape(-1)  # a view: perturbing `flat` perturbs the input in place
    if not same_memory(flat, x):
        raise ValueError("gradcheck: inputs must be contiguous so they can be perturbed in place")
    columns = []
    # grad mode stays on: for gradgradcheck, fn itself calls autograd.grad
    for i in range(flat.size):
        orig = flat[i].copy()  # a copy: on a GPU, flat[i] is a 0-d view that the writes change
        flat[i] = orig + eps
        plus = np.concatenate([to_host(o.array).reshape(-1) for o in _outputs(fn, inputs)])
        flat[i] = orig - eps
        minus = np.concatenate([to_host(o.array).reshape(-1) for o in _outputs(fn, inputs)])
        flat[i] = orig
        columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))


def analytical_jacobian(fn, inputs, k):
    """The same Jacobian, one autograd pass per output element."""
    outs = [o for o in _outputs(fn, inputs)]
    rows = []
    for out in outs:
        if not out.requires_grad:
            rows.extend(np.zeros(inputs[k].array.size) for _ in range(out.numel()))
            continue
        for j in range(out.numel()):
            seed = array_module(out.array).zeros(out.shape, dtype=out.dtype)  # on out's device
            seed.reshape(-1)[j] = 1.0
            (g,) = autograd_grad(
                out,
                inputs[k],
                grad_outputs=Tensor._make(seed),
                retain_graph=True,
                allow_unused=True,
            )
            row = np.zeros(inputs[k].array.size) if g is None else to_host(g.array).reshape(-1)
            rows.append(row.astype(np.float64))
    return np.stack(rows) if rows else np.zeros((0, inputs[k].array.size))


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Check autograd's gradient of `fn(*inputs)` against finite differences.

    Every input that requires grad is checked, and should be float64. Returns True, or
    raises GradcheckError naming the input, the element and the two values (or
    returns False with `raise_exception=False`).
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    checked = _differentiable(inputs)
    if not checked:
        raise ValueError("gradcheck: no input requires grad, so there is nothing to check")
    for k in checked:
        if inputs[k].dtype != np.float64:
            raise ValueError(
                f"gradcheck: input {k} is {inputs[k].dtype}; finite differences need float64 "
                "inputs (use .double())"
            )
    for k in checked:
        # --8<-- [start:compare]
        numerical = numerical_jacobian(fn, inputs, k, eps)
        analytical = analytical_jacobian(fn, inputs, k)
        if numerical.shape != analytical.shape:
            raise GradcheckError(
                f"gradcheck: Jacobian shapes differ for input {k}: {analytical.shape} vs "
                f"{numerical.shape}"
            )
        bad = ~(np.abs(analytical - numerical) <= atol + rtol * np.abs(numerical))
        # --8<-- [end:compare]
        if bad.any():
            out_i, in_i = np.argwhere(bad)[0]
            index = np.unravel_index(in_i, inputs[k].shape)
            message = (
                f"gradcheck: Jacobian mismatch for input {k} at element "
                f"{tuple(int(i) for i in index)} (output element {int(out_i)}): analytical "
                f"{float(analytical[out_i, in_i])!r} vs numerical "
                f"{float(numerical[out_i, in_i])!r} ({int(bad.sum())} of {bad.size} "
                "entries differ)"
            )
            if raise_exception:
                raise GradcheckError(message)
            return False
    return True


def gradgradcheck(
    fn, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True
):
    """Check second derivatives: gradcheck the function
    (inputs, v) -> d(fn(inputs) . v)/d(inputs), computed with create_graph=True.

    `grad_outputs` (v) defaults to random float64 tensors, which also take part in the
    check, as in PyTorch.
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    checked = _differentiable(inputs)
    outputs = _outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor(rng.standard_normal(o.shape), dtype=np.float64, requires_grad=True)
            for o in outputs
        )
    grad_outputs = (
        tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    )
    n = len(inputs)

    def first_derivative(*args):
        xs, vs = args[:n], args[n:]
        outs = [o for o in _outputs(fn, xs)]
        pairs = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
        grads = autograd_grad(
            [o for o, _ in pairs],
            [xs[k] for k in checked],
            grad_outputs=[v for _, v in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in grads if g is not None and g.requires_grad)

    return gradcheck(
        first_derivative,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
