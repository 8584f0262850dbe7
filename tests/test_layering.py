"""The layer rule of DESIGN.md, checked: nothing in minigrad imports anything above it.

Data flows one way, `nn -> nn.functional -> ops -> backends -> kernels`, so a student
can read the house from the bottom up, and a kernel can be tested without a Tensor.
This test reads every module of the package with `ast` (it imports nothing) and finds
every import of a minigrad module: top-level and function-local, absolute and relative,
`from minigrad import ops` (which imports the module minigrad.ops), and
`importlib.import_module("minigrad....")` with a literal name. An import that runs from
a lower layer to a higher one fails, named by file:line and both layers.

Every file must be placed in LAYERS (a new file fails until someone decides where it
lives), and every entry of LAYERS must still name a file (a moved file fails until its
entry moves too).
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The layers, lowest first. A module may import its own layer and the layers before it,
# never one after it. An entry ending in "/" holds every file under that folder; the
# longest entry that matches a file wins (so nn/functional/ is not nn/).
LAYERS = {
    # bottom utilities: argument helpers, dtypes, devices, thread pools, PyTorch's
    # process-wide switches and stubs (determinism, cuda, accelerator, distributed)
    "base": [
        "minigrad/_args.py",  # imports nothing from minigrad at all (test below)
        "minigrad/dtypes.py",
        "minigrad/size.py",  # mg.Size, the type of a shape
        "minigrad/devices.py",
        "minigrad/array_module.py",  # numpy or cupy: the array module of an op's inputs
        "minigrad/threads.py",
        "minigrad/memory.py",
        "minigrad/progress.py",
        # how a tensor's values print (torch's layout), and set_printoptions
        "minigrad/printing.py",
        "minigrad/layouts.py",  # torch's layout and memory_format values
        "minigrad/warn_always.py",  # torch.set_warn_always
        "minigrad/cpu.py",  # mg.cpu, the CPU as a device module
        "minigrad/errors.py",  # torch's device exception classes
        "minigrad/determinism.py",
        "minigrad/accelerator.py",
        # (but cuda/amp.py, in nn below: it is mg.amp under torch.cuda.amp's names)
        "minigrad/cuda/",
        "minigrad/onnx.py",
        "minigrad/multiprocessing.py",
        "minigrad/distributed.py",
    ],
    # arrays in, arrays out: reference (NumPy), cpu (@njit), cuda (@cuda.jit)
    "kernels": ["minigrad/kernels/"],
    # which kernel module the Functions call
    "backends": ["minigrad/backends/"],
    # the Tensor and the engine that differentiates it
    "tensor": [
        "minigrad/tensor.py",
        "minigrad/tensor_types.py",  # mg.FloatTensor, ...: torch's legacy typed constructors
        "minigrad/autograd/",
        "minigrad/creation.py",
        "minigrad/windows.py",  # hann_window, ...: creation functions of signal processing
        "minigrad/random.py",
        # Tensor's methods by family, mixins of Tensor (tensor.py hands them ops at its bottom)
        "minigrad/tensor_elementwise.py",
        "minigrad/tensor_reductions.py",
        "minigrad/tensor_shape.py",  # shape and indexing
        "minigrad/tensor_linalg.py",
        "minigrad/tensor_inplace.py",
        "minigrad/tensor_inplace_math.py",
        "minigrad/tensor_random.py",
        "minigrad/tensor_conversion.py",
        "minigrad/tensor_runtime.py",  # torch's device probes, memory layout and legacy methods
        "minigrad/queries.py",  # typename, is_complex, is_inference, is_storage, get_device
        "minigrad/testing.py",  # assert_close
    ],
    # differentiable Functions and the torch-level mg.* functions beside them
    "ops": [
        "minigrad/ops/",
        "minigrad/linalg.py",
        # jacobian, hessian, ...: functions of autograd.grad and stack
        "minigrad/autograd/functional.py",
        "minigrad/func.py",  # grad, functional_call and vmap: on autograd.grad and stack
        "minigrad/special.py",  # torch.special's names: the special functions, under SciPy's names
    ],
    # F.*, with all of F's argument checks
    "nn.functional": ["minigrad/nn/functional/"],
    # layers and what trains them: Module and layers, optimizers, data loading
    "nn": [
        "minigrad/nn/",
        "minigrad/optim/",
        "minigrad/data/",
        "minigrad/text/",  # tokenizers and the text dataset, beside data/
        "minigrad/utils/",
        # probability distributions, built on ops and nn.functional, as nn is
        "minigrad/distributions/",
        "minigrad/amp/",  # GradScaler scales losses and unscales an optimizer's gradients; autocast
        "minigrad/cuda/amp.py",
    ],
    # programs built on the public API, and the public API itself (the face may import
    # anything; models and programs may use `import minigrad as mg`)
    "top": [
        "minigrad/models/",
        "minigrad/serialization.py",
        "minigrad/map_location.py",  # where mg.load puts tensors (torch.load's map_location)
        "minigrad/module_records.py",  # a whole Module as data, for mg.save / mg.load
        "minigrad/allowlist.py",  # which classes mg.load may use (torch.serialization.safe_globals)
        "minigrad/train.py",
        "minigrad/train_gpt.py",
        "minigrad/__main__.py",
        "minigrad/viz/",  # pictures: the autograd graph, training curves, attention, filters
        "minigrad/exercises/",  # the instructors' tool: student copies of the package
        "minigrad/__init__.py",
    ],
}

# The one import allowed to run upward: Tensor's methods (x.sum(), x @ w) apply ops'
# Functions, and ops import Tensor. The circle is broken in one place: one import
# statement at module level, at the bottom of tensor.py.
ALLOWED_UPWARD = {("minigrad/tensor.py", "ops")}


def package_modules(package):
    """{dotted module name: file path relative to the package's parent} for every .py file."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent)
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = relative.as_posix()
    return modules


def _existing(name, modules):
    """The module that importing `name` names: `name` itself, or its longest existing
    prefix (`pkg.mod.attr` names the module `pkg.mod`)."""
    parts = name.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts) or None


