"""Every public name of the API contract is in the API reference, with its docstring.

The contract is SPEC.md (kept next to the repository, and copied here as docs/spec.md is
not: the test reads it from the path below). Its public names are the backticked names
of each section, read as a person reads them: `mg.zeros/ones(*size)` is `mg.zeros` and
`mg.ones`, `MaxPool1d/2d(...)` is `MaxPool1d` and `MaxPool2d`, a method listed under
"Attributes" of the Tensor section is a `Tensor` method, and so on. Each section says
where its bare names live (SCOPES below); a backticked word that names nothing there
must be listed in NOT_NAMES with the reason (an argument, a value, an expression), so a
new name in SPEC cannot slip past this test unread.

Each name must then
1. resolve in minigrad (importing it),
2. have a docstring, as the reference shows it: read with griffe, the library that
   mkdocstrings reads the source with (so a method without its own docstring counts as
   undocumented, as on the page),
3. appear in the built API reference (docs/api/): a heading whose id is its public path
   (`minigrad.nn.Linear`) or the path of the object it is an alias of.
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC_CANDIDATES = [
    ROOT / "SPEC.md",
    ROOT.parent / "shared" / "SPEC.md",
    ROOT.parents[1] / "shared" / "SPEC.md",
]
SPEC = next((p for p in SPEC_CANDIDATES if p.is_file()), None)

# Where the bare names of each SPEC section live, tried in order. A name with a prefix
# (`mg.`, `nn.`, `t.`, ...) is read through PREFIXES instead.
SCOPES = {
    # SPEC lists mg.cuda's functions bare
    "Tensor": ["minigrad.Tensor", "minigrad", "minigrad.cuda"],
    "Autograd": ["minigrad.autograd", "minigrad.autograd.Function", "minigrad.Tensor"],
    "nn": [
        "minigrad.nn",
        "minigrad.nn.Module",
        "minigrad.nn.functional",
        "minigrad.nn.init",
        "minigrad.nn.utils",
        "minigrad.autograd.hooks.RemovableHandle",
    ],
    "Attention and transformers": [
        "minigrad.nn",
        "minigrad.nn.Attention",
        "minigrad.nn.Transformer",
        "minigrad.text.BPETokenizer",
        "minigrad.models",
        "minigrad.models.GPT",
    ],
    "optim": ["minigrad.optim", "minigrad.optim.Optimizer", "minigrad.optim.lr_scheduler"],
    "data": ["minigrad.data", "minigrad"],
    "Kernels and backends": ["minigrad.backends"],
    "Serialization": ["minigrad"],
}
PREFIXES = {
    "mg.": "minigrad.",
    "minigrad.": "minigrad.",
    "nn.": "minigrad.nn.",
    "optim.": "minigrad.optim.",
    "t.": "minigrad.Tensor.",  # `t` is a tensor in SPEC's prose, `p` a parameter, `loss` a result
    "p.": "minigrad.Tensor.",
    "loss.": "minigrad.Tensor.",
    "model.": "minigrad.nn.Module.",  # `model.to(device)`
    ".": "minigrad.Tensor.",  # `.to(device)`, `.grad`
    "ctx.": "minigrad.autograd.Function.",  # ctx is the Function instance, as in PyTorch
    "Function.": "minigrad.autograd.Function.",
}

# Backticked words in SPEC that are not API names, and why.
NOT_NAMES = {
    "import": "Python (`import minigrad`)",
    "repr": "Python's repr() of a tensor (Tensor.__repr__)",
    "v": "a value in an example expression (`t[idx] = v`)",
    "minigrad": "the package itself (`import minigrad`)",
    "keepdim": "an argument of the reductions",
    ".npz": "a file format",
    "torch": "PyTorch itself (`import torch`)",
    "lr": "a variable in an example expression (`p.data - lr * p.grad`)",
    "ctx": "the first argument of forward/backward",
    "in_features": "an argument of Linear (its docstring)",
    "attn_mask": "an argument of scaled_dot_product_attention and the attention modules",
    "enable_gqa": "an argument of scaled_dot_product_attention",
    "scaling": "an argument of RotaryEmbedding",
    "in_proj_bias": "a parameter of a MultiheadAttention instance (its docstring)",
    "out_proj.weight": "a parameter of a MultiheadAttention instance (its docstring)",
    "out_proj.bias": "a parameter of a MultiheadAttention instance (its docstring)",
    "in_proj_weight": "a parameter of a MultiheadAttention instance (its docstring)",
    "self_attn": "a submodule name of TransformerEncoderLayer (its docstring)",
    "multihead_attn": "a submodule name of TransformerDecoderLayer (its docstring)",
    "linear1": "a submodule name of the Transformer layers (their docstrings)",
    "linear2": "a submodule name of the Transformer layers",
    "norm1": "a submodule name of the Transformer layers",
    "norm2": "a submodule name of the Transformer layers",
    "norm3": "a submodule name of TransformerDecoderLayer",
    "dropout1": "a submodule name of the Transformer layers",
    "dropout2": "a submodule name of the Transformer layers",
    "n_kv_heads": "an argument of GPT",
    "n_heads": "an argument of GPT",
    "numba": "a backend's name, a string (`mg.backends.use('numba')`)",
    "numpy": "a backend's name, a string (`mg.backends.use('numpy')`)",
    "@njit": "Numba's decorator",
    "@cuda.jit": "Numba's decorator",
    "torch.autograd.grad": "PyTorch's function, named for comparison",
    # a word that is a name in one section and not in another is keyed by (section, word)
    ("Attention and transformers", "dropout"): "a submodule name of the Transformer layers",
}

# The operators (`+ - * / ** @`, `t[...]`, `__repr__`, `__call__`) are Tensor's and
# Module's dunder methods: the reference documents them in the class docstrings, as
# PyTorch's does, and they are not checked one by one.
IDENTIFIER = re.compile(r"^[@.]?[A-Za-z_][\w.]*$")


def spec_sections(text):
    """(title, body) for each `##`/`###` section, code blocks removed."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    parts = re.split(r"^#{2,3} (.*)$", text, flags=re.M)
    return [
        (re.sub(r"\s*\(.*\)$", "", title).strip(), body)
        for title, body in zip(parts[1::2], parts[2::2])
    ]


