"""2-d convolution on the GPU: im2col in a Numba CUDA kernel, the product on cuBLAS.

The reference (`minigrad/kernels/reference/conv.py`) turns a convolution into one matrix
product by copying every window into a column. On a GPU the same plan is the fast one:

    forward         cols = im2col(x)                   a kernel, one thread per entry
                    y    = w_rows @ cols               cuBLAS, one product per group
    input gradient  dcols = w_rows^T @ dy              cuBLAS
                    dx    = col2im(dcols)              a kernel, one thread per pixel
    weight gradient dw^T  = cols @ dy^T                cuBLAS (cols made again by im2col)

The columns are laid out as (C, kH, kW, N, H_out, W_out): row r = (c, i, j) is one tap of
one input channel, column q = (n, oh, ow) one output position of one image. Grouped as
(G, C/G kH kW, N H_out W_out) they are G matrices, one per group (depthwise: G = C),
and every product below is one call of CuPy's `matmul`, batched over the groups.

Why im2col + cuBLAS rather than a tiled implicit-GEMM kernel (a block computing a tile
of outputs from shared-memory tiles of the windows and the weights, each thread a small
register block): the product is where the arithmetic is, and cuBLAS's float32 GEMM
reaches tens of TFLOP/s on an H100 (tensor cores, tiles tuned per GPU), while the direct
Numba kernels reached about a hundredth of that on the ResNet layer (benchmarks/RESULTS.md;
`conv_direct.py`, kept as the naive version). A hand-written tiled kernel in Numba, with
no tensor cores, would stay well below cuBLAS. The price is memory: the columns are
kH kW times the size of the input (75 MB in float32 for the ResNet layer of
`bench_cuda.py`, 32 x 64 x 32 x 32 with 3x3 windows), written once and read once, which
at the H100's 3 TB/s is tens of microseconds. Whether this wins on every case (the
depthwise one has little arithmetic to speed up) is to be confirmed on a GPU with
`benchmarks/bench_cuda.py --impl both`.

Each call launches one Numba kernel (im2col or col2im) and one product, plus CuPy's copies
that reorder dy or y between (N, O, ...) and (O, N, ...) order. The arrays in and out are
device arrays (CuPy's): nothing crosses to the host. Given NumPy arrays (the ``"cuda"``
backend's demonstration on CPU tensors) the kernels copy them to the GPU and back and the
products run in NumPy; on Numba's simulator every GPU thread is a Python thread.
"""

import numba
from numba import cuda

from minigrad._args import window_output_size as conv_output_size
from minigrad.array_module import array_module, kernel_view
from minigrad.kernels.cuda.launch import Launcher, blocks

# threads per block: on the simulator (a Python thread each) few, so that the tests' tiny
# shapes end inside a block; on a GPU a multiple of the 32-thread warp
SIMULATED = bool(numba.config.ENABLE_CUDASIM)
THREADS = 8 if SIMULATED else 256


