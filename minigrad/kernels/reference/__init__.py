"""Readable NumPy kernels: the reference every other backend is tested against."""
