"""Measure minigrad's public API against torch's: which names are present, and proven.

    python tools/api_coverage.py            # the summary per namespace
    python tools/api_coverage.py --write    # and rewrite docs/api/coverage.md, tools/api_absent.txt
    python tools/api_coverage.py --absent   # the in-scope names that are not present, one a line
    python tools/api_coverage.py --check    # exit 1 if the page or the absent list is out of date

What is counted. The public names (no leading underscore, except the few in EXTRA_NAMES)
of the torch namespaces in NAMESPACES, read with `dir()`: torch's top level, the members
of `torch.Tensor` (its operator dunders included), `nn`, `nn.Module`, `nn.functional`,
`nn.init`, `nn.utils`, `optim`, `lr_scheduler`, `utils.data`, `autograd` and
`distributions`. Names that a test proves or that tools/api_most_used.txt lists outside
these namespaces (`torch.cuda.amp.GradScaler`, `torch.onnx.export`) are counted too, as
"other".

Each name gets one status:
- out of scope: a rule of tools/api_scope.py takes it out, and says why;
- present: minigrad has it where HOMES maps it (`torch.nn.X` -> `minigrad.nn.X`), its code
  does more than raise NotImplementedError, and a test proves it against torch;
- stub: present, and tools/api_stubs.txt declares it a documented no-op on this platform;
- untested: minigrad has it, but no test declares that it checks it against torch;
- absent: minigrad does not have it (or it only raises NotImplementedError).
The goal (GOAL) is computed over the names in scope: present and stub over all of them.

How a test proves a name (read with `ast`: no test module is imported):
- a test file lists the torch names whose behaviour it compares with torch (or, for what
  is not a number, with values derived by hand) in a module-level literal list,
      TORCH_API = ["torch.nn.functional.relu", "torch.Tensor.narrow"]
- each row `case("torch.dot", ...)` of the table in tests/test_api_surface.py proves its name.

The page and the absent list are generated: when names land, run
`python tools/api_coverage.py --write` (tests/test_api_coverage.py fails until you do).
"""

import argparse
import ast
import importlib
import inspect
import json
import sys
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import api_scope

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
PAGE = ROOT / "docs" / "api" / "coverage.md"
ABSENT = ROOT / "tools" / "api_absent.txt"
STUBS = ROOT / "tools" / "api_stubs.txt"
MOST_USED = ROOT / "tools" / "api_most_used.txt"

GOAL = 0.90  # of the names in scope, present (or a documented stub)

# The torch namespaces walked, in the order the page shows them.
NAMESPACES = [
    "torch",
    "torch.Tensor",
    "torch.nn",
    "torch.nn.Module",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.nn.utils.rnn",
    "torch.optim",
    "torch.optim.Optimizer",
    "torch.optim.lr_scheduler",
    "torch.utils.data",
    "torch.autograd",
    "torch.distributions",
]
OTHER = "other"  # names outside NAMESPACES that a test or the most-used list names

# Classes whose operator dunders (`__add__`, `__getitem__`) are counted: a Tensor's operators
# are its API. Other classes' dunders are Python's object machinery.
OPERATOR_CLASSES = {"torch.Tensor"}

# Private names that programs use anyway (named in the coverage issue).
EXTRA_NAMES = {"torch.optim.lr_scheduler": ["_LRScheduler"]}

# Where minigrad keeps torch's names: the longest matching torch prefix wins, and its
# minigrad prefixes are tried in order. Everything else maps torch.X -> minigrad.X.
HOMES = {
    "torch": ["minigrad"],
    "torch.utils.data": ["minigrad.utils.data", "minigrad.data"],
}

STATUSES = ["present", "stub", "untested", "absent"]  # in scope; the rest is "out of scope"
MISSING = object()


@dataclass(frozen=True)
class Entry:
    """One torch name, measured."""

    name: str
    namespace: str
    status: str  # one of STATUSES, or "out of scope"
    note: str  # the rule's label, the stub's reason, the proving tests, or why absent

    @property
    def in_scope(self):
        return self.status != "out of scope"


# ---- reading torch and minigrad ------------------------------------------------------
def resolve(path):
    """The object at a dotted path (`torch.nn.Linear`, `minigrad.Tensor.add`), or MISSING.

    The longest importable module prefix is imported, the rest is read with getattr.
    """
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, MISSING)
            if obj is MISSING:
                return MISSING
        return obj
    return MISSING


