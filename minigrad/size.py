"""`mg.Size`: the shape of a tensor, a tuple of ints, as `torch.Size`.

`x.shape` and `x.size()` return one. It *is* a tuple (it compares equal to one, hashes
as one, unpacks and indexes as one), so code that treats shapes as tuples keeps working,
and it adds what torch's adds: `numel()`, the number of elements a tensor of this shape
holds, and slices, sums and repeats that stay a Size (`x.shape[1:].numel()`).
"""

import math
import operator


class Size(tuple):
    """The sizes of a tensor's dims, `x.shape` (`mg.Size([2, 3])`): a tuple of ints.

    `Size(sizes)` takes an iterable of ints (or of one-element integer tensors); a float
    in it is a TypeError, as in torch. Its `repr` is torch's (`minigrad.Size([2, 3])`);
    its `str` is the plain tuple's, `(2, 3)`, which is how error messages quote shapes.
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        values = []
        for i, s in enumerate(sizes):
            try:
                if isinstance(s, float):
                    raise TypeError
                values.append(operator.index(s))
            except TypeError:
                raise TypeError(
                    f"Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')"
                ) from None
        return super().__new__(cls, values)

    def numel(self):
        """The number of elements of a tensor of this shape: the product of the sizes (1 for ())."""
        return math.prod(self)

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return tuple.__new__(Size, item) if isinstance(key, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(other, self))

    def __mul__(self, n):
        return tuple.__new__(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __repr__(self):
        return f"minigrad.Size({list(self)})"

    def __str__(self):
        return tuple.__repr__(self)

    def __reduce__(self):
        return (Size, (tuple(self),))
