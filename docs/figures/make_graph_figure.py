"""Draw the graphs of the autograd lesson's last section with `mg.viz.draw_graph`.

    python docs/figures/make_graph_figure.py [OUT_DIR]

writes OUT_DIR/autograd_graph.png (the graph of L = 2x * exp(x) from section 3, with
the data and gradient of every tensor) and OUT_DIR/mlp_graph.png (the loss of a small
two-layer MLP, its parameters named); the default OUT_DIR is this script's folder,
where the lesson finds them. The code is the lesson's own.
"""

import sys
from pathlib import Path

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F


def shared_input(out_dir):
    """Section 3's graph: x feeds two ops, so its gradient is the sum of two paths."""
    x = mg.tensor(3.0, requires_grad=True)
    a = x * 2.0
    b = x.exp()
    loss = a * b
    a.retain_grad()  # keep the gradients of the intermediate tensors too, to show them
    b.retain_grad()
    loss.backward(retain_graph=True)  # keep the graph's tensors, to draw them
    labels = {x: "x", a: "a", b: "b", loss: "loss"}
    return mg.viz.draw_graph(
        loss, Path(out_dir) / "autograd_graph.png", labels=labels, direction="LR"
    )


def mlp(out_dir):
    """The graph of a training step's loss: 4 -> 8 -> 3, ReLU, cross-entropy."""
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    x = mg.randn(5, 4)
    loss = F.cross_entropy(model(x), mg.tensor([0, 1, 2, 0, 1]))
    labels = {**dict(model.named_parameters()), "x": x, "loss": loss}
    # each parameter beside the op that uses it, rather than all of them in the top row
    return mg.viz.draw_graph(loss, Path(out_dir) / "mlp_graph.png", labels=labels, leaves="near")


def main(out_dir):
    shared_input(out_dir)
    mlp(out_dir)
    return [Path(out_dir) / name for name in ("autograd_graph.png", "mlp_graph.png")]


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent))
