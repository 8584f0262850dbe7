"""Automatic differentiation: Function, the backward engine, grad(), gradcheck, hooks."""

from minigrad.autograd import hooks  # noqa: F401  (Tensor.register_hook's handles: autograd.hooks)
from minigrad.autograd.anomaly import detect_anomaly, is_anomaly_enabled
from minigrad.autograd.engine import backward, grad
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
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
    "no_grad",
    "set_grad_enabled",
]
