"""mg.viz: every picture renders to a PNG of the expected size, and draw_graph's layout
(which nodes, which edges, which layers) is the graph that autograd recorded."""

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad import viz
from minigrad.autograd.function import Function

pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import imread  # noqa: E402

DPI = 100  # what the viz functions save at


def assert_png(path, fig):
    """`path` is a real PNG of `fig`'s size, with more than one colour in it."""
    assert path.is_file() and path.stat().st_size > 2000, f"{path} is missing or too small"
    image = imread(path)
    width, height = fig.get_size_inches() * DPI
    assert abs(image.shape[0] - height) <= 1 and abs(image.shape[1] - width) <= 1  # whole pixels
    assert image.shape[2] in (3, 4)
    assert image[..., :3].std() > 0.01, "the picture is blank"


# ---- the graph's structure ------------------------------------------------------------------
def diamond():
    """a -> b, a -> c, (b, c) -> d: notebook 01's graph, where `a` is shared."""
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = a + 1
    d = (b * c).sum()
    return a, b, c, d


def functions_of(tensor):
    """Every node reachable from tensor.grad_fn, found through next_functions (PyTorch's
    public view), independently of the code under test."""
    seen, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack += [n for n, _ in node.next_functions]
    return [n for n in seen if isinstance(n, Function)]


def index_of(layout, obj):
    found = [i for i, n in enumerate(layout.nodes) if n.obj is obj]
    assert len(found) == 1, f"{obj!r} is drawn {len(found)} times"
    return found[0]


def test_diamond_draws_the_shared_input_once_with_two_out_edges():
    a, b, c, d = diamond()
    layout = viz.graph_layout(d)
    i = index_of(layout, a)
    assert len(layout.out_edges(i)) == 2
    users = {layout.nodes[e.target].lines[0] for e in layout.out_edges(i)}
    assert users == {"MulBackward0", "AddBackward0"}
    # a, the constants 2 and 1, b, c, b * c, d; and the ops Mul, Add, Mul, Sum
    assert sum(n.kind == "tensor" for n in layout.nodes) == 7
    assert sorted(n.lines[0] for n in layout.nodes if n.kind == "op") == sorted(
        ["MulBackward0", "AddBackward0", "MulBackward0", "SumBackward0"]
    )
    # per op, its inputs + its output: (2 + 1) * 3 for Mul, Add, Mul, 1 + 1 for Sum
    assert len(layout.edges) == 11
    for t in (b, c, d):  # every tensor made by an op: one edge in, from its grad_fn
        (edge,) = layout.in_edges(index_of(layout, t))
        assert layout.nodes[edge.source].obj is t.grad_fn


def mlp_loss():
    mg.manual_seed(0)
    # two hidden layers: each nn.Linear with a bias is one op (AddmmBackward0), and the
    # graph has the ~20 nodes the layout tests are about
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    x = mg.randn(5, 4)
    loss = F.cross_entropy(model(x), mg.tensor([0, 1, 2, 0, 1]))
    return model, x, loss


@pytest.mark.parametrize("graph", ["diamond", "mlp"])
def test_layout_is_layered_from_the_leaves(graph):
    root = diamond()[-1] if graph == "diamond" else mlp_loss()[-1]
    layout = viz.graph_layout(root)
    ops = [n.obj for n in layout.nodes if n.kind == "op"]
    functions = functions_of(root)
    assert len(ops) == len(functions) and all(any(f is o for o in ops) for f in functions)
    for node in layout.nodes:
        if node.kind == "tensor" and node.obj.grad_fn is None:
            assert node.layer == 0, f"leaf {node.lines} at layer {node.layer}"
        else:
            assert node.layer > 0
    for e in layout.edges:
        source, target = layout.nodes[e.source], layout.nodes[e.target]
        assert source.layer < target.layer
        # tensor -> op -> tensor while the graph lives
        assert {source.kind, target.kind} == {"tensor", "op"}
        assert len(e.lane) == target.layer - source.layer - 1  # one bend per layer crossed
    (root_node,) = [n for n in layout.nodes if n.obj is root]
    assert root_node.role == "output" and root_node.layer == max(n.layer for n in layout.nodes)


