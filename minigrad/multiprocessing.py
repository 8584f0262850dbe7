"""`mg.multiprocessing`: Python's multiprocessing, as `torch.multiprocessing` is.

torch.multiprocessing is the standard library's module with every name re-exported
(`Process`, `Queue`, `Pool`, `get_context`, `set_start_method`, `cpu_count`, ...), plus
a way of passing tensors to other processes through shared memory instead of copying
them. minigrad keeps the first part: these are the standard library's own objects, so
`mp.set_start_method("spawn", force=True)` and `mp.Process(target=..., args=...)` work
as they do in a PyTorch program.

The second part it does not have: a minigrad tensor sent to another process (as an
argument of a spawned Process, or through a Queue) is pickled, that is copied, as any
NumPy array. The process that receives it works on its own copy, so training one model
from several processes at once ("Hogwild", which needs `model.share_memory()`) is not
possible. `set_sharing_strategy` is recorded and changes nothing, as there is nothing
shared; it exists because programs set it to avoid running out of file descriptors.
"""

import multiprocessing
from multiprocessing import *  # noqa: F403  (torch.multiprocessing re-exports every name)

_SHARING_STRATEGIES = {"file_descriptor", "file_system"}  # torch's, on Linux
_sharing_strategy = "file_descriptor"

__all__ = [
    *multiprocessing.__all__,
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
]


def set_sharing_strategy(new_strategy):
    """Record how tensors would be shared between processes (`torch.multiprocessing`):
    'file_descriptor' or 'file_system'. minigrad copies tensors instead, so it has no effect."""
    global _sharing_strategy
    if new_strategy not in _SHARING_STRATEGIES:
        # torch's check and its exception type
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_SHARING_STRATEGIES}"
        )
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The strategy last set with `set_sharing_strategy` ('file_descriptor' at first, as torch's on
    Linux)."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """{'file_descriptor', 'file_system'}: the strategies torch has on Linux."""
    return set(_SHARING_STRATEGIES)
