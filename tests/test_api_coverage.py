"""The coverage page (docs/api/coverage.md) is what tools/api_coverage.py writes now, and
the names of the most-used list (tools/api_most_used.txt) that are not present yet are
exactly those of tools/api_most_used_missing.txt, a list that may only shrink.

The tool runs once, in a fresh interpreter (`--json`), as `--write` runs it: what `dir()`
shows of torch's modules depends on which submodules a process has imported, so the
measurement must not depend on what the other tests imported before this one.

When names land (a new `TORCH_API` entry, a `case(...)` row, a new function in minigrad),
the page goes out of date until someone runs `python tools/api_coverage.py --write`.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
sys.path.insert(0, str(TOOLS))

import api_coverage  # noqa: E402  (tools/ is not a package)
import api_scope  # noqa: E402

REGENERATE = "python tools/api_coverage.py --write"
MOST_USED_MISSING = TOOLS / "api_most_used_missing.txt"


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """The tool's entries and generated files, from a fresh interpreter."""
    out = tmp_path_factory.mktemp("coverage") / "coverage.json"
    run = subprocess.run(
        [sys.executable, str(TOOLS / "api_coverage.py"), "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text())
    data["entries"] = [api_coverage.Entry(**e) for e in data["entries"]]
    return data


@pytest.mark.parametrize("path", ["docs/api/coverage.md", "tools/api_absent.txt"])
def test_the_generated_files_are_up_to_date(measured, path):
    committed = (ROOT / path).read_text() if (ROOT / path).is_file() else ""
    assert committed == measured["outputs"][path], f"{path} is out of date: run {REGENERATE}"


def test_every_declared_name_is_a_torch_name():
    """A typo in a TORCH_API list, a case(...) row, the stubs or the most-used list would
    silently prove nothing: every name must be one of torch's."""
    declared = api_coverage.declared_tests()
    listed = api_coverage.read_list(api_coverage.MOST_USED) + list(api_coverage.read_stubs())
    unknown = api_coverage.unknown_torch_names(set(declared) | set(listed))
    where = {name: declared.get(name, ["tools/"]) for name in unknown}
    assert not unknown, f"not torch names: {where}"


def test_every_stub_is_present_and_tested(measured):
    by_name = {e.name: e for e in measured["entries"]}
    stubs = api_coverage.read_stubs()
    wrong = {name: by_name[name].status for name in stubs if by_name[name].status != "stub"}
    assert not wrong, (
        "tools/api_stubs.txt declares these, but minigrad lacks them or no test proves them: "
        f"{wrong}"
    )


def test_no_rule_takes_out_a_name_that_a_test_proves(measured):
    """A rule that takes out a name minigrad has and a test proves is too broad: narrow it."""
    declared = api_coverage.declared_tests()
    proven = [e.name for e in measured["entries"] if not e.in_scope and e.name in declared]
    assert not proven, f"out of scope, yet proven by a test: {proven}"


def test_no_most_used_name_is_out_of_scope(measured):
    by_name = {e.name: e for e in measured["entries"]}
    out = {
        n: by_name[n].note
        for n in api_coverage.read_list(api_coverage.MOST_USED)
        if not by_name[n].in_scope
    }
    assert not out, f"most-used names that a rule of tools/api_scope.py takes out: {out}"


def test_the_most_used_names_still_missing_are_exactly_the_listed_ones(measured):
    """The names real programs and courses call must all be present (issue #19). Until they
    are, tools/api_most_used_missing.txt lists the ones that are not, and this test holds
    the list to the truth both ways: a most-used name that goes missing (a regression, or
    a new name in the most-used list) fails it, and so does a listed name that has landed
    (take it off the list). The list only shrinks; the goal is an empty file."""
    missing = {e.name: e for e in api_coverage.missing_most_used(measured["entries"])}
    listed = set(api_coverage.read_list(MOST_USED_MISSING))
    regressed = sorted(set(missing) - listed)
    landed = sorted(listed - set(missing))
    assert not regressed, (
        f"most-used names not present (add them, or see why they went): {regressed}"
    )
    assert not landed, (
        f"these have landed: take them off {MOST_USED_MISSING.name} (then run {REGENERATE})"
    )


# ---- the tool's parts ----------------------------------------------------------------------------
def test_declarations_are_read_without_importing_the_tests(tmp_path):
    (tmp_path / "test_a.py").write_text(
        textwrap.dedent(
            """
            raise RuntimeError("importing this file would fail")
            TORCH_API = ["torch.nn.Linear", "torch.Tensor.add"]
            CASES = [case("torch.dot", lambda lib, a, b: lib.dot(a, b), (3,), (3,))]
            """
        )
    )
    (tmp_path / "test_b.py").write_text('TORCH_API = ["torch.nn.Linear"]\n')
    a, b = f"{tmp_path.name}/test_a.py", f"{tmp_path.name}/test_b.py"
    assert api_coverage.declared_tests(tmp_path) == {
        "torch.nn.Linear": [a, b],
        "torch.Tensor.add": [a],
        "torch.dot": [a],
    }


def test_a_torch_api_list_that_is_not_a_literal_is_refused(tmp_path):
    (tmp_path / "test_c.py").write_text(
        'NAMES = ["torch.abs"]\nTORCH_API = NAMES + ["torch.exp"]\n'
    )
    with pytest.raises(ValueError, match="TORCH_API must be a literal list of strings"):
        api_coverage.declared_tests(tmp_path)


def test_a_placeholder_that_raises_not_implemented_is_absent():
    def placeholder(x):
        """Not written yet."""
        raise NotImplementedError("soon")

    def real(x):
        if x is None:
            raise NotImplementedError
        return x

    class Placeholder:
        def __init__(self):
            raise NotImplementedError()

    assert api_coverage.only_raises_not_implemented(placeholder)
    assert api_coverage.only_raises_not_implemented(Placeholder)
    assert not api_coverage.only_raises_not_implemented(real)
    assert not api_coverage.only_raises_not_implemented(len)  # a builtin has no source to read


def test_a_placeholder_counts_when_torchs_own_is_one():
    import torch

    import minigrad as mg

    # Module.forward of the base class raises NotImplementedError in both libraries
    assert api_coverage.only_raises_not_implemented(torch.nn.Module.forward)
    name = "torch.nn.Module.forward"
    entry = api_coverage.classify(
        name, "torch.nn.Module", torch.nn.Module.forward, {name: ["tests/x.py"]}, {}
    )
    assert entry.status == "present" and api_coverage.only_raises_not_implemented(
        mg.nn.Module.forward
    )


def test_names_map_to_minigrads_homes():
    assert api_coverage.minigrad_paths("torch.nn.Linear") == ["minigrad.nn.Linear"]
    assert api_coverage.minigrad_paths("torch.utils.data.DataLoader") == [
        "minigrad.utils.data.DataLoader",
        "minigrad.data.DataLoader",
    ]
    assert api_coverage.minigrad_object("torch.Tensor.__add__") is not api_coverage.MISSING
    # object's default dunders do not count as minigrad having the operator
    assert api_coverage.minigrad_object("torch.Tensor.__delitem__") is api_coverage.MISSING


@pytest.mark.parametrize(
    "name, label",
    [
        ("torch.sparse_coo_tensor", "sparse"),
        ("torch.Tensor.to_sparse_csr", "sparse"),
        ("torch.quint8", "quantized"),
        ("torch.int4", "quantized"),
        ("torch.view_as_complex", "complex"),
        ("torch.jit", "compiler"),
        ("torch.SymInt", "compiler"),
        ("torch.cudnn_convolution", "accelerator"),
        ("torch.Tensor.xpu", "accelerator"),
        ("torch.nn.init.uniform", "deprecated"),
        ("torch.FloatStorage", "deprecated"),
        ("torch.conv2d", "internal"),
        ("torch.relu_", "internal"),
        ("torch.view_copy", "internal"),
        ("torch.Tensor.__weakref__", "object machinery"),
        ("torch.distributions.normal", "source file"),
        ("torch.distributions.Cauchy", "beyond the basics"),
    ],
)
def test_a_rule_takes_out_what_it_says(name, label):
    assert api_scope.out_of_scope(name)[0] == label


@pytest.mark.parametrize(
    "name",
    [
        "torch.int8",
        "torch.int64",
        "torch.uint8",
        "torch.index_copy",
        "torch.narrow_copy",
        "torch.strided",
        "torch.Tensor.is_xpu",
        "torch.Tensor.add_",
        "torch.nn.init.uniform_",
        "torch.manual_seed",
        "torch.distributions.Normal",
        "torch.distributions.kl_divergence",
    ],
)
def test_a_rule_leaves_in_what_is_in_scope(name):
    assert api_scope.out_of_scope(name) is None


def test_imports_are_recognised_from_the_object():
    import math
    from typing import Optional

    import torch

    assert api_scope.imported("torch.nn.functional", math)
    assert api_scope.imported("torch.nn.functional", Optional)
    assert api_scope.imported("torch.optim.lr_scheduler", torch.optim.Optimizer)
    assert not api_scope.imported("torch.nn.functional", torch.nn.functional.relu)
    # a builtin of torch
    assert not api_scope.imported("torch.nn.functional", torch.nn.functional.conv2d)
    assert not api_scope.imported("torch.nn", torch.nn.Linear)
