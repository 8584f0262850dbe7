"""2-d convolution as Numba CPU kernels: the same three functions as the reference.

Two designs, and each call picks the faster for its shapes (`_use_gemm`):

1. **im2col in tiles + a register-blocked matrix product** (4 or more output channels
   per group). The reference copies *every* window into one huge matrix (for a ResNet
   layer of 32 images, 75 MB) and then multiplies. Here each thread copies the windows
   of a tile of up to 128 output positions only, so the copy stays in the core's
   cache, and multiplies it straight away. The product is `_matmul_abt`, a plain loop
   whose innermost body updates a 4 x 4 block of outputs from four rows of each
   operand: every value loaded is used four times, and LLVM turns the loop into SIMD
   code (the `fastmath` flags let it reorder the sums). It runs faster than NumPy's
   own BLAS on this machine (NumPy's OpenBLAS is pinned to AVX2; Numba compiles for
   the host, AVX-512 here).

2. **A direct loop** (depthwise and few-channel convolutions). With one or two
   channels per group a window holds only kH kW numbers, too few for a matrix product
   to pay. The direct loop adds w[o, c, i, j] times the input plane, shifted by the
   tap, to the output plane: with stride 1, one long contiguous loop per tap.

The backward pass reuses them: with stride 1 the input gradient is a convolution of
grad_y with the kernel turned by 180 degrees (`conv2d_backward_input`), and the weight
gradient is one matrix product per tap of grad_y and the shifted input, without im2col
(`_weight_grad_wide`). Larger strides take a tiled col2im and a tiled im2col.

Why slices and rows: an innermost loop whose index is computed from several loop
variables (x[n, c, oh * sh + i * dh, ow * sw + j * dw]), or starts at a run-time
offset, is not vectorised by LLVM, and runs ~10x slower than a loop from 0 over a
contiguous row sliced outside it.

Every kernel is ``@njit(parallel=True, cache=True)``: `prange` splits the outermost
loop over independent pieces of work (images, channels, tiles, taps) between the
threads; `cache=True` keeps the machine code on disk, so that a new process loads all
of them in about 0.2 s instead of compiling them again (15-30 s, once).
"""

import numba
import numpy as np
from numba import prange

from minigrad._args import window_output_size as conv_output_size
from minigrad.kernels.jit import njit

# reassoc lets LLVM split a sum into several SIMD partial sums; contract fuses a * b + c
# into one FMA. Neither lets NaN or inf go missing (as full fastmath would).
FAST = {"reassoc", "contract"}
TILE = 128  # output positions per im2col tile: 128 x (C kH kW) numbers stay in L2
KC = 1024  # positions per chunk of the weight gradient's product


@njit(cache=True)
def _store4(out, r, c, v0, v1, v2, v3, accumulate):
    """out[r, c:c + 4] = (or +=) the four values."""
    if accumulate:
        out[r, c] += v0
        out[r, c + 1] += v1
        out[r, c + 2] += v2
        out[r, c + 3] += v3
    else:
        out[r, c] = v0
        out[r, c + 1] = v1
        out[r, c + 2] = v2
        out[r, c + 3] = v3


