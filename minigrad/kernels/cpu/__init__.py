"""Numba CPU kernels (@njit(parallel=True, cache=True)), same signatures as the reference.

Numba's default OpenMP threading layer and OpenBLAS each start a pool of threads; on a
2-core machine a Numba kernel followed by a NumPy matmul then ran 5x slower while the two
pools fought for the cores. The `workqueue` layer does not keep threads spinning, so
it is chosen here unless the user picked a layer with NUMBA_THREADING_LAYER.
"""

import os

import numba

if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"
