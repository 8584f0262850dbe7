"""Recurrent networks: one step of each cell, and the same recurrence over a whole sequence.

A recurrent layer applies one small function, the *cell*, at every time step, feeding
the state it produced back in with the next input:

    h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)              (RNN)

This file holds that math twice.

- `rnn_cell`, `lstm_cell`, `gru_cell`: one step, composed from Tensor ops (a product,
  `chunk`, `sigmoid`, `tanh`, ...). Autograd differentiates them like any other graph,
  so a loop over time steps gets backpropagation through time for free. nn.RNNCell,
  nn.LSTMCell and nn.GRUCell call these.
- `RNNSequence`, `LSTMSequence`, `GRUSequence`: the loop over all T steps of one layer
  as a single Function, whose backward is backpropagation through time written out:
  one graph node per layer instead of about ten per step. nn.RNN, nn.LSTM and nn.GRU
  call these; they are checked against the cells, PyTorch and finite differences.

Every function takes the input's part of the pre-activations, `x_part = x W_ih^T + b_ih`,
already computed: it does not depend on the state, so a layer computes it for all T
steps in one matrix product before the loop. Gate order and layouts are PyTorch's:
LSTM (i, f, g, o), GRU (r, z, n), each block of W_ih / W_hh / the biases one gate.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.engine import grad as autograd_grad
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled
from minigrad.creation import from_numpy
from minigrad.ops.shape import cat, stack


# ---- one step, composed from Tensor ops -------------------------------------------------
def _hidden_part(h, w_hh, b_hh):
    """h W_hh^T + b_hh: the previous state's part of the pre-activations."""
    part = h @ w_hh.mT
    return part if b_hh is None else part + b_hh


def rnn_cell(x_part, h, w_hh, b_hh=None, nonlinearity="tanh"):
    """h' = tanh(x_part + h W_hh^T + b_hh), or relu; x_part = x W_ih^T + b_ih."""
    a = x_part + _hidden_part(h, w_hh, b_hh)
    return a.tanh() if nonlinearity == "tanh" else a.relu()


