"""Convolution as autograd Functions: conv2d, conv_transpose2d, and the weight gradient.

A 2-d convolution y = conv(x, w) is *bilinear*: linear in x for a fixed w, and linear
in w for a fixed x. So both its gradients are linear maps too, and each turns out to
be a convolution-like op of its own (`minigrad/kernels/*/conv.py` has the three):

    forward           y  = C(x, w)             conv2d_forward
    gradient for x    gx = T(gy, w)            conv2d_backward_input  (= conv_transpose2d)
    gradient for w    gw = W(gy, x)            conv2d_backward_weight

T is the *adjoint* of C in x (sum(gx * x) = sum(gy * C(x, w)) for every x), which is why
the transposed convolution is called "transposed": it is the matrix of C, transposed.
Each Function below is one of the three maps, and its backward is written with the
other two, so every backward is itself made of differentiable Functions and
`create_graph=True` gives second derivatives. Pairing each map with a gradient of the
loss g and differentiating sum(g * map) gives the whole table:

    z = C(x, w):   dL/dx = T(gz, w)      dL/dw = W(gz, x)
    z = T(g, w):   dL/dg = C(gz, w)      dL/dw = W(g, gz)
    z = W(g, x):   dL/dg = C(x, gz)      dL/dx = T(g, gz)

Each forward takes its kernels from the current backend (`mg.backends.use`) once, for
the device of its input (the GPU kernels for a CUDA tensor), and keeps the module on
`ctx.kernels`; the backward hands it to the Functions it applies, so a forward and its
backward (and a second backward) run on the same backend even if another one is chosen
in between.

The functional forms (`F.conv1d`, `F.conv2d`, `F.conv_transpose2d`, with
torch.nn.functional's signatures) are in `minigrad/nn/functional/conv.py`: they check
the arguments, turn 'same' padding, 1-d inputs and unbatched inputs into a plain 4-d
convolution, and call these Functions with tuples of ints.
"""

from minigrad import backends
from minigrad.autograd.function import Function


def _fit(z, shape):
    """z cut down to the spatial size of `shape`. C of T's output can be larger than the
    g T started from: a conv_transpose2d with output_padding adds rows that no window
    of the size of g reaches, and the gradient ignores them."""
    if z.shape[2:] == tuple(shape[2:]):
        return z
    return z[:, :, : shape[2], : shape[3]]


def _add_bias(y, bias):
    if bias is not None:
        y += bias.array.reshape(1, -1, 1, 1)
    return y


