"""A gradient that is zero except in one slice: what `x[index]` sends back to x.

The backward of a basic index (`x[:, 128:256]`, `x[0]`, one piece of `x.split(...)`) is
dL/dx = zeros of x's shape with dL/dy at `index`. Built as a full-size array, the three
pieces of a split cost three zero arrays of x's size and two full-size sums of them,
where the gradient they add up to is just the pieces' gradients side by side.

So when the backward pass is not recorded (create_graph=False), GetItem's backward
returns a `SliceGradient` instead: the slice's gradient and where it goes. The engine
(engine.py, `_Sums`) writes it into the running sum of x's gradient at its slice only,
and makes it a dense Tensor only where one is needed (a lone piece's gradient, a hook,
`.grad`). With create_graph=True the backward stays an op of the graph (IndexAdd), which
can be differentiated again.
"""

from minigrad import backends
from minigrad.array_module import array_module
from minigrad.tensor import Tensor


class SliceGradient:
    """dL/dx = zeros(shape) with `part` (an array) at the basic index `index`."""

    __slots__ = ("part", "index", "shape")

    def __init__(self, part, index, shape):
        self.part, self.index, self.shape = part, index, shape

    @property
    def dtype(self):
        return self.part.dtype

    def add_into(self, array):
        """array += this gradient, touching only the slice (by the elementwise kernels: on
        every core when the slice is large, as the pieces of a transformer's qkv are)."""
        view = array[self.index]
        if view.ndim == 0:  # one number: NumPy hands back a copy of it, not a view
            array[self.index] += self.part
        else:
            backends.kernels("elementwise", array=array).add_into(view, self.part)

    def dense(self):
        """The gradient as a Tensor of the full shape (a new array)."""
        out = array_module(self.part).zeros(self.shape, dtype=self.part.dtype)
        view = out[self.index]  # a basic index picks each place once: no sums needed
        if view.ndim == 0:
            out[self.index] = self.part
        else:
            backends.kernels("elementwise", array=out).copy_into(view, self.part)
        return Tensor._make(out)