@pytest.mark.parametrize("leaves", ["top", "near"])
def test_mlp_layout_has_each_parameter_once_and_no_overlapping_boxes(leaves):
    model, x, loss = mlp_loss()
    layout = viz.graph_layout(loss, labels=dict(model.named_parameters()), leaves=leaves)
    for name, p in model.named_parameters():
        node = layout.nodes[index_of(layout, p)]
        assert node.lines[0] == name and node.role == "parameter"
        assert node.layer == 0 or leaves == "near"
    assert layout.nodes[index_of(layout, x)].role == "constant"
    assert 18 <= len(layout.nodes) <= 25  # the size this test is about: a readable ~20-node graph

    def box(n):
        return (n.x - n.width / 2, n.y - n.height / 2, n.x + n.width / 2, n.y + n.height / 2)

    for m, n in itertools.combinations(layout.nodes, 2):
        (a0, b0, a1, b1), (c0, d0, c1, d1) = box(m), box(n)
        assert a1 <= c0 or c1 <= a0 or b1 <= d0 or d1 <= b0, f"{m.lines} overlaps {n.lines}"
    for n in layout.nodes:
        x0, y0, x1, y1 = box(n)
        assert 0 <= x0 and x1 <= layout.width and 0 <= y0 and y1 <= layout.height
    # a node's layer is its row: every node of a layer has one y, and rows go down in order
    rows = {}
    for n in layout.nodes:
        rows.setdefault(n.layer, set()).add(round(n.y, 9))
    assert all(len(ys) == 1 for ys in rows.values())
    ys = [rows[layer].pop() for layer in sorted(rows)]
    assert ys == sorted(ys)


def crossings(layout):
    """How many pairs of arrows cross, counted from the drawn positions: each arrow is a
    chain of segments between adjacent layers (through its lane), and two segments
    between the same layers cross when their ends swap order."""
    segments = {}
    for e in layout.edges:
        source, target = layout.nodes[e.source], layout.nodes[e.target]
        xs = [source.x] + [x for x, _ in e.lane] + [target.x]
        for step, (a, b) in enumerate(zip(xs, xs[1:])):
            segments.setdefault(source.layer + step, []).append((a, b))
    return sum(
        1
        for between in segments.values()
        for (a, b), (c, d) in itertools.combinations(between, 2)
        if (a - c) * (b - d) < 0
    )


@pytest.mark.parametrize("leaves", ["top", "near"])
def test_the_ordering_leaves_no_crossings_in_small_graphs(leaves):
    for loss in (diamond()[-1], mlp_loss()[-1], residual_loss()):
        assert crossings(viz.graph_layout(loss, leaves=leaves)) == 0


def test_left_to_right_layout_runs_along_x():
    layout = viz.graph_layout(diamond()[-1], direction="LR")
    for e in layout.edges:
        assert layout.nodes[e.source].x < layout.nodes[e.target].x


def test_a_tensor_used_twice_by_one_op_has_two_edges():
    x = mg.tensor([3.0], requires_grad=True)
    y = x * x
    layout = viz.graph_layout(y)
    i = index_of(layout, x)
    assert [layout.nodes[e.target].lines[0] for e in layout.out_edges(i)] == ["MulBackward0"] * 2


def test_after_backward_the_freed_graph_links_op_to_op():
    a, b, c, d = diamond()
    d.backward()  # frees the nodes' inputs: b, c and b * c are no longer in the graph
    layout = viz.graph_layout(d)
    tensors = [n.obj for n in layout.nodes if n.kind == "tensor"]
    assert len(tensors) == 2 and any(t is a for t in tensors) and any(t is d for t in tensors)
    assert sum(n.kind == "op" for n in layout.nodes) == 4
    assert len(layout.out_edges(index_of(layout, a))) == 2  # still shared


