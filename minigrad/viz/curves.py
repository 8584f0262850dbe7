"""Training curves: any logged numbers (loss, accuracy, learning rate ...) per epoch or step."""

import numpy as np

from minigrad.tensor import Tensor
from minigrad.viz._figure import finish, grid_shape, subplots, type_name

# a key "train_loss" is the metric "loss" of the split "train": one panel per metric
SPLITS = ("train", "test", "val", "valid", "validation")


def _panel_and_series(key):
    """("loss", "train") for "train_loss"; (key, key) when it names no split."""
    split, _, metric = key.partition("_")
    return (metric, split) if split in SPLITS and metric else (key, key)


def _numbers(values, key):
    out = []
    for v in values:
        if isinstance(v, Tensor):
            v = v.item()
        try:
            out.append(float(v))
        except (TypeError, ValueError) as err:
            raise TypeError(f"plot_curves: {key!r} must hold numbers, got {type_name(v)}") from err
    return np.array(out)


def plot_curves(history, path=None, keys=None, x="epoch", title=None, max_columns=3):
    """Plot every logged series of `history` (a dict of lists of numbers), one panel
    per metric: "train_loss" and "test_loss" share the panel "loss", "lr" gets its own.

    `keys` picks and orders the series (default: all); `x` names the horizontal axis
    ("epoch" or "step"). Point i of a series of n values sits at x = (i + 1) * N / n,
    N being the longest series in its panel, so a loss logged every step and one logged
    every epoch line up (epoch e ends at step e * N / n). An accuracy whose values lie in
    [0, 1] is shown in percent. Returns the Figure; writes it to `path` when given.
    """
    if not hasattr(history, "items"):
        raise TypeError(
            "plot_curves: history must be a dict of lists (name -> values), got "
            f"{type_name(history)}"
        )
    keys = list(history) if keys is None else list(keys)
    missing = [k for k in keys if k not in history]
    if missing:
        raise KeyError(f"plot_curves: no series {missing} in history (it has {sorted(history)})")
    panels = {}
    for key in keys:
        values = _numbers(history[key], key)
        if len(values):
            metric, series = _panel_and_series(key)
            panels.setdefault(metric, []).append((series, values))
    if not panels:
        raise ValueError(f"plot_curves: nothing to plot: the series {keys} are all empty")

    from matplotlib.ticker import MaxNLocator, PercentFormatter

    rows, columns = grid_shape(len(panels), max_columns)
    fig, axes = subplots(rows, columns, figsize=(4.5 * columns, 3.3 * rows))
    for ax, (metric, series) in zip(axes.flat, panels.items()):
        longest = max(len(values) for _, values in series)
        for label, values in series:
            xs = np.arange(1, len(values) + 1) * longest / len(values)
            ax.plot(
                xs, values, marker="o" if len(values) <= 30 else None, markersize=4, label=label
            )
        if "accuracy" in metric and all(0 <= v.min() and v.max() <= 1 for _, v in series):
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # no epoch 1.5
        ax.set(xlabel=x, title=metric)
        ax.grid(alpha=0.3)
        if len(series) > 1 or series[0][0] != metric:
            ax.legend()
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    return finish(fig, path)


def plot_history(history, path, title="training"):
    """Save the loss and accuracy of a `minigrad-train` run, `history` = {'train_loss':
    [...], 'test_accuracy': [...], ...}, as a two-panel PNG at `path`; returns `path`."""
    keys = [
        k for k in ("train_loss", "test_loss", "train_accuracy", "test_accuracy") if k in history
    ]
    plot_curves(history, path, keys=keys, title=title)
    return path


def plot_lm_history(history, path, title="language model"):
    """Save the loss of a `minigrad-train --model gpt` run against the iteration: every
    step's training loss (faint), the train and validation estimates at each evaluation,
    and the unigram baseline, `history` = {'step_loss': [...], 'iter': [...],
    'train_loss': [...], 'val_loss': [...], 'unigram_baseline': h}, as a PNG at `path`;
    returns `path`."""
    fig, axes = subplots(1, 1, figsize=(7, 4))
    ax = axes[0, 0]
    steps = np.arange(1, len(history["step_loss"]) + 1)
    ax.plot(steps, history["step_loss"], color="0.75", linewidth=0.8, label="train (each step)")
    ax.plot(history["iter"], history["train_loss"], marker="o", label="train")
    ax.plot(history["iter"], history["val_loss"], marker="o", label="validation")
    if "unigram_baseline" in history:
        ax.axhline(
            history["unigram_baseline"],
            color="0.4",
            linestyle="--",
            linewidth=1,
            label="unigram baseline",
        )
    ax.set(xlabel="iteration", ylabel="cross-entropy loss (nats)", title=title)
    ax.grid(alpha=0.3)
    ax.legend()
    finish(fig, path)
    return path
