"""Numba CUDA kernels (@cuda.jit), same signatures as the reference: they take and return
device arrays, the storage of CUDA tensors (CuPy arrays, handed to a kernel in place by
`minigrad.array_module.kernel_view`); outputs are allocated with CuPy. Tested on Numba's
simulator (NUMBA_ENABLE_CUDASIM=1) with minigrad's simulated GPU in CI (tests/cuda)."""