# --8<-- [start:im2col]
@cuda.jit
def _im2col_kernel(x, cols, sh, sw, ph, pw, dh, dw):
    """cols[c, i, j, n, oh, ow] = x[n, c, oh sh - ph + i dh, ow sw - pw + j dw], or 0 in
    the padding. Thread t writes the t-th entry of cols: ow varies fastest, so neighbouring
    threads write neighbouring addresses and (at stride 1) read neighbouring pixels, which
    the GPU serves as one wide memory transaction (a coalesced access)."""
    t = cuda.grid(1)
    if t >= cols.size:
        return  # the spare threads of the last block
    _, kh, kw, n_img, ho, wo = cols.shape
    h, w = x.shape[2], x.shape[3]
    ow, oh, n = t % wo, (t // wo) % ho, (t // (wo * ho)) % n_img
    rest = t // (wo * ho * n_img)  # = (c kH + i) kW + j
    j, i, c = rest % kw, (rest // kw) % kh, rest // (kw * kh)
    ih, iw = oh * sh - ph + i * dh, ow * sw - pw + j * dw
    if 0 <= ih < h and 0 <= iw < w:
        cols[c, i, j, n, oh, ow] = x[n, c, ih, iw]
    else:
        cols[c, i, j, n, oh, ow] = 0
    # --8<-- [end:im2col]


# --8<-- [start:col2im]
@cuda.jit
def _col2im_kernel(cols, x, sh, sw, ph, pw, dh, dw):
    """x[n, c, ih, iw] = the sum of the column entries that were read from pixel (ih, iw):
    thread t sums the t-th pixel, so each pixel is written once, by one thread (a gather:
    no atomic additions, no zeroing first).

    Tap i of output row oh read row oh sh - ph + i dh, so pixel row ih was read by tap i
    of row oh = (ih + ph - i dh) / sh when that division is exact and oh is in range
    (the same for columns)."""
    t = cuda.grid(1)
    if t >= x.size:
        return
    n_img, c_in, h, w = x.shape
    _, kh, kw, _, ho, wo = cols.shape
    iw, ih, c, n = t % w, (t // w) % h, (t // (w * h)) % c_in, t // (w * h * c_in)
    total = 0.0  # summed in float64, rounded once when stored
    for i in range(kh):
        th = ih + ph - i * dh
        if th < 0 or th % sh != 0 or th // sh >= ho:
            continue
        for j in range(kw):
            tw = iw + pw - j * dw
            if tw >= 0 and tw % sw == 0 and tw // sw < wo:
                total += cols[c, i, j, n, th // sh, tw // sw]
    x[n, c, ih, iw] = total
    # --8<-- [end:col2im]


_im2col = Launcher(_im2col_kernel)
_col2im = Launcher(_col2im_kernel)


def im2col(x, kernel_size, out_size, stride, padding, dilation):
    """The columns of x, (C, kH, kW, N, H_out, W_out), made on the device by one launch."""
    xp = array_module(x)
    x = xp.ascontiguousarray(x)  # the kernel is compiled for C-contiguous arrays
    cols = xp.empty((x.shape[1], *kernel_size, x.shape[0], *out_size), dtype=x.dtype)
    if cols.size:  # a launch of zero blocks is an error
        _im2col(
            x.dtype,
            blocks(cols.size, THREADS),
            THREADS,
            kernel_view(x),
            kernel_view(cols),
            *stride,
            *padding,
            *dilation,
        )
    return cols


def col2im(cols, x_shape, stride, padding, dilation):
    """The adjoint of im2col: each pixel of x_shape gathers the column entries read from it."""
    xp = array_module(cols)
    x = xp.empty(tuple(x_shape), dtype=cols.dtype)  # every pixel is written by its thread
    if x.size:
        _col2im(
            cols.dtype,
            blocks(x.size, THREADS),
            THREADS,
            kernel_view(cols),
            kernel_view(x),
            *stride,
            *padding,
            *dilation,
        )
    return x


def _output_size(x_shape, w_shape, stride, padding, dilation):
    (h, w), (kh, kw) = x_shape[2:], w_shape[2:]
    return (
        conv_output_size(h, kh, stride[0], padding[0], dilation[0]),
        conv_output_size(w, kw, stride[1], padding[1], dilation[1]),
    )


def _by_group(grad_y, groups):
    """dy (N, O, H_out, W_out) reordered to (G, O/G, N H_out W_out): the rows of the
    products below (one copy on the device)."""
    xp = array_module(grad_y)
    n, o, ho, wo = grad_y.shape
    per_group = grad_y.reshape(n, groups, o // groups, ho * wo).transpose(1, 2, 0, 3)
    return xp.ascontiguousarray(per_group).reshape(groups, o // groups, n * ho * wo)


# --8<-- [start:functions]
def conv2d_forward(x, w, stride, padding, dilation, groups, bias=None):
    """y = conv2d(x, w) + bias for device arrays: x (N, C, H, W), w (O, C/G, kH, kW),
    bias (O,) or None -> y (N, O, H_out, W_out), a device array:
    `y[n, o] = w_rows[o] @ cols[g(o)][:, n] + bias[o]`."""
    xp = array_module(x)
    n, o = x.shape[0], w.shape[0]
    out_size = _output_size(x.shape, w.shape, stride, padding, dilation)
    if x.size == 0 or w.size == 0:  # an empty batch: no kernel to launch
        return plus_bias(xp.zeros((n, o, *out_size), dtype=x.dtype), bias)
    g, k = groups, w.shape[1] * w.shape[2] * w.shape[3]  # K = C/G kH kW: one window
    cols = im2col(x, w.shape[2:], out_size, stride, padding, dilation).reshape(g, k, -1)
    w_rows = xp.ascontiguousarray(w).reshape(g, o // g, k)  # (G, O/G, K)
    y = w_rows @ cols  # (G, O/G, N H_out W_out): one cuBLAS call, batched over the groups
    y = y.reshape(o, n, *out_size).transpose(1, 0, 2, 3)  # back to image-first order
    return plus_bias(xp.ascontiguousarray(y), bias)


def plus_bias(y, bias):
    """y (N, O, H, W), with bias[o] added to every position of channel o (in place)."""
    if bias is not None and y.size:
        y += bias.reshape(1, -1, 1, 1)
    return y


def conv2d_backward_input(grad_y, w, x_shape, stride, padding, dilation, groups):
    """dL/dx, of shape x_shape (= conv_transpose2d of grad_y): dcols = w_rows^T @ dy on
    cuBLAS, then col2im gathers each pixel's share."""
    xp = array_module(grad_y)
    o, _, kh, kw = w.shape
    if grad_y.size == 0 or w.size == 0:
        return xp.zeros(tuple(x_shape), dtype=grad_y.dtype)
    g, k = groups, w.shape[1] * kh * kw
    w_cols = xp.ascontiguousarray(w.reshape(g, o // g, k).transpose(0, 2, 1))  # (G, K, O/G)
    grad_cols = w_cols @ _by_group(grad_y, g)  # (G, K, N H_out W_out)
    n, ho, wo = grad_y.shape[0], grad_y.shape[2], grad_y.shape[3]
    grad_cols = grad_cols.reshape(x_shape[1], kh, kw, n, ho, wo)  # the columns' layout
    return col2im(grad_cols, x_shape, stride, padding, dilation)


def conv2d_backward_weight(grad_y, x, w_shape, stride, padding, dilation, groups):
    """dL/dw, of shape w_shape: dw_rows = dy @ cols^T on cuBLAS, the sum over every image
    and position done by the product itself. The windows are counted from grad_y's size,
    which may be smaller than x allows (a conv_transpose2d with output_padding)."""
    xp = array_module(grad_y)
    if grad_y.size == 0 or x.size == 0:
        return xp.zeros(tuple(w_shape), dtype=grad_y.dtype)
    g, k = groups, w_shape[1] * w_shape[2] * w_shape[3]
    cols = im2col(x, w_shape[2:], grad_y.shape[2:], stride, padding, dilation).reshape(g, k, -1)
    n, o, ho, wo = grad_y.shape
    # dw^T = cols @ dy^T, both operands C-contiguous as cuBLAS takes them: dy reordered
    # (one copy) to (G, N H_out W_out, O/G), so that matmul does not copy cols to transpose it
    dy_t = grad_y.reshape(n, g, o // g, ho * wo).transpose(1, 0, 3, 2)
    dy_t = xp.ascontiguousarray(dy_t).reshape(g, n * ho * wo, o // g)
    grad_w_t = cols @ dy_t  # (G, K, O/G)
    return xp.ascontiguousarray(grad_w_t.transpose(0, 2, 1)).reshape(tuple(w_shape))
    # --8<-- [end:functions]


def conv2d_backward_bias(grad_y):
    """dL/db (O,): grad_y summed over the batch and the positions, by the array library
    (CuPy's reduction for a device array)."""
    return grad_y.sum(axis=(0, 2, 3))
