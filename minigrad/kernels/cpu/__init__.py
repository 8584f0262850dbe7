"""Numba CPU kernels (@njit(parallel=True, cache=True)), same signatures as the reference.

How many threads they run on, and with which Numba threading layer, is set once for the
whole package at `import minigrad`, by `minigrad.threads` (which also says why).
"""
