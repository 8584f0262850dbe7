"""`torch.nn.modules.rnn`'s names: `from minigrad.nn.modules.rnn import LSTM`.

The recurrent layers are minigrad.nn's; this module hands out whichever of torch's
names minigrad.nn has, read from minigrad.nn when asked for (PEP 562's module
`__getattr__`), so it stays right as layers are added there. A name minigrad.nn does not
have fails as a missing name does: ImportError from `from ... import`, AttributeError
otherwise.
"""

import importlib

NAMES = ("RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell")
"""torch.nn.modules.rnn's public classes."""


def __getattr__(name):
    if name == "__all__":  # what `import *` gives: the names minigrad.nn has now
        nn = importlib.import_module("minigrad.nn")
        return [n for n in NAMES if hasattr(nn, n)]
    if name in NAMES:
        nn = importlib.import_module("minigrad.nn")
        if hasattr(nn, name):
            return getattr(nn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r} (minigrad.nn has no {name})")


def __dir__():
    return sorted([*globals(), *__getattr__("__all__")])
