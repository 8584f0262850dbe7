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
