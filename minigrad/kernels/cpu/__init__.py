"""Numba CPU kernels (@njit(parallel=True, cache=True)), same signatures as the reference.

Importing this package (which happens when a kernel is first needed, not at `import
minigrad`: Numba takes longer to import than all of minigrad) applies the Numba half of
the thread policy in `minigrad.threads`, which also says why.
"""

from minigrad import threads

threads.apply_numba()
