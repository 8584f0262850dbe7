"""The sum of a tensor's elements, as NumPy computes it: the reference.

`x.sum()` of a large activation (a loss summed over every output, the benchmarks' `.sum()`)
is one pass over the whole array. NumPy sums pairwise in the array's own dtype; the CPU
version (kernels/cpu/reduce.py) sums in float64 SIMD partial sums, a few times faster, and
agrees with this one to the rounding of the dtype. Written with the array's own method,
so a CuPy array (a CUDA tensor) is summed on the GPU.
"""


def sum(x, axis=None, keepdims=False):  # noqa: A001  (the op it computes)
    """The sum of x over `axis` (every element for None), with NumPy's dtypes and shapes:
    a scalar of x's dtype, or with keepdims an array whose reduced axes have size 1."""
    return x.sum(axis=axis, keepdims=keepdims)