def test_values_are_shown_for_small_tensors_only():
    a, b, c, d = diamond()
    d.backward(retain_graph=True)
    layout = viz.graph_layout(d, labels={a: "a"})
    # d = sum(2a * (a + 1)) = 2 * 2 + 4 * 3, dd/da = 4a + 2
    assert layout.nodes[index_of(layout, a)].lines == [
        "a",
        "(2,) float32",
        "data [1, 2]",
        "grad [6, 10]",
    ]
    assert layout.nodes[index_of(layout, d)].lines == ["scalar float32", "data 16"]
    # no grad kept
    assert layout.nodes[index_of(layout, b)].lines == ["(2,) float32", "data [2, 4]"]
    assert viz.graph_layout(d, max_elements=1, labels={a: "a"}).nodes[
        index_of(layout, a)
    ].lines == [
        "a",
        "(2,) float32",
    ]
    assert all(
        not any(line.startswith(("data", "grad")) for line in n.lines)
        for n in viz.graph_layout(d, show_data=False).nodes
    )
    big = mg.ones(2, 3, requires_grad=True)
    layout = viz.graph_layout((big * 2).sum())
    assert layout.nodes[index_of(layout, big)].lines == ["(2, 3) float32"]
    constant = [n for n in layout.nodes if n.role == "constant"]
    assert [n.lines for n in constant] == [["2"]]  # a number written in the code shows as itself


def test_a_tensor_without_a_graph_is_one_node():
    layout = viz.graph_layout(mg.zeros(2))
    assert len(layout.nodes) == 1 and layout.edges == []
    assert layout.nodes[0].lines == ["(2,) float32", "data [0, 0]"]


def test_graph_errors_are_clear():
    with pytest.raises(
        TypeError, match=r"draw_graph: expected a minigrad Tensor .* got numpy.ndarray"
    ):
        viz.draw_graph(np.ones(3))
    import torch

    with pytest.raises(TypeError, match=r"got torch.Tensor"):  # not a minigrad one
        viz.draw_graph(torch.ones(3))
    with pytest.raises(TypeError, match="draw_graph: labels must map Tensors"):
        viz.draw_graph(mg.ones(2), labels={"x": np.ones(2)})
    with pytest.raises(TypeError, match="draw_graph: labels must be a dict"):
        viz.draw_graph(mg.ones(2), labels=["x"])
    with pytest.raises(ValueError, match="draw_graph: direction must be 'TB'"):
        viz.draw_graph(mg.ones(2), direction="up")
    with pytest.raises(ValueError, match="draw_graph: max_elements"):
        viz.draw_graph(mg.ones(2), max_elements=-1)


@pytest.mark.parametrize("direction", ["TB", "LR"])
def test_draw_graph_renders_to_png(tmp_path, direction):
    model, x, loss = mlp_loss()
    loss.backward(retain_graph=True)
    path = tmp_path / "graph.png"
    fig = viz.draw_graph(
        loss, path, labels={**dict(model.named_parameters()), "x": x}, direction=direction
    )
    assert isinstance(fig, Figure)
    assert_png(path, fig)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "0.weight\n(8, 4) float32" in texts and "CrossEntropyBackward" in texts
    assert len(texts) == len(viz.graph_layout(loss).nodes)


def test_draw_graph_draws_into_given_axes(tmp_path):
    fig = Figure(figsize=(4, 6))
    ax = fig.add_subplot()
    assert viz.draw_graph(diamond()[-1], tmp_path / "d.png", ax=ax) is fig
    assert len(ax.texts) == 11
    assert_png(tmp_path / "d.png", fig)


# ---- the plots ----------------------------------------------------------------------------
def visible_axes(fig, with_images=False):
    return [ax for ax in fig.axes if ax.get_visible() and (not with_images or ax.images)]