def _literal_prefix(node):
    """The constant start of a string or f-string argument ('' if there is none)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        # f"minigrad.kernels.{name}.{family}": what follows the last dot is unfinished
        return (
            node.values[0].value.rsplit(".", 1)[0] if len(node.values) > 1 else node.values[0].value
        )
    return ""


def imports_of(module, modules, tree, package_name):
    """(line, imported module, at module level?) for every import of a module of the
    package in `tree`, the parsed source of `module`."""
    is_package = modules[module].endswith("__init__.py")
    found = []

    def add(node, name, top_level):
        target = _existing(name, modules)
        if target is not None and (target == package_name or target.startswith(package_name + ".")):
            found.append((node.lineno, target, top_level))

    def visit(node, top_level):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(node, alias.name, top_level)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: `from . import x`, `from ..ops import conv`
                here = module.split(".") if is_package else module.split(".")[:-1]
                base = ".".join(
                    here[: len(here) - node.level + 1] + ([node.module] if node.module else [])
                )
            else:
                base = node.module
            for alias in node.names:
                # `from minigrad import ops` imports the module minigrad.ops; `from
                # minigrad.tensor import Tensor` imports minigrad.tensor
                add(
                    node,
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base,
                    top_level,
                )
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__"):
                name = _literal_prefix(node.args[0])
                if name:
                    add(node, name, top_level)
        inner = top_level and not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        )
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, True)
    return found


def layer_of(path, layers):
    """The layer whose longest entry matches `path`, or None."""
    best, best_length = None, -1
    for layer, entries in layers.items():
        for entry in entries:
            matches = path.startswith(entry) if entry.endswith("/") else path == entry
            if matches and len(entry) > best_length:
                best, best_length = layer, len(entry)
    return best


def check(package, layers, allowed_upward=frozenset()):
    """Every breach of the layer rule in `package` (a folder), as readable lines."""
    modules = package_modules(package)
    rank = {layer: i for i, layer in enumerate(layers)}
    problems = []
    for entries in layers.values():
        for entry in entries:
            if not any(
                p.startswith(entry) if entry.endswith("/") else p == entry for p in modules.values()
            ):
                problems.append(
                    f"LAYERS names {entry}, which holds no module: remove or move the entry"
                )
    for module, path in modules.items():
        layer = layer_of(path, layers)
        if layer is None:
            problems.append(f"{path} is in no layer: place it in LAYERS")
            continue
        tree = ast.parse((package.parent / path).read_text(), filename=path)
        for line, target, _ in imports_of(module, modules, tree, package.name):
            target_layer = layer_of(modules[target], layers)
            if target_layer is None or rank[target_layer] <= rank[layer]:
                continue
            if (path, target_layer) in allowed_upward:
                continue
            problems.append(
                f"{path}:{line}: {layer} imports {target} ({target_layer}), a higher layer"
            )
    return problems


def upward_imports(path, target_layer, package, layers):
    """(line, module, at module level?) for each import `path` makes into `target_layer`."""
    modules = package_modules(package)
    module = next(name for name, p in modules.items() if p == path)
    tree = ast.parse((package.parent / path).read_text(), filename=path)
    return [
        (line, target, top)
        for line, target, top in imports_of(module, modules, tree, package.name)
        if layer_of(modules[target], layers) == target_layer
    ]


# --- minigrad itself --------------------------------------------------------------------


def test_no_module_imports_a_higher_layer():
    problems = check(ROOT / "minigrad", LAYERS, ALLOWED_UPWARD)
    assert not problems, "the layer rule of DESIGN.md is broken:\n" + "\n".join(problems)


def test_tensor_imports_ops_in_exactly_one_place():
    """The Tensor<->ops circle is broken once: one module-level import statement (at the
    bottom of tensor.py, after Tensor exists), none inside methods."""
    found = upward_imports("minigrad/tensor.py", "ops", ROOT / "minigrad", LAYERS)
    statements = sorted({(line, top) for line, _, top in found})
    assert len(statements) == 1 and statements[0][1], (
        "minigrad/tensor.py must import ops in exactly one module-level statement, found "
        + (
            ", ".join(
                f"line {line} ({'module level' if top else 'inside a function'})"
                for line, top in statements
            )
            or "none"
        )
    )


def test_args_imports_nothing_from_minigrad():
    """_args.py is the bottom of the house: any module may use it, so it uses none."""
    package = ROOT / "minigrad"
    modules = package_modules(package)
    tree = ast.parse((ROOT / "minigrad/_args.py").read_text())
    found = imports_of("minigrad._args", modules, tree, "minigrad")
    assert not found, "minigrad/_args.py imports " + ", ".join(
        f"{t} (line {n})" for n, t, _ in found
    )


def test_layer_order_is_the_one_of_the_issue():
    """The table keeps DESIGN.md's order: kernels < tensor < ops < nn.functional < nn < top."""
    order = list(LAYERS)
    expected = ["base", "kernels", "backends", "tensor", "ops", "nn.functional", "nn", "top"]
    assert order == expected
    assert layer_of("minigrad/nn/functional/conv.py", LAYERS) == "nn.functional"
    assert layer_of("minigrad/nn/conv.py", LAYERS) == "nn"
    assert layer_of("minigrad/__init__.py", LAYERS) == "top"


