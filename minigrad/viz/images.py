"""Pictures of image models: learned filters, feature maps, image grids, confusion matrices."""

import numpy as np

from minigrad.viz._figure import as_array, finish, grid_shape, new_figure, subplots


def _hide_ticks(ax):
    ax.set_xticks([])
    ax.set_yticks([])


def plot_filters(weight, path=None, title=None, max_columns=8):
    """Draw a convolution's kernels, `weight` of shape (C_out, C_in, kh, kw) (a Tensor
    such as `conv.weight`, or an array).

    One C_in = 1 filter per panel; with 3 input channels, each filter as an RGB image
    (rescaled to [0, 1]); otherwise a grid, a row per output and a column per input
    channel. Single-channel panels share one diverging scale centred on 0, so red is a
    positive weight, blue a negative one, and a brighter colour a larger one.
    """
    w = as_array(weight, "weight (C_out, C_in, kh, kw)", "plot_filters", ndims=(4,)).astype(
        np.float64
    )
    c_out, c_in, kh, kw = w.shape
    if w.size == 0:
        raise ValueError(f"plot_filters: weight has no elements (shape {tuple(w.shape)})")
    size = min(2.0, 0.5 + 0.16 * max(kh, kw))  # inches per panel
    if c_in == 3:
        rows, columns = grid_shape(c_out, max_columns)
        fig, axes = subplots(rows, columns, figsize=(size * columns + 0.3, size * rows + 0.5))
        low, high = w.min(), w.max()
        rgb = (w - low) / (high - low) if high > low else np.full_like(w, 0.5)
        for k, ax in enumerate(axes.flat):
            _hide_ticks(ax)
            if k < c_out:
                ax.imshow(rgb[k].transpose(1, 2, 0), interpolation="nearest")
                ax.set_title(str(k), fontsize=8)
            else:
                ax.set_visible(False)
    else:
        panels = (
            [(k, 0) for k in range(c_out)]
            if c_in == 1
            else [(k, c) for k in range(c_out) for c in range(c_in)]
        )
        rows, columns = grid_shape(c_out, max_columns) if c_in == 1 else (c_out, c_in)
        fig, axes = subplots(rows, columns, figsize=(size * columns + 1.2, size * rows + 0.7))
        vmax = np.abs(w).max() or 1.0
        for ax, panel in zip(axes.flat, panels + [None] * (rows * columns - len(panels))):
            _hide_ticks(ax)
            if panel is None:
                ax.set_visible(False)
                continue
            k, c = panel
            image = ax.imshow(
                w[k, c], cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest"
            )
            if c_in == 1:
                ax.set_title(str(k), fontsize=8)
            else:
                if k == 0:
                    ax.set_title(f"in {c}", fontsize=8)
                if c == 0:
                    ax.set_ylabel(f"out {k}", fontsize=8)
        fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.9, label="weight")
    fig.suptitle(title or f"filters ({c_out}, {c_in}, {kh}, {kw})")
    return finish(fig, path)


def plot_feature_maps(maps, path=None, title=None, max_columns=8):
    """Draw a convolution layer's output for one image, `maps` of shape (C, H, W) (or a
    batch of one, (1, C, H, W)), one panel per channel. Each panel has its own colour
    scale (its darkest pixel is its smallest value): what matters is where a channel
    responds, not how strongly compared with the others."""
    m = as_array(maps, "maps (C, H, W)", "plot_feature_maps", ndims=(3, 4))
    if m.ndim == 4:
        if m.shape[0] != 1:
            raise ValueError(
                "plot_feature_maps: 4-D maps must be a batch of one (1, C, H, W), got shape "
                f"{tuple(m.shape)}; pick one "
                "image, maps[i]"
            )
        m = m[0]
    channels, height, width = m.shape
    if channels == 0:
        raise ValueError("plot_feature_maps: maps has no channels")
    rows, columns = grid_shape(channels, max_columns)
    size = max(1.0, min(2.0, 0.1 * max(height, width)))
    fig, axes = subplots(rows, columns, figsize=(size * columns, size * rows + 0.4))
    for c, ax in enumerate(axes.flat):
        _hide_ticks(ax)
        if c < channels:
            ax.imshow(m[c], cmap="viridis", interpolation="nearest")
            ax.set_title(str(c), fontsize=8)
        else:
            ax.set_visible(False)
    fig.suptitle(title or f"feature maps ({channels}, {height}, {width})")
    return finish(fig, path)


def _as_images(images):
    """(N, H, W) grey or (N, H, W, 3) colour, from (N, H, W), (N, 1, H, W), (N, 3, H, W),
    (N, H, W, 3), or (N, D) flattened square images (an MLP's inputs, D = side**2)."""
    x = as_array(images, "images", "plot_images", ndims=(2, 3, 4))
    if x.ndim == 2:
        side = round(x.shape[1] ** 0.5)
        if side * side != x.shape[1]:
            raise ValueError(
                "plot_images: 2-D images must be flattened squares (N, side**2), got shape "
                f"{tuple(x.shape)}; "
                "reshape them to (N, H, W)"
            )
        x = x.reshape(len(x), side, side)
    if x.ndim == 4:
        if x.shape[1] == 1:
            x = x[:, 0]
        elif x.shape[1] == 3:
            x = x.transpose(0, 2, 3, 1)
        elif x.shape[3] != 3:
            raise ValueError(
                "plot_images: 4-D images must be (N, 1, H, W), (N, 3, H, W) or (N, H, W, 3), got "
                f"shape {tuple(x.shape)}"
            )
        if x.ndim == 4:  # colour: imshow wants floats in [0, 1]
            x = x.astype(np.float64)
            low, high = x.min(), x.max()
            if low < 0 or high > 1:
                x = (x - low) / (high - low) if high > low else np.zeros_like(x)
    return x


