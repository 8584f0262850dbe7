"""Launching a Numba CUDA kernel with little Python around it.

A GPU kernel that touches a few megabytes runs in tens of microseconds; the Python that
launches it can take longer. When a `@cuda.jit` kernel is called, Numba's dispatcher
first works out the type of every argument (to pick, or compile, the machine code for
those types), then converts each argument for the driver. Plain ints are typed by
Numba's C code, quickly; an array from CuPy is typed in Python, by building a Numba
device-array view of it from its `__cuda_array_interface__`. So the arguments that
cost are the arrays, and two things remove most of their cost:

- `minigrad.array_module.kernel_view` hands the kernel that Numba view, made once, and
  without waiting for the GPU (see its docstring);
- `Launcher` below types the arguments only on the first call for a dtype: it keeps
  the kernel *specialized* to those types (`dispatcher.specialize`), which launches
  without looking at the types again. The arrays must then always come with the same
  number of dimensions and the same C-contiguous layout, which the callers ensure
  (`ascontiguousarray`, and the fixed shapes they reshape to).

On Numba's simulator `specialize` returns the kernel itself, so the same code runs there.
"""


class Launcher:
    """`kernel`, compiled and specialized once per dtype of its data: calling
    `Launcher(kernel)(x.dtype, blocks, threads, *args)` launches
    `kernel[blocks, threads](*args)`, typing `args` only the first time for that dtype."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.by_dtype = {}

    def __call__(self, dtype, blocks, threads, *args):
        kernel = self.by_dtype.get(dtype)
        if kernel is None:  # the first call for this dtype: type the arguments, compile
            kernel = self.by_dtype[dtype] = self.kernel.specialize(*args)
        kernel[blocks, threads](*args)


def blocks(count, threads):
    """Blocks of `threads` threads that cover `count` threads (the last one partly idle)."""
    return (count + threads - 1) // threads
