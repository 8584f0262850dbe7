"""Recurrent layers: the cells RNNCell, LSTMCell, GRUCell, and the layers RNN, LSTM, GRU.

A cell is one time step: `h' = cell(x, h)`. The caller loops over time with it. A layer
(RNN, LSTM, GRU) runs the whole sequence, through `num_layers` stacked layers, each
optionally in both directions, and returns every step's output and the final states.

Names, shapes, gate order, defaults, initialisation (U(-1/sqrt(H), 1/sqrt(H)) for every
weight and bias) and `repr` are PyTorch's, so a PyTorch state dict loads unchanged:

    weight_ih_l{k}  (G * H, input_size of layer k)     G = 1 (RNN), 3 (GRU: r, z, n),
    weight_hh_l{k}  (G * H, H)                              4 (LSTM: i, f, g, o)
    bias_ih_l{k}, bias_hh_l{k}  (G * H,)
    weight_hr_l{k}  (proj_size, H)                     LSTM with proj_size > 0 only
    ..._reverse                                        the backward direction

and a cell has `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`. Sequences are
(T, B, features) unless batch_first=True, (B, T, features); one sequence without its
batch dim, (T, features), works too. The math is in minigrad/ops/recurrent.py: the cells
there are composed from Tensor ops; the layers run one Function per layer and direction
that does backpropagation through time itself.
"""

import math
import numbers
import warnings

from minigrad._args import _is_int
from minigrad.creation import empty, zeros
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.ops.recurrent import (
    GRUSequence,
    LSTMSequence,
    RNNSequence,
    gru_cell,
    lstm_cell,
    rnn_cell,
)
from minigrad.ops.shape import cat, stack

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}  # gate blocks in each weight


def _check_size(value, name, op, minimum):
    if not _is_int(value):
        raise TypeError(f"{op}: {name} should be of type int, got: {type(value).__name__}")
    if value < minimum:
        relation = "greater than zero" if minimum == 1 else "non-negative"
        raise ValueError(f"{op}: {name} must be {relation}, got {value}")


def _check_flag(value, name, op):
    if not isinstance(value, bool):
        raise TypeError(f"{op}: {name} should be of type bool, got: {type(value).__name__}")


def _check_nonlinearity(nonlinearity, op):
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(
            f"{op}: Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
        )


def _check_dtype(input, weight, op):
    if input.dtype != weight.dtype:
        raise ValueError(
            f"{op}: input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
            f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})"
        )


# ---- cells --------------------------------------------------------------------------------
class RNNCellBase(Module):
    """What RNNCell, LSTMCell and GRUCell share: the weights W_ih (G * H, input_size) and
    W_hh (G * H, H) and the biases b_ih, b_hh (G * H,) for G gate blocks, PyTorch's
    initialisation, the checks of a step's input and state, and repr."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        op = type(self).__name__
        check_device(device, op)
        _check_size(input_size, "input_size", op, 0)
        _check_size(hidden_size, "hidden_size", op, 0)
        _check_flag(bias, "bias", op)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0.0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _batch(self, input, states):
        """(input as (B, input_size), the states as (B, H) each or None, whether a batch dim
        was added), after PyTorch's checks of ranks, sizes and dtypes."""
        op = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{op}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        for k, state in enumerate(states):
            which = "hidden" if len(states) == 1 else f"hx[{k}]"
            if state is not None and state.ndim not in (1, 2):
                raise ValueError(
                    f"{op}: Expected {which} to be 1D or 2D, got {state.ndim}D instead"
                )
            if state is not None and state.ndim != input.ndim:
                raise RuntimeError(
                    f"{op}: Expected {which} to be {input.ndim}D like the input (of shape "
                    f"{tuple(input.shape)}), got {state.ndim}D instead"
                )
        unbatched = input.ndim == 1
        if unbatched:
            input = input.unsqueeze(0)
            states = [None if s is None else s.unsqueeze(0) for s in states]
        if input.shape[1] != self.input_size:
            raise RuntimeError(
                f"{op}: input has inconsistent input_size: got {input.shape[1]} expected "
                f"{self.input_size}"
            )
        _check_dtype(input, self.weight_ih, op)
        for k, state in enumerate(states):
            if state is None:
                continue
            if state.shape[0] != input.shape[0]:
                raise RuntimeError(
                    f"{op}: Input batch size {input.shape[0]} doesn't match hidden{k} batch size "
                    f"{state.shape[0]}"
                )
            if state.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"{op}: hidden{k} has inconsistent hidden_size: got {state.shape[1]}, expected "
                    f"{self.hidden_size}"
                )
            if state.dtype != input.dtype:
                raise RuntimeError(
                    f"{op}: hidden{k} dtype ({state.dtype}) does not match input dtype "
                    f"({input.dtype})"
                )
        states = [
            zeros(input.shape[0], self.hidden_size, dtype=input.dtype) if s is None else s
            for s in states
        ]
        return input, states, unbatched

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh).

    nonlinearity='relu' uses relu instead of tanh. input (B, input_size) or
    (input_size,); hx (B, hidden_size) or (hidden_size,), zeros if not given; returns h'.
    The gradient comes from autograd through the Tensor ops of the step (ops/recurrent.py's
    `rnn_cell`): dL/da = dL/dh' * (1 - h'^2), a = the pre-activation.
    """

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        _check_nonlinearity(nonlinearity, "RNNCell")
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """h' from input (B, input_size) or (input_size,) and hx (B, hidden_size), zeros if None."""
        input, (h,), unbatched = self._batch(input, [hx])
        x_part = F.linear(input, self.weight_ih, self.bias_ih)
        h = rnn_cell(x_part, h, self.weight_hh, self.bias_hh, self.nonlinearity)
        return h.squeeze(0) if unbatched else h


