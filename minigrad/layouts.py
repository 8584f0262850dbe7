"""How a tensor's elements are laid out: torch's `layout` and `memory_format` values.

- `layout`: what kind of tensor it is. Every minigrad tensor is `strided`: a dense block
  of memory, indexed by strides (torch also has sparse layouts, which minigrad has not).
- `memory_format`: the order in which a strided tensor's dims are laid out in memory.
  `contiguous_format` is row-major (the last dim varies fastest). `channels_last` keeps
  an image batch (N, C, H, W) in (N, H, W, C) order, the channels of one pixel side by
  side, which many convolution kernels read faster; `channels_last_3d` is the same for
  (N, C, D, H, W). The shape does not change, only the strides: a NumPy array can have
  any strides, so `x.contiguous(memory_format=mg.channels_last)` is an array with
  NHWC strides, as in torch. `preserve_format` asks an op to keep its input's format.
"""


class layout:
    """The kind of a tensor's memory (torch.layout); minigrad has one, `strided`."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"minigrad.{self.name}"


class memory_format:
    """The order of a tensor's dims in memory (torch.memory_format)."""

    def __init__(self, name, order=None):
        self.name = name
        self.order = order  # the dims from the outermost in memory to the innermost, or None

    def __repr__(self):
        return f"minigrad.{self.name}"


strided = layout("strided")
"""The layout of every minigrad tensor: dense memory indexed by strides (torch.strided)."""
contiguous_format = memory_format("contiguous_format")
"""Row-major order, the last dim varying fastest: the default (torch.contiguous_format)."""
channels_last = memory_format("channels_last", order=(0, 2, 3, 1))  # N, H, W, C
"""A 4-D (N, C, H, W) tensor laid out as (N, H, W, C) (torch.channels_last)."""
channels_last_3d = memory_format("channels_last_3d", order=(0, 2, 3, 4, 1))  # N, D, H, W, C
"""A 5-D (N, C, D, H, W) tensor laid out as (N, D, H, W, C) (torch.channels_last_3d)."""
preserve_format = memory_format("preserve_format")
"""Keep the input's layout: the default of `Tensor.to` (torch.preserve_format)."""
