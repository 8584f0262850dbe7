"""Draw the activation functions of the losses lesson and their derivatives.

    python docs/figures/make_activation_plot.py [OUT_DIR]

writes OUT_DIR/activations.png (default: this script's folder, where the lesson finds
it). The derivatives are not written out by hand: they come from minigrad's own
backward passes, so the figure also shows that those are right.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

import minigrad as mg  # noqa: E402
import minigrad.nn.functional as F  # noqa: E402

# one row of the figure per family: (title, {name: function})
FAMILIES = [
    (
        "piecewise linear",
        {"ReLU": F.relu, "leaky ReLU (slope 0.1)": lambda x: F.leaky_relu(x, 0.1), "ELU": F.elu},
    ),
    ("smooth ReLUs", {"GELU": F.gelu, "SiLU": F.silu, "softplus": F.softplus}),
    ("saturating", {"sigmoid": F.sigmoid, "tanh": F.tanh}),
]


def values_and_derivatives(fn, x):
    """f(x) and f'(x) at every point of x, the derivative by one backward pass: f acts
    elementwise, so the gradient of sum(f(x)) is f'(x) at each point."""
    x = x.detach().requires_grad_()
    y = fn(x)
    (dy,) = mg.autograd.grad(y.sum(), x)
    return y.detach().numpy(), dy.numpy()


def main(out_dir):
    x = mg.linspace(-4.0, 4.0, 801, dtype=mg.float64)
    fig, axes = plt.subplots(
        len(FAMILIES), 2, figsize=(10, 9), sharex=True, constrained_layout=True
    )
    for (family, fns), (ax_f, ax_d) in zip(FAMILIES, axes):
        for name, fn in fns.items():
            y, dy = values_and_derivatives(fn, x)
            (line,) = ax_f.plot(x.numpy(), y, label=name, linewidth=1.8)
            ax_d.plot(x.numpy(), dy, color=line.get_color(), linewidth=1.8)
        ax_f.set_title(f"{family}: f(x)")
        ax_d.set_title(f"{family}: f'(x)")
        ax_f.legend(loc="upper left", fontsize=9)
        for ax in (ax_f, ax_d):
            ax.axhline(0, color="0.6", linewidth=0.8)
            ax.axvline(0, color="0.6", linewidth=0.8)
            ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("x")
    out = Path(out_dir) / "activations.png"
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent))
