"""Run the tutorial notebooks and store their outputs in them, or check the stored ones.

    python tools/run_notebooks.py            # run every notebook of tutorials/, store the outputs
    that changed python tools/run_notebooks.py 04 06      # only these notebooks (by number or name)
    python tools/run_notebooks.py --force    # store every notebook's new outputs, even where they
    match python tools/run_notebooks.py --check    # run them, rewrite nothing, list where the
    stored outputs differ

A notebook whose stored outputs still match what it makes (by the check below) is left as
it is: its figures would come out a few bytes different, and its timings different, on
every run, and each rewrite would add some 50 KB to the repository's history for nothing.

Why the outputs are stored. The site shows each notebook as committed (mkdocs-jupyter,
`execute: false`), and so do GitHub and Jupyter before a student runs anything. Executing
the notebooks while the site is built would keep them current as well, but then every
`mkdocs build` and every edit under `mkdocs serve` would run eight notebooks, and the test
suite would run them twice: once in its site build, once in tests/test_tutorials.py.
So they are run here, once, and tests/test_tutorials.py runs each of them again and
compares what it prints with what is stored (`differences`): a stored output that the
current code no longer produces fails the test, which names this command.

How they run: each in a fresh Jupyter kernel started in tutorials/, with this checkout
first on PYTHONPATH (a last cell, not kept, checks that the kernel imported this
checkout's minigrad, not an installed copy) and MINIGRAD_TUTORIAL_SMALL=1, the quick
setting that every notebook reads to choose its epochs, steps and sizes. The kernel sees
no GPU (CUDA_VISIBLE_DEVICES is empty), so notebook 05 takes its CUDA-simulator path on
every machine and prints the same things everywhere. BLAS and Numba thread settings are
taken out of its environment: the kernel runs with minigrad's own thread policy, as a
student's Jupyter does, whether this is started by hand or by the test suite.

What is stored: every output a cell makes, except what goes to stderr (Numba's one-time
compile notes and warnings depend on the machine and its cache, not on the notebook). The
figures are re-encoded as 8-bit palette PNGs, which keeps the eight notebooks' pictures
to a few hundred KB (matplotlib's RGBA PNGs are about three times as large). The
notebooks' own metadata is kept as it was (the kernel would add its Python version).

What the check compares, cell by cell (`differences`): the same outputs of the same
kinds (printed text, figures, the value of a last expression); printed text equal once
memory addresses and durations ("2.6 s", "8.21 ms") are taken out and runs of spaces are
one space (a time printed in a fixed width pads with fewer of them when it grows a
digit); and every other number equal to within NUMBER_RTOL of its size or one unit of its
last printed digit, so that a model trained on another CPU, whose rounding differs in the
last bits, still matches (numbers are compared as values: "85.8%" printed as "85.80%" matches,
since a float's shortest repr, or NumPy's, can gain or lose a digit with its last bit). Two numbers
both below ROUNDING_LEVEL in size match too: those are the differences a notebook prints to show
that two computations agree to rounding (1e-9, 2.4e-06), and rounding is what differs between CPUs.
A cell tagged `machine-dependent` (in its metadata, as Jupyter's tags are) prints numbers
that measure the machine, such as timings, speed ratios and the number of cores: its text
is compared with all of its numbers taken out.
"""

import argparse
import base64
import copy
import difflib
import io
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "tutorials"
SMALL_SETTING = "MINIGRAD_TUTORIAL_SMALL"
MACHINE_DEPENDENT = "machine-dependent"  # the cell tag: its numbers measure the machine
REGENERATE = "python tools/run_notebooks.py"

# variables that would override minigrad's thread policy in the kernel (minigrad/threads.py)
THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "NUMBA_THREADING_LAYER",
)

NUMBER_RTOL = 0.02
ROUNDING_LEVEL = 1e-4


def notebooks(names=()):
    """The notebooks of tutorials/, or those whose file name starts with or contains one of
    `names`."""
    found = sorted(TUTORIALS.glob("*.ipynb"))
    if not names:
        return found
    chosen = [p for p in found if any(p.name.startswith(n) or n in p.stem for n in names)]
    unknown = [n for n in names if not any(p.name.startswith(n) or n in p.stem for p in found)]
    if unknown:
        raise SystemExit(
            f"run_notebooks: no notebook in tutorials/ matches {unknown}; there are "
            f"{[p.name for p in found]}"
        )
    return chosen


def kernel_environment():
    """The environment the notebooks' kernel starts with (see the module's docstring)."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    env[SMALL_SETTING] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def execute(path, timeout=600):
    """Run the notebook at `path` top to bottom in a fresh kernel and return it with its
    outputs, as `tidy` stores them. A cell that raises raises here, naming the cell."""
    # the dev extra installs nbclient, nbformat and ipykernel (the "python3" kernel)
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    metadata = copy.deepcopy(nb.metadata)
    check = (
        f"import minigrad\nassert minigrad.__file__.startswith({str(ROOT)!r}), minigrad.__file__"
    )
    nb.cells.append(nbformat.v4.new_code_cell(check))
    client = nbclient.NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,  # no timestamps in the cells' metadata
    )
    client.execute(env=kernel_environment())
    nb.cells.pop()
    nb.metadata = metadata
    return tidy(nb)


def tidy(nb):
    """The outputs as they are stored: streams of one kind joined (a print may arrive in
    several pieces, depending on timing), stderr left out, figures as palette PNGs."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.outputs:
            if out.output_type == "stream":
                if out.name == "stderr":
                    continue
                if outputs and outputs[-1].output_type == "stream" and outputs[-1].name == out.name:
                    outputs[-1].text += out.text
                    continue
            if "image/png" in out.get("data", {}):
                out.data["image/png"] = small_png(out.data["image/png"])
            outputs.append(out)
        cell.outputs = outputs
    return nb