def skipped_layers(package, layers, source, skipped):
    """Every import from layer `source` straight into layer `skipped`, as readable lines:
    the layer between them is the only way down (ops reach kernels through backends)."""
    modules = package_modules(package)
    problems = []
    for module, path in modules.items():
        if layer_of(path, layers) != source:
            continue
        tree = ast.parse((package.parent / path).read_text(), filename=path)
        for line, target, _ in imports_of(module, modules, tree, package.name):
            problem = f"{path}:{line}: {source} imports {target} ({skipped}) directly"
            if layer_of(modules[target], layers) == skipped and problem not in problems:
                problems.append(problem)
    return problems


def import_circles(package, prefix):
    """Each circle of imports (module level or inside functions) among the modules whose
    names start with `prefix`, as a list of module names that ends where it starts."""
    modules = package_modules(package)
    inside = [name for name in modules if name == prefix or name.startswith(prefix + ".")]
    edges = {}
    for module in inside:
        tree = ast.parse((package.parent / modules[module]).read_text(), filename=modules[module])
        targets = {target for _, target, _ in imports_of(module, modules, tree, package.name)}
        edges[module] = sorted(t for t in targets if t in inside and t != module)
    circles, done = [], set()

    def walk(module, path):
        if module in path:
            circle = path[path.index(module) :] + [module]
            if sorted(circle[:-1]) not in [sorted(c[:-1]) for c in circles]:
                circles.append(circle)
            return
        if module in done:
            return
        for target in edges[module]:
            walk(target, path + [module])
        done.add(module)

    for module in sorted(inside):
        walk(module, [])
    return circles


def test_ops_reach_the_kernels_only_through_backends():
    """The Functions ask `backends.kernels(family, array=...)` for their kernels, so that
    `mg.backends.use("numpy")` and the device of the data choose them. An op importing a
    kernel module itself would run it whatever the backend."""
    problems = skipped_layers(ROOT / "minigrad", LAYERS, "ops", "kernels")
    assert not problems, "ops must call kernels through minigrad.backends:\n" + "\n".join(problems)


