"""The CPU kernels, same signatures as the reference: Numba loops (@njit(cache=True)) for
attention, convolution, pooling, GELU, erf, layer norm, softmax, the Adam step, the
rotary embedding and the sum of a large array, with their shared pieces (gemm.py: the
small matrix product; vecmath.py: exp, erf and the finite check); the pool of threads
that shares a kernel's tasks out over the cores (workers.py); and the large matrix
product, cut over the same threads (matmul.py).
"""
