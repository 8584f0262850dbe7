"""Whole-array passes of the element-wise ops, as NumPy does them: the reference.

Some passes of a transformer's step touch every element of its largest activations without
a kernel of their own: the residual sum x + f(x), the copy a reshape makes of a transposed
view (the attention heads (B, H, T, d) put back side by side as (B, T, H d)), and, in the
backward pass, the gradients of the pieces of `qkv.split(...)` written into (or added onto)
their slices of one array. Each is one NumPy call here; the CPU versions
(kernels/cpu/elementwise.py) give the same results and cut large arrays over the cores.
Written with the operands' own methods and operators, so CuPy arrays (CUDA tensors) run
them on the GPU.
"""


def add(a, b):
    """a + b, with NumPy's broadcasting and type promotion."""
    return a + b


def reshape(x, shape):
    """x with a new shape: a view of x where the new shape can share its memory, else a
    copy in C order (NumPy's reshape)."""
    return x.reshape(shape)


def contiguous(x):
    """x in C order: x itself if it is already, else a copy (NumPy's ascontiguousarray)."""
    return x if x.flags.c_contiguous else x.copy(order="C")


def copy_into(out, x):
    """out[...] = x, in place (out: an array or a view of one, x of the same shape)."""
    out[...] = x


def add_into(out, x):
    """out += x, in place (out: an array or a view of one, x of the same shape)."""
    out += x
