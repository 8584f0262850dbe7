"""`mg.distributed`: multi-process training, which minigrad does not do.

`is_available()` is False, so programs that check it (`if dist.is_available() and
dist.is_initialized(): ...`) take their single-process path. The functions a program
calls outside that path behave as torch's do when no process group was initialised
(`is_initialized()` False; `get_rank()`, `get_world_size()` raise torch's ValueError;
`destroy_process_group()` torch's AssertionError), so code that works with torch
without a process group works here. A DistributedSampler given its `num_replicas` and
`rank` needs no process group: it is `minigrad.utils.data.distributed.DistributedSampler`.
"""

_NO_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


def is_available():
    """False: minigrad has no process-group communication (torch reports whether it
    was built with it)."""
    return False


def is_initialized():
    """False: no process group is ever initialised."""
    return False


def _unavailable(op):
    return RuntimeError(f"mg.distributed.{op}: distributed training is not available in minigrad")


def init_process_group(*args, **kwargs):
    """Raises: there are no process groups."""
    raise _unavailable("init_process_group")


def get_rank(group=None):
    """Raises ValueError, as torch does when no process group was initialised (and none can be
    here)."""
    raise ValueError(f"{_NO_GROUP} (mg.distributed.get_rank: minigrad has no process groups)")


def get_world_size(group=None):
    """Raises ValueError, as torch does when no process group was initialised (and none can be
    here)."""
    raise ValueError(f"{_NO_GROUP} (mg.distributed.get_world_size: minigrad has no process groups)")


def destroy_process_group(group=None):
    """Raises AssertionError, as torch does when there is no process group to destroy."""
    raise AssertionError(
        "Process group cannot be None (mg.distributed.destroy_process_group: none was initialised)"
    )
