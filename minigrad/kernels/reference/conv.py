"""2-d convolution in NumPy: im2col, one matrix product, col2im.

A convolution slides a small weight over the input and takes a dot product at every
position. Written directly, that is six nested loops. The trick that makes it fast in
NumPy (and on most hardware) is to *copy* every window the weight will see into the
column of a matrix, ``im2col``; the whole convolution is then one matrix product:

    y[n, o, p] = sum_r w[o, r] * cols[n, r, p]     r = (c, i, j) runs over a window,
                                                   p = (oh, ow) over the output positions

The two gradients are matrix products with the same two matrices:

    dL/dw    = dL/dy @ cols^T                      (summed over the batch)
    dL/dcols = w^T @ dL/dy,  then col2im: add each column back onto the window it came
               from. Windows overlap, so a pixel collects one term per window it is in.

Shapes, used throughout:
    x  (N, C_in, H, W)                  w  (C_out, C_in // groups, kH, kW)
    y  (N, C_out, H_out, W_out),        H_out = (H + 2 ph - dh (kH - 1) - 1) // sh + 1

`stride`, `padding` and `dilation` are (h, w) pairs of ints; padding is zeros, the same
on both sides. With `groups` = G the channels split into G independent convolutions:
input channels [g C_in/G, (g+1) C_in/G) meet only output channels [g C_out/G, ...).
The bias is not the kernel's business: the autograd Function adds it.

Written with the array module of the inputs (`xp`: NumPy, or CuPy for CUDA tensors, see
`minigrad/array_module.py`), this code runs on the GPU unchanged.
"""

# How many positions a kernel takes along one axis: the one formula, shared with pooling
from minigrad._args import window_output_size as conv_output_size
from minigrad.array_module import array_module


# --8<-- [start:im2col]
def im2col(x, kernel_size, out_size, stride, padding, dilation):
    """Every window of x, without copying: a view (only ever read) of shape
    (N, C, kH, kW, H_out, W_out) with
    windows[n, c, i, j, oh, ow] = x_pad[n, c, oh sh + i dh, ow sw + j dw], x_pad being x
    padded with zeros.

    A view works because moving one step in any of the six indices moves a fixed number
    of bytes in memory: a step in i moves dh rows, a step in oh moves sh rows, and so
    on. `as_strided` builds the array from exactly those steps (strides).
    """
    xp = array_module(x)  # numpy, or cupy: both have lib.stride_tricks.as_strided
    # BEGIN SOLUTION hint: pad x with zeros (xp.pad), then build the (N, C, kH, kW, H_out, W_out) view with xp.lib.stride_tricks.as_strided: a step in i moves dh rows of x_pad, a step in oh moves sh rows (likewise j, ow with dw, sw); multiply x_pad.strides accordingly
    (kh, kw), (ho, wo), (sh, sw), (ph, pw), (dh, dw) = (
        kernel_size,
        out_size,
        stride,
        padding,
        dilation,
    )
    x_pad = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))  # (N, C, H + 2ph, W + 2pw)
    s_n, s_c, s_h, s_w = x_pad.strides
    shape = (x.shape[0], x.shape[1], kh, kw, ho, wo)
    strides = (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw)
    # a fresh padded copy, and nothing writes to the view (which NumPy could enforce with
    # writeable=False; CuPy's as_strided has no such argument)
    return xp.lib.stride_tricks.as_strided(x_pad, shape=shape, strides=strides)
    # END SOLUTION
    # --8<-- [end:im2col]


# --8<-- [start:col2im]
def col2im(cols, x_shape, stride, padding, dilation):
    """The adjoint of im2col: add each window (N, C, kH, kW, H_out, W_out) back onto the
    pixels it was read from, and return the (N, C, H, W) sum.

    For one tap (i, j) the windows read a strided grid of x_pad (rows i dh, i dh + sh, ...):
    one slice assignment adds all of them at once, so the loop is over the kH kW taps
    only. The padding is cut off at the end: nothing flows into the zeros.
    """
    xp = array_module(cols)
    # BEGIN SOLUTION hint: start from zeros of the padded shape (xp.zeros); for each tap (i, j) add cols[:, :, i, j] onto the strided slice of rows i*dh, i*dh + sh, ... and columns j*dw, j*dw + sw, ... (+=, windows overlap); finally cut the padding off
    n, c, h, w = x_shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    _, _, kh, kw, ho, wo = cols.shape
    x_pad = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
            columns = slice(j * dw, j * dw + sw * (wo - 1) + 1, sw)
            x_pad[:, :, rows, columns] += cols[:, :, i, j]
    return xp.ascontiguousarray(x_pad[:, :, ph : ph + h, pw : pw + w])
    # END SOLUTION
    # --8<-- [end:col2im]


