"""Broadcasting, backwards.

When `a` of shape (3, 1) meets `b` of shape (4,), NumPy stretches both to (3, 4): `a`
is copied along the new column axis and `b` along a new leading axis. Every copy of an
element feeds the output, so that element's gradient is the *sum* of the gradients of
its copies. `unbroadcast` performs that sum: over the leading axes that were added, and
over the axes where the input had size 1. It is one shared helper for every op that
broadcasts, and it uses Tensor ops, so it is differentiable itself.
"""


# --8<-- [start:unbroadcast]
def unbroadcast(grad, shape):
    """Sum `grad` (the shape of a broadcast result) back down to `shape`."""
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1
    )
    if axes:
        grad = grad.sum(dim=axes)
    return grad.reshape(shape)
    # --8<-- [end:unbroadcast]
