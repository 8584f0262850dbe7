"""The CPU kernels, same signatures as the reference: Numba loops (@njit(cache=True), most
parallel=True) for attention, convolution, pooling, GELU, erf, layer norm and softmax,
with their shared pieces (gemm.py: the small matrix product; vecmath.py: exp, erf and the
finite check); and the large matrix product cut over the cores on helper threads (matmul.py).

Importing this package (which happens when a kernel is first needed, not at `import
minigrad`: Numba takes longer to import than all of minigrad) applies the Numba half of
the thread policy in `minigrad.threads`, which also says why.
"""

from minigrad import threads

threads.apply_numba()
