"""`copy_run(dst, src)`: dst[:] = src for two contiguous runs of numbers, inside a kernel,
as one call of the C library's memmove.

The convolution's kernels copy many short runs. Written as a loop, ``for t in range(n):
dst[t] = src[t]``, each copy is vectorised by LLVM where it is written: a vector body, a
remainder loop and a test that the two runs do not overlap, some hundred lines of
machine code per loop, compiled again in every kernel that calls the function holding
it; and compiling was most of a student's first run of the cnn model. The C library's
memmove is compiled already, for the processor it runs on: here a copy is one call. It
is not quite as fast on short runs (runs of about 1 KB took a few percent longer than
the loop: benchmarks/RESULTS.md), so the kernels use it where the loop's compile time
weighs more than that: `_stack_rows`, not `_shift_planes`' hottest copy.

memmove rather than memcpy: it is right even where the two runs overlap (the kernels'
never do, but nothing here checks that).
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def copy_run(typingctx, dst, src):
    """dst[:] = src[:len(dst)] for 1-d C-contiguous arrays of one dtype (a contiguous
    slice of a row is one): one call of memmove, after checking that src is long enough
    (memmove reads by pointer, past the end of a run that is too short)."""
    if not (
        isinstance(dst, types.Array)
        and isinstance(src, types.Array)
        and dst.ndim == src.ndim == 1
        and dst.layout == src.layout == "C"
        and dst.dtype == src.dtype
    ):
        return None  # Numba then says which argument types it was given
    sig = types.void(dst, src)

    def codegen(context, builder, signature, args):
        dst_array = context.make_array(signature.args[0])(context, builder, args[0])
        src_array = context.make_array(signature.args[1])(context, builder, args[1])
        n, available = dst_array.nitems, src_array.nitems
        with builder.if_then(builder.icmp_signed("<", available, n), likely=False):
            context.call_conv.return_user_exc(
                builder, ValueError, ("copy_run: src is shorter than dst",)
            )
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        cgutils.raw_memmove(builder, dst_array.data, src_array.data, n, itemsize)
        return context.get_dummy_value()

    return sig, codegen