class LSTMCell(RNNCellBase):
    """One step of a long short-term memory (Hochreiter & Schmidhuber 1997, with the forget
    gate of Gers et al. 2000): from x and the state (h, c),

        i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of x W_ih^T + b_ih + h W_hh^T + b_hh
        c' = f * c + i * g,   h' = o * tanh(c')

    input (B, input_size) or (input_size,); hx a tuple (h, c) of (B, hidden_size) or
    (hidden_size,), zeros if not given; returns (h', c'). The weights stack the gates
    (i, f, g, o) in PyTorch's order: W_ih (4 H, input_size), W_hh (4 H, H).
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """(h', c') from input (B, input_size) or (input_size,) and hx = (h, c), zeros if None."""
        if hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
            raise TypeError(
                f"LSTMCell: hx must be a tuple (h, c) of two tensors, got {type(hx).__name__}"
            )
        input, (h, c), unbatched = self._batch(input, [None, None] if hx is None else list(hx))
        x_part = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = lstm_cell(x_part, h, c, self.weight_hh, self.bias_hh)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One step of a gated recurrent unit (Cho et al. 2014): from x and h,

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr),  z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),   h' = (1 - z) * n + z * h

    input (B, input_size) or (input_size,); hx (B, hidden_size) or (hidden_size,), zeros
    if not given; returns h'. The weights stack the gates (r, z, n) in PyTorch's order:
    W_ih (3 H, input_size), W_hh (3 H, H).
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """h' from input (B, input_size) or (input_size,) and hx (B, hidden_size), zeros if None."""
        input, (h,), unbatched = self._batch(input, [hx])
        x_part = F.linear(input, self.weight_ih, self.bias_ih)
        h = gru_cell(x_part, h, self.weight_hh, self.bias_hh)
        return h.squeeze(0) if unbatched else h


