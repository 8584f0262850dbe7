"""Test-session settings.

The tests multiply small matrices; on CI's 2 cores a multi-threaded BLAS only adds
thread hand-off (and, with other processes running, spinning threads that slow every
product down by 10-100x). One BLAS thread keeps the suite's time steady. This must be
set before NumPy is first imported, which is why it lives at the top of conftest.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
