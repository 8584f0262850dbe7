"""Drawing the autograd graph with matplotlib alone (no Graphviz `dot` to install).

`draw_graph(loss)` walks the graph back from `loss` and draws it, inputs at the top and
arrows in the direction of the forward computation:

    rectangles   tensors: a label or the shape, the dtype, and the data and gradient
                 when the tensor is small (blue: leaves that require grad, grey:
                 constants, green: the tensor drawn from)
    pills        ops: the node's name, `MulBackward0`, as `grad_fn` prints it

The graph is *walked*, not re-derived: an op's inputs are the tensors its node kept
(`grad_fn.inputs`), and after a backward pass has freed them, the nodes its
`next_functions` lead to (then the intermediate tensors are gone, and the picture links
op to op, as PyTorch's graph does). A tensor used twice is one node with two out-edges:
the graph is a DAG, not a tree, which is why backward must sum gradients where paths meet.

Placing the nodes is the classic layered ("Sugiyama") method, in three steps:

1. layers: a node's layer is the length of the longest path to it from a source, so
   sources (leaves, constants) are at layer 0 and every edge goes down at least one layer
   (`leaves="near"` counts from the output instead, so each node sits just before its
   first use: a deep model's parameters then sit beside their ops, not in one long row);
   an edge that skips layers gets one invisible "dummy" node per layer it crosses, so
   that every edge joins adjacent layers;
2. order within a layer: the barycenter heuristic, sweeping down and up, puts each node
   at the mean position of its neighbours in the layer before, which removes most edge
   crossings (finding the fewest is NP-hard; the sweeps keep the best order seen);
3. coordinates: each node moves toward the mean of its neighbours' positions, with the
   boxes kept apart by at least a gap, so straight chains come out straight.

`graph_layout(tensor)` returns that layout (nodes, edges, layers, positions in inches)
without drawing it.
"""

from dataclasses import dataclass, field

from minigrad.tensor import Tensor
from minigrad.viz._figure import finish, new_figure, type_name

# text metrics, in inches, for a monospace font of FONT_SIZE points: what the boxes are sized by
FONT_SIZE = 9
CHAR_WIDTH = 0.6 * FONT_SIZE / 72  # a DejaVu Sans Mono glyph is 0.6 em wide
LINE_HEIGHT = 1.25 * FONT_SIZE / 72
PAD = 0.12  # between a box's text and its border
NODE_GAP = 0.3  # between neighbours in a layer
LAYER_GAP = 0.45  # between layers, where the edges run
DUMMY_WIDTH = 0.08  # a long edge's lane through a layer

COLORS = {
    "parameter": "#cfe2f3",  # leaf that requires grad: where gradients accumulate
    "constant": "#eeeeee",  # needs no gradient (inputs, targets, scalars)
    "intermediate": "#ffffff",
    "output": "#d9ead3",  # the tensor the graph was drawn from
    "op": "#fce5cd",
}


@dataclass(eq=False)  # nodes are compared by identity: a Tensor's == is elementwise
class Node:
    """One box of the picture: a tensor or an op, with its text and its place."""

    kind: str  # "tensor" or "op"
    role: str  # tensors: "parameter", "constant", "intermediate" or "output"; ops: "op"
    obj: object  # the Tensor or the Function
    lines: list  # the text in the box, one string per line
    layer: int = 0
    x: float = 0.0  # centre, inches (x across the picture, y down it for direction="TB")
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0


@dataclass
class Edge:
    """An arrow from `source` to `target` (indices into the nodes), in forward order.
    `lane` holds the (x, y) centres of the dummy nodes of a long edge, one per layer it
    crosses."""

    source: int
    target: int
    lane: list = field(default_factory=list)


@dataclass(eq=False)
class GraphLayout:
    """What `graph_layout` returns: the boxes, the arrows, and the picture's size."""

    nodes: list
    edges: list
    direction: str  # "TB": layers go down the page; "LR": layers go left to right
    width: float = 0.0  # inches
    height: float = 0.0

    def out_edges(self, i):
        return [e for e in self.edges if e.source == i]

    def in_edges(self, i):
        return [e for e in self.edges if e.target == i]


