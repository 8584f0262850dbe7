"""`mg.cpu`: the CPU as a device module, as `torch.cpu`, so that device-generic code
(`getattr(mg, device.type).synchronize()`) works for 'cpu' as it does for 'cuda'.

There is one CPU device, always available, and every op has finished when it returns:
`synchronize` has nothing to wait for (as torch's on the CPU).
"""


def is_available():
    """True: the CPU is always there."""
    return True


def device_count():
    """1: minigrad (as torch) counts the CPU as one device, whatever its cores."""
    return 1


def current_device():
    """'cpu', the name of the one CPU device."""
    return "cpu"


def synchronize(device=None):
    """Wait for the CPU's work to finish: it has, as every op returns when done."""
    return None