def public_names(namespace):
    """The public names of a torch namespace (a module or a class), sorted."""
    obj = resolve(namespace)
    names = [n for n in dir(obj) if not n.startswith("_")]
    if namespace in OPERATOR_CLASSES:
        names += [n for n in dir(obj) if _is_dunder(n) and _defines(obj, n)]
    return sorted(set(names + EXTRA_NAMES.get(namespace, [])))


def _is_dunder(name):
    return name.startswith("__") and name.endswith("__")


def _defines(cls, name):
    """True when a class below `object` in cls's MRO defines `name` (not object's default)."""
    return any(name in vars(base) for base in cls.__mro__ if base is not object)


def minigrad_paths(name):
    """The minigrad paths where torch's `name` would live, most likely first."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in HOMES:
            rest = parts[cut:]
            return [".".join([home, *rest]) for home in HOMES[prefix]]
    raise ValueError(f"{name}: not a torch name")


def minigrad_object(name):
    """minigrad's counterpart of torch's `name`, or MISSING."""
    for path in minigrad_paths(name):
        owner_path, _, attr = path.rpartition(".")
        owner = resolve(owner_path) if owner_path else MISSING
        if inspect.isclass(owner) and _is_dunder(attr):
            # every class inherits object's dunders: only minigrad's own count
            if _defines(owner, attr):
                return getattr(owner, attr)
            continue
        obj = resolve(path)
        if obj is not MISSING:
            return obj
    return MISSING


def only_raises_not_implemented(obj):
    """True when a function (or a class's __init__, or a property's getter) only raises
    NotImplementedError: such a name is a placeholder, not present."""
    if isinstance(obj, property):
        obj = obj.fget
    if inspect.isclass(obj):
        obj = vars(obj).get("__init__")
    if not inspect.isfunction(obj):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


# ---- reading the declarations ------------------------------------------------------------
def declared_tests(tests=TESTS):
    """{torch name: [test files that prove it]}, from TORCH_API lists and case(...) rows."""
    found = {}
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(tests.parent).as_posix()
        for name in _declarations(path):
            found.setdefault(name, [])
            if rel not in found[name]:
                found[name].append(rel)
    return found


def _declarations(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in tree.body:
        target = (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        )
        if isinstance(node, ast.AnnAssign):
            target = node.target
        if isinstance(target, ast.Name) and target.id == "TORCH_API":
            yield from _literal_names(node.value, path)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "case"
        ):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def _literal_names(value, path):
    ok = isinstance(value, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
    )
    if not ok:
        raise ValueError(
            f"{path}: TORCH_API must be a literal list of strings (the tool reads it without "
            "importing)"
        )
    return [e.value for e in value.elts]


def read_list(path):
    """The names of a data file: one per line, `#` starts a comment."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


def read_stubs(path=STUBS):
    """{torch name: why it is a no-op here}, from lines `name: reason`."""
    stubs = {}
    for line in read_list(path):
        name, sep, reason = line.partition(":")
        if not sep or not reason.strip():
            raise ValueError(
                f"{path}: '{line}' must read 'torch.name: why it is a no-op on this platform'"
            )
        stubs[name.strip()] = reason.strip()
    return stubs


# ---- measuring ---------------------------------------------------------------------------------
def classify(name, namespace, torch_obj, tests, stubs):
    """The Entry of one torch name."""
    module = namespace if inspect.ismodule(resolve(namespace)) else None  # imports are a module's
    rule = api_scope.out_of_scope(name, module, torch_obj)
    if rule is not None:
        return Entry(name, namespace, "out of scope", rule[0])
    mine = minigrad_object(name)
    if mine is MISSING:
        return Entry(name, namespace, "absent", "not yet")
    # a placeholder is absent, unless torch's own only raises too (Module.forward of the base class)
    if only_raises_not_implemented(mine) and not only_raises_not_implemented(torch_obj):
        return Entry(name, namespace, "absent", "raises NotImplementedError")
    if name not in tests:
        return Entry(name, namespace, "untested", "no test declares it")
    if name in stubs:
        return Entry(name, namespace, "stub", stubs[name])
    return Entry(name, namespace, "present", ", ".join(tests[name]))


def measure():
    """Every counted torch name, classified: the walked namespaces, then the others."""
    tests, stubs = declared_tests(), read_stubs()
    entries, seen = [], set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reading deprecated names warns
        for namespace in NAMESPACES:
            owner = resolve(namespace)
            for attr in public_names(namespace):
                name = f"{namespace}.{attr}"
                entries.append(classify(name, namespace, getattr(owner, attr, None), tests, stubs))
                seen.add(name)
        others = sorted((set(read_list(MOST_USED)) | set(tests) | set(stubs)) - seen)
        entries += [classify(name, OTHER, None, tests, stubs) for name in others]
    return entries