# ---- layers -------------------------------------------------------------------------------
class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters of every layer and direction with
    PyTorch's names, the checks of the input and the initial states, batch_first and
    unbatched inputs, the stack of layers with dropout between them, and repr.

    `mode` is 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU', as PyTorch's RNNBase.
    """

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        op = type(self).__name__
        check_device(device, op)
        if mode not in GATES:
            raise ValueError(f"{op}: Unrecognized RNN mode: {mode}")
        if (
            isinstance(dropout, bool)
            or not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                f"{op}: dropout should be a number in range [0, 1] representing the probability of "
                f"an element being zeroed, got {dropout!r}"
            )
        _check_flag(bias, "bias", op)
        _check_flag(batch_first, "batch_first", op)
        _check_flag(bidirectional, "bidirectional", op)
        _check_size(input_size, "input_size", op, 1)
        _check_size(hidden_size, "hidden_size", op, 1)
        _check_size(num_layers, "num_layers", op, 1)
        _check_size(proj_size, "proj_size", op, 0)
        if proj_size >= hidden_size:
            raise ValueError(
                f"{op}: proj_size has to be smaller than hidden_size, got {proj_size} >= "
                f"{hidden_size}"
            )
        if dropout > 0 and num_layers == 1:
            # stacklevel 5 names the user's line: past this __init__ and RNN's (or LSTM's, GRU's),
            # each wrapped by Module.__init_subclass__
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=5,
            )
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.bidirectional = bias, batch_first, bidirectional
        self.dropout, self.proj_size = float(dropout), proj_size
        self._flat_weights_names, self._all_weights = [], []
        self._add_weights(dtype)
        self.reset_parameters()

    @property
    def num_directions(self):
        """2 if bidirectional, else 1."""
        return 2 if self.bidirectional else 1

    def _add_weights(self, dtype):
        gate_size = GATES[self.mode] * self.hidden_size
        out_size = self.proj_size or self.hidden_size  # the size of h, what the next layer reads
        for layer in range(self.num_layers):
            layer_input = self.input_size if layer == 0 else out_size * self.num_directions
            for direction in range(self.num_directions):
                shapes = {"weight_ih": (gate_size, layer_input), "weight_hh": (gate_size, out_size)}
                if self.bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if self.proj_size > 0:
                    shapes["weight_hr"] = (self.proj_size, self.hidden_size)
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                for name, shape in shapes.items():
                    setattr(self, name + suffix, Parameter(empty(*shape, dtype=dtype)))
                self._flat_weights_names += [name + suffix for name in shapes]
                self._all_weights.append([name + suffix for name in shapes])

    def reset_parameters(self):
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction, in state_dict order (PyTorch's)."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    def flatten_parameters(self):
        """Nothing to do here: PyTorch copies the weights into one contiguous buffer for
        cuDNN on a GPU. minigrad keeps each parameter separate, so this is a no-op, kept so
        that PyTorch code that calls it runs unchanged."""

    def _weights(self, layer, direction):
        """(W_ih, W_hh, b_ih, b_hh, W_hr) of one layer and direction; None where absent."""
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        return tuple(getattr(self, name + suffix, None) for name in names)

    def _state_sizes(self):
        """The size of each state tensor's last dim: (H_out,) or, for an LSTM, (H_out, H)."""
        h_size = self.proj_size or self.hidden_size
        return (h_size, self.hidden_size) if self.mode == "LSTM" else (h_size,)

    # --8<-- [start:run]
    def _run(self, input, state):
        """(output, final states) for `state` a tuple of initial states or None: checks,
        then the sequence made time-major (T, B, features) with a batch dim, then the layers."""
        input, state, unbatched = self._prepare(input, state)
        x = input.transpose(0, 1) if self.batch_first else input
        output, finals = self._layers(x, state)
        if self.batch_first:
            output = output.transpose(0, 1)
        if unbatched:
            return output.squeeze(0 if self.batch_first else 1), tuple(s.squeeze(1) for s in finals)
        return output, finals

    def _layers(self, x, state):
        """x: (T, B, input_size), state: (num_layers * D, B, *) each. The layers one after
        the other, each reading the one below's output (both directions, concatenated)."""
        finals = [[] for _ in state]  # the final state of every layer and direction
        for layer in range(self.num_layers):
            if layer > 0 and self.training and self.dropout > 0:
                x = F.dropout(x, self.dropout)  # between layers only, never on the last output
            outputs = []
            for direction in range(self.num_directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
                x_part = F.linear(x, w_ih, b_ih)  # x_t W_ih^T + b_ih for every t in one product
                first = tuple(s[layer * self.num_directions + direction] for s in state)
                out, last = self._sequence(x_part, first, w_hh, b_hh, w_hr, reverse=direction == 1)
                outputs.append(out)
                for kept, s in zip(finals, last):
                    kept.append(s)
            x = outputs[0] if len(outputs) == 1 else cat(outputs, dim=2)
        return x, tuple(stack(kept) for kept in finals)

    # --8<-- [end:run]

    def _sequence(self, x_part, state, w_hh, b_hh, w_hr, reverse):
        """One layer in one direction: (its output (T, B, H_out), its final states)."""
        raise NotImplementedError

    def _prepare(self, input, state):
        """PyTorch's checks and its errors; then a batch dim added to an unbatched input
        and its states, and zeros for states not given."""
        op = type(self).__name__
        if input.ndim not in (2, 3):
            raise ValueError(
                f"{op}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead"
            )
        unbatched = input.ndim == 2
        if state is not None:
            want = 2 if unbatched else 3
            if any(s.ndim != want for s in state):
                ranks = ", ".join(f"{s.ndim}-D" for s in state)
                kind = "unbatched 2-D" if unbatched else "batched 3-D"
                raise RuntimeError(
                    f"{op}: For {kind} input, hx should also be {want}-D but got ({ranks}) "
                    "tensor(s)"
                )
        if unbatched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            state = None if state is None else tuple(s.unsqueeze(1) for s in state)
        _check_dtype(input, self.weight_ih_l0, op)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{op}: input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.shape[-1]} (input of shape {tuple(input.shape)})"
            )
        length, batch = (input.shape[1], input.shape[0]) if self.batch_first else input.shape[:2]
        if length == 0:
            raise RuntimeError(
                f"{op}: Expected sequence length to be larger than 0 in RNN, got input of shape "
                f"{tuple(input.shape)}"
            )
        expected = [
            (self.num_layers * self.num_directions, batch, size) for size in self._state_sizes()
        ]
        if state is None:
            return input, tuple(zeros(*shape, dtype=input.dtype) for shape in expected), unbatched
        for k, (s, shape) in enumerate(zip(state, expected)):
            which = "hidden" if len(state) == 1 else f"hidden[{k}]"
            if tuple(s.shape) != shape:
                raise RuntimeError(f"{op}: Expected {which} size {shape}, got {list(s.shape)}")
            if s.dtype != input.dtype:
                raise RuntimeError(
                    f"{op}: {which} dtype ({s.dtype}) does not match input dtype ({input.dtype})"
                )
        return input, state, unbatched

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text