# --8<-- [start:matmul_abt]
@njit(cache=True, fastmath=FAST)
def _matmul_abt(a, a0, m, ta, b, b0, n, tb, k, out, r0, c0, accumulate):
    """out[r0 + i, c0 + j] (+)= sum_t a[a0 + i, ta + t] * b[b0 + j, tb + t] for i < m, j < n,
    t < k: a block of a @ b.T, from any rows and columns of the two.

    Both operands are read along rows (a @ b.T), so the innermost loop walks two
    contiguous rows. Each step of it loads 4 numbers from a and 4 from b and makes
    16 products: 16 running sums for a 4 x 4 block of `out`. With 16 sums in flight
    each number loaded is used four times and the FMA units never wait on each other.

    The rows are sliced first and the loop counts from 0: an index that starts
    at a value Numba cannot see might be negative (NumPy's "count from the end"), and
    the check for that stops LLVM vectorising the loop (10x slower).
    """
    zero = out.dtype.type(0)
    for i in range(0, m - 3, 4):
        x0, x1, x2, x3 = (
            a[a0 + i, ta : ta + k],
            a[a0 + i + 1, ta : ta + k],
            a[a0 + i + 2, ta : ta + k],
            a[a0 + i + 3, ta : ta + k],
        )
        for j in range(0, n - 3, 4):
            y0, y1, y2, y3 = (
                b[b0 + j, tb : tb + k],
                b[b0 + j + 1, tb : tb + k],
                b[b0 + j + 2, tb : tb + k],
                b[b0 + j + 3, tb : tb + k],
            )
            s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = zero
            s20 = s21 = s22 = s23 = s30 = s31 = s32 = s33 = zero
            for t in range(k):
                s00 += x0[t] * y0[t]
                s01 += x0[t] * y1[t]
                s02 += x0[t] * y2[t]
                s03 += x0[t] * y3[t]
                s10 += x1[t] * y0[t]
                s11 += x1[t] * y1[t]
                s12 += x1[t] * y2[t]
                s13 += x1[t] * y3[t]
                s20 += x2[t] * y0[t]
                s21 += x2[t] * y1[t]
                s22 += x2[t] * y2[t]
                s23 += x2[t] * y3[t]
                s30 += x3[t] * y0[t]
                s31 += x3[t] * y1[t]
                s32 += x3[t] * y2[t]
                s33 += x3[t] * y3[t]
            r, c = r0 + i, c0 + j
            _store4(out, r, c, s00, s01, s02, s03, accumulate)
            _store4(out, r + 1, c, s10, s11, s12, s13, accumulate)
            _store4(out, r + 2, c, s20, s21, s22, s23, accumulate)
            _store4(out, r + 3, c, s30, s31, s32, s33, accumulate)
    # the edges: rows of a past the last multiple of 4, then columns of b past it
    m4, n4 = m - m % 4, n - n % 4
    for i in range(m):
        for j in range(n4 if i < m4 else 0, n):
            x, y = a[a0 + i, ta : ta + k], b[b0 + j, tb : tb + k]
            s = zero
            for t in range(k):
                s += x[t] * y[t]
            if accumulate:
                out[r0 + i, c0 + j] += s
            else:
                out[r0 + i, c0 + j] = s
    # --8<-- [end:matmul_abt]


# ---- layout helpers ----------------------------------------------------------------
@njit(parallel=True, cache=True)
def _to_padded_nhwc(x, top, bottom, left, right):
    """x (N, C, H, W) -> (N, H + top + bottom, W + left + right, C) with zeros around it.

    Channels last puts the C numbers of one pixel next to each other, so that im2col
    copies contiguous runs of C. A negative amount crops instead of padding.
    """
    n, c, h, w = x.shape
    hp, wp = h + top + bottom, w + left + right
    out = np.zeros((n, hp, wp, c), dtype=x.dtype)
    q0, q1 = max(0, -left), min(w, wp - left)  # the columns of x that land inside
    for task in prange(n * hp):
        b, r = task // hp, task % hp  # image b, row r of the result
        if r - top < 0 or r - top >= h:
            continue
        src = x[b, :, r - top, q0:q1]  # (C, columns): one row of every channel
        dst = out[b, r, q0 + left : q1 + left]  # (columns, C): the same numbers, transposed
        # 8 channels at a time: rows of different channels are often a multiple of 4 KiB
        # apart, and reading all C of them at once would evict each other from the cache
        for c0 in range(0, c, 8):
            for q in range(q1 - q0):
                for ch in range(c0, min(c0 + 8, c)):
                    dst[q, ch] = src[ch, q]
    return out


