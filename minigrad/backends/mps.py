"""`mg.backends.mps`: Apple's Metal backend, which minigrad does not have.

Lets the device-picking idiom of PyTorch programs run unchanged::

    if mg.backends.mps.is_available():
        device = mg.device("mps")
"""


def is_available():
    """False: minigrad tensors never live on an Apple GPU."""
    return False


def is_built():
    """False: minigrad is not built with Metal support."""
    return False
