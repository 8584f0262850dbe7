"""`mg.distributed`: multi-process training, which minigrad does not do.

`is_available()` is False, so programs that check it (`if dist.is_available() and
dist.is_initialized(): ...`) take their single-process path.
"""


def is_available():
    """False: minigrad has no process-group communication."""
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
    """Raises, as PyTorch does when no process group was initialised."""
    raise _unavailable("get_rank")


def get_world_size(group=None):
    """Raises, as PyTorch does when no process group was initialised."""
    raise _unavailable("get_world_size")