def counts(entries):
    """{namespace: {status: count}} with an "all" row; statuses as in STATUSES plus "out of
    scope"."""
    table = {}
    for e in entries:
        for key in (e.namespace, "all"):
            row = table.setdefault(key, dict.fromkeys([*STATUSES, "out of scope"], 0))
            row[e.status] += 1
    return table


def covered(row):
    """(present or stub, in scope) of one counts() row."""
    return row["present"] + row["stub"], sum(row[s] for s in STATUSES)


def unknown_torch_names(names):
    """The names among `names` that torch does not have (a typo in a declaration)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sorted(n for n in names if resolve(n) is MISSING)


# ---- writing -----------------------------------------------------------------------------------
COVERED = ("present", "stub")


def percent(part, whole):
    return f"{100 * part / whole:.0f}%" if whole else "-"


def render_summary(entries):
    table = counts(entries)
    lines = [
        "| namespace | in scope | present | stub | untested | absent | covered | out of scope |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for key in [*NAMESPACES, OTHER, "all"]:
        if key not in table:
            continue
        row = table[key]
        done, scope = covered(row)
        label = f"**{key}**" if key == "all" else f"`{key}`"
        lines.append(
            f"| {label} | {scope} | {row['present']} | {row['stub']} | {row['untested']} | "
            f"{row['absent']} | {percent(done, scope)} | {row['out of scope']} |"
        )
    done, scope = covered(table["all"])
    lines += [
        "",
        f"*covered* = (present + stub) / in scope. Now {done} of {scope} names in scope are "
        f"covered ({percent(done, scope)}); the goal is {GOAL:.0%}.",
    ]
    return "\n".join(lines)


def missing_most_used(entries):
    """The entries of the most-used names that are not present (nor a stub), in the file's order."""
    by_name = {e.name: e for e in entries}
    return [by_name[n] for n in read_list(MOST_USED) if by_name[n].status not in COVERED]


def render_most_used(entries):
    names = read_list(MOST_USED)
    missing = missing_most_used(entries)
    lines = [
        f"`tools/api_most_used.txt` lists {len(names)} names; {len(names) - len(missing)} of them "
        "are covered."
    ]
    if missing:
        lines += ["", "| name | status | note |", "|---|---|---|"]
        lines += [f"| `{e.name}` | {e.status} | {e.note} |" for e in missing]
    return "\n".join(lines)


def render_rules(entries):
    used = {}
    for e in entries:
        if not e.in_scope:
            used[e.note] = used.get(e.note, 0) + 1
    rules = [("import", api_scope.IMPORTED)] + [(r.label, r.reason) for r in api_scope.RULES]
    lines = ["| rule | names | why they are out of scope |", "|---|--:|---|"]
    lines += [f"| {label} | {used.get(label, 0)} | {reason} |" for label, reason in rules]
    return "\n".join(lines)


def render_namespace(namespace, entries):
    """A heading, then the names in scope (a table) and out of scope (by rule), each folded."""
    mine = [e for e in entries if e.namespace == namespace]
    scoped = [e for e in mine if e.in_scope]
    done = sum(e.status in COVERED for e in scoped)
    title = "other names" if namespace == OTHER else f"`{namespace}`"
    lines = [f"### {title}", ""]
    if namespace == OTHER:
        lines += [
            "Names outside the namespaces above that a test proves or the most-used list names.",
            "",
        ]
    lines += [f"{done} of {len(scoped)} names in scope covered ({percent(done, len(scoped))}).", ""]
    if scoped:
        lines += [
            f'??? note "{len(scoped)} names in scope"',
            "",
            "    | name | status | note |",
            "    |---|---|---|",
        ]
        lines += [f"    | `{e.name}` | {e.status} | {e.note} |" for e in scoped]
        lines.append("")
    out = [e for e in mine if not e.in_scope]
    if out:
        lines += [f'??? note "{len(out)} names out of scope"', ""]
        for label in sorted({e.note for e in out}):
            names = ", ".join(f"`{e.name}`" for e in out if e.note == label)
            lines += [f"    - **{label}**: {names}"]
        lines.append("")
    return "\n".join(lines)