def test_no_import_circle_inside_kernels():
    """Each kernel file imports only files below it (vecmath.py and gemm.py at the bottom),
    so each can be read, and tested, from the bottom up."""
    circles = import_circles(ROOT / "minigrad", "minigrad.kernels")
    listed = "; ".join(" -> ".join(circle) for circle in circles)
    assert not circles, "import circles in minigrad/kernels: " + listed


# --- the checker, on small fake packages: it can fail -----------------------------------


def _package(tmp_path, files):
    package = tmp_path / "pkg"
    for name, source in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return package


FAKE_LAYERS = {
    "low": ["pkg/low.py"],
    "mid": ["pkg/mid.py"],
    "high": ["pkg/high/", "pkg/__init__.py"],
}


def test_checker_finds_an_upward_import(tmp_path):
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": "x = 1\n\nfrom pkg.mid import y\n",
            "mid.py": "y = 2\n",
            "high/__init__.py": "",
        },
    )
    assert check(package, FAKE_LAYERS) == [
        "pkg/low.py:3: low imports pkg.mid (mid), a higher layer"
    ]


def test_checker_sees_every_form_of_import(tmp_path):
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "mid.py": "",
            "high/__init__.py": "",
            "high/layer.py": "",
            "low/__init__.py": "",
            # function-local, via the parent package
            "low/a.py": "def f():\n    from pkg import mid\n",
            "low/b.py": "from ..high import layer\n",  # relative
            "low/c.py": "import pkg.high.layer as L\n",
            # by name
            "low/d.py": "import importlib\nm = importlib.import_module(f'pkg.high.{1}')\n",
            "low/e.py": "import pkg\n",  # the face, which is high
            # same layer, outside
            "low/ok.py": "from pkg.low import a\nfrom . import b\nimport numpy\n",
        },
    )
    layers = dict(FAKE_LAYERS, low=["pkg/low/"])
    assert check(package, layers) == [
        "pkg/low/a.py:2: low imports pkg.mid (mid), a higher layer",
        "pkg/low/b.py:1: low imports pkg.high.layer (high), a higher layer",
        "pkg/low/c.py:1: low imports pkg.high.layer (high), a higher layer",
        "pkg/low/d.py:2: low imports pkg.high (high), a higher layer",
        "pkg/low/e.py:1: low imports pkg (high), a higher layer",
    ]


def test_checker_allows_only_the_named_upward_edge(tmp_path):
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": "from pkg import mid\nfrom pkg.high import x\n",
            "mid.py": "",
            "high/__init__.py": "x = 1\n",
        },
    )
    assert check(package, FAKE_LAYERS, {("pkg/low.py", "mid")}) == [
        "pkg/low.py:2: low imports pkg.high (high), a higher layer"
    ]


def test_checker_counts_imports_of_the_circle(tmp_path):
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": "def f():\n    import pkg.mid\n\nfrom pkg.mid import y\n",
            "mid.py": "",
            "high/__init__.py": "",
        },
    )
    assert upward_imports("pkg/low.py", "mid", package, FAKE_LAYERS) == [
        (2, "pkg.mid", False),
        (4, "pkg.mid", True),
    ]


def test_checker_wants_every_module_placed_and_every_entry_used(tmp_path):
    package = _package(tmp_path, {"__init__.py": "", "low.py": "", "mid.py": "", "new.py": ""})
    assert check(package, FAKE_LAYERS) == [
        "LAYERS names pkg/high/, which holds no module: remove or move the entry",
        "pkg/new.py is in no layer: place it in LAYERS",
    ]


def test_checker_finds_an_op_that_skips_the_backends(tmp_path):
    files = {
        "__init__.py": "",
        "low.py": "",
        "mid.py": "from pkg import low\n",
        "high/__init__.py": "",
        "high/ok.py": "from pkg import mid\n",
        "high/skip.py": "def f():\n    import pkg.low\n",
    }
    package = _package(tmp_path, files)
    assert skipped_layers(package, FAKE_LAYERS, "high", "low") == [
        "pkg/high/skip.py:2: high imports pkg.low (low) directly"
    ]


def test_checker_finds_an_import_circle(tmp_path):
    files = {
        "__init__.py": "",
        "k/__init__.py": "",
        "k/a.py": "from pkg.k import b\n",
        "k/b.py": "def f():\n    from pkg.k.a import x\n",  # inside a function: still a circle
        "k/c.py": "from pkg.k import a, b\n",
    }
    package = _package(tmp_path, files)
    assert import_circles(package, "pkg.k") == [["pkg.k.a", "pkg.k.b", "pkg.k.a"]]
    (package / "k/b.py").write_text("x = 1\n")
    assert import_circles(package, "pkg.k") == []
