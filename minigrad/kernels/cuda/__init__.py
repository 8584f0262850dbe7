"""Numba CUDA kernels (@cuda.jit), same signatures as the reference: they take NumPy
arrays, copy them to the device, launch, and copy the result back (resident GPU tensors
are a later step). Tested on Numba's simulator (NUMBA_ENABLE_CUDASIM=1) in CI."""
