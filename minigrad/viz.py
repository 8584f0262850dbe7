"""Pictures: training curves (matplotlib, imported only when a picture is drawn)."""


def plot_history(history, path, title="training"):
    """Save loss and accuracy per epoch, `history` = {'train_loss': [...], 'test_accuracy': [...], ...},
    as a two-panel PNG at `path`."""
    import matplotlib

    matplotlib.use("Agg")  # no display needed: we only write a file
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    epochs = range(1, len(history["train_loss"]) + 1)
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9, 3.5))
    ax_loss.plot(epochs, history["train_loss"], marker="o", label="train")
    if "test_loss" in history:
        ax_loss.plot(epochs, history["test_loss"], marker="o", label="test")
    ax_loss.set(xlabel="epoch", ylabel="cross-entropy loss", title="loss")
    ax_loss.legend()
    for key, label in (("train_accuracy", "train"), ("test_accuracy", "test")):
        if key in history:
            ax_acc.plot(epochs, [100 * a for a in history[key]], marker="o", label=label)
    ax_acc.set(xlabel="epoch", ylabel="accuracy (%)", title="accuracy")
    ax_acc.legend()
    for ax in (ax_loss, ax_acc):  # epochs are whole numbers: no 1.25, 1.5 ... ticks
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_lm_history(history, path, title="language model"):
    """Save a language model's loss against the iteration: every step's training loss
    (faint), the train and validation estimates at each evaluation, and the unigram
    baseline, `history` = {'step_loss': [...], 'iter': [...], 'train_loss': [...],
    'val_loss': [...], 'unigram_baseline': h}, as a PNG at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    steps = range(1, len(history["step_loss"]) + 1)
    ax.plot(steps, history["step_loss"], color="0.75", linewidth=0.8, label="train (each step)")
    ax.plot(history["iter"], history["train_loss"], marker="o", label="train")
    ax.plot(history["iter"], history["val_loss"], marker="o", label="validation")
    if "unigram_baseline" in history:
        ax.axhline(history["unigram_baseline"], color="0.4", linestyle="--", linewidth=1, label="unigram baseline")
    ax.set(xlabel="iteration", ylabel="cross-entropy loss (nats)", title=title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