# ---- design 1: im2col tiles and the 4 x 4 matrix product ------------------------------
# --8<-- [start:forward_gemm]
@njit(parallel=True, cache=True)
def _forward_gemm(xp, w_rows, y, ho, wo, sh, sw, dh, dw, kh, kw, groups, tile):
    """y[n, o, p] = sum_r w_rows[o, r] * cols[p, r], one tile of `tile` positions p at a time.

    xp: the padded input, channels last, each row flat: (N, Hp, Wp C); w_rows:
    (O, kH kW C/G) with r = (i, j, c), the order in which a window of xp is contiguous;
    y: (N, O, Ho Wo).
    """
    n_img = xp.shape[0]
    cg, og = w_rows.shape[1] // (kh * kw), w_rows.shape[0] // groups
    c_in, k = cg * groups, w_rows.shape[1]
    positions = ho * wo
    n_tiles = (positions + tile - 1) // tile
    for task in prange(n_img * groups * n_tiles):  # (image, group, tile): independent outputs
        b = task // (groups * n_tiles)
        g = (task // n_tiles) % groups
        p0 = (task % n_tiles) * tile
        p1 = min(p0 + tile, positions)
        cols = np.empty((tile, k), dtype=xp.dtype)  # this tile's windows, one per row
        for p in range(p0, p1):
            oh, ow = p // wo, p % wo
            row = cols[p - p0]
            for i in range(kh):
                src = xp[b, oh * sh + i * dh]  # one padded input row, pixel after pixel
                if groups == 1 and dw == 1:
                    # the kW pixels of the window's row i, all their channels: one run
                    start = ow * sw * c_in
                    run, part = src[start : start + kw * c_in], row[i * kw * c_in : (i + 1) * kw * c_in]
                    for t in range(kw * c_in):
                        part[t] = run[t]
                else:
                    for j in range(kw):  # the C/G channels of one pixel: a run each
                        start = (ow * sw + j * dw) * c_in + g * cg
                        run, part = src[start : start + cg], row[(i * kw + j) * cg : (i * kw + j + 1) * cg]
                        for t in range(cg):
                            part[t] = run[t]
        # y[b, this group's channels, p0:p1] = w_rows[group] @ cols^T
        _matmul_abt(w_rows, g * og, og, 0, cols, 0, p1 - p0, 0, k, y[b], g * og, p0, False)
        # --8<-- [end:forward_gemm]


# --8<-- [start:input_grad_gemm]
@njit(parallel=True, cache=True)
def _input_grad_gemm(gy_t, w_t, gxp, sh, sw, dh, dw, kh, kw, wo, tile):
    """dL/dxp += col2im(dL/dcols), dL/dcols[p, r] = sum_o gy_t[p, o] * w_t[r, o], by tiles.

    gy_t: grad_y channels last, per group (N, G, Ho Wo, O/G); w_t: (G kH kW C/G, O/G)
    with rows r = (g, i, j, c); gxp: the padded gradient, channels last (N, Hp, Wp, C),
    zeros on entry. Windows of one image overlap, so the threads split the images.
    """
    n_img, groups, positions, og = gy_t.shape
    cg = gxp.shape[3] // groups
    k = kh * kw * cg
    for b in prange(n_img):
        grad_cols = np.empty((tile, k), dtype=gxp.dtype)
        for g in range(groups):
            for p0 in range(0, positions, tile):
                p1 = min(p0 + tile, positions)
                _matmul_abt(gy_t[b, g], p0, p1 - p0, 0, w_t, g * k, k, 0, og, grad_cols, 0, 0, False)
                for p in range(p0, p1):  # col2im: add each window back where it was read
                    oh, ow = p // wo, p % wo
                    row = grad_cols[p - p0]
                    for i in range(kh):
                        for j in range(kw):
                            pixel = gxp[b, oh * sh + i * dh, ow * sw + j * dw, g * cg : (g + 1) * cg]
                            part = row[(i * kw + j) * cg : (i * kw + j + 1) * cg]
                            for c in range(cg):
                                pixel[c] += part[c]
                            # --8<-- [end:input_grad_gemm]


# --8<-- [start:weight_grad]
@njit(parallel=True, cache=True)
def _weight_grad(gy, xp, partial, ho, wo, sh, sw, dh, dw, kh, kw, groups, c_block):
    """partial[s, o, r] = sum over the images of share s, and the positions p, of
    gy[n, o, p] * cols[n, r, p]; grad_w is the sum of the shares.

    gy: (N, O, Ho Wo); xp: the padded input (N, C, Hp, Wp); partial: (S, O, C/G kH kW)
    with r = (c, i, j), zeros on entry. Both operands are read along the positions p:
    a row of gy is contiguous, and so is each row of cols, copied from input rows.
    A task is (share of the images, group, block of `c_block` input channels): the
    numbers of `partial` it adds to are its own, so no two threads write the same one.
    """
    n_img, c_in = xp.shape[0], xp.shape[1]
    shares = partial.shape[0]
    cg, og = c_in // groups, gy.shape[1] // groups
    kk = kh * kw
    positions = ho * wo
    n_cblocks = (cg + c_block - 1) // c_block
    per_share = (n_img + shares - 1) // shares
    for task in prange(shares * groups * n_cblocks):
        share = task // (groups * n_cblocks)
        g = (task // n_cblocks) % groups
        c0 = (task % n_cblocks) * c_block
        c1 = min(c0 + c_block, cg)
        cols = np.empty(((c1 - c0) * kk, positions), dtype=xp.dtype)
        for b in range(share * per_share, min((share + 1) * per_share, n_img)):
            for c in range(c0, c1):
                plane = xp[b, g * cg + c]
                for i in range(kh):
                    for j in range(kw):
                        r = (c - c0) * kk + i * kw + j
                        for oh in range(ho):
                            src = plane[oh * sh + i * dh]
                            for q in range(wo):
                                cols[r, oh * wo + q] = src[j * dw + q * sw]
            # partial[share, this group's o, columns of c0:c1] += gy[b, group] @ cols^T
            _matmul_abt(
                gy[b], g * og, og, 0, cols, 0, (c1 - c0) * kk, 0, positions, partial[share], g * og, c0 * kk, True
            )
            # --8<-- [end:weight_grad]


# --8<-- [start:weight_grad_wide]
@njit(parallel=True, cache=True)
def _weight_grad_wide(gy_all, x_all, partial, kh, kw, dh, dw, wp, groups, length):
    """The weight gradient of a stride-1 convolution, without im2col.

    grad_w[o, c, i, j] = sum over images and positions of gy[n, o, oh, ow] * xp[n, c, oh + i dh, ow + j dw].
    Lay gy out like the padded input, in planes of Hp x Wp with zeros past its Ho x Wo,
    and put the planes of all the images one after the other: gy_all (O, N Hp Wp) and
    x_all (C, N Hp Wp). Position q of gy_all then meets number q + (i dh Wp + j dw) of
    x_all, for every q at once (a q in the zeros may meet the next image: times zero).
    So for each tap (i, j) the gradient is one long matrix product,
    gy_all @ (x_all shifted by the tap)^T, of contiguous rows: no window is copied.

    partial: (S, kH, kW, O, C/G), zeros on entry; a task is (share of the positions,
    group, tap) and owns partial[share, i, j, group]; the caller sums the shares. The
    positions go in chunks of KC, so that the rows being multiplied stay in cache.
    """
    shares, o_out = partial.shape[0], partial.shape[3]
    cg, og = x_all.shape[0] // groups, o_out // groups
    per_share = (length + shares - 1) // shares
    for task in prange(shares * groups * kh * kw):
        share = task // (groups * kh * kw)
        g = (task // (kh * kw)) % groups
        i, j = (task // kw) % kh, task % kw
        shift = i * dh * wp + j * dw
        out = partial[share, i, j]
        for t0 in range(share * per_share, min((share + 1) * per_share, length), KC):
            k = min(KC, length - t0, (share + 1) * per_share - t0)
            _matmul_abt(gy_all, g * og, og, t0, x_all, g * cg, cg, t0 + shift, k, out, g * og, 0, True)
            # --8<-- [end:weight_grad_wide]


# ---- design 2: direct loops over rows --------------------------------------------------
# --8<-- [start:forward_direct]
@njit(parallel=True, cache=True, fastmath=FAST)
def _forward_direct(xp, w, y, dh, dw, groups):
    """y[n, o] = sum over (c, i, j) of w[o, c, i, j] * (xp[n, c] shifted by (i dh, j dw)),
    one output plane per task, stride 1. xp: the padded input (N, C, Hp, Wp); y: (N, O, Ho, Wo).

    The plane is computed in "wide rows" of Wp numbers instead of Wo (the last Wp - Wo
    of each row are junk, dropped at the end). Then output number q and input number
    q + i dh Wp + j dw line up over the whole plane, and each tap (c, i, j) is one long
    contiguous loop, which is what LLVM vectorises best.
    """
    n_img, _, hp, wp = xp.shape
    o_out, cg, kh, kw = w.shape
    ho, wo = y.shape[2], y.shape[3]
    og = o_out // groups
    wide = (ho - 1) * wp + wo  # from the first output number to the last one kept
    for task in prange(n_img * o_out):
        b, o = task // o_out, task % o_out
        g = o // og
        acc = np.zeros(wide, dtype=y.dtype)
        for c in range(cg):
            plane = xp[b, g * cg + c].reshape(hp * wp)
            for i in range(kh):
                for j in range(kw):
                    wv = w[o, c, i, j]
                    src = plane[i * dh * wp + j * dw : i * dh * wp + j * dw + wide]
                    for q in range(wide):
                        acc[q] += wv * src[q]
        out = y[b, o]
        for oh in range(ho):  # keep the first wo numbers of each wide row
            row, part = out[oh], acc[oh * wp : oh * wp + wo]
            for q in range(wo):
                row[q] = part[q]
                # --8<-- [end:forward_direct]


# A kernel of its own, not a branch of the one above: Numba compiles a function whole,
# so a branch that a call never takes still costs its share of the compile time.
@njit(parallel=True, cache=True, fastmath=FAST)
def _forward_direct_strided(xp, w, y, sh, sw, dh, dw, groups):
    """The same sum with any stride, one output row at a time."""
    o_out, cg, kh, kw = w.shape
    ho, wo = y.shape[2], y.shape[3]
    og = o_out // groups
    for task in prange(xp.shape[0] * o_out):
        b, o = task // o_out, task % o_out
        g = o // og
        acc = np.empty(wo, dtype=y.dtype)
        out = y[b, o]
        for oh in range(ho):
            acc[:] = 0
            for c in range(cg):
                for i in range(kh):
                    row = xp[b, g * cg + c, oh * sh + i * dh]
                    for j in range(kw):
                        wv = w[o, c, i, j]
                        for q in range(wo):
                            acc[q] += wv * row[j * dw + q * sw]
            dst = out[oh]
            for q in range(wo):
                dst[q] = acc[q]


@njit(parallel=True, cache=True, fastmath=FAST)
def _input_grad_direct(gy, w, gxp, sh, sw, dh, dw, groups):
    """gxp[n, c, oh sh + i dh, j dw + q sw] += w[o, c, i, j] * gy[n, o, oh, q]: each output
    row, times a weight, is added back onto the input row it was computed from.
    gxp: the padded gradient (N, C, Hp, Wp), zeros on entry; a task owns one plane."""
    n_img, c_in = gxp.shape[0], gxp.shape[1]
    o_out, cg, kh, kw = w.shape
    ho, wo = gy.shape[2], gy.shape[3]
    og = o_out // groups
    for task in prange(n_img * c_in):
        b, c = task // c_in, task % c_in
        g, cl = c // cg, c % cg
        for o in range(g * og, (g + 1) * og):
            for i in range(kh):
                for j in range(kw):
                    wv = w[o, cl, i, j]
                    for oh in range(ho):
                        src = gy[b, o, oh]
                        dst = gxp[b, c, oh * sh + i * dh]
                        for q in range(wo):
                            dst[j * dw + q * sw] += wv * src[q]


# ---- the three kernels -------------------------------------------------------------------
def _use_gemm(channels_per_group, k, strided=False, positions=None):
    """The tiled matrix product pays when its blocks of 4 fill up and a window is long
    enough to amortise the sums at the end of each block. Otherwise the direct loop
    wins, but only where its long contiguous loops exist: not with a stride (a 1x1
    convolution 16 -> 32 with stride 2 ran 3x faster as a product), and not on small
    planes (at 4x4, a 1x1 convolution 16 -> 32 ran 4x faster as a product; at 8x8 the
    two are even, and the ResNet on the 8x8 digits then needs no direct kernel at all)."""
    small = positions is not None and positions <= 64
    return channels_per_group >= 4 and (k >= 32 or strided or small)


def _tile(positions):
    """Tiles of at most TILE positions, as equal as possible and multiples of 4 (the
    block size of the product), so that no tile is a small leftover."""
    n_tiles = -(-positions // TILE)  # -(-a // b) is a / b rounded up
    per_tile = -(-positions // n_tiles)
    return 4 * -(-per_tile // 4)


def _pad_nchw(x, top, bottom, left, right):
    """x with zeros added around each plane (a negative amount crops)."""
    x = x[:, :, max(-top, 0) : x.shape[2] - max(-bottom, 0), max(-left, 0) : x.shape[3] - max(-right, 0)]
    return np.pad(x, ((0, 0), (0, 0), (max(top, 0), max(bottom, 0)), (max(left, 0), max(right, 0))))


def _padded_nhwc(x, top, bottom, left, right):
    """x padded (or cropped) and channels last. Every parallel region costs Numba's
    workqueue threads ~0.1 ms to start, more than NumPy's single-threaded copy of a
    small array takes; from half a million numbers on, the parallel kernel wins."""
    if x.size >= 1 << 19:
        return _to_padded_nhwc(x, top, bottom, left, right)
    x = x[:, :, max(-top, 0) : x.shape[2] - max(-bottom, 0), max(-left, 0) : x.shape[3] - max(-right, 0)]
    top, bottom, left, right = max(top, 0), max(bottom, 0), max(left, 0), max(right, 0)
    n, c, h, w = x.shape
    out = np.zeros((n, h + top + bottom, w + left + right, c), dtype=x.dtype)
    out[:, top : top + h, left : left + w] = x.transpose(0, 2, 3, 1)
    return out


def _forward(x, w, pads, stride, dilation, groups, ho, wo):
    """y = conv2d(x, w) with x padded by pads = (top, bottom, left, right), which may
    differ (the transposed convolution below needs that); the output is (ho, wo)."""
    (sh, sw), (dh, dw) = stride, dilation
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    if _use_gemm(o // groups, cg * kh * kw, (sh, sw) != (1, 1), ho * wo):
        xp = _padded_nhwc(x, *pads)
        xp = xp.reshape(n, xp.shape[1], -1)  # each row flat: (N, Hp, Wp C)
        # rows of w in the order (i, j, c) of a channels-last window
        w_rows = np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(o, kh * kw * cg)
        y = np.empty((n, o, ho * wo), dtype=x.dtype)
        _forward_gemm(xp, w_rows, y, ho, wo, sh, sw, dh, dw, kh, kw, groups, _tile(ho * wo))
        return y.reshape(n, o, ho, wo)
    y = np.empty((n, o, ho, wo), dtype=x.dtype)
    xp, w = _pad_nchw(x, *pads), np.ascontiguousarray(w)
    if sh == 1 and sw == 1:
        _forward_direct(xp, w, y, dh, dw, groups)
    else:
        _forward_direct_strided(xp, w, y, sh, sw, dh, dw, groups)
    return y


def conv2d_forward(x, w, stride, padding, dilation, groups):
    """y = conv2d(x, w); see the reference for the shapes."""
    (ph, pw) = padding
    _, _, kh, kw = w.shape
    ho = conv_output_size(x.shape[2], kh, stride[0], ph, dilation[0])
    wo = conv_output_size(x.shape[3], kw, stride[1], pw, dilation[1])
    if x.size == 0 or w.size == 0:  # an empty batch (or no channels): nothing to compute
        return np.zeros((x.shape[0], w.shape[0], ho, wo), dtype=x.dtype)
    return _forward(np.ascontiguousarray(x), w, (ph, ph, pw, pw), stride, dilation, groups, ho, wo)


# --8<-- [start:backward_input]
def conv2d_backward_input(grad_y, w, x_shape, stride, padding, dilation, groups):
    """dL/dx (= conv_transpose2d of grad_y), of shape x_shape.

    With stride 1 this is itself a convolution: of grad_y, padded by dh (kH - 1) - ph
    (more at the bottom and right if x_shape asks for it), with the kernel turned by
    180 degrees and its in and out channels swapped. The fast forward kernels then do
    all the work. With a larger stride grad_y would have to be spread out with zeros
    first, wasting most of the products, so the tiled col2im does it instead.
    """
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, o, ho, wo = grad_y.shape
    _, cg, kh, kw = w.shape
    _, c, h, width = x_shape
    og = o // groups
    if grad_y.size == 0 or w.size == 0:
        return np.zeros(x_shape, dtype=grad_y.dtype)
    grad_y = np.ascontiguousarray(grad_y)
    if sh == 1 and sw == 1:
        # w_flip[g C/G + c, o, i, j] = w[g O/G + o, c, kH-1-i, kW-1-j]: (C, O/G, kH, kW)
        w_flip = w.reshape(groups, og, cg, kh, kw).transpose(0, 2, 1, 3, 4)[:, :, :, ::-1, ::-1]
        w_flip = np.ascontiguousarray(w_flip).reshape(c, og, kh, kw)
        top, left = dh * (kh - 1) - ph, dw * (kw - 1) - pw
        pads = (top, h - ho + ph, left, width - wo + pw)  # the output comes out h x width
        return _forward(grad_y, w_flip, pads, stride, dilation, groups, h, width)
    # --8<-- [end:backward_input]
    hp, wp = h + 2 * ph, width + 2 * pw
    if _use_gemm(og, og):
        # grad_y channels last, split by group: (N, G, Ho Wo, O/G)
        gy_t = np.ascontiguousarray(grad_y.reshape(n, groups, og, ho * wo).transpose(0, 1, 3, 2))
        # w_t[(g, i, j, c), o] = w[g O/G + o, c, i, j]
        w_t = np.ascontiguousarray(w.reshape(groups, og, cg, kh, kw).transpose(0, 3, 4, 2, 1))
        w_t = w_t.reshape(groups * kh * kw * cg, og)
        gxp = np.zeros((n, hp, wp, c), dtype=grad_y.dtype)
        _input_grad_gemm(gy_t, w_t, gxp, sh, sw, dh, dw, kh, kw, wo, _tile(ho * wo))
        # back to channels first, without the padding
        return np.ascontiguousarray(gxp[:, ph : ph + h, pw : pw + width].transpose(0, 3, 1, 2))
    gxp = np.zeros((n, c, hp, wp), dtype=grad_y.dtype)
    _input_grad_direct(grad_y, np.ascontiguousarray(w), gxp, sh, sw, dh, dw, groups)
    return np.ascontiguousarray(gxp[:, :, ph : ph + h, pw : pw + width])


def conv2d_backward_weight(grad_y, x, w_shape, stride, padding, dilation, groups):
    """dL/dw, of shape w_shape."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, o, ho, wo = grad_y.shape
    _, cg, kh, kw = w_shape
    _, c, h, width = x.shape
    if grad_y.size == 0 or x.size == 0:
        return np.zeros(w_shape, dtype=grad_y.dtype)
    threads = numba.get_num_threads()
    if sh == 1 and sw == 1:
        hp, wp = h + 2 * ph, width + 2 * pw
        # all images one after the other, channel by channel: (C, N Hp Wp) and (O, N Hp Wp)
        x_all = np.zeros((c, n, hp, wp), dtype=x.dtype)
        x_all[:, :, ph : ph + h, pw : pw + width] = x.transpose(1, 0, 2, 3)
        gy_all = np.zeros((o, n, hp, wp), dtype=grad_y.dtype)
        gy_all[:, :, :ho, :wo] = grad_y.transpose(1, 0, 2, 3)
        # from the first position to the last one that holds a real (not padding) number
        length = (n - 1) * hp * wp + (ho - 1) * wp + wo
        gy_all, x_all = gy_all.reshape(o, -1), x_all.reshape(c, -1)
        if groups == 1 and cg < 4:
            # too few channels for blocks of 4: copy the input once per tap instead (rows
            # (c, i, j), each shifted by its tap), and make it one product with one "tap"
            shifts = [i * dh * wp + j * dw for i in range(kh) for j in range(kw)]
            x_all = np.stack([x_all[ch, s : s + length] for ch in range(c) for s in shifts])
            shares = max(1, min(-(-length // KC), 4 * threads))
            partial = np.zeros((shares, 1, 1, o, c * kh * kw), dtype=grad_y.dtype)
            _weight_grad_wide(gy_all, x_all, partial, 1, 1, 0, 0, wp, 1, length)
            return partial.sum(axis=0).reshape(w_shape)
        shares = max(1, min(-(-length // KC), -(-8 * threads // (groups * kh * kw))))
        partial = np.zeros((shares, kh, kw, o, cg), dtype=grad_y.dtype)
        _weight_grad_wide(gy_all, x_all, partial, kh, kw, dh, dw, wp, groups, length)
        return np.ascontiguousarray(partial.sum(axis=0).transpose(2, 3, 0, 1))
    xp = _pad_nchw(np.ascontiguousarray(x), ph, ph, pw, pw)
    c_block = 4
    shares = _shares(n, groups * -(-cg // c_block), threads)
    partial = np.zeros((shares, o, cg * kh * kw), dtype=grad_y.dtype)
    gy = np.ascontiguousarray(grad_y).reshape(n, o, ho * wo)
    _weight_grad(gy, xp, partial, ho, wo, sh, sw, dh, dw, kh, kw, groups, c_block)
    return partial.sum(axis=0).reshape(w_shape)


def _shares(n_images, tasks, threads):
    """Into how many shares to split the images so that there are at least four tasks
    per thread (each share adds into its own copy of grad_w, summed at the end)."""
    return max(1, min(n_images, -(-4 * threads // tasks)))
