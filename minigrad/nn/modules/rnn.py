"""`torch.nn.modules.rnn`'s names: `from minigrad.nn.modules.rnn import RNNBase`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    RNNBase RNN LSTM GRU RNNCellBase RNNCell LSTMCell GRUCell
    """.split()
)
"""torch.nn.modules.rnn's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