INTRO = """\
# API coverage against PyTorch

minigrad follows PyTorch's API, and this page measures how much of it, name by name: every
public name of torch's everyday namespaces, walked with `dir()` in torch {version}, looked
up where minigrad keeps it (`torch.nn.Linear` is `minigrad.nn.Linear`, `torch.utils.data.X`
is `minigrad.utils.data.X`), and classified:

- **present**: minigrad has it, and a test proves that it behaves as torch's: the test
  compares its results with torch's (shapes, dtypes, values; what is not a number, with
  values derived by hand) and, for a differentiable op, its gradients, with a float64
  gradient check against finite differences;
- **stub**: present, and declared in `tools/api_stubs.txt` as a no-op on this platform,
  with the reason (a test proves the no-op behaves as documented);
- **untested**: minigrad has it, but no test declares that it checks it against torch;
- **absent**: minigrad has not, or its code only raises `NotImplementedError`;
- **out of scope**: a rule of `tools/api_scope.py` takes it out (sparse, quantized and
  complex tensors, TorchScript and the compiler, vendor libraries, names torch itself
  deprecates, ...). Every rule is in the table below with its reason; a name is in scope
  unless a rule takes it out.

**The goal**: at least {goal:.0%} of the names in scope covered (present or a stub), and
every name of `tools/api_most_used.txt` present: the names the coverage issue saw stopping
real programs, and what the d2l.ai book, fast.ai, the PyTorch tutorials, makemore and
nanoGPT call.

**How a name becomes present**: a test lists it in its module's `TORCH_API` list (the
names whose behaviour the file checks against torch), or a row `case("torch.name", ...)` of
the table in `tests/test_api_surface.py` runs it on both libraries. The docstrings of
`tools/api_coverage.py` and `tests/test_api_surface.py` say how.

This page is generated: `python tools/api_coverage.py --write` rewrites it and
`tools/api_absent.txt`, the in-scope names that are not yet present (the work list of the
next batches). `tests/test_api_coverage.py` fails when either is out of date.
"""


def render_page(entries):
    parts = [
        INTRO.format(version=_torch_version(), goal=GOAL),
        "## Summary\n",
        render_summary(entries),
        "\n## The most-used names\n",
        render_most_used(entries),
        "\n## Out-of-scope rules\n",
        render_rules(entries),
        "\n## Every name, by namespace\n",
    ]
    spaces = [*NAMESPACES, OTHER]
    parts += [
        render_namespace(ns, entries) for ns in spaces if any(e.namespace == ns for e in entries)
    ]
    return "\n".join(parts).rstrip() + "\n"


def render_absent(entries):
    header = [
        "# The torch names in scope that minigrad does not have yet (absent) or does not prove",
        "# against torch (untested), by namespace. Generated: python tools/api_coverage.py --write",
    ]
    rows = [f"{e.name}\t{e.status}" for e in entries if e.status in ("absent", "untested")]
    return "\n".join(header + rows) + "\n"


def _torch_version():
    import torch

    return torch.__version__.split("+")[0]


def print_summary(entries):
    table = counts(entries)
    print(
        f"{'namespace':28} {'in scope':>8} {'present':>8} {'stub':>5} {'untested':>8} "
        f"{'absent':>7} {'covered':>8}"
    )
    for key in [*NAMESPACES, OTHER, "all"]:
        if key in table:
            row = table[key]
            done, scope = covered(row)
            print(
                f"{key:28} {scope:8} {row['present']:8} {row['stub']:5} {row['untested']:8} "
                f"{row['absent']:7} {percent(done, scope):>8}"
            )


def outputs(entries):
    """{path: text} of the generated files."""
    return {PAGE: render_page(entries), ABSENT: render_absent(entries)}


def stale(entries):
    """The generated files whose committed text differs from what the tool writes now."""
    return [
        path
        for path, text in outputs(entries).items()
        if not path.is_file() or path.read_text() != text
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write", action="store_true", help="rewrite docs/api/coverage.md and tools/api_absent.txt"
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if those files are out of date"
    )
    parser.add_argument(
        "--absent", action="store_true", help="print the in-scope names not present, one a line"
    )
    parser.add_argument(
        "--json", metavar="PATH", help="write the measured names and the generated files as JSON"
    )
    args = parser.parse_args(argv)
    entries = measure()
    if args.json:
        data = {
            "entries": [vars(e) for e in entries],
            "outputs": {
                str(path.relative_to(ROOT)): text for path, text in outputs(entries).items()
            },
        }
        Path(args.json).write_text(json.dumps(data))
    if args.absent:
        print(render_absent(entries), end="")
        return 0
    print_summary(entries)
    if args.write:
        for path, text in outputs(entries).items():
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if args.check and stale(entries):
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale(entries))
        print(f"{names} out of date: run python tools/api_coverage.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this checkout's minigrad, when run from anywhere
    sys.exit(main())
