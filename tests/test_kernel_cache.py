"""First use of the Numba kernels (minigrad/kernels/jit.py): one line says what
compiles, once per family, and where the cache lives; a cached start says nothing; and a
read-only install without a writable home still imports, caching elsewhere or nowhere.

Each case runs in a fresh process with its own NUMBA_CACHE_DIR (or none), because what
is compiled, cached and announced is per process. The erf kernel compiles in about a
second, so it stands in for the large families where a real compile is needed.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

from minigrad.kernels import jit

ROOT = Path(__file__).resolve().parents[1]

ERF_SCRIPT = """
import numpy as np
import minigrad as mg
from minigrad.ops.special import erf
# decorate all
import minigrad.kernels.cpu.conv, minigrad.kernels.cpu.pool, minigrad.kernels.cpu.attention
print(erf(np.array([0.5], np.float32))[0], erf(np.array([0.5]))[0])
"""


def run_python(code, env, cwd=None, root=ROOT):
    """Run `code` in a fresh interpreter that imports minigrad from `root`."""
    env = {k: v for k, v in env.items() if v is not None}
    env["PYTHONPATH"] = str(root)
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result


def notices(stderr):
    return [line for line in stderr.splitlines() if line.startswith("minigrad: compiling")]


def test_cold_start_says_once_what_compiles_and_where_a_cached_start_says_nothing(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    cold = run_python(ERF_SCRIPT, env)
    # float32 and float64 both compile, but the family announces itself once
    assert len(notices(cold.stderr)) == 1, cold.stderr
    line = notices(cold.stderr)[0]
    assert "erf" in line and "once" in line and "float32" in line
    assert str(tmp_path / "cache") in line
    assert float(cold.stdout.split()[0]) == pytest.approx(0.5204998778130465, rel=1e-6)
    assert any((tmp_path / "cache").rglob("*.nbi")), "nothing was cached"

    cached = run_python(ERF_SCRIPT, env)
    assert notices(cached.stderr) == [], cached.stderr
    assert cached.stdout == cold.stdout


def read_only_install(tmp_path):
    """A copy of the package where Numba cannot write next to the sources, and an
    environment with no writable home. The tests run as root, who may write anywhere
    permissions allow, so "cannot write" is made with paths that run through a file:
    a `__pycache__` that is a file, and a HOME inside a file."""
    site = tmp_path / "site"
    shutil.copytree(
        ROOT / "minigrad", site / "minigrad", ignore=shutil.ignore_patterns("__pycache__")
    )
    for folder in [p for p in (site / "minigrad").rglob("*") if p.is_dir()] + [site / "minigrad"]:
        (folder / "__pycache__").write_text("not a folder")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = dict(
        os.environ,
        HOME=str(blocker / "home"),
        XDG_CACHE_HOME=str(blocker / "cache"),
        NUMBA_CACHE_DIR=None,
    )
    return site, env, blocker


def test_read_only_install_without_home_caches_in_the_temporary_directory(tmp_path):
    site, env, _ = read_only_install(tmp_path)
    env["TMPDIR"] = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    cold = run_python(ERF_SCRIPT, env, cwd=tmp_path, root=site)
    assert "no locator" not in cold.stderr and "Warning" not in cold.stderr, cold.stderr
    [line] = notices(cold.stderr)
    fallback = tmp_path / "tmp" / f"minigrad-numba-cache-{os.getuid()}"
    assert str(fallback) in line
    assert oct(fallback.stat().st_mode & 0o777) == oct(0o700)
    assert any(fallback.rglob("*.nbi"))

    cached = run_python(ERF_SCRIPT, env, cwd=tmp_path, root=site)
    assert notices(cached.stderr) == [], cached.stderr
    assert cached.stdout == cold.stdout


def test_with_nowhere_to_write_kernels_run_uncached_after_one_warning(tmp_path):
    site, env, blocker = read_only_install(tmp_path)
    # tempfile's own fallbacks (/tmp, the current folder) are writable here: point it nowhere
    code = f"import tempfile; tempfile.tempdir = {str(blocker / 'tmp')!r}\n" + ERF_SCRIPT
    result = run_python(code, env, cwd=tmp_path, root=site)
    assert result.stderr.count("RuntimeWarning") == 1, result.stderr
    assert "NUMBA_CACHE_DIR" in result.stderr
    [line] = notices(result.stderr)
    assert "not cached" in line
    assert float(result.stdout.split()[0]) == pytest.approx(0.5204998778130465, rel=1e-6)


def test_imports_and_runs_with_numba_jit_disabled(tmp_path):
    """NUMBA_DISABLE_JIT=1 (debugging the kernels as Python) leaves plain functions: no cache."""
    result = run_python(
        ERF_SCRIPT, dict(os.environ, NUMBA_DISABLE_JIT="1", NUMBA_CACHE_DIR=str(tmp_path))
    )
    assert notices(result.stderr) == []
    assert float(result.stdout.split()[0]) == pytest.approx(0.5204998778130465, rel=1e-6)


def test_fallback_folder_must_be_private(tmp_path, monkeypatch):
    """Cache files are pickles: a folder that others could write to is refused."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = tmp_path / f"minigrad-numba-cache-{os.getuid()}"
    assert jit.fallback_cache_dir() == str(folder)
    folder.chmod(0o777)
    assert jit.fallback_cache_dir() is None
    folder.chmod(0o700)
    assert jit.fallback_cache_dir() == str(folder)