class Conv2d(Function):
    """y = C(x, w) + b: x (N, C, H, W), w (O, C/groups, kH, kW), b (O,) or None.

    dL/dx = T(dL/dy, w), a transposed convolution;  dL/dw = W(dL/dy, x);
    dL/db = dL/dy summed over the batch and the positions.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups, kernels=None):
        # looked up once; the device of x picks the CPU or the GPU kernels
        ctx.kernels = backends.kernels("conv", array=x.array) if kernels is None else kernels
        ctx.save_for_backward(x, weight)
        # the backward applies the other two maps with the same settings, on the same kernels
        ctx.config = dict(
            stride=stride, padding=padding, dilation=dilation, groups=groups, kernels=ctx.kernels
        )
        # the kernels add the bias as they write y (no second pass over it)
        b = None if bias is None else bias.array
        return ctx.kernels.conv2d_forward(
            x.array, weight.array, stride, padding, dilation, groups, bias=b
        )

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        # one contiguous copy for both kernels, which each need one (the gradient of a sum
        # arrives as a broadcast view of one number)
        grad = grad.contiguous()
        grad_x = (
            ConvTranspose2d.apply(grad, weight, None, out_shape=x.shape, **ctx.config)
            if need_x
            else None
        )
        grad_w = (
            Conv2dWeightGrad.apply(grad, x, w_shape=weight.shape, **ctx.config) if need_w else None
        )
        grad_b = BiasGrad.apply(grad, kernels=ctx.kernels) if need_b else None
        return grad_x, grad_w, grad_b


class ConvTranspose2d(Function):
    """z = T(g, w) + b, the transposed convolution, of output shape `out_shape`:
    g (N, O, Hg, Wg), w (O, C/groups, kH, kW) -> z (N, C, H, W).

    Its forward is the input gradient of conv2d (conv2d_backward_input), and its
    gradient for g is conv2d's forward: dL/dg = C(dL/dz, w).  dL/dw = W(g, dL/dz)
    (W with the roles of gradient and input played by g and dL/dz); dL/db = the sum
    of dL/dz over the batch and the positions.
    """

    @staticmethod
    def forward(ctx, g, weight, bias, out_shape, stride, padding, dilation, groups, kernels=None):
        # looked up once, for g's device
        ctx.kernels = backends.kernels("conv", array=g.array) if kernels is None else kernels
        ctx.save_for_backward(g, weight)
        # the backward applies the other two maps with the same settings, on the same kernels
        ctx.config = dict(
            stride=stride, padding=padding, dilation=dilation, groups=groups, kernels=ctx.kernels
        )
        z = ctx.kernels.conv2d_backward_input(
            g.array, weight.array, tuple(out_shape), stride, padding, dilation, groups
        )
        return _add_bias(z, bias)

    @staticmethod
    def backward(ctx, grad):
        g, weight = ctx.saved_tensors
        need_g, need_w, need_b = ctx.needs_input_grad
        grad = grad.contiguous()  # once for both kernels, as in Conv2d.backward
        grad_g = _fit(Conv2d.apply(grad, weight, None, **ctx.config), g.shape) if need_g else None
        grad_w = (
            Conv2dWeightGrad.apply(g, grad, w_shape=weight.shape, **ctx.config) if need_w else None
        )
        grad_b = BiasGrad.apply(grad, kernels=ctx.kernels) if need_b else None
        return grad_g, grad_w, grad_b


class Conv2dWeightGrad(Function):
    """v = W(g, x), the weight gradient of conv2d as an op of its own, of shape
    `w_shape`: v[o, c, i, j] = sum over n and positions of g[n, o, p] * window_p(x)[c, i, j].

    It only exists so that conv2d's backward can be differentiated again:
    dL/dg = C(x, dL/dv) (a convolution of x with dL/dv as the kernel) and
    dL/dx = T(g, dL/dv).
    """

    @staticmethod
    def forward(ctx, g, x, w_shape, stride, padding, dilation, groups, kernels=None):
        # looked up once, for g's device
        ctx.kernels = backends.kernels("conv", array=g.array) if kernels is None else kernels
        ctx.save_for_backward(g, x)
        # the backward applies the other two maps with the same settings, on the same kernels
        ctx.config = dict(
            stride=stride, padding=padding, dilation=dilation, groups=groups, kernels=ctx.kernels
        )
        return ctx.kernels.conv2d_backward_weight(
            g.array, x.array, tuple(w_shape), stride, padding, dilation, groups
        )

    @staticmethod
    def backward(ctx, grad):
        g, x = ctx.saved_tensors
        need_g, need_x = ctx.needs_input_grad
        grad_g = _fit(Conv2d.apply(x, grad, None, **ctx.config), g.shape) if need_g else None
        grad_x = (
            ConvTranspose2d.apply(g, grad, None, out_shape=x.shape, **ctx.config)
            if need_x
            else None
        )
        return grad_g, grad_x


class BiasGrad(Function):
    """s = the sum of g (N, O, H, W) over the batch and the positions: the gradient of a
    convolution's bias, s[o] = sum over n, p of g[n, o, p] (conv2d_backward_bias, a
    kernel because NumPy's sum runs on one core).

    Its own gradient is dL/dg = dL/ds at every (n, p) of channel o, which
    `create_graph=True` needs for second derivatives.
    """

    @staticmethod
    def forward(ctx, g, kernels):
        ctx.shape = g.shape
        return kernels.conv2d_backward_bias(g.array)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(1, -1, 1, 1).expand(*ctx.shape)
