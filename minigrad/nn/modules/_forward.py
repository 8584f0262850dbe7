"""Hand out torch.nn.modules.X's names from minigrad.nn, as minigrad.nn has them.

Each module of this package lists the public classes its torch namesake defines and
calls `forwarding(__name__, NAMES)` for its PEP 562 module `__getattr__` and `__dir__`.
A name is read from minigrad.nn when asked for, so the module stays right as layers are
added there: nothing to keep in step by hand. A name minigrad.nn does not have fails as
a missing name does: ImportError from `from ... import`, AttributeError otherwise.
"""

import importlib


def forwarding(module_name, names):
    """Return the `__getattr__` and `__dir__` of the module `module_name`.

    `__all__` (what `import *` gives) is the names of `names` that minigrad.nn has now;
    any name of `names` resolves to minigrad.nn's object itself, so that
    `minigrad.nn.modules.linear.Linear is minigrad.nn.Linear`.
    """

    def present():
        nn = importlib.import_module("minigrad.nn")
        return [n for n in names if hasattr(nn, n)]

    def __getattr__(name):
        if name == "__all__":
            return present()
        if name in names:
            nn = importlib.import_module("minigrad.nn")
            if hasattr(nn, name):
                return getattr(nn, name)
        raise AttributeError(
            f"module {module_name!r} has no attribute {name!r} (minigrad.nn has no {name})"
        )

    def __dir__():
        return sorted(["NAMES", *present()])

    return __getattr__, __dir__