def test_decorator_keeps_numba_semantics_and_names_the_family():
    @jit.njit(cache=False)
    def add_one(x):
        return x + 1

    assert add_one(np.float32(1.5)) == 2.5
    assert jit._family_of[add_one] == "test_kernel_cache"
    from minigrad.kernels.cpu import pool

    assert jit._family_of[pool._max_pool2d_planes] == "pooling"
    assert jit.cache_location(pool._max_pool2d_planes) is not None


def test_inner_function_is_called_by_kernels_and_refused_from_python():
    """njit(inner=True): compiled without an entry point for Python (less to compile into
    every kernel that calls it); a call from Python is an error, not a crash."""

    @jit.njit(inner=True)
    def twice(x):
        return 2 * x

    @jit.njit
    def kernel(a):
        return twice(a[0]) + twice(a[1])

    assert kernel(np.array([1.5, 2.0])) == 7.0
    assert [str(t) for t in twice.signatures[0]] == ["float64"]
    with pytest.raises(TypeError, match="twice is called only from inside compiled kernels"):
        twice(1.0)
    assert twice.py_func(1.5) == 3.0  # the Python function itself still runs
    # the kernels' shared helpers are such functions
    from minigrad.kernels.cpu import conv, gemm, pool

    for helper in (conv._shift_planes, conv._pad_planes, gemm._gemm_blocks, pool.valid_range):
        assert isinstance(helper, jit._InnerDispatcher), helper


def test_kernels_are_compiled_without_an_entry_point_for_c():
    """No kernel is called through a C function pointer: Numba's cfunc wrapper, code
    compiled into every kernel, is left out; the kernel still runs from Python."""

    @jit.njit
    def kernel(a):
        return a[0] + a[1]

    assert kernel(np.array([1.5, 2.0])) == 3.5
    library = kernel.overloads[kernel.signatures[0]].library
    assert "cfunc." not in library.get_llvm_str()  # Numba's name for that wrapper
    from minigrad.kernels.cpu import attention_short, conv

    for dispatcher in (conv._forward_gemm, attention_short._backward, kernel):
        assert dispatcher.targetoptions.get("no_cfunc_wrapper") is True, dispatcher


def test_uncached_warning_is_given_once(monkeypatch):
    monkeypatch.setattr(jit, "_warned_uncached", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jit._warn_uncached()
        jit._warn_uncached()
    assert len(caught) == 1 and "NUMBA_CACHE_DIR" in str(caught[0].message)


@pytest.mark.slow
def test_training_a_cnn_from_an_empty_cache_announces_the_compile_before_the_first_step(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    command = [
        sys.executable,
        "-m",
        "minigrad.train",
        "--model",
        "cnn",
        "--max-steps",
        "2",
        "--no-plot",
    ]
    command += ["--out", str(tmp_path / "run")]
    # stderr into stdout, so that the order of the notices and the progress lines shows
    cold = subprocess.run(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600
    )
    assert cold.returncode == 0, cold.stdout
    lines = cold.stdout.splitlines()
    first_bar = next(i for i, line in enumerate(lines) if line.startswith("epoch  1/"))
    announced = [i for i, line in enumerate(lines) if line.startswith("minigrad: compiling")]
    assert [lines[i].split(" kernels")[0] for i in announced] == [
        "minigrad: compiling the convolution",
        "minigrad: compiling the pooling",
        "minigrad: compiling the Adam/AdamW step",  # at the first optimizer step
    ]
    assert max(announced) < first_bar
    assert "2/2" in lines[first_bar]  # --max-steps 2: two steps, then the test set

    cached = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert cached.returncode == 0 and notices(cached.stderr) == [], cached.stderr


def test_help_says_the_first_run_compiles_once_and_where_the_cache_is():
    result = subprocess.run(
        [sys.executable, "-m", "minigrad.train", "--help"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
    )
    text = " ".join(result.stdout.split())
    assert "compiles" in text and "once" in text and "cached" in text and "NUMBA_CACHE_DIR" in text
    assert "--max-steps" in text
