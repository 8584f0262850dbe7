"""Which classes and functions `mg.load` may use when a file names them.

A whole model in a file (`mg.save(model, path)`) names its classes by import path,
"minigrad.nn.linear.Linear" or "__main__.Net", and loading calls those classes'
constructors. Whoever wrote the file chose the names, so `mg.load` uses a name only
if it is on a list you control, as `torch.load` does:

- allow-listed: a class or function you passed to `add_safe_globals([Net])`, or to
  the `with safe_globals([Net]):` context manager (torch.serialization's names). It is
  looked up by its path; nothing is imported.
- minigrad's own: with `weights_only=False`, a class or function defined in
  `minigrad.nn`, `minigrad.models` or `minigrad.ops`. Its module is imported (library
  code, which does nothing on import but define things) and the name must be defined in
  that very module, so a path cannot reach through it into another module
  ("minigrad.nn.linear.np.load" is refused).

Nothing else is ever imported or used: a path into os or subprocess, or to a class of
a script you did not allow, is refused with an error that says how to allow it.
`weights_only=True` (torch.load's default) uses the allow-list alone, as torch's does.
"""

import importlib
import keyword

OWN_PACKAGES = ("minigrad.nn", "minigrad.models", "minigrad.ops")
"""The packages whose classes and functions `mg.load(..., weights_only=False)` may import."""

_allowed = []  # what add_safe_globals was given, in order: objects or (object, path) pairs


def add_safe_globals(safe_globals):
    """Allow `mg.load` to use these classes and functions when a file names them
    (`torch.serialization.add_safe_globals`). Each item is a class or function, found
    by its path `{__module__}.{__qualname__}`, or a pair `(obj, "path")` for a file
    that names it by another path (a class that has moved, or a script's `__main__`)."""
    items = list(safe_globals)
    for item in items:
        _path_of(item)  # refuse a malformed item now, not at load time
    _allowed.extend(item for item in items if item not in _allowed)


def get_safe_globals():
    """The classes and functions (and `(obj, path)` pairs) allowed so far, in order."""
    return list(_allowed)


def clear_safe_globals():
    """Forget every class and function allowed with `add_safe_globals`."""
    _allowed.clear()


class safe_globals:
    """`with mg.serialization.safe_globals([Net]): model = mg.load(path, ...)`: allow
    these classes and functions inside the block only (`torch.serialization.safe_globals`).
    On leaving, the allow-list is what it was before the block."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self._before = list(_allowed)
        add_safe_globals(self.safe_globals)
        return self

    def __exit__(self, *exc):
        _allowed[:] = self._before
        return False


def allowed_paths():
    """{path: object} of everything allow-listed."""
    return {_path_of(item): (item[0] if isinstance(item, tuple) else item) for item in _allowed}


def _path_of(item):
    """The path a file names an allow-listed item by (torch's rules, and its errors)."""
    if isinstance(item, tuple):
        if len(item) != 2:
            raise ValueError(
                "Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                f"length: {len(item)}"
            )
        if type(item[1]) is not str:
            raise TypeError(
                "Expected second item in tuple to be str of callable full path, but got: "
                f"{type(item[1])}"
            )
        return item[1]
    if not hasattr(item, "__module__") or not hasattr(item, "__qualname__"):
        raise TypeError(
            "add_safe_globals: expected classes and functions (or (obj, 'module.name') pairs), "
            f"got {item!r}"
        )
    return f"{item.__module__}.{item.__qualname__}"


class Refused(Exception):
    """A path that may not be used: `.weights_only` tells which rule refused it."""

    def __init__(self, path, weights_only):
        super().__init__(path)
        self.path, self.weights_only = path, weights_only


class NotFound(Exception):
    """A path under minigrad's own packages that names nothing there (a damaged file,
    or one written by another version of minigrad)."""


def find(path, weights_only):
    """The class or function a file names by `path`, if the rules above allow it;
    raises Refused (nothing imported) or NotFound."""
    allowed = allowed_paths()
    if path in allowed:
        return allowed[path]
    if weights_only or not is_own(path):
        raise Refused(path, weights_only)
    module_name, _, name = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise NotFound(f"there is no module {module_name!r} in this minigrad") from None
    obj = getattr(module, name, None)
    # defined in that module: a name it merely imported (np, os, ...) is not minigrad's own
    if (
        obj is None
        or getattr(obj, "__module__", None) != module_name
        or getattr(obj, "__qualname__", None) != name
    ):
        raise NotFound(f"{module_name} defines no class or function {name!r}")
    return obj


def is_own(path):
    """True for "package.module.Name" inside minigrad's own packages, written as plain
    Python names (so nothing odd reaches import_module)."""
    parts = path.split(".") if isinstance(path, str) else []
    if len(parts) < 3 or not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        return False
    module_name = ".".join(parts[:-1])
    return any(module_name == p or module_name.startswith(p + ".") for p in OWN_PACKAGES)
