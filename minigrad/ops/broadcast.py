"""Broadcasting: the check every broadcasting op makes, and broadcasting backwards.

When `a` of shape (3, 1) meets `b` of shape (4,), NumPy stretches both to (3, 4): `a`
is copied along the new column axis and `b` along a new leading axis. Every copy of an
element feeds the output, so that element's gradient is the *sum* of the gradients of
its copies. `unbroadcast` performs that sum: over the leading axes that were added, and
over the axes where the input had size 1. It is one shared helper for every op that
broadcasts, and it uses Tensor ops, so it is differentiable itself.
"""

import numpy as np


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


def broadcastable(a, b):
    """Do shapes a and b broadcast together? (The quick test every binary op makes.)"""
    for x, y in zip(a[::-1], b[::-1]):
        if x != y and x != 1 and y != 1:
            return False
    return True


def check_broadcast(op, *shapes, names=("a", "b", "c")):
    """Raise a RuntimeError naming `op` and the shapes unless they broadcast together
    (trailing dims equal, or one of them 1), in PyTorch's words. NumPy's own message
    ("operands could not be broadcast together") would name no op."""
    ndim = max(len(s) for s in shapes)
    for d in range(1, ndim + 1):  # from the last dim backwards, as broadcasting aligns them
        sizes = [(s[-d], name) for s, name in zip(shapes, names) if len(s) >= d and s[-d] != 1]
        for size, name in sizes[1:]:
            if size != sizes[0][0]:
                given = ", ".join(f"{n} {tuple(s)}" for s, n in zip(shapes, names))
                raise RuntimeError(
                    f"{op}: the size of tensor {sizes[0][1]} ({sizes[0][0]}) must match the size "
                    f"of tensor {name} ({size}) at non-singleton dimension {ndim - d} (shapes "
                    f"{given} do not "
                    "broadcast)"
                )


def check_broadcast_to(op, shape, target):
    """Raise a RuntimeError naming `op` unless `shape` broadcasts to exactly `target` (an
    in-place op or a copy writes into a tensor whose shape cannot change)."""
    check_broadcast(op, shape, target, names=("src", "self"))
    if len(shape) > len(target) or any(
        s != 1 and s != t for s, t in zip(shape[::-1], target[::-1])
    ):
        raise RuntimeError(
            f"{op}: output with shape {tuple(target)} doesn't match the broadcast shape "
            f"{tuple(np.broadcast_shapes(shape, target))}"
        )