def test_plot_curves_one_panel_per_metric(tmp_path):
    history = {
        "train_loss": list(np.linspace(2, 0.1, 40)),  # every step
        "test_loss": [1.5, 0.6, 0.3, 0.2],  # every epoch
        "train_accuracy": [0.5, 0.7, 0.8, 0.9],
        "lr": [mg.tensor(0.1), 0.05, 0.02, 0.01],
    }
    fig = viz.plot_curves(history, tmp_path / "c.png", x="step", title="run")
    assert_png(tmp_path / "c.png", fig)
    loss, accuracy, lr = visible_axes(fig)
    assert [ax.get_title() for ax in (loss, accuracy, lr)] == ["loss", "accuracy", "lr"]
    train, test = loss.get_lines()
    assert [t.get_text() for t in loss.get_legend().get_texts()] == ["train", "test"]
    # the per-epoch series spreads over the per-step one: epoch e ends at step 10 e
    np.testing.assert_allclose(test.get_xdata(), [10, 20, 30, 40])
    np.testing.assert_allclose(train.get_xdata(), np.arange(1, 41))
    np.testing.assert_allclose(lr.get_lines()[0].get_ydata(), [0.1, 0.05, 0.02, 0.01])
    assert accuracy.yaxis.get_major_formatter().format_data(0.5).startswith("50")


def test_plot_curves_errors():
    with pytest.raises(TypeError, match="plot_curves: history must be a dict"):
        viz.plot_curves([1, 2, 3])
    with pytest.raises(KeyError, match="no series"):
        viz.plot_curves({"loss": [1.0]}, keys=["acc"])
    with pytest.raises(TypeError, match="'loss' must hold numbers"):
        viz.plot_curves({"loss": ["a"]})
    with pytest.raises(ValueError, match="nothing to plot"):
        viz.plot_curves({"loss": []})


def test_plot_history_keeps_its_contract(tmp_path):
    history = {
        "train_loss": [1.0, 0.5],
        "test_loss": [1.1, 0.6],
        "train_accuracy": [0.6, 0.8],
        "test_accuracy": [0.5, 0.7],
    }
    history["epoch_seconds"] = [1.0, 1.0]  # logged by minigrad-train, not drawn
    path = tmp_path / "curves.png"
    assert viz.plot_history(history, path, title="mlp on digits") == path
    assert path.is_file() and imread(path).shape[1] > imread(path).shape[0]


def attention_weights(heads, t):
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(heads, t, t)) + np.triu(np.full((t, t), -1e9), 1)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def test_plot_attention_one_panel_per_head(tmp_path):
    tokens = "the cat sat on the mat".split()
    fig = viz.plot_attention(mg.tensor(attention_weights(3, 6)), tokens, path=tmp_path / "a.png")
    assert_png(tmp_path / "a.png", fig)
    panels = visible_axes(fig, with_images=True)
    assert [ax.get_title() for ax in panels[:3]] == ["head 0", "head 1", "head 2"]
    # keys default to the queries
    assert [t.get_text() for t in panels[0].get_xticklabels()] == tokens
    np.testing.assert_allclose(panels[1].images[0].get_array(), attention_weights(3, 6)[1])
    single = viz.plot_attention(attention_weights(1, 4)[0])  # (T_q, T_k), no tokens
    # the map and its colour bar
    assert len(visible_axes(single, with_images=True)) == 1 and len(single.axes) == 2


def test_plot_attention_errors():
    with pytest.raises(
        ValueError, match=r"plot_attention: weights must be 2-D or 3-D or 4-D, got shape \(4,\)"
    ):
        viz.plot_attention(np.ones(4))
    with pytest.raises(ValueError, match="tokens_q .* has 2 labels for 3 positions"):
        viz.plot_attention(np.ones((3, 3)), ["a", "b"])
    with pytest.raises(ValueError, match="batch of one"):
        viz.plot_attention(np.ones((2, 1, 3, 3)))