def lstm_cell(x_part, h, c, w_hh, b_hh=None, w_hr=None):
    """One LSTM step: (h', c') from the input's part x_part = x W_ih^T + b_ih and (h, c).

    i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the four blocks of
                 x_part + h W_hh^T + b_hh
    c' = f * c + i * g                       (forget some memory, write some new)
    h' = o * tanh(c')                        (and W_hr h' with a projection)
    """
    i, f, g, o = (x_part + _hidden_part(h, w_hh, b_hh)).chunk(4, dim=-1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c = f * c + i * g
    h = o * c.tanh()
    if w_hr is not None:  # proj_size > 0: the state passed on is a projection of h
        h = h @ w_hr.mT
    return h, c


def gru_cell(x_part, h, w_hh, b_hh=None):
    """One GRU step: h' from the input's part x_part = x W_ih^T + b_ih and h.

        r = sigmoid(x_r + h_r),  z = sigmoid(x_z + h_z)      (reset and update gates)
        n = tanh(x_n + r * h_n)                             (the candidate state)
        h' = (1 - z) * n + z * h
    where x_r, x_z, x_n are the blocks of x_part and h_r, h_z, h_n of h W_hh^T + b_hh:
    the reset gate scales the state's part *with* its bias, as PyTorch (and cuDNN) do.
    """
    x_r, x_z, x_n = x_part.chunk(3, dim=-1)
    h_r, h_z, h_n = _hidden_part(h, w_hh, b_hh).chunk(3, dim=-1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (1.0 - z) * n + z * h


# ---- the whole sequence as one Function -------------------------------------------------
def _sigmoid(a):
    """1 / (1 + e^-a) on an array, as (1 + tanh(a/2)) / 2: the same function, one ufunc
    call, and no e^-a to overflow for very negative a."""
    return 0.5 * (1.0 + np.tanh(0.5 * a))


def _transposed(w):
    """W^T as a contiguous array, made once per sequence: OpenBLAS multiplies a small batch
    by it faster than by the transposed view of W, and the loop does it at every step."""
    return w.array.T.copy()  # a copy is C-contiguous (on the CPU and on a GPU)


def _steps(length, reverse):
    """The time steps in the order the layer visits them (backwards for reverse=True)."""
    return range(length - 1, -1, -1) if reverse else range(length)


def _previous(states, first, reverse):
    """(T, B, H): the state each step started from: `first` for the first step visited,
    then what the step visited before it produced."""
    if reverse:
        return np.concatenate([states[1:], first[None]])
    return np.concatenate([first[None], states[:-1]])


def _weight_grads(d_part, h_prev, needs_w, needs_b):
    """dL/dW_hh = sum over t of d_part_t^T h_{t-1}, dL/db_hh = sum of d_part: one
    product over all T * B rows, after the loop, instead of one per step."""
    rows = d_part.shape[0] * d_part.shape[1]  # T * B
    d_rows, h_rows = d_part.reshape(rows, d_part.shape[2]), h_prev.reshape(rows, h_prev.shape[2])
    dw = d_rows.T @ h_rows if needs_w else None
    db = d_part.sum(axis=(0, 1)) if needs_b else None
    return dw, db


def _tensors(*arrays):
    return tuple(None if a is None else from_numpy(a) for a in arrays)


def _recorded_backward(ctx, grad, run_cells):
    """The backward when it is itself recorded (create_graph=True), so that second
    derivatives exist: run the recurrence again with the Tensor-op cells, and let
    autograd differentiate that graph. (An ordinary backward never comes here.)"""
    inputs = ctx.saved_tensors[:-1]  # the last one saved is the output
    wanted = [t for t, need in zip(inputs, ctx.needs_input_grad) if need]
    with enable_grad():
        out = run_cells(*inputs)
    grads = autograd_grad(out, wanted, grad_outputs=grad, create_graph=True, allow_unused=True)
    grads = iter(grads)
    return tuple(next(grads) if need else None for need in ctx.needs_input_grad)


# --8<-- [start:rnn_sequence]
class RNNSequence(Function):
    """out[t] = h_t = act(x_part[t] + h_{t-1} W_hh^T + b_hh) for every t, h_{-1} = h0;
    act = tanh or relu. out: (T, B, H). Backpropagation through time:

        dh_t = dL/dout[t] + da_{t+1} W_hh        (from the output, and from the future)
        da_t = dh_t * act'(a_t)                   = dh_t (1 - h_t^2) for tanh
        dL/dx_part[t] = da_t,  dL/dW_hh = sum_t da_t^T h_{t-1},  dL/db_hh = sum_t da_t
    """

    @staticmethod
    def forward(ctx, x_part, h0, w_hh, b_hh=None, nonlinearity="tanh", reverse=False):
        ctx.nonlinearity, ctx.reverse = nonlinearity, reverse
        w_t, b = _transposed(w_hh), None if b_hh is None else b_hh.array
        xp = array_module(x_part.array)  # the outputs are made where the inputs live
        out = xp.empty(x_part.shape[:2] + h0.shape[-1:], dtype=x_part.dtype)
        h = h0.array
        for t in _steps(len(out), reverse):
            a = x_part.array[t] + h @ w_t
            if b is not None:
                a += b
            h = out[t] = np.tanh(a) if nonlinearity == "tanh" else np.maximum(a, 0)
        out = from_numpy(out)
        ctx.save_for_backward(x_part, h0, w_hh, b_hh, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        if is_grad_enabled():
            return _recorded_backward(ctx, grad, RNNSequence.cells(ctx.nonlinearity, ctx.reverse))
        x_part, h0, w_hh, b_hh, out = ctx.saved_tensors
        w, h, g = w_hh.array, out.array, grad.array
        # act'(a_t) for every t at once: it does not depend on the gradient
        slope = 1.0 - h * h if ctx.nonlinearity == "tanh" else (h > 0).astype(h.dtype)
        d_part = np.empty_like(h)  # dL/da_t for every t
        dh_next = np.zeros_like(h0.array)  # what step t receives from the step after it
        for t in reversed(_steps(len(h), ctx.reverse)):
            dh = g[t] + dh_next
            da = d_part[t] = dh * slope[t]
            dh_next = da @ w
        need = ctx.needs_input_grad
        dw, db = _weight_grads(d_part, _previous(h, h0.array, ctx.reverse), need[2], need[3])
        return _tensors(d_part, dh_next, dw, db)

    # --8<-- [end:rnn_sequence]

    @staticmethod
    def cells(nonlinearity, reverse):
        """The same recurrence with the Tensor-op cell: f(x_part, h0, w_hh, b_hh) -> out."""

        def run(x_part, h0, w_hh, b_hh):
            h, out = h0, [None] * x_part.shape[0]
            for t in _steps(len(out), reverse):
                h = out[t] = rnn_cell(x_part[t], h, w_hh, b_hh, nonlinearity)
            return stack(out)

        return run


# --8<-- [start:lstm_sequence]
class LSTMSequence(Function):
    """Every step of an LSTM layer: out[t] = [h_t | c_t], (T, B, P + H), from the four
    gate blocks of a_t = x_part[t] + h_{t-1} W_hh^T + b_hh (see lstm_cell). P = H, or
    proj_size with h_t = W_hr (o * tanh c_t). Backpropagation through time, with
    m_t = o * tanh(c_t) and dh_t = dL/dh_t + da_{t+1} W_hh:

        dm = dh_t W_hr (or dh_t),   dc_t = dL/dc_t + dc_{t+1} f_{t+1} + dm o (1 - tanh^2 c_t)
        di = dc g,  df = dc c_{t-1},  dg = dc i,  do = dm tanh c_t     (times each gate's
        derivative: s (1 - s) for a sigmoid, 1 - g^2 for the tanh) give da_t.
    """

    @staticmethod
    def forward(ctx, x_part, h0, c0, w_hh, b_hh=None, w_hr=None, reverse=False):
        ctx.reverse = reverse
        T, B, G = x_part.shape
        H, P = G // 4, h0.shape[-1]
        w_t, b = _transposed(w_hh), None if b_hh is None else b_hh.array
        xp = array_module(x_part.array)  # the outputs are made where the inputs live
        gates = xp.empty((T, B, G), dtype=x_part.dtype)  # i, f, g, o after their sigmoid / tanh
        out = xp.empty((T, B, P + H), dtype=x_part.dtype)
        h, c = h0.array, c0.array
        for t in _steps(T, reverse):
            a = x_part.array[t] + h @ w_t
            if b is not None:
                a += b
            gate = gates[t]
            gate[:, : 2 * H] = _sigmoid(a[:, : 2 * H])  # i, f
            gate[:, 2 * H : 3 * H] = np.tanh(a[:, 2 * H : 3 * H])  # g
            gate[:, 3 * H :] = _sigmoid(a[:, 3 * H :])  # o
            i, f, g, o = gate[:, :H], gate[:, H : 2 * H], gate[:, 2 * H : 3 * H], gate[:, 3 * H :]
            c = f * c + i * g
            h = o * np.tanh(c)
            if w_hr is not None:
                h = h @ w_hr.array.T
            out[t, :, :P], out[t, :, P:] = h, c
        ctx.gates = gates
        out = from_numpy(out)
        ctx.save_for_backward(x_part, h0, c0, w_hh, b_hh, w_hr, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        if is_grad_enabled():
            return _recorded_backward(ctx, grad, LSTMSequence.cells(ctx.reverse))
        x_part, h0, c0, w_hh, b_hh, w_hr, out = ctx.saved_tensors
        gates, P = ctx.gates, h0.shape[-1]
        H = gates.shape[-1] // 4
        hs, cs = out.array[..., :P], out.array[..., P:]  # h_t and c_t, and their gradients
        g_h, g_c = grad.array[..., :P], grad.array[..., P:]
        i, f, g, o = (gates[..., k * H : (k + 1) * H] for k in range(4))
        tanh_c = np.tanh(cs)
        # the local slopes do not depend on the gradient: all T steps at once, before the loop
        c_slope = o * (1.0 - tanh_c * tanh_c)  # dc_t / dm_t
        i_slope = g * i * (1.0 - i)  # da_i / dc_t: c = f c_prev + i g, and i = sigmoid(a_i)
        f_slope = _previous(cs, c0.array, ctx.reverse) * f * (1.0 - f)  # da_f / dc_t
        g_slope = i * (1.0 - g * g)  # da_g / dc_t
        o_slope = tanh_c * o * (1.0 - o)  # da_o / dm_t
        d_part = np.empty_like(gates)
        dh_all = np.empty_like(hs)  # dL/dh_t in full, for dL/dW_hr
        dh_next, dc_next = np.zeros_like(h0.array), np.zeros_like(c0.array)
        for t in reversed(_steps(len(hs), ctx.reverse)):  # what flows back through time
            dh = dh_all[t] = g_h[t] + dh_next
            dm = dh if w_hr is None else dh @ w_hr.array
            dc = g_c[t] + dc_next + dm * c_slope[t]
            da = d_part[t]
            da[:, :H] = dc * i_slope[t]
            da[:, H : 2 * H] = dc * f_slope[t]
            da[:, 2 * H : 3 * H] = dc * g_slope[t]
            da[:, 3 * H :] = dm * o_slope[t]
            dc_next = dc * f[t]
            dh_next = da @ w_hh.array
        need = ctx.needs_input_grad
        dw, db = _weight_grads(d_part, _previous(hs, h0.array, ctx.reverse), need[3], need[4])
        dw_hr = None
        if w_hr is not None and need[5]:
            m = o * tanh_c  # h before the projection
            dw_hr, _ = _weight_grads(dh_all, m, True, False)
        return _tensors(d_part, dh_next, dc_next, dw, db, dw_hr)

    # --8<-- [end:lstm_sequence]

    @staticmethod
    def cells(reverse):
        """The same recurrence with the Tensor-op cell: f(x_part, h0, c0, w_hh, b_hh, w_hr)."""

        def run(x_part, h0, c0, w_hh, b_hh, w_hr):
            h, c, out = h0, c0, [None] * x_part.shape[0]
            for t in _steps(len(out), reverse):
                h, c = lstm_cell(x_part[t], h, c, w_hh, b_hh, w_hr)
                out[t] = cat([h, c], dim=-1)
            return stack(out)

        return run


# --8<-- [start:gru_sequence]
class GRUSequence(Function):
    """out[t] = h_t for every step of a GRU layer (see gru_cell), (T, B, H).
    Backpropagation through time, with dh_t = dL/dh_t + (what step t+1 sends back):

        dn = dh (1 - z),  dz = dh (h_{t-1} - n),  da_n = dn (1 - n^2),  dr = da_n h_n
        da_r = dr r (1 - r),  da_z = dz z (1 - z)
        dL/dx_part[t] = [da_r, da_z, da_n];  the state's part h W_hh^T + b_hh gets
        [da_r, da_z, da_n * r], and step t-1 receives dh z + that times W_hh.
    """

    @staticmethod
    def forward(ctx, x_part, h0, w_hh, b_hh=None, reverse=False):
        ctx.reverse = reverse
        T, B, G = x_part.shape
        H = G // 3
        w_t, b = _transposed(w_hh), None if b_hh is None else b_hh.array
        xp = array_module(x_part.array)  # the outputs are made where the inputs live
        gates = xp.empty((T, B, G), dtype=x_part.dtype)  # r, z, n
        hidden_n = xp.empty((T, B, H), dtype=x_part.dtype)  # h_n = the n block of h W_hh^T + b_hh
        out = xp.empty((T, B, H), dtype=x_part.dtype)
        h = h0.array
        for t in _steps(T, reverse):
            x_t, h_t = x_part.array[t], h @ w_t
            if b is not None:
                h_t += b
            gate = gates[t]
            gate[:, : 2 * H] = _sigmoid(x_t[:, : 2 * H] + h_t[:, : 2 * H])  # r, z
            r, z = gate[:, :H], gate[:, H : 2 * H]
            hidden_n[t] = h_t[:, 2 * H :]
            n = gate[:, 2 * H :] = np.tanh(x_t[:, 2 * H :] + r * hidden_n[t])
            h = out[t] = (1.0 - z) * n + z * h
        ctx.gates, ctx.hidden_n = gates, hidden_n
        out = from_numpy(out)
        ctx.save_for_backward(x_part, h0, w_hh, b_hh, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        if is_grad_enabled():
            return _recorded_backward(ctx, grad, GRUSequence.cells(ctx.reverse))
        x_part, h0, w_hh, b_hh, out = ctx.saved_tensors
        gates, hidden_n, g = ctx.gates, ctx.hidden_n, grad.array
        H = hidden_n.shape[-1]
        h_prev = _previous(out.array, h0.array, ctx.reverse)
        r, z, n = (gates[..., k * H : (k + 1) * H] for k in range(3))
        # the local slopes do not depend on the gradient: all T steps at once, before the loop
        n_slope = (1.0 - z) * (1.0 - n * n)  # da_n / dh_t
        r_slope = hidden_n * r * (1.0 - r)  # da_r / da_n
        z_slope = (h_prev - n) * z * (1.0 - z)  # da_z / dh_t
        d_part = np.empty_like(gates)  # dL/dx_part
        d_hidden = np.empty_like(gates)  # dL/d(h W_hh^T + b_hh)
        dh_next = np.zeros_like(h0.array)
        for t in reversed(_steps(len(g), ctx.reverse)):  # what flows back through time
            dh = g[t] + dh_next
            da_n = dh * n_slope[t]
            d_part[t, :, :H] = d_hidden[t, :, :H] = da_n * r_slope[t]
            d_part[t, :, H : 2 * H] = d_hidden[t, :, H : 2 * H] = dh * z_slope[t]
            d_part[t, :, 2 * H :] = da_n
            d_hidden[t, :, 2 * H :] = da_n * r[t]
            dh_next = dh * z[t] + d_hidden[t] @ w_hh.array
        need = ctx.needs_input_grad
        dw, db = _weight_grads(d_hidden, h_prev, need[2], need[3])
        return _tensors(d_part, dh_next, dw, db)

    # --8<-- [end:gru_sequence]

    @staticmethod
    def cells(reverse):
        """The same recurrence with the Tensor-op cell: f(x_part, h0, w_hh, b_hh) -> out."""

        def run(x_part, h0, w_hh, b_hh):
            h, out = h0, [None] * x_part.shape[0]
            for t in _steps(len(out), reverse):
                h = out[t] = gru_cell(x_part[t], h, w_hh, b_hh)
            return stack(out)

        return run
