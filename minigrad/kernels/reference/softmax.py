"""Softmax, log-softmax and cross-entropy along one axis: the reference, in NumPy
(Softmax and LogSoftmax in ops/activation.py and CrossEntropy in ops/loss.py call it
through backends).

Along `axis`, for each slice x (shifted by its max m first, so that no e^x overflows;
the shift cancels in every formula):

    softmax:      y = e^(x - m) / sum(e^(x - m))
    log-softmax:  y = (x - m) - log(sum(e^(x - m)))
    cross-entropy with coefficients A (ops/loss.py builds A from the target):
                  loss = -sum(A * log_softmax(x)), a term 0 wherever A is 0

Gradients, g = dL/dy:

    softmax:      dL/dx = y * (g - sum(g * y))
    log-softmax:  dL/dx = g - e^y * sum(g)           (e^y = softmax(x))
    cross-entropy, g = dL/dloss (one number per slice):
                  dL/dx = g * (softmax(x) * sum(A) - A)

The code runs in the array module of its inputs (NumPy's functions hand a CuPy array to
CuPy), so CUDA tensors use it on the GPU.
"""

import numpy as np


def shift_by_max(x, axis):
    """x - max(x) along `axis`, so that exp of it never overflows. An empty axis has no
    max, and its slices, empty, stay empty: nothing to shift. (NumPy's `initial=-inf`
    would say so in one call, but CuPy's max does not take `initial`.)"""
    if x.size == 0:
        return x.copy()
    return x - np.max(x, axis=axis, keepdims=True)


def softmax(x, axis, log=False):
    """softmax(x) (log-softmax with `log`) along `axis`, in x's shape and dtype."""
    shifted = shift_by_max(x, axis)
    if log:
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_backward(y, grad, axis, log=False):
    """dL/dx from y = softmax(x) (log-softmax with `log`) and grad = dL/dy."""
    if log:
        return grad - np.exp(y) * np.sum(grad, axis=axis, keepdims=True)
    return y * (grad - np.sum(grad * y, axis=axis, keepdims=True))


def compiled(x, axis):
    """Whether this module runs a compiled loop on x: never, it is NumPy. (The CPU
    module's answer depends on x's size: CrossEntropy.backward asks, ops/loss.py.)"""
    return False


def cross_entropy(x, coeff, axis):
    """-sum(coeff * log_softmax(x)) along `axis` (terms with coeff 0 left out), in the
    dtype of that product; coeff has x's shape."""
    log_probs = softmax(x, axis, log=True)
    # where coeff is 0 the term is 0, even if a masked class's log-probability is -inf
    return -np.sum(np.where(coeff != 0, coeff * log_probs, 0.0), axis=axis)


def cross_entropy_backward(x, coeff, g, axis):
    """dL/dx = g * (softmax(x) * sum(coeff) - coeff) along `axis`, in x's dtype: the
    gradient of `cross_entropy`. coeff has x's shape; g = dL/dloss is an array of the
    losses' shape (x's without `axis`) or a number, the same for every slice."""
    probs = softmax(x, axis)
    if np.ndim(g):  # one number per slice: a size-1 axis where the classes are
        g = np.expand_dims(g, axis)
    grad = g * (probs * np.sum(coeff, axis=axis, keepdims=True) - coeff)
    return grad.astype(x.dtype, copy=False)
