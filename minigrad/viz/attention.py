"""Attention maps: for each query (a row), how much each key (a column) is attended to."""

from minigrad.viz._figure import as_array, finish, grid_shape, subplots


def plot_attention(weights, tokens_q=None, tokens_k=None, path=None, title=None, max_columns=4):
    """Draw attention weights, `softmax(q k^T / sqrt(d))`, as heat maps: row i is query
    i, column j key j, so each row sums to 1 (a causal map is lower triangular).

    `weights` is (T_q, T_k), or (heads, T_q, T_k) for one panel per head (a batch of one,
    (1, heads, T_q, T_k), is accepted too); a Tensor or an array. `tokens_q` / `tokens_k`
    label the rows and columns (`tokens_k` defaults to `tokens_q`, as in self-attention).
    All panels share one colour scale, from 0 to the largest weight. Returns the Figure.
    """
    w = as_array(weights, "weights", "plot_attention", ndims=(2, 3, 4))
    if w.ndim == 4:
        if w.shape[0] != 1:
            raise ValueError(
                "plot_attention: a 4-D weights must be a batch of one (1, heads, T_q, T_k), got "
                f"shape {tuple(w.shape)}"
            )
        w = w[0]
    if w.ndim == 2:
        w = w[None]
    heads, t_q, t_k = w.shape
    if tokens_k is None and tokens_q is not None and t_q == t_k:
        tokens_k = tokens_q
    for tokens, n, name in (
        (tokens_q, t_q, "tokens_q (one per query, a row)"),
        (tokens_k, t_k, "tokens_k (one per key, a column)"),
    ):
        if tokens is not None and len(tokens) != n:
            raise ValueError(f"plot_attention: {name} has {len(tokens)} labels for {n} positions")

    rows, columns = grid_shape(heads, max_columns)
    cell = 0.3 if (tokens_q is not None or tokens_k is not None) else 0.12  # inches per position
    side = max(2.4, min(6.0, cell * max(t_q, t_k) + 1.0))
    fig, axes = subplots(
        rows, columns, figsize=(side * columns + 0.8, side * rows + 0.5 + (0.4 if title else 0))
    )
    vmax = float(w.max()) if w.size else 1.0
    for h, ax in enumerate(axes.flat):
        if h >= heads:
            ax.set_visible(False)
            continue
        image = ax.imshow(w[h], cmap="viridis", vmin=0.0, vmax=vmax or 1.0, interpolation="nearest")
        if heads > 1:
            ax.set_title(f"head {h}")
        ax.set_xlabel("key")
        ax.set_ylabel("query")
        for tokens, set_ticks, set_labels, rotation in (
            (tokens_k, ax.set_xticks, ax.set_xticklabels, 90),
            (tokens_q, ax.set_yticks, ax.set_yticklabels, 0),
        ):
            if tokens is not None:
                set_ticks(range(len(tokens)))
                set_labels([str(t) for t in tokens], rotation=rotation, fontsize=8)
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="weight")
    if title:
        fig.suptitle(title)
    return finish(fig, path)