def small_png(data):
    """A base64 PNG re-encoded with a palette of at most 256 colours, without dithering
    (a plot has few colours; the lines' anti-aliased edges and colour maps keep theirs)."""
    from PIL import Image  # matplotlib depends on Pillow

    image = Image.open(io.BytesIO(base64.b64decode(data)))
    if image.mode == "P":
        return data  # already a palette image: re-encoding it again would change nothing
    rgb = image.convert("RGB")
    palette = rgb.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    palette.save(out, format="PNG", optimize=True)
    return base64.b64encode(out.getvalue()).decode("ascii")


# ---- comparing stored outputs with fresh ones ---------------------------------------------

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# a number not glued to a word ("conv1" and "ln_1" are words), with thousands separators,
# a fraction and an exponent
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
DURATION = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(\s?)(s|ms|µs|us|min)\b")


def _kind(out):
    if out.output_type == "stream":
        return f"printed text ({out.name})"
    if out.output_type == "error":
        return f"an error ({out.ename})"
    kinds = sorted(out.get("data", {}))
    what = "a figure" if "image/png" in kinds else "a value"
    return f"{what} ({out.output_type}: {', '.join(kinds)})"


def _text(out):
    if out.output_type == "stream":
        return out.text
    return out.get("data", {}).get("text/plain", "")


def _unit(token):
    """One unit of the last digit printed: 0.01 for '3.14', 1000 for '2.5e3', 1 for '42'."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def _close(stored, fresh):
    a, b = float(stored.replace(",", "")), float(fresh.replace(",", ""))
    if max(abs(a), abs(b)) < ROUNDING_LEVEL:
        return True
    allowed = max(NUMBER_RTOL * max(abs(a), abs(b)), _unit(stored), _unit(fresh))
    return abs(a - b) <= allowed


def text_difference(stored, fresh, numbers=True):
    """None if two printed texts match (see the module's docstring), else why not."""
    stored, fresh = (DURATION.sub(r"<time>\1\2", ADDRESS.sub("0x…", t)) for t in (stored, fresh))
    skeletons = [
        [" ".join(line.split()) for line in NUMBER.sub("<n>", t).splitlines()]
        for t in (stored, fresh)
    ]
    if skeletons[0] != skeletons[1]:
        diff = difflib.unified_diff(*skeletons, "stored", "now", lineterm="", n=1)
        return "the text differs:\n" + "\n".join(list(diff)[2:14])
    if not numbers:
        return None
    for old_line, new_line in zip(stored.splitlines(), fresh.splitlines()):
        pairs = zip(NUMBER.findall(old_line), NUMBER.findall(new_line))
        wrong = [f"{a} -> {b}" for a, b in pairs if not _close(a, b)]
        if wrong:
            return f"numbers differ ({', '.join(wrong)}):\n-{old_line}\n+{new_line}"
    return None


def differences(stored_nb, fresh_nb):
    """Where the fresh run's outputs differ from the stored ones, one line per cell."""
    found = []
    code = [c for c in stored_nb.cells if c.cell_type == "code"]
    fresh_code = [c for c in fresh_nb.cells if c.cell_type == "code"]
    for number, (stored, fresh) in enumerate(zip(code, fresh_code), start=1):
        first_line = stored.source.strip().splitlines()[0] if stored.source.strip() else ""
        where = f"code cell {number} ({first_line[:60]!r})"
        kinds = [_kind(o) for o in stored.outputs], [_kind(o) for o in fresh.outputs]
        if kinds[0] != kinds[1]:
            found.append(
                f"{where}: the stored outputs are {kinds[0]}, the notebook now makes {kinds[1]}"
            )
            continue
        numbers = MACHINE_DEPENDENT not in stored.metadata.get("tags", [])
        for out_stored, out_fresh in zip(stored.outputs, fresh.outputs):
            why = text_difference(_text(out_stored), _text(out_fresh), numbers)
            if why:
                found.append(f"{where}: {why}")
                break
    return found


def _counts(nb):
    return [c.execution_count for c in nb.cells if c.cell_type == "code"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "names", nargs="*", help="notebooks to run, by number or name (default: all)"
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with the stored outputs, rewrite nothing"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="store the new outputs even where the stored ones match",
    )
    args = parser.parse_args(argv)

    import nbformat

    stale = 0
    for path in notebooks(args.names):
        start = time.perf_counter()
        fresh = execute(path)
        took = f"{time.perf_counter() - start:.0f} s"
        stored = nbformat.read(path, as_version=4)
        found = differences(stored, fresh)
        # a cell that was never run (a new one, say) can match a cell without outputs
        current = not found and _counts(stored) == _counts(fresh)
        if args.check:
            stale += not current
            print(f"{path.name}: {'stored outputs are current' if current else 'STALE'} ({took})")
            for line in found:
                print("  " + line.replace("\n", "\n    "))
        elif current and not args.force:
            print(f"{path.name}: the stored outputs are current, kept ({took})")
        else:
            nbformat.write(fresh, path)
            print(f"{path.name}: outputs stored ({took})")
    if stale:
        print(f"{stale} notebook(s) differ: run `{REGENERATE}` and commit them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
