"""2-d convolution as Numba CPU kernels: the same three functions as the reference.

Two designs, and each layer takes the faster for its shapes (`_use_gemm`), for its
forward pass and both gradients:

1. **im2col in tiles + the shared matrix product** (4 or more output channels per
   group). The reference copies *every* window into one huge matrix (for a ResNet
   layer of 32 images, 75 MB) and then multiplies. Here each thread lays out what the
   windows of a tile of up to 256 output positions read, kW shifted copies of each
   input plane (`_shift_planes`), which stay in the core's cache, and multiplies
   straight away with `matmul_acc` (kernels/cpu/gemm.py: one call of BLAS's gemm), the
   block product the attention kernels use too, reading each row of the windows in
   place. The forward pass is y = w @ cols, a long row of positions per output channel;
   the weight gradient is dL/dy @ cols^T, summed tile by tile; the input gradient with
   a stride dL/dcols = w^T @ dL/dy, added back onto the windows (col2im).

2. **A direct loop** (depthwise and few-channel convolutions). With one or two
   channels per group a window holds only kH kW numbers, too few for a matrix product
   to pay. The direct loop adds w[o, c, i, j] times the input plane, shifted by the
   tap, to the output plane: with stride 1, one long contiguous loop per tap. The
   gradients are the same loops turned around.

With stride 1 the input gradient is a convolution of grad_y with the kernel turned by
180 degrees (`conv2d_backward_input`), so the forward kernels do that work too.

Why slices and rows: an innermost loop whose index is computed from several loop
variables (x[n, c, oh * sh + i * dh, ow * sw + j * dw]), or starts at a run-time
offset, is not vectorised by LLVM, and runs many times slower than a loop from 0 over a
contiguous row sliced outside it (benchmarks/RESULTS.md has this file's measurements).

Every kernel is serial, ``@njit(nogil=True, cache=True)``, and its outer loop runs
over a block [lo, hi) of independent tasks (images, planes, tiles, channel pairs), its
last two arguments: the host function counts the tasks and `workers.run` (kernels/cpu/
workers.py) cuts them into one block per thread, run on all cores at once. No two tasks
write the same number: where they would (the weight gradient's sum over images), each
adds into a copy of its own, which the host sums. `cache=True` keeps the machine code
on disk, so that a new process loads all of them in a fraction of a second instead of
compiling them again (seconds, once: benchmarks/RESULTS.md).
"""

import numpy as np

from minigrad._args import window_output_size as conv_output_size
from minigrad.kernels.cpu import workers
from minigrad.kernels.cpu.gemm import K_CHUNK, SMALL_GEMM, matmul_acc
from minigrad.kernels.cpu.memcopy import copy_run
from minigrad.kernels.jit import FASTMATH, njit

# Output positions per tile: the length of the product's rows. 256 ran 5-15% faster than
# 128 (each 4 x 4 block of the product starts its row loop half as often), and 256 x
# (C kH kW) numbers, 590 KB for 64 channels and a 3 x 3 kernel, stay near the core's L2.
TILE = 256
# the smallest tile worth cutting down to for OpenBLAS's small-matrix kernels (SMALL_GEMM,
# kernels/cpu/gemm.py)
MIN_SMALL_TILE = 32
# the multiply-adds per output position from which the forward pass and the stride-1
# weight gradient take the product with windows of fewer than 32 numbers (see _use_gemm)
MIN_MACS = 144
# stride 1: below this many numbers in a window's row (C/G kW), its kH rows are copied into
# one windows' matrix for one product (`_stack_rows`) instead of kH products that read the
# shifted planes in place: a sum over 5 numbers ran 1.3x slower in place, one over 24
# 1.15x faster (benchmarks/RESULTS.md)
STACK_BELOW = 16
# a strided weight gradient with window rows of this many numbers (C/G kW) or more, and more
# than one row, copies its windows from a channels-last copy of the input (_weight_grad_gemm),
# a run of C/G kW numbers per window row: 0.80-0.92 of the time of _weight_grad_rows on
# rows of 48-192 numbers, which was faster on rows of 3 (a depthwise layer: 0.2) and 21
# (0.74), and on 1 x 1 kernels (0.85; benchmarks/RESULTS.md)
CHANNELS_LAST_FROM = 48


# ---- layout helpers ----------------------------------------------------------------
# inline: compiled as part of the kernel that calls it rather than as a function of its
# own, which would cost Numba about half a second more to compile
@njit(inline="always")
def _nhwc_row(x, b, c0, r, row, top, left):
    """row[q, c] = x[b, c0 + c, r - top, q - left] where that is inside x, else 0: row r
    of image b's channels c0, c0 + 1, ... padded (a negative top or left crops) and
    channels last, row (Wp, channels). Every number of row is written, the border's
    zeros too.

    Channels last puts the numbers of one pixel next to each other, so that the strided
    weight gradient's im2col copies contiguous runs of them (`_weight_grad_gemm`).
    """
    c, h, w = row.shape[1], x.shape[2], x.shape[3]
    q0, q1 = max(0, -left), min(w, row.shape[0] - left)  # the columns of x that land inside
    if r - top < 0 or r - top >= h:
        row[:, :] = 0  # a row of the border
        return
    row[: q0 + left, :] = 0  # the border's columns on the left and on the right
    row[q1 + left :, :] = 0
    src = x[b, c0 : c0 + c, r - top, q0:q1]  # (channels, columns): a row of each
    dst = row[q0 + left : q1 + left]  # (columns, channels): the same numbers, transposed
    # 8 channels at a time: rows of different channels are often a multiple of 4 KiB
    # apart, and reading all of them at once would evict each other from the cache
    for first in range(0, c, 8):
        for q in range(q1 - q0):
            for ch in range(first, min(first + 8, c)):
                dst[q, ch] = src[ch, q]


