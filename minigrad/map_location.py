"""Where `mg.load` puts the tensors of a file: torch.load's `map_location`.

A file records, for each array, the device it was saved from ('cpu' or 'cuda:0'); its
values are always stored from host memory. `placement(map_location)` turns torch's forms
(None: where it was saved; a device or a string: there; a dict: saved location -> target;
a callable: your function) into one function `(host array, saved location) -> array`.
"""

from minigrad import devices as _devices
from minigrad.array_module import to_device
from minigrad.creation import from_numpy


def placement(map_location):
    """torch.load's `map_location` as a function (host array, the location it was saved
    from: 'cpu' or 'cuda:0') -> the array where it is to load. A target device is checked
    here, before the file is read: 'cuda' without a GPU raises at once."""
    if map_location is None:
        return put
    if callable(map_location) and not isinstance(map_location, dict):

        def place(array, saved):
            moved = map_location(from_numpy(array), saved)
            return put(array, saved) if moved is None else getattr(moved, "array", moved)

        return place
    if isinstance(map_location, dict):
        table = {saved_location(key): location(target) for key, target in map_location.items()}
        return lambda array, saved: put(array, table.get(saved, saved))
    target = location(map_location)
    return lambda array, saved: put(array, target)


def location(target):
    """A map_location target as 'cpu' or 'cuda:0', checked: a GPU on a machine without one,
    or a device minigrad has no tensors on, raises a RuntimeError that says so."""
    if not isinstance(target, str) and not _devices._is_device(target):
        raise TypeError(
            "load: map_location must be None, a device, a string, a dict or a callable, got "
            f"{target!r}"
        )
    device = _devices.check_device(target, f"load: map_location={target!r}")
    return "cpu" if device.type == "cpu" else str(device)


def saved_location(key):
    """A key of a map_location dict (a location tensors were saved from) as 'cpu' or
    'cuda:0', unchecked: the file may come from a machine with a GPU this one lacks."""
    device = _devices.as_device(key, "load: map_location")
    if device.type == "cpu":
        return "cpu"
    return f"{device.type}:{device.index or 0}"


def put(array, where):
    """A host array as it loads on `where` ('cpu', or 'cuda:0': copied to the GPU)."""
    if where == "cpu":
        return array
    _devices.check_device(where, "load")  # a file saved on a GPU, loaded where there is none
    return to_device(array)