def graph_layout(tensor, labels=None, show_data=True, max_elements=4, direction="TB", leaves="top"):
    """The layered layout of the graph that made `tensor`, as `draw_graph` draws it:
    a `GraphLayout` of `nodes` (each with its kind, text, layer and centre in inches) and
    `edges` (source -> target indices, in the direction of the forward computation)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            "draw_graph: expected a minigrad Tensor (the output whose graph to draw), got "
            f"{type_name(tensor)}"
        )
    if direction not in ("TB", "LR"):
        raise ValueError(
            "draw_graph: direction must be 'TB' (top to bottom) or 'LR' (left to right), got "
            f"{direction!r}"
        )
    if leaves not in ("top", "near"):
        raise ValueError(
            "draw_graph: leaves must be 'top' (all in the first layer) or 'near' (beside their "
            f"first use), got {leaves!r}"
        )
    if not (isinstance(max_elements, int) and max_elements >= 0):
        raise ValueError(f"draw_graph: max_elements must be an int >= 0, got {max_elements!r}")
    names = _label_table(labels)
    objects, edges = _walk(tensor)
    nodes = [_node(obj, obj is tensor, names, show_data, max_elements) for obj in objects]
    layout = GraphLayout(nodes, [Edge(s, t) for s, t in edges], direction)
    _assign_layers(layout, leaves)
    slots, lanes = _add_dummies(layout)
    _order_layers(slots, lanes)
    _place(slots, lanes, layout)
    return layout


# ---- 0. walking the graph ---------------------------------------------------------------
def _inputs_of(fn):
    """What an op consumed: its input tensors while the graph is alive; once backward
    has freed them, the nodes its edges lead to (a Function, or the leaf Tensor behind an
    AccumulateGrad)."""
    tensors = [t for t in getattr(fn, "inputs", ()) if t is not None]
    if tensors:
        return tensors
    return [getattr(node, "variable", node) for node, _ in fn.next_functions if node is not None]


def _walk(root):
    """(objects, edges): every tensor and op that `root` depends on, in depth-first
    post-order (inputs before the node that uses them, in argument order), and the
    edges (input index, user index), one per use: `x * x` has two edges from x."""
    index, objects, edges = {}, [], []
    stack = [(root, False)]  # (object, its inputs already pushed?)
    while stack:
        obj, expanded = stack.pop()
        if id(obj) in index:
            continue
        inputs = _parents(obj)
        if expanded or not inputs:
            index[id(obj)] = len(objects)
            objects.append(obj)
            continue
        stack.append((obj, True))
        stack.extend((p, False) for p in reversed(inputs) if id(p) not in index)
    for obj in objects:  # every parent is in `index`: post-order added it first
        edges.extend((index[id(p)], index[id(obj)]) for p in _parents(obj))
    return objects, edges


def _parents(obj):
    """What `obj` is computed from: a tensor from the op that made it, an op from its inputs."""
    if isinstance(obj, Tensor):
        return [obj.grad_fn] if obj.grad_fn is not None else []
    return _inputs_of(obj)


def _label_table(labels):
    """{id(tensor): label} from `labels`, given as {tensor: name} or as {name: tensor}
    (so `dict(model.named_parameters())` names a model's parameters)."""
    if labels is None:
        return {}
    if not hasattr(labels, "items"):
        raise TypeError(
            f"draw_graph: labels must be a dict {{tensor: name}}, got {type_name(labels)}"
        )
    table = {}
    for key, value in labels.items():
        tensor, name = (value, key) if isinstance(key, str) else (key, value)
        if not isinstance(tensor, Tensor):
            raise TypeError(
                "draw_graph: labels must map Tensors to names (or names to Tensors), got a "
                f"{type_name(tensor)} for {name!r}"
            )
        table[id(tensor)] = str(name)
    return table


def _values(array):
    """A small array's values on one line, 4 significant digits: 0.5, [1, 2], [[1, 2], [3, 4]]."""
    if array.ndim == 0:
        return f"{array.item():.4g}"
    return "[" + ", ".join(_values(row) for row in array) + "]"


def _node(obj, is_root, names, show_data, max_elements):
    if not isinstance(obj, Tensor):
        return Node("op", "op", obj, [obj.name()])
    if is_root:
        role = "output"
    elif obj.grad_fn is not None:
        role = "intermediate"
    else:
        role = "parameter" if obj.requires_grad else "constant"
    name = names.get(id(obj))
    shape = "scalar" if obj.ndim == 0 else str(tuple(obj.shape))
    if role == "constant" and name is None and obj.numel() == 1 and show_data:
        return Node("tensor", role, obj, [_values(obj.array)])  # a number in the code: 2, 0.5
    lines = ([name] if name else []) + [f"{shape} {obj.dtype}"]
    if show_data and obj.numel() <= max_elements:
        lines.append("data " + _values(obj.array))
        if obj.grad is not None:
            lines.append("grad " + _values(obj.grad.array))
    return Node("tensor", role, obj, lines)


# ---- 1. layers --------------------------------------------------------------------------
def _assign_layers(layout, leaves):
    """Longest-path layering: a node's layer is 1 + the largest layer of its inputs.
    The walk's post-order lists inputs first, so one pass over it suffices.

    With leaves="near", the layers are counted back from the output instead: every
    node moves down to the layer just before its first user (walking users before
    inputs), so a parameter and its transpose sit beside the op that uses them, not in
    one long row at the top. Edges still go down; the deepest path is unchanged."""
    parents, users = [[] for _ in layout.nodes], [[] for _ in layout.nodes]
    for e in layout.edges:
        parents[e.target].append(e.source)
        users[e.source].append(e.target)
    for i, node in enumerate(layout.nodes):
        node.layer = 1 + max((layout.nodes[p].layer for p in parents[i]), default=-1)
    if leaves == "near":
        for i in reversed(range(len(layout.nodes))):
            if users[i]:
                layout.nodes[i].layer = min(layout.nodes[u].layer for u in users[i]) - 1


def _add_dummies(layout):
    """(slots, lanes): slots[l] lists what sits in layer l, a node index or a dummy
    ("lane", edge index, step); lanes[k] is edge k's chain of slots from source to target."""
    depth = 1 + max(n.layer for n in layout.nodes)
    slots = [[] for _ in range(depth)]
    for i, node in enumerate(layout.nodes):
        slots[node.layer].append(i)
    lanes = []
    for k, e in enumerate(layout.edges):
        top, bottom = layout.nodes[e.source].layer, layout.nodes[e.target].layer
        chain = [e.source]
        for step, layer in enumerate(range(top + 1, bottom)):
            dummy = ("lane", k, step)
            slots[layer].append(dummy)
            chain.append(dummy)
        lanes.append(chain + [e.target])
    return slots, lanes


# ---- 2. order within each layer ------------------------------------------------------------
def _neighbours(lanes):
    """{slot: slots one layer up}, {slot: slots one layer down}, from the edges' chains."""
    up, down = {}, {}
    for chain in lanes:
        for a, b in zip(chain, chain[1:]):
            down.setdefault(a, []).append(b)
            up.setdefault(b, []).append(a)
    return up, down


def _crossings(slots, down):
    """How many pairs of edge segments cross between adjacent layers."""
    total = 0
    for upper, lower in zip(slots, slots[1:]):
        where = {s: i for i, s in enumerate(lower)}
        segments = [(i, where[t]) for i, s in enumerate(upper) for t in down.get(s, ())]
        total += sum(1 for a, b in segments for c, d in segments if a < c and b > d)
    return total


def _sort_by_barycenter(layer, fixed, neighbours):
    """Reorder `layer` by the mean position of each slot's neighbours in the `fixed`
    layer; a slot without neighbours there keeps its place."""
    where = {s: i for i, s in enumerate(fixed)}
    keys = []
    for i, s in enumerate(layer):
        around = [where[n] for n in neighbours.get(s, ()) if n in where]
        keys.append(sum(around) / len(around) if around else i)
    order = sorted(range(len(layer)), key=lambda i: (keys[i], i))  # stable: ties keep their order
    layer[:] = [layer[i] for i in order]


def _order_layers(slots, lanes, sweeps=12):
    """Barycenter sweeps, down then up, keeping the order with the fewest crossings."""
    up, down = _neighbours(lanes)
    best, best_crossings = [list(s) for s in slots], _crossings(slots, down)
    for _ in range(sweeps):
        if best_crossings == 0:
            break
        for l in range(1, len(slots)):
            _sort_by_barycenter(slots[l], slots[l - 1], up)
        for l in range(len(slots) - 2, -1, -1):
            _sort_by_barycenter(slots[l], slots[l + 1], down)
        crossings = _crossings(slots, down)
        if crossings < best_crossings:
            best, best_crossings = [list(s) for s in slots], crossings
    slots[:] = best


# ---- 3. coordinates -----------------------------------------------------------------------
def _size(node):
    """(width, height) of a node's box in inches, from its text."""
    columns = max(len(line) for line in node.lines)
    width = columns * CHAR_WIDTH + 2 * PAD
    height = len(node.lines) * LINE_HEIGHT + 2 * PAD
    if node.kind == "op":
        width += 0.1  # the rounded ends of the pill
    return width, height


def _pack(desired, gaps):
    """Positions as near `desired` as the gaps allow, order kept: the mean of packing
    from the left and from the right (each keeps every gap, so their mean does too)."""
    left, right = list(desired), list(desired)
    for i in range(1, len(left)):
        left[i] = max(left[i], left[i - 1] + gaps[i - 1])
    for i in range(len(right) - 2, -1, -1):
        right[i] = min(right[i], right[i + 1] - gaps[i])
    return [(a + b) / 2 for a, b in zip(left, right)]


def _place(slots, lanes, layout, passes=8):
    """Centres in inches: layers one after another along the flow, nodes in a layer
    pulled toward their neighbours, never closer than NODE_GAP."""
    nodes, across_is_x = layout.nodes, layout.direction == "TB"
    for node in nodes:
        node.width, node.height = _size(node)

    def extent(s):  # a slot's size across the layer
        if isinstance(s, tuple):
            return DUMMY_WIDTH
        return nodes[s].width if across_is_x else nodes[s].height

    def thickness(s):  # a slot's size along the flow
        if isinstance(s, tuple):
            return 0.0
        return nodes[s].height if across_is_x else nodes[s].width

    up, down = _neighbours(lanes)
    position = {}
    for layer in slots:  # start packed from 0
        x = 0.0
        for s in layer:
            position[s] = x + extent(s) / 2
            x += extent(s) + NODE_GAP
    for p in range(passes):
        order = range(1, len(slots)) if p % 2 == 0 else range(len(slots) - 2, -1, -1)
        for l in order:
            layer = slots[l]
            desired = []
            for s in layer:
                # a long edge's lane: keep it straight, one x for all its dummies
                if isinstance(s, tuple):
                    around = [position[d] for d in lanes[s[1]][1:-1]]
                else:  # toward its neighbours; nodes before lanes, so a chain of ops stays straight
                    near = up.get(s, []) + down.get(s, [])
                    around = [position[n] for n in near if not isinstance(n, tuple)] or [
                        position[n] for n in near
                    ]
                desired.append(sum(around) / len(around) if around else position[s])
            gaps = [(extent(a) + extent(b)) / 2 + NODE_GAP for a, b in zip(layer, layer[1:])]
            for s, x in zip(layer, _pack(desired, gaps)):
                position[s] = x
    # along the flow: each layer as thick as its thickest box, LAYER_GAP between
    low = min(position[s] - extent(s) / 2 for layer in slots for s in layer)
    along, centre_of_layer = NODE_GAP, []
    for layer in slots:
        size = max(thickness(s) for s in layer)
        centre_of_layer.append(along + size / 2)
        along += size + LAYER_GAP
    span = max(position[s] + extent(s) / 2 for layer in slots for s in layer) - low + 2 * NODE_GAP
    length = along - LAYER_GAP + NODE_GAP

    def point(s, l):
        across = position[s] - low + NODE_GAP
        return (across, centre_of_layer[l]) if across_is_x else (centre_of_layer[l], across)

    for l, layer in enumerate(slots):
        for s in layer:
            if not isinstance(s, tuple):
                nodes[s].x, nodes[s].y = point(s, l)
    for k, chain in enumerate(lanes):
        start = nodes[layout.edges[k].source].layer
        layout.edges[k].lane = [point(s, start + 1 + j) for j, s in enumerate(chain[1:-1])]
    layout.width, layout.height = (span, length) if across_is_x else (length, span)


# ---- drawing ------------------------------------------------------------------------------
def draw_graph(
    tensor,
    path=None,
    ax=None,
    show_data=True,
    max_elements=4,
    labels=None,
    direction="TB",
    leaves="top",
):
    """Draw the autograd graph that made `tensor` and return the matplotlib Figure.

    Tensors are rectangles (label or shape, dtype, and `data`/`grad` values when the
    tensor has at most `max_elements` elements and `show_data` is on), ops are pills
    named as their `grad_fn` prints (`MulBackward0`); arrows run in the direction of the
    forward computation, inputs at the top (`direction="LR"`: at the left). A tensor used
    by two ops is drawn once, with two arrows out.

    `labels` names tensors: `{a: "a", w: "w"}`, or `{name: tensor}` such as
    `dict(model.named_parameters())`. Leaves (parameters, inputs, constants) form the
    first layer; `leaves="near"` puts each node just before its first use instead,
    which keeps the picture of a deep model narrow. `path` writes the picture (PNG, SVG, PDF by its
    suffix). Without `ax` the figure is sized to the graph (the boxes are sized for
    9-point text); with `ax` the graph is drawn into it, scaled to fit.
    """
    layout = graph_layout(tensor, labels, show_data, max_elements, direction, leaves)
    if ax is None:
        fig = new_figure((max(layout.width, 1.0), max(layout.height, 0.6)))
        ax = fig.add_axes((0, 0, 1, 1))
    else:
        fig = ax.figure
    _draw(layout, ax)
    return finish(fig, path)


def _draw(layout, ax):
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    tb = layout.direction == "TB"
    for node in layout.nodes:
        rounding = min(node.width, node.height) / 2 if node.kind == "op" else 0.04
        ax.add_patch(
            FancyBboxPatch(
                (node.x - node.width / 2, node.y - node.height / 2),
                node.width,
                node.height,
                boxstyle=f"round,pad=0,rounding_size={rounding}",
                facecolor=COLORS[node.role],
                edgecolor="#333333",
                linewidth=1.2 if node.role == "output" else 0.8,
                zorder=2,
            )
        )
        ax.text(
            node.x,
            node.y,
            "\n".join(node.lines),
            ha="center",
            va="center",
            family="monospace",
            fontsize=FONT_SIZE,
            linespacing=1.25,
            zorder=3,
        )
    for i in range(len(layout.nodes)):
        arriving = layout.in_edges(i)
        # the arrows into a node meet its border side by side, in the order they come from
        arriving.sort(key=lambda e: _before(layout, e)[0 if tb else 1])
        for k, edge in enumerate(arriving):
            points = _route(layout, edge, k, len(arriving))
            ax.add_patch(
                FancyArrowPatch(
                    path=_curve(points, tb),
                    arrowstyle="-|>",
                    mutation_scale=9,
                    linewidth=0.9,
                    color="#555555",
                    zorder=1,
                )
            )
    ax.set_xlim(0, layout.width)
    ax.set_ylim(layout.height, 0)  # y grows down the page
    ax.set_aspect("equal")
    ax.axis("off")


def _before(layout, edge):
    """The point an edge comes from just before its target: its last lane, or its source."""
    if edge.lane:
        return edge.lane[-1]
    source = layout.nodes[edge.source]
    return (source.x, source.y)


def _route(layout, edge, k, count):
    """The points an arrow passes: out of the source's far side, through its lane (in at
    the near side of each layer's band, out at the far side), into the target's near side
    at the k-th of `count` entry points."""
    tb = layout.direction == "TB"
    source, target = layout.nodes[edge.source], layout.nodes[edge.target]

    def at(node, side, offset=0.0):  # side -1: the side facing the inputs, +1: the outputs
        if tb:
            return (node.x + offset, node.y + side * node.height / 2)
        return (node.x + side * node.width / 2, node.y + offset)

    points = [at(source, +1)]
    for step, (x, y) in enumerate(edge.lane):
        band = _band(layout, source.layer + 1 + step)
        points += [(x, y - band), (x, y + band)] if tb else [(x - band, y), (x + band, y)]
    spread = (target.width if tb else target.height) * 0.5
    offset = (k + 1) / (count + 1) * spread - spread / 2 if count > 1 else 0.0
    points.append(at(target, -1, offset))
    return points


def _band(layout, layer):
    """Half the thickness of a layer along the flow: its thickest box."""
    sizes = [
        n.height if layout.direction == "TB" else n.width for n in layout.nodes if n.layer == layer
    ]
    return max(sizes, default=0.0) / 2


def _curve(points, tb):
    """A smooth path through `points`: straight through each layer's band, an S-curve
    (a cubic Bezier leaving and arriving along the flow) between layers."""
    from matplotlib.path import Path

    vertices, codes = [points[0]], [Path.MOVETO]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if (x0 == x1) if tb else (y0 == y1):
            vertices.append((x1, y1))
            codes.append(Path.LINETO)
            continue
        if tb:
            bend = (y1 - y0) / 2
            vertices += [(x0, y0 + bend), (x1, y1 - bend), (x1, y1)]
        else:
            bend = (x1 - x0) / 2
            vertices += [(x0 + bend, y0), (x1 - bend, y1), (x1, y1)]
        codes += [Path.CURVE4] * 3
    return Path(vertices, codes)
