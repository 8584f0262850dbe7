"""2-d convolution as direct Numba CUDA kernels: the lesson's naive version.

The same three functions as the reference and as `minigrad.kernels.cuda.conv` (im2col
and cuBLAS), which is what the backends use on CUDA tensors. These kernels compute every
output from the windows directly; they are kept to read, to test, and to time against
the matrix-product version (`benchmarks/bench_cuda.py --impl both`): on an H100 they
reached about a hundredth of what one cuBLAS product does on a ResNet layer, which is
tens of TFLOP/s (benchmarks/RESULTS.md).

A GPU runs thousands of threads at once, grouped into blocks that share a small, fast
scratch memory (shared memory). Each kernel below says what one thread computes:

- forward: a block of TILE x TILE threads computes a TILE x TILE tile of one output
  plane (image n, channel o), one position per thread. The windows of neighbouring
  positions overlap, so the block first copies the patch of input they all read into
  shared memory (every thread copies a few numbers), waits for the others
  (`syncthreads`), and then each thread reads its kH x kW window from the fast copy.
  This is the *tiled convolution*: each input number is read from the slow global
  memory once per block instead of up to kH kW times.
- input gradient: one thread per input pixel gathers the outputs its windows produced.
  Gathering (each thread writes its own pixel) needs no atomic additions, unlike
  scattering each output back onto its window.
- weight gradient: one block per weight; its threads split the batch and positions,
  each keeps a partial sum, and the block adds the partial sums up in shared memory,
  halving the number of them at every step (a tree reduction).

The functions take and return device arrays, the storage of CUDA tensors (CuPy arrays):
a kernel reads and writes them where they are, in GPU memory (Numba takes a CuPy array
through `__cuda_array_interface__`, see `minigrad.array_module.kernel_view`), and the
outputs are allocated with CuPy. Nothing crosses to the host. Sizes and settings go to
the kernels as plain int arguments. Given NumPy arrays instead (the ``"cuda"`` backend's
demonstration on CPU tensors), Numba copies each one to the GPU and back around every
launch. On a machine without a GPU they run on Numba's simulator
(NUMBA_ENABLE_CUDASIM=1), where every thread is a Python thread: correct, and very slow.
"""

import math

import numba
import numpy as np
from numba import cuda, from_dtype

from minigrad._args import window_output_size as conv_output_size
from minigrad.array_module import array_module, kernel_view
from minigrad.kernels.cuda.conv import plus_bias

# Block sizes. On the simulator every thread is a Python thread, so there the blocks
# are made small (which also tests that a tile boundary falls inside small images).
SIMULATED = bool(numba.config.ENABLE_CUDASIM)
TILE = 4 if SIMULATED else 16  # the forward's output tile: TILE x TILE positions, a thread each
# threads per block of the 1-d kernels (on a GPU a multiple of 32)
THREADS = 8 if SIMULATED else 128
PATCH = 40  # side of the shared-memory copy of the input a tile reads (for TILE up to 16)
MAX_THREADS = 128  # size of the shared array of the weight gradient's reduction

_compiled = {}


def _kernels_for(dtype):
    """The three kernels for one dtype (compiled when first launched). Shared memory
    is declared with a fixed size and type, so each dtype gets its own kernels."""
    dtype = np.dtype(dtype)
    if dtype not in _compiled:
        _compiled[dtype] = _make_kernels(from_dtype(dtype))
    return _compiled[dtype]