class RNN(RNNBase):
    """A multi-layer Elman RNN: for each layer and each step t,

        h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)    (or relu)

    where x_t is the input (first layer) or the output of the layer below (with dropout
    between layers in training). forward(input, hx=None) -> (output, h_n): input
    (T, B, input_size) ((B, T, ...) if batch_first, (T, input_size) unbatched), hx and
    h_n (num_layers * num_directions, B, hidden_size), output (T, B, num_directions *
    hidden_size), every step's h of the last layer (both directions concatenated).
    Gradients: backpropagation through time (ops/recurrent.py's RNNSequence).
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        nonlinearity="tanh",
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        _check_nonlinearity(nonlinearity, "RNN")
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(
            mode,
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            0,
            device,
            dtype,
        )
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """(output, h_n): every step's h of the last layer, and every layer's last h."""
        output, (h_n,) = self._run(input, None if hx is None else (hx,))
        return output, h_n

    def _sequence(self, x_part, state, w_hh, b_hh, w_hr, reverse):
        out = RNNSequence.apply(
            x_part, state[0], w_hh, b_hh, nonlinearity=self.nonlinearity, reverse=reverse
        )
        return out, (out[0 if reverse else -1],)


class LSTM(RNNBase):
    """A multi-layer LSTM: for each layer and each step t (see LSTMCell for the gates),

        i, f, g, o = gates of x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh
        c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t)   (h_t = W_hr (o * tanh c_t) if proj_size)

    forward(input, hx=None) -> (output, (h_n, c_n)): input as RNN's; hx a tuple (h_0, c_0)
    of (num_layers * num_directions, B, H_out) and (..., B, hidden_size), zeros if not
    given; output (T, B, num_directions * H_out), H_out = proj_size or hidden_size.
    Gradients: backpropagation through time (ops/recurrent.py's LSTMSequence).
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device,
            dtype,
        )

    def forward(self, input, hx=None):
        """(output, (h_n, c_n)): every step's h of the last layer, every layer's last h and c."""
        if hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
            raise TypeError(
                f"LSTM: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}"
            )
        output, (h_n, c_n) = self._run(input, None if hx is None else tuple(hx))
        return output, (h_n, c_n)

    def _sequence(self, x_part, state, w_hh, b_hh, w_hr, reverse):
        h0, c0 = state
        # (T, B, H_out + H)
        hc = LSTMSequence.apply(x_part, h0, c0, w_hh, b_hh, w_hr, reverse=reverse)
        h_size = h0.shape[-1]
        last = hc[0 if reverse else -1]
        return hc[..., :h_size], (last[:, :h_size], last[:, h_size:])


class GRU(RNNBase):
    """A multi-layer GRU: for each layer and each step t (see GRUCell for the gates),

        r, z = sigmoid gates,  n = tanh(W_in x_t + b_in + r * (W_hn h_{t-1} + b_hn))
        h_t = (1 - z) * n + z * h_{t-1}

    forward(input, hx=None) -> (output, h_n), shaped as RNN's.
    Gradients: backpropagation through time (ops/recurrent.py's GRUSequence).
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            0,
            device,
            dtype,
        )

    def forward(self, input, hx=None):
        """(output, h_n): every step's h of the last layer, and every layer's last h."""
        output, (h_n,) = self._run(input, None if hx is None else (hx,))
        return output, h_n

    def _sequence(self, x_part, state, w_hh, b_hh, w_hr, reverse):
        out = GRUSequence.apply(x_part, state[0], w_hh, b_hh, reverse=reverse)
        return out, (out[0 if reverse else -1],)