def _class_names(values, names, caller):
    values = as_array(values, "labels", caller, ndims=(1,))
    return [str(names[v]) if names is not None else str(v) for v in values.astype(np.int64)]


def plot_images(
    images, labels=None, predictions=None, path=None, class_names=None, title=None, max_columns=8
):
    """Draw `images` in a grid, each titled with its label, or, given `predictions`,
    with what the model said ("7 (true 1)" in red where it is wrong), e.g. the digits a
    model misclassified. `images` is (N, H, W), (N, 1, H, W), (N, 3, H, W), (N, H, W, 3)
    or (N, side**2) (flattened, as an MLP sees them); `class_names` maps a label to the
    name shown."""
    x = _as_images(images)
    n = len(x)
    if n == 0:
        raise ValueError("plot_images: no images to draw")
    shown = {}
    for name, values in (("labels", labels), ("predictions", predictions)):
        if values is not None:
            shown[name] = _class_names(values, class_names, "plot_images")
            if len(shown[name]) != n:
                raise ValueError(f"plot_images: {len(shown[name])} {name} for {n} images")
    rows, columns = grid_shape(n, max_columns)
    fig, axes = subplots(
        rows, columns, figsize=(1.3 * columns, 1.45 * rows + (0.4 if title else 0))
    )
    for i, ax in enumerate(axes.flat):
        _hide_ticks(ax)
        if i >= n:
            ax.set_visible(False)
            continue
        ax.imshow(x[i], cmap="gray_r" if x.ndim == 3 else None, interpolation="nearest")
        label, predicted = (
            shown.get("labels", [None] * n)[i],
            shown.get("predictions", [None] * n)[i],
        )
        if predicted is not None:
            wrong = label is not None and predicted != label
            text = f"{predicted} (true {label})" if wrong else predicted
            ax.set_title(text, fontsize=9, color="#c00000" if wrong else "black")
        elif label is not None:
            ax.set_title(label, fontsize=9)
    if title:
        fig.suptitle(title)
    return finish(fig, path)


def confusion_matrix(y_true, y_pred, num_classes=None):
    """counts[i, j] = how many examples of class i were predicted as class j (an int64
    (C, C) array). `y_pred` may be class indices (N,) or scores (N, C), whose argmax
    is taken; C is `num_classes`, or one more than the largest class seen."""
    true = as_array(y_true, "y_true", "confusion_matrix", ndims=(1,))
    pred = as_array(y_pred, "y_pred", "confusion_matrix", ndims=(1, 2))
    if pred.ndim == 2:
        if num_classes is None:
            num_classes = pred.shape[1]
        pred = pred.argmax(axis=1)
    if len(true) != len(pred):
        raise ValueError(f"confusion_matrix: {len(true)} true labels but {len(pred)} predictions")
    for name, v in (("y_true", true), ("y_pred", pred)):
        if v.size and (v.dtype.kind not in "iu" or v.min() < 0):
            raise ValueError(
                f"confusion_matrix: {name} must hold class indices (ints >= 0), got {v.dtype} "
                f"{v[:5]}"
            )
    seen = int(max(true.max(initial=-1), pred.max(initial=-1))) + 1
    if num_classes is None:
        num_classes = seen
    elif seen > num_classes:
        raise ValueError(
            f"confusion_matrix: class {seen - 1} found, but num_classes is {num_classes}"
        )
    counts = np.zeros((num_classes, num_classes), dtype=np.int64)
    np.add.at(counts, (true.astype(np.int64), pred.astype(np.int64)), 1)
    return counts


def plot_confusion_matrix(
    y_true, y_pred, num_classes=None, path=None, class_names=None, normalize=False, title=None
):
    """Draw `confusion_matrix(y_true, y_pred, num_classes)`: rows are the true classes,
    columns the predicted ones, so the diagonal is what the model gets right and an
    off-diagonal cell says which class is taken for which. `normalize=True` shows each
    row as fractions of that class (the diagonal is then each class's recall)."""
    counts = confusion_matrix(y_true, y_pred, num_classes)
    c = len(counts)
    if class_names is not None and len(class_names) != c:
        raise ValueError(f"plot_confusion_matrix: {len(class_names)} class_names for {c} classes")
    names = [str(n) for n in class_names] if class_names is not None else [str(i) for i in range(c)]
    shown = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1) if normalize else counts
    side = max(3.5, min(12.0, 0.45 * c + 1.5))
    fig = new_figure((side + 1.0, side), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(shown, cmap="Blues", vmin=0, interpolation="nearest")
    fig.colorbar(image, ax=ax, shrink=0.8, label="fraction of the class" if normalize else "count")
    high = shown.max() or 1
    if c <= 30:  # the numbers in the cells, white on dark cells
        for i in range(c):
            for j in range(c):
                text = f"{shown[i, j]:.2f}" if normalize else str(counts[i, j])
                color = "white" if shown[i, j] > 0.6 * high else "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
    ax.set_xticks(range(c))
    ax.set_yticks(range(c))
    ax.set_xticklabels(names, rotation=90 if max(map(len, names)) > 3 else 0)
    ax.set_yticklabels(names)
    ax.set(xlabel="predicted", ylabel="true")
    accuracy = np.trace(counts) / max(counts.sum(), 1)
    ax.set_title(title or f"confusion matrix (accuracy {accuracy:.1%})")
    return finish(fig, path)