@pytest.mark.parametrize(
    ("shape", "panels"), [((6, 1, 5, 5), 6), ((4, 3, 3, 3), 4), ((4, 6, 3, 3), 24)]
)
def test_plot_filters(tmp_path, shape, panels):
    mg.manual_seed(0)
    weight = nn.Conv2d(shape[1], shape[0], shape[2]).weight if shape[1] != 6 else mg.randn(*shape)
    fig = viz.plot_filters(weight, tmp_path / "f.png")
    assert_png(tmp_path / "f.png", fig)
    drawn = visible_axes(fig, with_images=True)  # a colour bar is no image
    assert len(drawn) == panels
    if shape[1] == 1:  # one diverging scale, centred on zero
        low, high = drawn[0].images[0].get_clim()
        assert low == -high == -np.abs(weight.detach().numpy()).max()


def test_plot_filters_errors():
    with pytest.raises(
        ValueError,
        match=r"plot_filters: weight \(C_out, C_in, kh, kw\) must be 4-D, got shape \(3, 3\)",
    ):
        viz.plot_filters(np.ones((3, 3)))
    with pytest.raises(TypeError, match="plot_filters: weight .* must be a Tensor or an array"):
        viz.plot_filters("conv1")


def test_plot_feature_maps(tmp_path):
    mg.manual_seed(0)
    maps = F.relu(nn.Conv2d(1, 5, 3)(mg.randn(1, 1, 12, 12)))  # a batch of one, requires grad
    fig = viz.plot_feature_maps(maps, tmp_path / "m.png")
    assert_png(tmp_path / "m.png", fig)
    drawn = visible_axes(fig, with_images=True)
    assert len(drawn) == 5
    np.testing.assert_array_equal(drawn[4].images[0].get_array(), maps.detach().numpy()[0, 4])
    with pytest.raises(ValueError, match="plot_feature_maps: 4-D maps must be a batch of one"):
        viz.plot_feature_maps(np.ones((2, 3, 4, 4)))


def test_plot_images_marks_wrong_predictions(tmp_path):
    images = mg.tensor(np.random.default_rng(0).random((10, 1, 8, 8)), dtype=mg.float32)
    labels = np.arange(10)
    predictions = labels.copy()
    predictions[[2, 7]] = [5, 1]
    fig = viz.plot_images(images, labels, predictions, path=tmp_path / "i.png")
    assert_png(tmp_path / "i.png", fig)
    titles = [ax.title for ax in visible_axes(fig, with_images=True)]
    assert [t.get_text() for t in titles] == [
        "0",
        "1",
        "5 (true 2)",
        "3",
        "4",
        "5",
        "6",
        "1 (true 7)",
        "8",
        "9",
    ]
    red = [t.get_text() for t in titles if t.get_color() != "black"]
    assert red == ["5 (true 2)", "1 (true 7)"]
    colour = viz.plot_images(
        np.random.default_rng(0).normal(size=(3, 3, 8, 8)),
        class_names=["a", "b", "c"],
        labels=[0, 1, 2],
    )
    assert [ax.get_title() for ax in visible_axes(colour, with_images=True)] == ["a", "b", "c"]
    flat = viz.plot_images(images.reshape(10, 64), labels)  # as an MLP sees them
    np.testing.assert_array_equal(
        visible_axes(flat, with_images=True)[3].images[0].get_array(), images.numpy()[3, 0]
    )
    with pytest.raises(
        ValueError, match=r"plot_images: 2-D images must be flattened squares .* \(10, 63\)"
    ):
        viz.plot_images(np.ones((10, 63)))
    with pytest.raises(ValueError, match="plot_images: 2 labels for 10 images"):
        viz.plot_images(images, labels=[1, 2])
    with pytest.raises(
        ValueError, match=r"plot_images: 4-D images must be .* got shape \(2, 5, 8, 8\)"
    ):
        viz.plot_images(np.ones((2, 5, 8, 8)))


