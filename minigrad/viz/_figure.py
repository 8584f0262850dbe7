"""What every picture needs: a Figure made without pyplot, arrays from Tensors, saving.

matplotlib is imported inside these functions, never at the top of a module, so that
`import minigrad` stays cheap: only drawing something pays for matplotlib.

Figures are made with `matplotlib.figure.Figure`, not `pyplot.figure`. pyplot keeps every
figure it makes in a global list (until `plt.close`), switches backends, and in a notebook
shows the figure once at the end of the cell and again when a cell returns it. A bare
Figure is an object like any other: the caller keeps it, saves it, or lets a notebook
display it (once), and it is freed when nothing refers to it any more.
"""

import functools
import io
from pathlib import Path

import numpy as np

from minigrad.tensor import Tensor

DPI = 100  # pixels per inch of a saved or shown picture


@functools.cache
def _figure_class():
    from matplotlib.figure import Figure

    class ShownFigure(Figure):
        """A Figure that shows itself as a PNG when a notebook cell returns it. (A bare
        Figure is shown by the inline backend's hook only once pyplot has set it up.)"""

        def _repr_png_(self):
            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=DPI)
            return buffer.getvalue()

    return ShownFigure


def new_figure(figsize, **kwargs):
    """A Figure of `figsize` inches that belongs to no pyplot state."""
    return _figure_class()(figsize=figsize, **kwargs)


def subplots(nrows, ncols, figsize, **kwargs):
    """(Figure, 2-D array of Axes), as `plt.subplots(..., squeeze=False)` without pyplot."""
    fig = new_figure(figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **kwargs)
    return fig, axes


def finish(fig, path, dpi=DPI):
    """Write `fig` as an image at `path` (the format from its suffix) when a path is given;
    return the Figure either way."""
    if path is not None:
        fig.savefig(Path(path), dpi=dpi)
    return fig


def type_name(x):
    """`numpy.ndarray`, `torch.Tensor`, `list`: enough to tell a minigrad Tensor from another."""
    cls = type(x)
    return (
        cls.__qualname__
        if cls.__module__ == "builtins"
        else f"{cls.__module__.split('.')[0]}.{cls.__qualname__}"
    )


def as_array(x, what, caller, ndims=None):
    """`x` (a Tensor, a NumPy array or nested lists) as a NumPy array, checked to have one
    of the dimension counts in `ndims`. `what` names the argument in the error."""
    if isinstance(x, Tensor):
        x = x.detach().numpy()
    try:
        array = np.asarray(x)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{caller}: {what} must be a Tensor or an array, got {type_name(x)}"
        ) from err
    if array.dtype.kind not in "biuf":  # strings, objects: not pictures
        raise TypeError(
            f"{caller}: {what} must be a Tensor or an array of numbers, got {type_name(x)}"
        )
    if ndims is not None and array.ndim not in ndims:
        expected = " or ".join(f"{n}-D" for n in ndims)
        raise ValueError(f"{caller}: {what} must be {expected}, got shape {tuple(array.shape)}")
    return array


def grid_shape(count, max_columns):
    """(rows, columns) of a grid for `count` panels, at most `max_columns` wide."""
    columns = max(1, min(count, max_columns))
    return -(-count // columns), columns