def _make_kernels(numba_type):
    @cuda.jit
    def forward_tiled(x, w, y, sh, sw, ph, pw, dh, dw, groups, patch_h, patch_w):
        """y[n, o, oh, ow] for the tile x tile positions of this block; blockIdx.z = n O + o."""
        patch = cuda.shared.array((PATCH, PATCH), numba_type)
        tile = cuda.blockDim.x  # the block is tile x tile threads
        n_out, cg, kh, kw = w.shape
        h, width = x.shape[2], x.shape[3]
        n, o = cuda.blockIdx.z // n_out, cuda.blockIdx.z % n_out
        g = o // (n_out // groups)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        oh, ow = cuda.blockIdx.y * tile + ty, cuda.blockIdx.x * tile + tx
        # input row and column of the patch's corner (negative: in the zero padding)
        row0, col0 = cuda.blockIdx.y * tile * sh - ph, cuda.blockIdx.x * tile * sw - pw
        acc = numba_type(0)
        for c in range(cg):
            ci = g * cg + c
            # every thread copies the patch numbers (r, q) with r = ty, ty + tile, ...
            for r in range(ty, patch_h, tile):
                for q in range(tx, patch_w, tile):
                    ih, iw = row0 + r, col0 + q
                    inside = 0 <= ih < h and 0 <= iw < width
                    patch[r, q] = x[n, ci, ih, iw] if inside else numba_type(0)
            cuda.syncthreads()  # the whole patch is in place before anyone reads it
            if oh < y.shape[2] and ow < y.shape[3]:
                for i in range(kh):
                    for j in range(kw):
                        acc += w[o, c, i, j] * patch[ty * sh + i * dh, tx * sw + j * dw]
            cuda.syncthreads()  # everyone is done with it before the next channel's copy
        if oh < y.shape[2] and ow < y.shape[3]:
            y[n, o, oh, ow] = acc

    @cuda.jit
    def forward_global(x, w, y, sh, sw, ph, pw, dh, dw, groups):
        """The same without shared memory, for windows too large for the PATCH copy."""
        n_out, cg, kh, kw = w.shape
        h, width = x.shape[2], x.shape[3]
        n, o = cuda.blockIdx.z // n_out, cuda.blockIdx.z % n_out
        g = o // (n_out // groups)
        oh = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        ow = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if oh >= y.shape[2] or ow >= y.shape[3]:
            return
        acc = numba_type(0)
        for c in range(cg):
            for i in range(kh):
                ih = oh * sh - ph + i * dh
                if 0 <= ih < h:
                    for j in range(kw):
                        iw = ow * sw - pw + j * dw
                        if 0 <= iw < width:
                            acc += w[o, c, i, j] * x[n, g * cg + c, ih, iw]
        y[n, o, oh, ow] = acc

    @cuda.jit
    def input_grad(gy, w, gx, sh, sw, ph, pw, dh, dw, groups):
        """gx[n, c, ih, iw]: one thread per input pixel. Tap i of output row oh read
        padded row oh sh + i dh, so the pixel was read by tap i of row
        oh = (ih + ph - i dh) / sh, when that division is exact and oh is in range."""
        index = cuda.grid(1)
        n_img, c_in, h, width = gx.shape
        if index >= n_img * c_in * h * width:
            return
        n, rest = index // (c_in * h * width), index % (c_in * h * width)
        c, rest = rest // (h * width), rest % (h * width)
        ih, iw = rest // width, rest % width
        n_out, cg, kh, kw = w.shape
        og = n_out // groups
        g, cl = c // cg, c % cg
        acc = numba_type(0)
        for i in range(kh):
            th = ih + ph - i * dh
            if th < 0 or th % sh != 0 or th // sh >= gy.shape[2]:
                continue
            for j in range(kw):
                tw = iw + pw - j * dw
                if tw < 0 or tw % sw != 0 or tw // sw >= gy.shape[3]:
                    continue
                for o in range(g * og, (g + 1) * og):
                    acc += w[o, cl, i, j] * gy[n, o, th // sh, tw // sw]
        gx[n, c, ih, iw] = acc

    @cuda.jit
    def weight_grad(gy, x, gw, sh, sw, ph, pw, dh, dw, groups):
        """gw[o, c, i, j]: one block per weight. Each of its `threads` threads sums over
        every threads-th (image, position); then the block adds the partial sums in a tree."""
        partial = cuda.shared.array(MAX_THREADS, numba_type)
        threads = cuda.blockDim.x  # a power of 2, at most MAX_THREADS
        n_out, cg, kh, kw = gw.shape
        index = cuda.blockIdx.x
        o, c = index // (cg * kh * kw), (index // (kh * kw)) % cg
        i, j = (index // kw) % kh, index % kw
        ci = (o // (n_out // groups)) * cg + c
        n_img, _, ho, wo = gy.shape
        h, width = x.shape[2], x.shape[3]
        t = cuda.threadIdx.x
        acc = numba_type(0)
        for p in range(t, n_img * ho * wo, threads):
            n, oh, ow = p // (ho * wo), (p // wo) % ho, p % wo
            ih, iw = oh * sh - ph + i * dh, ow * sw - pw + j * dw
            if 0 <= ih < h and 0 <= iw < width:
                acc += gy[n, o, oh, ow] * x[n, ci, ih, iw]
        partial[t] = acc
        cuda.syncthreads()
        step = threads // 2
        while step > 0:  # threads -> threads/2 -> ... -> 1 partial sums
            if t < step:
                partial[t] += partial[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            gw[o, c, i, j] = partial[0]

    return forward_tiled, forward_global, input_grad, weight_grad


def _blocks(count, per_block):
    return max(1, math.ceil(count / per_block))


def conv2d_forward(x, w, stride, padding, dilation, groups, bias=None):
    """y = conv2d(x, w) + bias on the GPU: x and w are device arrays (CuPy's), and so is y,
    allocated here and filled by the kernel, one thread per output; the bias (O,) is
    added after it, by the array library."""
    xp = array_module(x)  # cupy for device arrays (numpy for host ones: see `kernel_view`)
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, _, h, width = x.shape
    o, _, kh, kw = w.shape
    ho, wo = conv_output_size(h, kh, sh, ph, dh), conv_output_size(width, kw, sw, pw, dw)
    if x.size == 0 or w.size == 0:  # an empty batch: no kernel to launch
        return plus_bias(xp.zeros((n, o, ho, wo), dtype=x.dtype), bias)
    forward_tiled, forward_global, _, _ = _kernels_for(x.dtype)
    x, w = xp.ascontiguousarray(x), xp.ascontiguousarray(w)  # a copy on the device, if any
    y = xp.empty((n, o, ho, wo), dtype=x.dtype)
    grid = (_blocks(wo, TILE), _blocks(ho, TILE), n * o)  # (tile columns, tile rows, planes)
    # the input a tile's windows span: (TILE - 1) strides plus one dilated kernel
    patch_h, patch_w = (TILE - 1) * sh + (kh - 1) * dh + 1, (TILE - 1) * sw + (kw - 1) * dw + 1
    args = (kernel_view(x), kernel_view(w), kernel_view(y), sh, sw, ph, pw, dh, dw, groups)
    if patch_h <= PATCH and patch_w <= PATCH:
        forward_tiled[grid, (TILE, TILE)](*args, patch_h, patch_w)
    else:
        forward_global[grid, (TILE, TILE)](*args)
    return plus_bias(y, bias)


def conv2d_backward_input(grad_y, w, x_shape, stride, padding, dilation, groups):
    """dL/dx (= conv_transpose2d of grad_y), of shape x_shape: one thread per pixel."""
    xp = array_module(grad_y)
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    if grad_y.size == 0 or w.size == 0:
        return xp.zeros(x_shape, dtype=grad_y.dtype)
    input_grad = _kernels_for(grad_y.dtype)[2]
    grad_y, w = xp.ascontiguousarray(grad_y), xp.ascontiguousarray(w)
    grad_x = xp.empty(tuple(x_shape), dtype=grad_y.dtype)  # every pixel is written by its thread
    input_grad[_blocks(math.prod(x_shape), THREADS), THREADS](
        kernel_view(grad_y), kernel_view(w), kernel_view(grad_x), sh, sw, ph, pw, dh, dw, groups
    )
    return grad_x


def conv2d_backward_weight(grad_y, x, w_shape, stride, padding, dilation, groups):
    """dL/dw, of shape w_shape: one block per weight, a tree reduction in each."""
    xp = array_module(grad_y)
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    if grad_y.size == 0 or x.size == 0:
        return xp.zeros(w_shape, dtype=grad_y.dtype)
    weight_grad = _kernels_for(grad_y.dtype)[3]
    grad_y, x = xp.ascontiguousarray(grad_y), xp.ascontiguousarray(x)
    grad_w = xp.empty(tuple(w_shape), dtype=grad_y.dtype)  # every weight is written by its block
    weight_grad[math.prod(w_shape), THREADS](
        kernel_view(grad_y), kernel_view(x), kernel_view(grad_w), sh, sw, ph, pw, dh, dw, groups
    )
    return grad_w