def test_confusion_matrix_counts_by_hand():
    y_true = [0, 0, 1, 2, 2, 2]
    y_pred = [0, 1, 1, 2, 0, 2]
    expected = [[1, 1, 0], [0, 1, 0], [1, 0, 2]]
    np.testing.assert_array_equal(viz.confusion_matrix(y_true, y_pred), expected)
    np.testing.assert_array_equal(
        viz.confusion_matrix(mg.tensor(y_true), mg.tensor(y_pred), num_classes=4)[:3, :3], expected
    )
    scores = np.eye(3)[y_pred] * 5.0  # logits: the argmax is the prediction
    np.testing.assert_array_equal(viz.confusion_matrix(y_true, scores), expected)
    with pytest.raises(ValueError, match="6 true labels but 5 predictions"):
        viz.confusion_matrix(y_true, y_pred[:5])
    with pytest.raises(ValueError, match="class 2 found, but num_classes is 2"):
        viz.confusion_matrix(y_true, y_pred, num_classes=2)
    with pytest.raises(ValueError, match="y_true must hold class indices"):
        viz.confusion_matrix([0.5, 1.0], [0, 1])


def test_plot_confusion_matrix(tmp_path):
    y_true = [0, 0, 1, 2, 2, 2]
    y_pred = [0, 1, 1, 2, 0, 2]
    fig = viz.plot_confusion_matrix(
        y_true, y_pred, path=tmp_path / "cm.png", class_names=["zero", "one", "two"]
    )
    assert_png(tmp_path / "cm.png", fig)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts] == ["1", "1", "0", "0", "1", "0", "1", "0", "2"]
    assert ax.get_title() == "confusion matrix (accuracy 66.7%)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["zero", "one", "two"]
    normalized = viz.plot_confusion_matrix(y_true, y_pred, normalize=True)
    assert [t.get_text() for t in normalized.axes[0].texts][-3:] == ["0.33", "0.00", "0.67"]


def test_import_minigrad_viz_does_not_import_matplotlib():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = "import sys, minigrad as mg; mg.viz.draw_graph; print('matplotlib' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_returned_figure_shows_itself_in_a_notebook():
    """A notebook displays what a cell returns through `_repr_png_`: the figures are not
    pyplot's, so nothing else would show them (and nothing shows them twice)."""
    fig = viz.plot_curves({"loss": [3.0, 2.0, 1.0]})
    png = fig._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 2000
    import matplotlib.pyplot as plt

    assert fig not in [plt.figure(n) for n in plt.get_fignums()]


def residual_loss(blocks=4):
    mg.manual_seed(0)
    h = mg.randn(4, 8, requires_grad=True)
    for _ in range(blocks):
        h = h + F.relu(nn.Linear(8, 8)(h))
    return h.pow(2).mean()


def test_leaves_near_puts_each_node_just_before_its_first_use():
    loss = residual_loss()
    top, near = viz.graph_layout(loss), viz.graph_layout(loss, leaves="near")
    # same graph, other layers
    assert [id(n.obj) for n in top.nodes] == [id(n.obj) for n in near.nodes]
    assert max(n.layer for n in near.nodes) == max(n.layer for n in top.nodes)
    for i, node in enumerate(near.nodes):
        users = [near.nodes[e.target].layer for e in near.out_edges(i)]
        assert node.layer == (min(users) - 1 if users else max(n.layer for n in near.nodes))
    weights = [
        i for i, n in enumerate(near.nodes) if n.role == "parameter" and n.obj.shape == (8, 8)
    ]
    assert len(weights) == 4
    # no longer all in the top row
    assert sorted(near.nodes[i].layer for i in weights) != [0, 0, 0, 0]
    assert near.width < top.width / 2  # 8 parameters side by side at the top vs a column of blocks
    with pytest.raises(ValueError, match="draw_graph: leaves must be 'top'"):
        viz.draw_graph(loss, leaves="bottom")