@njit(nogil=True, cache=True, inner=True)
def _pad_planes(x, b, c0, out, hp, wp, top, left):
    """The planes x[b, c0], x[b, c0 + 1], ... padded (or, with a negative top or left,
    cropped) to hp x wp, flat and one after the other in out, as many as out holds:
    out[(c hp + r) wp + q] = x[b, c0 + c, r - top, q - left] where that is inside x.

    Only the inside is written: the border of out keeps the zeros it was made with, the
    same for every image. A function of its own, compiled once for the direct kernels
    that call it (inlined, into each: seconds); out is flat because each shape of
    np.zeros is compiled apart (tenths of a second each). Each task pads the planes it
    reads into its own small array, which stays in its core's cache: a padded copy of
    the whole batch, made by NumPy on one core before the kernel, took as long as the
    kernel itself on a depthwise layer."""
    h, w = x.shape[2], x.shape[3]
    q0, q1 = max(0, -left), min(w, wp - left)  # the columns of x that land inside
    for c in range(out.size // (hp * wp)):
        for r in range(max(0, top), min(hp, h + top)):
            start = (c * hp + r) * wp
            src, dst = x[b, c0 + c, r - top, q0:q1], out[start + q0 + left : start + q1 + left]
            for q in range(src.size):
                dst[q] = src[q]


# ---- design 1: im2col tiles and the shared matrix product -----------------------------
@njit(nogil=True, cache=True)
def _forward_gemm(
    xs, width, w_taps, bias, ys, wo, top, left, sh, sw, dh, dw, kh, kw, groups, tile, chunks, lo, hi
):
    """y[n, o, p] = bias[o] + sum over (c, i, j) of w[o, c, i, j] x[n, c, oh sh + i dh - top,
    ow sw + j dw - left] (0 outside x), one tile of `tile` output positions p = oh Wo + ow
    at a time, the products adding straight into y.

    xs: the input's planes, one per row, flat: (N C, H W), W = width; w_taps: (kH, O,
    C/G kW), w_taps[i, o, c kW + j] = w[o, c, i, j]; ys: the output's planes flat,
    (N, O, Ho Wo).

    Window entry (c, i, j) at the positions of one output row reads Wo pixels of one row
    of x, sw apart, moved by the tap; at the next output row, the same pixels sh rows of
    x further down. So the task lays each plane out in rows of Wo, once per column shift
    j and (with a stride) per phase of the rows (`_shift_planes`, into `shifted`), and
    then the window entries (c, i, j) of all the tile's positions, for one i, are a block
    of shifted: its rows (c, j), its columns moved a whole number of rows along. BLAS
    reads that block where it lies, row stride and all: the tile's output is kH
    products, one per row i of the window, of w_taps[i] by its block, and no windows'
    matrix is copied out at all.
    """
    og = w_taps.shape[1] // groups
    channels = xs.shape[0] // ys.shape[0]  # C
    cg = channels // groups
    kc = cg * kw  # the rows of shifted
    positions = ys.shape[2]
    n_tiles = (positions + tile - 1) // tile
    rows = positions // wo + (kh - 1) * dh // sh  # the rows of each phase the windows read
    shifted = np.zeros((sh, kc, rows * wo), dtype=ys.dtype)  # see _shift_planes
    stacked = w_taps.shape[0] == 1 and kh > 1
    cols = np.empty((kh * kc if stacked else 0, tile), dtype=ys.dtype)
    for task in range(lo, hi):  # (image, group, tile): independent outputs
        b, g, p0, n = _task_tile(task, groups, n_tiles, tile, positions)
        c0 = b * channels + g * cg  # the group's first plane in xs
        _shift_planes(xs, c0, width, wo, p0, p0 + n, top, left, sh, sw, dh, dw, kh, kw, shifted)
        out = ys[b, g * og : (g + 1) * og]
        _fill_bias(bias[g * og :], out, p0, n)
        if stacked:  # short window rows: one windows' matrix, one product
            _stack_rows(shifted, cols, p0, n, kh, sh, dh, wo)
        # out += w_taps[i] @ the window entries (c, i, j), i < kH; or, stacked, the one
        # product w_taps[0] @ the whole windows' matrix (one call site: each is compiled)
        for i in range(w_taps.shape[0]):
            w_i = w_taps[i, g * og : (g + 1) * og]
            phase, start = (i * dh) % sh, (i * dh) // sh * wo + p0
            windows = cols if stacked else shifted[phase]
            _product_in_chunks(w_i, windows, 0 if stacked else start, out, p0, n, chunks)


# inline: compiled as part of the kernel that calls it rather than as a function of its
# own, which would cost Numba about half a second more to compile
@njit(inline="always")
def _task_tile(task, groups, n_tiles, tile, positions):
    """(image b, group g, first position p0, number of positions n) of a task of the tiled
    forward kernels: the tasks are (image, group, tile of positions), the last index
    fastest, the last tile of a plane shorter."""
    b = task // (groups * n_tiles)
    g = (task // n_tiles) % groups
    p0 = (task % n_tiles) * tile
    return b, g, p0, min(tile, positions - p0)


@njit(inline="always")  # as _task_tile
def _fill_bias(bias_g, out, p0, n):
    """out[o, p0 : p0 + n] = bias_g[o]: the products then add onto the bias, which so costs
    no pass of its own over y."""
    for o in range(out.shape[0]):
        row, value = out[o, p0 : p0 + n], bias_g[o]
        for t in range(n):
            row[t] = value


@njit(inline="always")  # as _task_tile
def _product_in_chunks(w_g, windows, start, out, p0, n, chunks):
    """out[:, p0 : p0 + n] += w_g @ windows[:, start : start + n], the sum over the rows of
    windows in `chunks` equal chunks, a call of the product each (see _forward)."""
    k = windows.shape[0]
    for part in range(chunks):
        r0, r1 = k * part // chunks, k * (part + 1) // chunks
        matmul_acc(w_g, r0, windows[r0:r1], start, out, p0, n)


@njit(inline="always")  # as _task_tile
def _stack_rows(shifted, cols, p0, n, kh, sh, dh, wo):
    """cols[i kc + r, t] = the window entry (c, i, j) at position p0 + t, r = c kW + j, for t
    below n: the blocks of `shifted` that the kH products of _forward_gemm read, copied
    one under the other into one windows' matrix, whose rows are then (i, c, j). Each row
    is one call of memmove (`copy_run`): a copy loop here was compiled into both kernels
    that stack, some hundred lines of machine code each (benchmarks/RESULTS.md)."""
    kc = shifted.shape[1]
    for i in range(kh):
        phase, start = (i * dh) % sh, (i * dh) // sh * wo + p0
        for r in range(kc):
            copy_run(cols[i * kc + r, :n], shifted[phase, r, start : start + n])


# a function of its own, compiled once for the two kernels that call it: inlined into each,
# it was compiled twice, and the cnn model's first epoch took longer (benchmarks/RESULTS.md)
@njit(nogil=True, cache=True, inner=True)
def _shift_planes(xs, c0, width, wo, p0, p1, top, left, sh, sw, dh, dw, kh, kw, shifted):
    """shifted[f, c kW + j, m Wo + q] = x[c0 + c, m sh + f - top, q sw + j dw - left] (0
    where that lies outside x), for the rows m that the windows of the positions p0 to p1
    read: each plane of the group laid out in rows of Wo, once per column shift
    j dw - left and phase f of the rows (row m of phase f is row m sh + f of the padded
    plane), every sw-th pixel. xs: the planes of x, one per row, flat (W wide);
    shifted: (sh, C/G kW, (Ho + (kH - 1) dh // sh) Wo), made with zeros.

    Window entry (c, i, j) at position p = oh Wo + ow is then, with f = i dh % sh,
    shifted[f, c kW + j, p + (i dh // sh) Wo]: for all the positions of a tile, one run.
    Only the rows the tile's windows read are laid out; the rows above and below x, and
    the columns outside it, are never written and stay zero.
    """
    h = xs.shape[1] // width
    # the rows m of each phase that the tile's windows read
    m0, m1 = p0 // wo, min((p1 - 1) // wo + (kh - 1) * dh // sh + 1, shifted.shape[2] // wo)
    for c in range(shifted.shape[1] // kw):
        plane = xs[c0 + c]
        for j in range(kw):
            s = j * dw - left
            if sh == 1 and sw == 1 and wo == width:
                # a stride-1 layer that keeps the width: the rows follow each other as
                # in x, and the copy is one run; where it wraps round onto the next or
                # the previous row (the |s| columns outside x), zeros
                copy = shifted[0, c * kw + j]
                r0, r1 = max(m0 - top, 0), min(m1 - top, h)  # the rows of x
                t0, t1 = max(r0 * width, -s), min(r1 * width, xs.shape[1] - s)
                dst = copy[top * width + t0 : top * width + t1]
                run = plane[t0 + s : t1 + s]
                for t in range(t1 - t0):
                    dst[t] = run[t]
                c_lo, c_hi = (0, min(-s, width)) if s < 0 else (max(width - s, 0), width)
                for q in range(c_lo, c_hi):
                    for t in range(t0 + (q - t0 % width) % width, t1, width):
                        dst[t - t0] = 0
                continue
            # row by row: the columns q whose pixel q sw + s lies inside x. Stride 1 has
            # its own copy loop: through the strided one, LeNet's second layer (rows of
            # 10 pixels) ran 1.2x slower (benchmarks/RESULTS.md)
            q0 = max(0, (sw - 1 - s) // sw) if s < 0 else 0
            q1 = min(wo, (width - 1 - s) // sw + 1)
            for f in range(sh):
                copy = shifted[f, c * kw + j]
                # the rows m whose row of x, m sh + f - top, lies inside x
                first_m = max(m0, (top - f + sh - 1) // sh)
                for m in range(first_m, min(m1, (h + top - f + sh - 1) // sh)):
                    first = (m * sh + f - top) * width + q0 * sw + s
                    dst = copy[m * wo + q0 : m * wo + q1]
                    if sw == 1:  # a contiguous run
                        run = plane[first : first + q1 - q0]
                        for t in range(q1 - q0):
                            dst[t] = run[t]
                        continue
                    run = plane[first : first + (q1 - q0 - 1) * sw + 1 : sw]  # sw apart
                    for t in range(q1 - q0):
                        dst[t] = run[t]


@njit(nogil=True, cache=True)
def _input_grad_gemm(gy, w_t, gx, ph, pw, sh, sw, dh, dw, kh, kw, wo, tile, lo, hi):
    """dL/dx = col2im(dL/dcols), dL/dcols[r, p] = sum_o w_t[g, r, o] * gy[n, g O/G + o, p],
    by tiles of positions.

    gy: grad_y (N, O, Ho Wo); w_t: (G, C/G kH kW, O/G), each group's w_rows transposed;
    gx: the gradient (N, C, H, W), written here. Windows of one image overlap, so a task
    is a whole image (all its groups and tiles); it zeroes its planes first. The
    padding's share of each window is dropped as it is added (`_col2im_tile`), so no
    padded copy of the gradient is made and cropped afterwards.
    """
    positions = gy.shape[2]
    groups, k, og = w_t.shape
    cg = k // (kh * kw)
    for b in range(lo, hi):  # images
        gx[b] = 0.0
        grad_cols = np.empty((k, tile), dtype=gx.dtype)
        for g in range(groups):
            for p0 in range(0, positions, tile):
                p1 = min(p0 + tile, positions)
                grad_cols[:, : p1 - p0] = 0.0
                matmul_acc(w_t[g], 0, gy[b, g * og : (g + 1) * og], p0, grad_cols, 0, p1 - p0)
                _col2im_tile(grad_cols, gx, b, g * cg, p0, p1, wo, ph, pw, sh, sw, dh, dw, kh, kw)


@njit(inline="always")  # as _task_tile
def _col2im_tile(cols, gx, b, c0, p0, p1, wo, ph, pw, sh, sw, dh, dw, kh, kw):
    """The adjoint of an im2col: gx[b, c0 + c, oh sh + i dh - ph, ow sw + j dw - pw]
    += cols[r, p - p0], for the pixels inside x (a window's share of the padding is
    dropped). A pixel in several windows collects one term from each."""
    h, width = gx.shape[2], gx.shape[3]
    for c in range(cols.shape[0] // (kh * kw)):
        plane = gx[b, c0 + c]
        for i in range(kh):
            for oh in range(p0 // wo, (p1 - 1) // wo + 1):
                row = oh * sh + i * dh - ph  # the row of x this window row lies on
                if row < 0 or row >= h:
                    continue
                lo, hi = max(p0, oh * wo), min(p1, (oh + 1) * wo)
                dst = plane[row]
                for j in range(kw):
                    start = (lo - oh * wo) * sw + j * dw - pw  # column of position lo
                    # the positions q (from lo) whose column start + q sw is inside x
                    q0 = 0 if start >= 0 else (sw - 1 - start) // sw
                    q1 = min(hi - lo, (width - 1 - start) // sw + 1)
                    if q1 <= q0:
                        continue
                    first = start + q0 * sw
                    pixels = dst[first : first + (q1 - q0 - 1) * sw + 1 : sw]
                    src = cols[(c * kh + i) * kw + j, lo - p0 + q0 : lo - p0 + q1]
                    for q in range(q1 - q0):
                        pixels[q] += src[q]


@njit(nogil=True, cache=True)
def _weight_grad_rows(
    gys, xs, width, wo, partial, top, left, sh, sw, dh, dw, kh, kw, tile, stacked, lo, hi
):
    """partial[s, g, i C/G kW + c kW + j, o] = sum over the (image, tile) pairs of share
    s, and the positions p of the tile, of (window entry (c, i, j) at p) *
    gy[n, g O/G + o, p]; grad_w[g O/G + o, c, i, j] is the sum of the shares.

    gys: grad_y's planes flat, (N, O, Ho Wo); xs: the input's planes, one per row, flat:
    (N C, H W), W = width; partial: (S, G, kH C/G kW, O/G), zeros on entry. The windows
    are those of the forward pass, laid out by the same `_shift_planes`: for one row i
    of the window, the entries (c, i, j) of the tile's positions are a block of
    `shifted` that BLAS reads in place. Each of the kH products sums over the tile's
    positions, that block times the tile of gy transposed (copied first, a few KiB, in
    the cache: BLAS wants the rows of its right-hand block contiguous); with `stacked`,
    the blocks are copied into one windows' matrix first, for one product (see
    STACK_BELOW). A task is (share, group) and owns its part of
    `partial`: no two threads write the same number.
    """
    n_img, positions = gys.shape[0], gys.shape[2]
    shares, groups, _, og = partial.shape
    channels = xs.shape[0] // n_img  # C
    cg = channels // groups
    kc = cg * kw  # the rows of shifted
    n_tiles = (positions + tile - 1) // tile
    units = n_img * n_tiles  # (image, tile) pairs
    per_share = (units + shares - 1) // shares
    rows = positions // wo + (kh - 1) * dh // sh  # the rows of each phase the windows read
    shifted = np.zeros((sh, kc, rows * wo), dtype=gys.dtype)  # see _shift_planes
    gy_t = np.empty((tile, og), dtype=gys.dtype)  # the tile of grad_y, transposed
    cols = np.empty((kh * kc if stacked else 0, tile), dtype=gys.dtype)
    for task in range(lo, hi):  # (share, group)
        share, g = task // groups, task % groups
        for unit in range(share * per_share, min((share + 1) * per_share, units)):
            b, p0 = unit // n_tiles, (unit % n_tiles) * tile
            n = min(tile, positions - p0)
            c0 = b * channels + g * cg  # the group's first plane in xs
            _shift_planes(xs, c0, width, wo, p0, p0 + n, top, left, sh, sw, dh, dw, kh, kw, shifted)
            for o in range(og):
                row = gys[b, g * og + o, p0 : p0 + n]
                for t in range(n):
                    gy_t[t, o] = row[t]
            if stacked:  # short window rows: one windows' matrix, one product
                _stack_rows(shifted, cols, p0, n, kh, sh, dh, wo)
            # partial[share, g, rows (c, j) of i] += entries (c, i, j) @ gy_t, i < kH; or,
            # stacked, all the rows (i, c, j) += the windows' matrix @ gy_t (one call site)
            for i in range(1 if stacked else kh):
                phase, start = (i * dh) % sh, (i * dh) // sh * wo + p0
                windows = cols if stacked else shifted[phase]
                out = partial[share, g, i * kc : (kh if stacked else i + 1) * kc]
                matmul_acc(windows, 0 if stacked else start, gy_t[:n], 0, out, 0, og)


@njit(nogil=True, cache=True)
def _weight_grad_gemm(
    gy, x, partial, top, left, hp, wp, ho, wo, sh, sw, dh, dw, kh, kw, groups, tile, lo, hi
):
    """partial[s, o, r] = sum over the (image, tile) pairs of share s, and the positions
    p of the tile, of gy[n, o, p] * cols[p, r]; grad_w is the sum of the shares. For
    any stride (the conv2d_backward_weight takes `_weight_grad_rows` for stride 1).

    gy: (N, O, Ho Wo); x: the input (N, C, H, W), placed at (top, left) of its padded
    (hp, wp) planes; partial: (S, O, kH kW C/G) with r = (i, j, c), zeros on entry.
    Here cols is laid out the other way round, a row per position, so that the
    product's long rows (of B and C in `matmul_acc`) are the window's kH kW C/G numbers:
    with the input channels last, a window's row i is kW pixels of C/G channels, one
    contiguous run. So the task copies each image's group of channels padded and
    channels last (`_nhwc_row`), into an array of its own that stays in its cache, and
    then the windows, a run per window row. A task is (share, group) and owns its part
    of `partial`: no two threads write the same number.
    """
    n_img, positions = gy.shape[0], ho * wo
    shares, o_out, k = partial.shape
    og, cg = o_out // groups, k // (kh * kw)
    n_tiles = (positions + tile - 1) // tile
    units = n_img * n_tiles  # (image, tile) pairs
    per_share = (units + shares - 1) // shares
    xp = np.empty((hp, wp * cg), dtype=gy.dtype)  # an image's group: padded, channels last
    pixels = xp.reshape(hp, wp, cg)
    for task in range(lo, hi):  # (share, group)
        share, g = task // groups, task % groups
        cols = np.empty((tile, k), dtype=gy.dtype)  # this tile's windows, one per row
        out = partial[share, g * og : (g + 1) * og]
        held = -1  # the image xp holds
        for unit in range(share * per_share, min((share + 1) * per_share, units)):
            b, p0 = unit // n_tiles, (unit % n_tiles) * tile
            p1 = min(p0 + tile, positions)
            if b != held:
                for r in range(hp):
                    _nhwc_row(x, b, g * cg, r, pixels[r], top, left)
                held = b
            for p in range(p0, p1):
                oh, ow = p // wo, p % wo
                row = cols[p - p0]
                for i in range(kh):
                    src = xp[oh * sh + i * dh]  # one padded input row, pixel after pixel
                    if dw == 1:  # the kW pixels of the window's row i, all C/G channels
                        start = ow * sw * cg
                        run, part = src[start : start + kw * cg], row[i * kw * cg :]
                        for t in range(kw * cg):  # one run
                            part[t] = run[t]
                    else:
                        for j in range(kw):  # the C/G channels of one pixel: a run each
                            start = (ow * sw + j * dw) * cg
                            run, part = src[start : start + cg], row[(i * kw + j) * cg :]
                            for t in range(cg):
                                part[t] = run[t]
            # partial[share, this group's o, :] += gy[b, group, p0:p1] @ cols
            matmul_acc(gy[b, g * og : (g + 1) * og], p0, cols[: p1 - p0], 0, out, 0, k)


# ---- design 2: direct loops over rows --------------------------------------------------
@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _forward_direct(x, w, bias, y, top, left, hp, wp, dh, dw, groups, lo, hi):
    """y[n, o] = bias[o] + sum over (c, i, j) of w[o, c, i, j] * (xp[n, c] shifted by
    (i dh, j dw)), one output plane per task, stride 1. x: the input (N, C, H, W), which
    the task pads into xp, (hp, wp) planes with x at (top, left); y: (N, O, Ho, Wo).

    The plane is computed in "wide rows" of Wp numbers instead of Wo (the last Wp - Wo
    of each row are junk, dropped at the end). Then output number q and input number
    q + i dh Wp + j dw line up over the whole plane, and each tap (c, i, j) is one long
    contiguous loop, which is what LLVM vectorises best.

    The padded planes are made here, by the thread that reads them, a few KiB at a time
    in its own cache, not as a padded copy of the whole batch made by NumPy on one core
    before the kernel: for a depthwise layer that copy took as long as the kernel.
    """
    o_out, cg, kh, kw = w.shape
    ho, wo = y.shape[2], y.shape[3]
    og = o_out // groups
    wide = (ho - 1) * wp + wo  # from the first output number to the last one kept
    size = hp * wp
    xp = np.zeros(cg * size, dtype=y.dtype)  # the padded planes of one (image, group), flat
    acc = np.empty(wide, dtype=y.dtype)
    held = -1  # the (image, group) whose planes xp holds
    for task in range(lo, hi):  # (image, output channel)
        b, o = task // o_out, task % o_out
        g = o // og
        if b * groups + g != held:  # the tasks of one image and group share their planes
            _pad_planes(x, b, g * cg, xp, hp, wp, top, left)
            held = b * groups + g
        acc[:] = bias[o]
        for c in range(cg):
            plane = xp[c * size : (c + 1) * size]
            for i in range(kh):
                for j in range(kw):
                    wv = w[o, c, i, j]
                    src = plane[i * dh * wp + j * dw : i * dh * wp + j * dw + wide]
                    for q in range(wide):
                        acc[q] += wv * src[q]
        _keep_wide_rows(y[b, o], acc, wp)  # drop the junk past wo of each wide row


@njit(inline="always")
def _keep_wide_rows(out, acc, wp):
    """out (Ho, Wo) = the first Wo numbers of each of acc's wide rows of Wp numbers."""
    for oh in range(out.shape[0]):
        row, part = out[oh], acc[oh * wp : oh * wp + out.shape[1]]
        for q in range(row.size):
            row[q] = part[q]


@njit(inline="always")
def _add_3x3(acc, plane, w, row, col, n):
    """acc[q] += sum over the nine taps (i, j) of w[i, j] * plane[q + i row + j col], for q
    below n: a 3 x 3 kernel's taps summed in one pass, the nine weights and the running sum
    in registers. The general loop makes one pass per tap, each loading and storing acc
    again: three memory operations per multiply-add where this makes about one."""
    w00, w01, w02 = w[0, 0], w[0, 1], w[0, 2]
    w10, w11, w12 = w[1, 0], w[1, 1], w[1, 2]
    w20, w21, w22 = w[2, 0], w[2, 1], w[2, 2]
    # nine slices from 0: a loop over them vectorises (see the module's docstring)
    p0, p1, p2 = plane[0:], plane[col:], plane[2 * col :]
    p3, p4, p5 = plane[row:], plane[row + col :], plane[row + 2 * col :]
    p6, p7, p8 = plane[2 * row :], plane[2 * row + col :], plane[2 * row + 2 * col :]
    for q in range(n):
        upper = w00 * p0[q] + w01 * p1[q] + w02 * p2[q]
        middle = w10 * p3[q] + w11 * p4[q] + w12 * p5[q]
        lower = w20 * p6[q] + w21 * p7[q] + w22 * p8[q]
        acc[q] += upper + middle + lower


@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _forward_direct_3x3(x, w, bias, y, top, left, hp, wp, dh, dw, groups, lo, hi):
    """`_forward_direct` for a 3 x 3 kernel (depthwise layers, mostly): each input
    channel's nine taps in one pass over the plane (`_add_3x3`). A kernel of its own,
    not a branch of the general one, so that layers of other kernel sizes do not compile
    it (Numba compiles a function whole: the branch lengthened the digits CNN's first
    epoch, in the weight gradient's twin, benchmarks/RESULTS.md)."""
    o_out, cg = w.shape[0], w.shape[1]
    og = o_out // groups
    wide = (y.shape[2] - 1) * wp + y.shape[3]  # as in _forward_direct
    size = hp * wp
    xp = np.zeros(cg * size, dtype=y.dtype)
    acc = np.empty(wide, dtype=y.dtype)
    held = -1  # the (image, group) whose planes xp holds, as in _forward_direct
    for task in range(lo, hi):  # (image, output channel)
        b, o = task // o_out, task % o_out
        if b * groups + o // og != held:
            _pad_planes(x, b, (o // og) * cg, xp, hp, wp, top, left)
            held = b * groups + o // og
        acc[:] = bias[o]
        for c in range(cg):
            _add_3x3(acc, xp[c * size : (c + 1) * size], w[o, c], dh * wp, dw, wide)
        _keep_wide_rows(y[b, o], acc, wp)


# A kernel of its own, not a branch of the one above: Numba compiles a function whole,
# so a branch that a call never takes still costs its share of the compile time.
@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _forward_direct_strided(x, w, bias, y, top, left, hp, wp, sh, sw, dh, dw, groups, lo, hi):
    """The same sum with any stride, one output row at a time."""
    o_out, cg, kh, kw = w.shape
    ho, wo = y.shape[2], y.shape[3]
    og = o_out // groups
    xp = np.zeros(cg * hp * wp, dtype=y.dtype)  # as in _forward_direct
    acc = np.empty(wo, dtype=y.dtype)
    held = -1
    for task in range(lo, hi):  # (image, output channel)
        b, o = task // o_out, task % o_out
        g = o // og
        if b * groups + g != held:
            _pad_planes(x, b, g * cg, xp, hp, wp, top, left)
            held = b * groups + g
        out = y[b, o]
        for oh in range(ho):
            acc[:] = bias[o]
            for c in range(cg):
                for i in range(kh):
                    start = (c * hp + oh * sh + i * dh) * wp  # row oh sh + i dh of plane c
                    row = xp[start : start + wp]
                    for j in range(kw):
                        wv = w[o, c, i, j]
                        for q in range(wo):
                            acc[q] += wv * row[j * dw + q * sw]
            dst = out[oh]
            for q in range(wo):
                dst[q] = acc[q]


@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _input_grad_direct(gy, w, gxp, sh, sw, dh, dw, groups, lo, hi):
    """gxp[n, c, oh sh + i dh, j dw + q sw] += w[o, c, i, j] * gy[n, o, oh, q]: each output
    row, times a weight, is added back onto the input row it was computed from.
    gxp: the padded gradient (N, C, Hp, Wp), zeros on entry; a task owns one plane."""
    c_in = gxp.shape[1]
    o_out, cg, kh, kw = w.shape
    ho, wo = gy.shape[2], gy.shape[3]
    og = o_out // groups
    for task in range(lo, hi):  # (image, input channel)
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


@njit(inline="always")
def _pair_planes(x, gy, b, c, o, xp, gp, hp, wp, top, left):
    """The two planes of a weight gradient's dot products for image b: input channel c
    padded into xp (hp, wp), and gy[b, o] laid out in gp in wide rows of wp numbers."""
    _pad_planes(x, b, c, xp, hp, wp, top, left)
    # int(): a plain 0 reaches Numba as the constant Literal[int](0), a second compile
    _pad_planes(gy, b, o, gp, gp.size // wp, wp, int(0), int(0))  # noqa: UP018


@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _weight_grad_direct(gy, x, grad_w, top, left, hp, wp, dh, dw, groups, lo, hi):
    """The weight gradient of a stride-1 convolution as dot products, without im2col.

    grad_w[o, c, i, j] = sum over images and positions of gy[n, o, oh, ow] * xp[n, c, oh + i dh,
    ow + j dw], xp the input x padded into (hp, wp) planes at (top, left). Lay gy[n, o] out
    like a padded plane, in wide rows of Wp numbers with zeros past its Wo. Position q of
    that plane then meets number q + (i dh Wp + j dw) of xp[n, c], for every q at once (a
    q in the zeros meets a number of the next row: times zero). So each weight is, image
    by image, one long dot product of the two planes, the input's shifted by its tap. A
    task owns one (o, c) pair and makes both planes itself, in its own cache.
    """
    o_out, cg, kh, kw = grad_w.shape
    og = o_out // groups
    ho, wo = gy.shape[2], gy.shape[3]
    length = (ho - 1) * wp + wo  # from the first position to the last real one
    xp = np.zeros(hp * wp, dtype=grad_w.dtype)  # flat, as in _pad_planes
    gp = np.zeros(ho * wp, dtype=grad_w.dtype)  # gy[n, o] in wide rows; zeros past wo
    sums = np.empty(kh * kw, dtype=grad_w.dtype)
    for task in range(lo, hi):  # (o, c)
        o, c = task // cg, task % cg
        sums[:] = 0
        for b in range(gy.shape[0]):
            _pair_planes(x, gy, b, (o // og) * cg + c, o, xp, gp, hp, wp, top, left)
            gy_row = gp[:length]
            for i in range(kh):
                for j in range(kw):
                    shift = i * dh * wp + j * dw
                    x_row = xp[shift : shift + length]
                    s = grad_w.dtype.type(0)
                    for q in range(length):  # a sum: `reassoc` lets LLVM keep SIMD partial sums
                        s += gy_row[q] * x_row[q]
                    sums[i * kw + j] += s
        for i in range(kh):  # element by element: an array assignment would compile
            for j in range(kw):  # Numba's shape-mismatch message, string code (seconds)
                grad_w[o, c, i, j] = sums[i * kw + j]


@njit(inline="always")
def _dots_3x3(sums, g, plane, row, col, n):
    """sums[3 i + j] += sum over q below n of g[q] * plane[q + i row + j col]: a 3 x 3
    kernel's nine dot products in one pass, g[q] loaded once for all nine (the general
    loop makes a pass per tap, two loads per multiply-add)."""
    p0, p1, p2 = plane[0:], plane[col:], plane[2 * col :]  # slices from 0, as in _add_3x3
    p3, p4, p5 = plane[row:], plane[row + col :], plane[row + 2 * col :]
    p6, p7, p8 = plane[2 * row :], plane[2 * row + col :], plane[2 * row + 2 * col :]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = sums.dtype.type(0)
    for q in range(n):  # nine sums: `reassoc` lets LLVM keep SIMD partial sums of each
        gq = g[q]
        s0, s1, s2 = s0 + gq * p0[q], s1 + gq * p1[q], s2 + gq * p2[q]
        s3, s4, s5 = s3 + gq * p3[q], s4 + gq * p4[q], s5 + gq * p5[q]
        s6, s7, s8 = s6 + gq * p6[q], s7 + gq * p7[q], s8 + gq * p8[q]
    sums[0], sums[1], sums[2] = sums[0] + s0, sums[1] + s1, sums[2] + s2
    sums[3], sums[4], sums[5] = sums[3] + s3, sums[4] + s4, sums[5] + s5
    sums[6], sums[7], sums[8] = sums[6] + s6, sums[7] + s7, sums[8] + s8


@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _weight_grad_direct_3x3(gy, x, grad_w, top, left, hp, wp, dh, dw, groups, lo, hi):
    """`_weight_grad_direct` for a 3 x 3 kernel: the nine dot products of an image in one
    pass (`_dots_3x3`). A kernel of its own, as `_forward_direct_3x3`."""
    cg = grad_w.shape[1]
    og = grad_w.shape[0] // groups
    ho, wo = gy.shape[2], gy.shape[3]
    length = (ho - 1) * wp + wo  # as in _weight_grad_direct
    xp = np.zeros(hp * wp, dtype=grad_w.dtype)
    gp = np.zeros(ho * wp, dtype=grad_w.dtype)
    sums = np.empty(9, dtype=grad_w.dtype)
    for task in range(lo, hi):  # (o, c)
        o, c = task // cg, task % cg
        sums[:] = 0
        for b in range(gy.shape[0]):
            _pair_planes(x, gy, b, (o // og) * cg + c, o, xp, gp, hp, wp, top, left)
            _dots_3x3(sums, gp[:length], xp, dh * wp, dw, length)
        for t in range(9):
            grad_w[o, c, t // 3, t % 3] = sums[t]


# ---- the three kernels -------------------------------------------------------------------
def _use_gemm(channels_per_group, k, strided=False, positions=None, as_runs=False):
    """The tiled matrix product pays when its blocks of 4 output channels fill up and a
    window holds enough numbers to be worth copying into cols. Otherwise the direct loop
    wins, but only where its long contiguous loops exist: not with a stride, and not on
    small planes (up to 8x8, where the two measured even; the ResNet on the 8x8 digits
    then needs no direct kernel at all). The measurements: benchmarks/RESULTS.md.

    Where the windows are copied as runs of the input (as_runs: the forward pass, the
    input gradient it computes, and the stride-1 weight gradient, all through
    `_shift_planes`), each row of cols a run of a plane, a shorter
    window pays too once there are MIN_MACS multiply-adds per output position
    (channels_per_group k). Forward: LeNet's first layer (6 x 25) ran as fast either
    way, 8 x 27 and 16 x 18 1.2-1.3x faster with the product, 4 x 25 1.1x slower. Weight
    gradient: 6 x 25 and 16 x 25 (LeNet's first layer, 64 images) in 0.7-0.8x and
    0.6-0.7x the direct loop's time."""
    small = positions is not None and positions <= 64
    enough = k >= 32 or (as_runs and channels_per_group * k >= MIN_MACS)
    return channels_per_group >= 4 and (enough or strided or small)


def _tile(positions, rows=0, k=0, align=32):
    """Tiles of at most TILE positions, as equal as possible, in multiples of `align`.

    Where a tile's positions are the product's rows (the forward pass: rows x k times
    k x tile), align is 32: LLVM's vector loop takes 32 float32 at a time (four AVX2
    registers) and what is left over runs number by number (tiles of 124 positions
    instead of 128 made a ResNet layer's forward pass slower: benchmarks/RESULTS.md).
    The weight gradient sums over a tile's positions (rows x tile times tile x k, k the
    numbers per window) and passes align = 1: any length of sum runs as fast.

    rows and k: the product's other two sizes, output channels per group and the length
    of its sum (the forward pass sums over a window in chunks of at most K_CHUNK numbers:
    k = K_CHUNK). OpenBLAS multiplies small matrices, rows x k x tile up to SMALL_GEMM,
    with kernels of their own that skip its packing of A and B, at up to 1.4x the speed
    of its general path on these products, so where a tile of TILE positions would miss
    that size, more and smaller tiles (of at least MIN_SMALL_TILE positions) are taken;
    for the weight gradient of a 14 x 14 layer, one tile of 196 positions ran 0.92x the
    time of two of 98."""
    per_tile = TILE
    small = SMALL_GEMM // (rows * k) // align * align if rows * k else 0  # the largest that fits
    if MIN_SMALL_TILE <= small < TILE:
        per_tile = small
    n_tiles = -(-positions // per_tile)  # -(-a // b) is a / b rounded up
    even = -(-positions // n_tiles)  # the positions of each tile, as equal as possible
    return align * -(-even // align)


def _forward(x, w, bias, pads, stride, dilation, groups, ho, wo):
    """y = conv2d(x, w) + bias with x padded by pads = (top, bottom, left, right), which
    may differ (the transposed convolution below needs that); the output is (ho, wo). The
    kernels start each output from its bias (zeros for None)."""
    (sh, sw), (dh, dw) = stride, dilation
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    bias = np.zeros(o, x.dtype) if bias is None else np.ascontiguousarray(bias, x.dtype)
    top, bottom, left, right = pads
    # the padded planes' size and where x sits in them (each task pads its own planes)
    place = (top, left, x.shape[2] + top + bottom, x.shape[3] + left + right)
    if _use_gemm(o // groups, cg * kh * kw, (sh, sw) != (1, 1), ho * wo, as_runs=True):
        y = np.empty((n, o, ho, wo), dtype=x.dtype)
        # where OpenBLAS has its small-matrix kernels, the product sums over a window in
        # equal chunks of at most K_CHUNK numbers, each small enough for them with the
        # tile chosen for it: much faster than one call too large for them, and no slower
        # than one call that fits (benchmarks/RESULTS.md)
        k = cg * kw  # the sum of one product: a row of the window (see _forward_gemm) ...
        stacked = STACK_BELOW > k  # ... or the whole window, where its rows are short
        if stacked:  # w_taps[0, o, (i, c, j)]
            w_taps = np.ascontiguousarray(w.transpose(0, 2, 1, 3)).reshape(1, o, kh * k)
            k = kh * k
        else:  # w_taps[i, o, c kW + j] = w[o, c, i, j]: the weights of window row i
            w_taps = np.ascontiguousarray(w.transpose(2, 0, 1, 3)).reshape(kh, o, k)
        tile = _tile(ho * wo, o // groups, min(k, K_CHUNK))
        chunks = -(-k // K_CHUNK) if SMALL_GEMM else 1  # -(-a // b) is a / b rounded up
        tasks = n * groups * -(-(ho * wo) // tile)  # (image, group, tile of positions)
        xs = x.reshape(n * x.shape[1], x.shape[2] * x.shape[3])  # a plane per row, flat
        ys = y.reshape(n, o, ho * wo)  # each output plane flat
        args = (xs, x.shape[3], w_taps, bias, ys, wo, top, left, sh, sw, dh, dw, kh, kw)
        workers.run(_forward_gemm, tasks, *args, groups, tile, chunks)
        return y
    y = np.empty((n, o, ho, wo), dtype=x.dtype)
    w = np.ascontiguousarray(w)
    if sh == 1 and sw == 1:
        kernel = _forward_direct_3x3 if (kh, kw) == (3, 3) else _forward_direct
        workers.run(kernel, n * o, x, w, bias, y, *place, dh, dw, groups)  # a plane each
    else:
        args = (x, w, bias, y, *place, sh, sw, dh, dw, groups)
        workers.run(_forward_direct_strided, n * o, *args)
    return y


def conv2d_forward(x, w, stride, padding, dilation, groups, bias=None):
    """y = conv2d(x, w) + bias; see the reference for the shapes."""
    (ph, pw) = padding
    _, _, kh, kw = w.shape
    ho = conv_output_size(x.shape[2], kh, stride[0], ph, dilation[0])
    wo = conv_output_size(x.shape[3], kw, stride[1], pw, dilation[1])
    if x.size == 0 or w.size == 0:  # an empty batch (or no input channels): no windows
        y = np.zeros((x.shape[0], w.shape[0], ho, wo), dtype=x.dtype)
        return y if bias is None else y + np.asarray(bias, x.dtype).reshape(1, -1, 1, 1)
    x = np.ascontiguousarray(x)
    return _forward(x, w, bias, (ph, ph, pw, pw), stride, dilation, groups, ho, wo)


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
        return _forward(grad_y, w_flip, None, pads, stride, dilation, groups, h, width)
    # --8<-- [end:backward_input]
    if _use_gemm(og, og):
        gy = grad_y.reshape(n, o, ho * wo)
        # w_t[g, (c, i, j), o] = w[g O/G + o, c, i, j]: each group's w_rows, transposed
        w_t = np.ascontiguousarray(w.reshape(groups, og, cg * kh * kw).transpose(0, 2, 1))
        grad_x = np.empty(x_shape, dtype=grad_y.dtype)  # each task zeroes its image's planes
        tile = _tile(ho * wo)
        args = (gy, w_t, grad_x, ph, pw, sh, sw, dh, dw, kh, kw, wo, tile)
        workers.run(_input_grad_gemm, n, *args)
        return grad_x
    hp, wp = h + 2 * ph, width + 2 * pw
    gxp = np.zeros((n, c, hp, wp), dtype=grad_y.dtype)
    w = np.ascontiguousarray(w)
    # a task per input plane (image, channel)
    workers.run(_input_grad_direct, n * c, grad_y, w, gxp, sh, sw, dh, dw, groups)
    return np.ascontiguousarray(gxp[:, :, ph : ph + h, pw : pw + width])


def conv2d_backward_weight(grad_y, x, w_shape, stride, padding, dilation, groups):
    """dL/dw, of shape w_shape."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, o, ho, wo = grad_y.shape
    _, cg, kh, kw = w_shape
    _, c, h, width = x.shape
    if grad_y.size == 0 or x.size == 0:
        return np.zeros(w_shape, dtype=grad_y.dtype)
    grad_y = np.ascontiguousarray(grad_y)
    x = np.ascontiguousarray(x)
    strided = (sh, sw) != (1, 1)
    # the direct loop's long rows exist only with stride 1: with a stride, the product
    if strided or _use_gemm(o // groups, cg * kh * kw, False, ho * wo, as_runs=True):
        tile = _tile(ho * wo, o // groups, cg * kh * kw, align=1)  # sums over the tile
        units = n * -(-ho * wo // tile)  # (image, tile) pairs to share out
        # enough tasks (share, group) for one block of them per thread (workers.run
        # cuts the tasks into one block per thread: more shares would balance nothing);
        # each share adds into its own copy of grad_w, and the copies are summed at the end
        shares = max(1, min(units, -(-workers.count() // groups)))
        # the windows as the forward pass lays them out; with a stride and long window
        # rows, channels last (see CHANNELS_LAST_FROM)
        if not (strided and kh > 1 and cg * kw >= CHANNELS_LAST_FROM):
            og = o // groups
            partial = np.zeros((shares, groups, kh * cg * kw, og), dtype=x.dtype)
            stacked = STACK_BELOW > cg * kw
            gys = grad_y.reshape(n, o, ho * wo)  # each gradient plane flat
            xs = x.reshape(n * c, h * width)  # a plane per row, flat
            args = (gys, xs, width, wo, partial, ph, pw, sh, sw, dh, dw, kh, kw, tile, stacked)
            workers.run(_weight_grad_rows, shares * groups, *args)  # a task per (share, group)
            # (G, kH, C/G, kW, O/G) -> w's (O, C/G, kH, kW)
            grad_w = partial.sum(axis=0).reshape(groups, kh, cg, kw, og).transpose(0, 4, 2, 1, 3)
            return np.ascontiguousarray(grad_w).reshape(w_shape)
        partial = np.zeros((shares, o, kh * kw * cg), dtype=x.dtype)
        gy = grad_y.reshape(n, o, ho * wo)
        place = (ph, pw, h + 2 * ph, width + 2 * pw)
        args = (gy, x, partial, *place, ho, wo, sh, sw, dh, dw, kh, kw, groups, tile)
        workers.run(_weight_grad_gemm, shares * groups, *args)  # a task per (share, group)
        # columns (i, j, c) -> w's (c, i, j)
        return np.ascontiguousarray(
            partial.sum(axis=0).reshape(o, kh, kw, cg).transpose(0, 3, 1, 2)
        )
    grad_w = np.empty(w_shape, dtype=grad_y.dtype)
    place = (ph, pw, h + 2 * ph, width + 2 * pw)  # as in _forward: each task pads its planes
    # a task per (o, c) pair, each writing its own kH kW numbers of grad_w
    args = (grad_y, x, grad_w, *place, dh, dw, groups)
    kernel = _weight_grad_direct_3x3 if (kh, kw) == (3, 3) else _weight_grad_direct
    workers.run(kernel, o * cg, *args)
    return grad_w


@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _channel_sums(gy, sums, lo, hi):
    """sums[o] = the sum of gy[n, o] over every image n: gy (N, O, P), a task per channel.
    The sum runs in float64, with SIMD partial sums (`reassoc`): a long float32 sum would
    pile up its rounding (NumPy sums pairwise for the same reason)."""
    for o in range(lo, hi):
        total = 0.0  # a float64
        for b in range(gy.shape[0]):
            row = gy[b, o]
            for q in range(row.size):
                total += row[q]
        sums[o] = total


def conv2d_backward_bias(grad_y):
    """dL/db (O,): grad_y (N, O, H_out, W_out) summed over the batch and the positions, a
    channel per task on every core (NumPy's sum over axes (0, 2, 3) runs on one)."""
    n, o, ho, wo = grad_y.shape
    if grad_y.size == 0:  # no images (or no positions): nothing to sum
        return np.zeros(o, dtype=grad_y.dtype)
    sums = np.empty(o, dtype=grad_y.dtype)
    workers.run(_channel_sums, o, np.ascontiguousarray(grad_y).reshape(n, o, ho * wo), sums)
    return sums
