"""A file of minigrad at a git revision and in the working copy, each loaded as a module of
its own: what `bench_versions.py` (the attention's short kernels) and
`bench_conv_versions.py` (the convolution's) time against each other in one process."""

import importlib.util
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sources(rev, file):
    """{name: source text} of the two versions of `file` (a path from the repository's root):
    the one at git revision `rev`, and the working copy's."""
    old = subprocess.run(
        ["git", "show", f"{rev}:{file}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {rev: old, "working copy": (ROOT / file).read_text()}


def load(source, tag, folder):
    """The source as a module of its own, from a file of its own in `folder` (Numba's cache
    is keyed by the file's path, so each copy has its own dispatchers and machine code)."""
    path = Path(folder) / f"version_{tag}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"version_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
