"""Pictures of what minigrad computes, drawn with matplotlib alone.

    draw_graph(loss)                       the autograd graph (no Graphviz needed)
    plot_curves(history)                   loss / accuracy per epoch or step
    plot_lm_history(history, path)         a language model's loss per step, with its baseline
    plot_attention(weights, tokens)        attention maps, one panel per head
    plot_filters(conv.weight)              a convolution's learned filters
    plot_feature_maps(maps)                what a convolution layer outputs
    plot_images(images, labels, preds)     a grid of images (misclassified digits, say)
    plot_confusion_matrix(y_true, y_pred)  which classes are taken for which

Each returns the matplotlib Figure (a notebook shows it) and writes it when given a
`path`. They accept Tensors or NumPy arrays. matplotlib is imported when something is
drawn, not when this package is imported.
"""

from minigrad.viz.attention import plot_attention
from minigrad.viz.curves import plot_curves, plot_history, plot_lm_history
from minigrad.viz.graph import draw_graph, graph_layout
from minigrad.viz.images import (
    confusion_matrix,
    plot_confusion_matrix,
    plot_feature_maps,
    plot_filters,
    plot_images,
)

__all__ = [
    "confusion_matrix",
    "draw_graph",
    "graph_layout",
    "plot_attention",
    "plot_confusion_matrix",
    "plot_curves",
    "plot_feature_maps",
    "plot_filters",
    "plot_history",
    "plot_lm_history",
    "plot_images",
]
