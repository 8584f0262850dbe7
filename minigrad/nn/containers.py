"""Containers: modules whose job is to hold other modules (or parameters).

They register their items under the names "0", "1", ... (or the keys given), which is
where state-dict keys such as "layers.0.weight" come from.
"""

import operator
from collections import OrderedDict
from collections.abc import Iterator

from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter


def _position(idx, n, container, items):
    """A list index (negative counts from the end) as 0..n-1, or IndexError naming the container."""
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"{container}: index {idx} is out of range for {n} {items}")
    return idx % n


class Sequential(Module):
    """Modules applied one after the other: Sequential(m1, m2)(x) = m2(m1(x)).

    Built from modules (named "0", "1", ...) or from one OrderedDict of name -> module.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def _index(self, idx):
        return _position(idx, len(self._modules), "Sequential", "modules")

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[self._index(idx)]
        self.add_module(key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                del self._modules[key]
        else:
            del self._modules[list(self._modules.keys())[self._index(idx)]]
        # renumber so names stay 0..n-1, as PyTorch does
        items = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for {n} modules")
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)
        return self


class ModuleList(Module):
    """A list of modules, registered so their parameters are found; it has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _constructor_arguments(self):
        return _spent_iterator_as_contents(self, "modules", list(self._modules.values()))

    def _index(self, idx):
        return _position(idx, len(self._modules), "ModuleList", "modules")

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(self._index(idx))]

    def __setitem__(self, idx, module):
        self.add_module(str(self._index(idx)), module)

    def __delitem__(self, idx):
        items = list(self._modules.values())
        del items[idx if isinstance(idx, slice) else self._index(idx)]
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward: iterate over it and call the modules")

    def __repr__(self):
        """As Module's, but a run of modules that print the same is shown once, as
        "(0-11): 12 x Block(...)", so that a deep stack of layers stays readable."""
        if not self._modules:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for i, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for first, last, text in runs:
            label = f"({first}): " if first == last else f"({first}-{last}): {last - first + 1} x "
            lines.append(label + text.replace("\n", "\n  "))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def _constructor_arguments(self):
        return _spent_iterator_as_contents(self, "modules", list(self._modules.items()))

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def pop(self, key):
        return self._modules.pop(key)

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward: index it and call the modules")


class ParameterList(Module):
    """A list of Parameters, registered as "0", "1", ... (tensors are wrapped as Parameters)."""

    def __init__(self, values=None):
        super().__init__()
        if values is not None:
            self.extend(values)

    def _constructor_arguments(self):
        return _spent_iterator_as_contents(self, "values", list(self._parameters.values()))

    def _index(self, idx):
        return _position(idx, len(self._parameters), "ParameterList", "parameters")

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList(list(self._parameters.values())[idx])
        return self._parameters[str(self._index(idx))]

    def __setitem__(self, idx, param):
        self.register_parameter(str(self._index(idx)), _as_parameter(param))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, param):
        self.register_parameter(str(len(self)), _as_parameter(param))
        return self

    def extend(self, params):
        for p in params:
            self.append(p)
        return self

    def extra_repr(self):
        return "\n".join(
            f"({i}): Parameter containing: [minigrad.{p.dtype} of size "
            f"{'x'.join(map(str, p.shape))}]"
            for i, p in enumerate(self)
        )

    def __repr__(self):
        body = self.extra_repr()
        return (
            "ParameterList("
            + ("\n    " + body.replace("\n", "\n    ") + "\n" if body else "")
            + ")"
        )


class ParameterDict(Module):
    """An ordered dict of Parameters, registered under their keys."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def _constructor_arguments(self):
        return _spent_iterator_as_contents(self, "parameters", list(self._parameters.items()))

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        self.register_parameter(key, _as_parameter(param))

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def pop(self, key):
        return self._parameters.pop(key)

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, p in items:
            self[key] = p

    def extra_repr(self):
        return "\n".join(
            f"({k}): Parameter containing: [minigrad.{p.dtype} of size "
            f"{'x'.join(map(str, p.shape))}]"
            for k, p in self.items()
        )

    def __repr__(self):
        body = self.extra_repr()
        return (
            "ParameterDict("
            + ("\n    " + body.replace("\n", "\n    ") + "\n" if body else "")
            + ")"
        )


def _as_parameter(value):
    return value if isinstance(value, Parameter) else Parameter(value)


class Identity(Module):
    """y = x (a placeholder, e.g. for a removed layer); accepts and ignores any arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Module):
    """Flatten dims start_dim..end_dim into one (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim `dim` into `unflattened_size`."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _spent_iterator_as_contents(container, name, contents):
    """The container's constructor arguments (what `get_config` and `mg.save` record),
    with the argument `name` replaced by `contents` if it was a one-shot iterator
    (`ModuleList(Block() for _ in range(n))`): the constructor has spent it, and what it
    held is now the container's contents."""
    arguments = Module._constructor_arguments(container)
    if isinstance(arguments.get(name), Iterator):
        arguments[name] = contents
    return arguments