def conv2d_forward(x, w, stride, padding, dilation, groups, bias=None):
    """y = conv2d(x, w) + bias: im2col, then one batched matrix product per group, then
    the bias (O,) added to every position of its channel.

    x (N, C, H, W), w (O, C/G, kH, kW) -> y (N, O, H_out, W_out).
    """
    n, c, h, width = x.shape
    o, cg, kh, kw = w.shape
    g = groups
    out_size = (
        conv_output_size(h, kh, stride[0], padding[0], dilation[0]),
        conv_output_size(width, kw, stride[1], padding[1], dilation[1]),
    )
    windows = im2col(x, (kh, kw), out_size, stride, padding, dilation)  # (N, C, kH, kW, Ho, Wo)
    # group the channels and flatten each window into one column: (N, G, C/G kH kW, Ho Wo)
    cols = windows.reshape(n, g, cg * kh * kw, out_size[0] * out_size[1])
    w_rows = w.reshape(g, o // g, cg * kh * kw)  # one row per output channel: (G, O/G, C/G kH kW)
    y = w_rows @ cols  # (G, O/G, K) @ (N, G, K, P) -> (N, G, O/G, P): the matmul broadcasts over N
    y = y.reshape(n, o, *out_size)
    if bias is not None:
        y += bias.reshape(1, o, 1, 1)  # one number per output channel, at every position
    return y


# --8<-- [start:backward]
def conv2d_backward_input(grad_y, w, x_shape, stride, padding, dilation, groups):
    """dL/dx: w^T @ dL/dy gives dL/dcols, and col2im adds the columns back onto x.

    This is also the forward pass of conv_transpose2d. `x_shape` (N, C, H, W) fixes the
    size of the result: the output sizes of a convolution round down, so several input
    sizes give the same grad_y, and conv_transpose2d's output_padding picks one.
    """
    n, o, ho, wo = grad_y.shape
    _, cg, kh, kw = w.shape
    g = groups
    w_cols = w.reshape(g, o // g, cg * kh * kw).transpose(0, 2, 1)  # (G, K, O/G)
    gy = grad_y.reshape(n, g, o // g, ho * wo)  # (N, G, O/G, P)
    grad_cols = w_cols @ gy  # (N, G, K, P): what each copied pixel of each window receives
    grad_cols = grad_cols.reshape(n, g * cg, kh, kw, ho, wo)  # back to (N, C, kH, kW, Ho, Wo)
    return col2im(grad_cols, x_shape, stride, padding, dilation)


def conv2d_backward_weight(grad_y, x, w_shape, stride, padding, dilation, groups):
    """dL/dw = dL/dy @ cols^T, summed over the batch: each weight meets every pixel it
    multiplied, at every position and in every sample.

    The windows are counted from grad_y's size (H_out, W_out), which may be smaller
    than x allows (a conv_transpose2d with output_padding).
    """
    n, o, ho, wo = grad_y.shape
    _, cg, kh, kw = w_shape
    g = groups
    windows = im2col(x, (kh, kw), (ho, wo), stride, padding, dilation)  # (N, C, kH, kW, Ho, Wo)
    cols = windows.reshape(n, g, cg * kh * kw, ho * wo)  # (N, G, K, P)
    gy = grad_y.reshape(n, g, o // g, ho * wo)  # (N, G, O/G, P)
    grad_w = (gy @ cols.transpose(0, 1, 3, 2)).sum(axis=0)  # (N, G, O/G, K) summed over N
    return grad_w.reshape(w_shape)
    # --8<-- [end:backward]


def conv2d_backward_bias(grad_y):
    """dL/db (O,): dL/dy (N, O, H_out, W_out) summed over the batch and the positions
    (the bias is added at every position of its channel, so each position passes its
    gradient back to it)."""
    return grad_y.sum(axis=(0, 2, 3))