def _strip_groups(span):
    """Remove string literals, then parenthesised groups, innermost first."""
    span = re.sub(r"'[^']*'|\"[^\"]*\"", "", span)
    while True:
        stripped = re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", span)
        if stripped == span:
            return span
        span = stripped


def _expand_slashes(word):
    """`mg.zeros/ones` -> mg.zeros, mg.ones; `MaxPool1d/2d` -> MaxPool1d, MaxPool2d."""
    pieces = word.split("/")
    out = [pieces[0]]
    prefix = pieces[0][: pieces[0].rfind(".") + 1]
    for piece in pieces[1:]:
        if not piece:
            continue
        if piece[0].isdigit():  # a size variant: keep the stem of the previous name
            out.append(re.sub(r"\d\w*$", "", out[-1]) + piece)
        else:
            out.append(prefix + piece)
    return out


def span_words(span):
    """The candidate names of one backticked span of SPEC."""
    words = []
    for word in _strip_groups(span).split():
        if "=" in word or word.startswith("__"):  # `retain_graph=True`, `__repr__`: not a name
            continue
        for w in _expand_slashes(word.rstrip(",:")):
            if IDENTIFIER.match(w):
                words.append(w)
    return words


def resolve(path):
    """The object at a dotted path under minigrad, as `import minigrad` makes it, or raise
    LookupError. Attributes first, so that the package's `minigrad.tensor` is the function,
    not the module of the same name; then, for a defining path such as
    `minigrad.autograd.gradcheck.gradcheck`, the longest importable module and the rest
    as attributes."""
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    try:
        for part in parts[1:]:
            obj = getattr(obj, part)
        return obj
    except AttributeError:
        pass
    for i in range(len(parts), 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
        except AttributeError:
            break
        return obj
    raise LookupError(path)


def _imports(path):
    try:
        resolve(path)
    except LookupError:
        return False
    return True


def _is_module(path):
    try:
        return isinstance(resolve(path), type(importlib))
    except LookupError:
        return False


def candidates(word, section):
    """The public paths a SPEC word may name, in the order they are tried."""
    for prefix, target in PREFIXES.items():
        if word.startswith(prefix) and len(word) > len(prefix):
            rest = word[len(prefix) :]
            if prefix == ".":  # `.grad` of a tensor, or `.remove()` of a hook handle
                return [target + rest] + [f"{scope}.{rest}" for scope in SCOPES[section]]
            if target == "minigrad.Tensor.":
                # `p.data.add_`: each step of the chain is a Tensor member
                return [target + part for part in rest.split(".")]
            return [target + rest]
    return [f"{scope}.{word}" for scope in SCOPES[section]]


def spec_names(text, not_names=None, exists=None):
    """({public path: SPEC section}, [(section, word) that resolved nowhere]).

    `exists(path)` says whether a path names something; by default, whether it imports.
    """
    not_names = NOT_NAMES if not_names is None else not_names
    exists = exists or _imports
    names, unresolved = {}, []
    for section, body in spec_sections(text):
        assert section in SCOPES, (
            f"SPEC has a new section {section!r}: say where its names live in SCOPES"
        )
        for span in re.findall(r"`([^`]+)`", body):
            for word in span_words(span):
                if word in not_names or (section, word) in not_names:
                    continue
                paths = candidates(word, section)
                if word.startswith(("t.", "p.", "loss.")) and "." in word[word.index(".") + 1 :]:
                    found = [p for p in paths if exists(p)]  # a chain: every step must exist
                    if len(found) < len(paths):
                        unresolved.append((section, word))
                    for path in found:
                        names.setdefault(path, section)
                    continue
                for path in paths:
                    # a bare word names a function or class: `dropout` in the nn section is
                    # F.dropout, not the module minigrad/nn/dropout.py
                    if "." not in word and _is_module(path):
                        continue
                    if exists(path):
                        names.setdefault(path, section)
                        break
                else:
                    unresolved.append((section, word))
    return names, unresolved


# --- docstrings, as the reference shows them ---------------------------------------


@pytest.fixture(scope="module")
def griffe_package():
    griffe = pytest.importorskip("griffe")
    return griffe.load(
        "minigrad", search_paths=[str(ROOT)], resolve_aliases=True, resolve_external=False
    )


def griffe_object(package, path):
    """The griffe object the reference renders for a public path (aliases followed), or
    None. An instance attribute (`Module.training`) is known to griffe, not to getattr."""
    try:
        runtime = resolve(path)
    except LookupError:
        runtime = None
    relative = path.removeprefix("minigrad").lstrip(".")
    try:
        obj = package[relative] if relative else package
        if obj.is_alias:
            obj = obj.final_target
    except Exception:  # KeyError, or an alias to something griffe could not load
        obj = None
    # `mg.tensor` is the function, but griffe finds the module minigrad/tensor.py under
    # that name (as the import system does, until minigrad/__init__ rebinds it)
    if (
        (obj is None or obj.is_module)
        and runtime is not None
        and not isinstance(runtime, type(importlib))
    ):
        qualname = getattr(runtime, "__qualname__", None)
        module = getattr(runtime, "__module__", None)
        if qualname and module:
            try:
                obj = package[f"{module}.{qualname}".removeprefix("minigrad.")]
                if obj.is_alias:
                    obj = obj.final_target
            except Exception:
                return None
    return obj


def undocumented(package, paths):
    """The paths whose object has no docstring where the reference reads it."""
    missing = []
    for path in paths:
        obj = griffe_object(package, path)
        if obj is None or not (obj.docstring and obj.docstring.value.strip()):
            missing.append(path)
    return missing


# --- the built reference -------------------------------------------------------------

HEADING_ID = re.compile(r'<h[1-6][^>]*\bid="(minigrad[\w.]*)"')


def reference_ids(site):
    ids = set()
    for page in (site / "api").rglob("*.html"):
        ids.update(HEADING_ID.findall(page.read_text()))
    return ids


def documented_targets(package, ids):
    """The paths of the objects that the reference's headings document: an alias
    (`minigrad.autograd.no_grad`) documents what it names (`...grad_mode.no_grad`)."""
    targets = set(ids)
    for heading in ids:
        obj = griffe_object(package, heading)
        if obj is not None:
            targets.add(obj.path)
    return targets


def missing_from_reference(package, paths, ids):
    """The public paths with no heading in the reference, under their own path or under
    another name of the same object."""
    targets = documented_targets(package, ids)
    missing = []
    for path in paths:
        obj = griffe_object(package, path)
        accepted = {path} | ({obj.path} if obj is not None else set())
        if not accepted & targets:
            missing.append(path)
    return missing


# --- the tests ------------------------------------------------------------------------

# SPEC.md lives beside the repository, not in it. A fresh clone checks the names listed
# in NAMES_FILE instead, which the test below keeps equal to what SPEC says when SPEC is
# there, so the list cannot go stale where SPEC can be read.
NAMES_FILE = ROOT / "tests" / "api_names.txt"


def known(package):
    """exists(path) for spec_names: it imports, or griffe knows it (instance attributes)."""
    return lambda path: _imports(path) or griffe_object(package, path) is not None


def public_names(package):
    """{public path: section}: from SPEC when it is there, else from NAMES_FILE."""
    if SPEC is not None:
        names, _ = spec_names(SPEC.read_text(), exists=known(package))
        return names
    rows = [line.split("\t") for line in NAMES_FILE.read_text().splitlines() if line.strip()]
    return {path: section for section, path in rows}


def test_every_spec_word_names_something(griffe_package):
    if SPEC is None:
        pytest.skip(
            "SPEC.md is kept beside the repository; the names of tests/api_names.txt are checked "
            "instead"
        )
    names, unresolved = spec_names(SPEC.read_text(), exists=known(griffe_package))
    assert len(names) > 250, f"only {len(names)} names read from SPEC: did its format change?"
    assert not unresolved, (
        f"SPEC names that resolve nowhere in minigrad (add the name, or list the word in NOT_NAMES "
        f"with the reason): {unresolved}"
    )
    listed = "".join(
        f"{section}\t{path}\n" for path, section in sorted(names.items(), key=lambda kv: kv[0])
    )
    assert NAMES_FILE.read_text() == listed, (
        f"{NAMES_FILE.name} is not what SPEC names: rewrite it with "
        "`python -c 'import tests.test_api_reference as t; t.write_names_file()'`"
    )


def write_names_file():
    import griffe

    package = griffe.load(
        "minigrad", search_paths=[str(ROOT)], resolve_aliases=True, resolve_external=False
    )
    names, _ = spec_names(SPEC.read_text(), exists=known(package))
    NAMES_FILE.write_text(
        "".join(f"{section}\t{path}\n" for path, section in sorted(names.items()))
    )


def test_every_public_name_resolves(griffe_package):
    names = public_names(griffe_package)
    assert len(names) > 250
    assert [p for p in names if griffe_object(griffe_package, p) is None] == []


def test_every_public_name_has_a_docstring(griffe_package):
    missing = undocumented(griffe_package, sorted(public_names(griffe_package)))
    assert not missing, f"{len(missing)} public names have no docstring: {missing}"


@pytest.mark.slow
def test_every_public_name_is_in_the_reference(griffe_package, built_site):
    ids = reference_ids(built_site)
    missing = missing_from_reference(griffe_package, sorted(public_names(griffe_package)), ids)
    assert not missing, (
        f"{len(missing)} public names are not in the API reference (docs/api/): {missing}"
    )


FAKE_SPEC = """
## Tensor (`mg.Tensor`)
- Creation: `mg.zeros/ones(*size)`, methods `exp log`, `t.numpy()`.
## nn (`minigrad.nn`)
- `Linear(in, out)`, `Conv1d/2d`, `no_such_layer`.
"""


def test_a_name_without_docstring_or_reference_entry_is_found(griffe_package, monkeypatch):
    """The checks on a fake SPEC and fake reference ids: they fail on a missing name, a
    missing docstring and a missing entry."""
    names, unresolved = spec_names(FAKE_SPEC, not_names={}, exists=known(griffe_package))
    assert set(names) == {
        "minigrad.zeros",
        "minigrad.ones",
        "minigrad.Tensor.exp",
        "minigrad.Tensor.log",
        "minigrad.Tensor.numpy",
        "minigrad.nn.Linear",
        "minigrad.nn.Conv1d",
        "minigrad.nn.Conv2d",
    }
    assert unresolved == [("nn", "no_such_layer")]

    paths = sorted(names)
    ids = {p for p in paths}
    assert missing_from_reference(griffe_package, paths, ids) == []
    assert missing_from_reference(griffe_package, paths, ids - {"minigrad.nn.Conv2d"}) == [
        "minigrad.nn.Conv2d"
    ]
    # an alias is found under the path of what it names, or another alias of it
    canonical = griffe_object(griffe_package, "minigrad.nn.Linear").path
    assert missing_from_reference(griffe_package, ["minigrad.nn.Linear"], {canonical}) == []
    assert (
        missing_from_reference(griffe_package, ["minigrad.no_grad"], {"minigrad.autograd.no_grad"})
        == []
    )

    assert undocumented(griffe_package, ["minigrad.nn.Linear", "minigrad.zeros"]) == []
    linear = griffe_object(griffe_package, "minigrad.nn.Linear")
    monkeypatch.setattr(linear, "docstring", None)
    assert undocumented(griffe_package, ["minigrad.nn.Linear", "minigrad.zeros"]) == [
        "minigrad.nn.Linear"
    ]


def test_the_tensor_function_is_not_taken_for_its_module(griffe_package):
    """`mg.tensor` is the creation function, not the module minigrad/tensor.py."""
    obj = griffe_object(griffe_package, "minigrad.tensor")
    assert obj is not None and obj.is_function and obj.path == "minigrad.creation.tensor"


def test_no_directive_documents_a_module_for_a_function(griffe_package):
    """`::: minigrad.autograd.gradcheck` would document the module gradcheck.py, not the
    function `mg.autograd.gradcheck` that the package exports under that name (griffe,
    like the import system, finds the submodule first). Such a name is documented by its
    defining path, with a `heading` option giving its public name."""
    wrong = []
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for path in re.findall(r"^::: (\S+)", page.read_text(), re.M):
            obj = (
                griffe_package[path.removeprefix("minigrad").lstrip(".")]
                if path != "minigrad"
                else griffe_package
            )
            if obj.is_alias:
                obj = obj.final_target
            runtime = resolve(path)
            if obj.is_module and not isinstance(runtime, type(importlib)):
                wrong.append(f"{page.name}: {path}")
    assert not wrong, f"these directives document a module, not the function of that name: {wrong}"
