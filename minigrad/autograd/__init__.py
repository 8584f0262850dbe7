"""Automatic differentiation: Function, the backward engine, grad(), gradcheck, hooks.

`mg.autograd.functional` (jacobian, hessian, vjp, jvp, vhp, hvp) is built on grad() and
stack, a layer above this package: `import minigrad` attaches it here.
"""

from minigrad.autograd import hooks  # noqa: F401  (Tensor.register_hook's handles: autograd.hooks)
from minigrad.autograd.anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from minigrad.autograd.engine import backward, grad
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from minigrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function",
    "GradcheckError",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
]
