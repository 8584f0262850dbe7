"""mg.save / mg.load: checkpoints that can be opened without running anyone's code.

`torch.save` pickles, and unpickling a file runs whatever code its author put in it,
which is why `torch.load` grew `weights_only`. minigrad avoids the question: a file is
a NumPy `.npz` archive (a zip of `.npy` files, each just a header and raw numbers) read
back with `np.load(..., allow_pickle=False)`, which can only ever produce arrays.

    mg.save(model.state_dict(), "model.npz")
    model.load_state_dict(mg.load("model.npz"))

What can be saved: Tensors (and Parameters), NumPy arrays and NumPy scalars, None,
bools, ints, floats and strings, and lists, tuples and dicts of these, nested to any
depth. Dict keys may be strings, ints, floats, bools or None. That covers
`Module.state_dict()` (an OrderedDict of name -> Tensor) and an optimizer's
`state_dict()` ({"state": {0: {...}, 1: {...}}, "param_groups": [{..., "params":
[0, 1]}]}, with int keys, lists and tuples such as `betas`). Whole modules can be saved
too, with dtypes, devices, and classes and functions (by import path): see "Whole
models" below. Anything else (a set, an optimizer, a PyTorch tensor, a lambda) is
refused at save time, naming where it was.

## The file

- Every array becomes one entry, named "0", "1", ...: a Tensor's data, an ndarray, a
  NumPy scalar (as a 0-d array). Tensors that share one NumPy array (a tied weight,
  a detached alias) are stored once and share one array again after loading.
- One more entry, "__minigrad__", holds a JSON text describing the structure:

      {"format": "minigrad", "version": 1, "root": NODE}
      NODE = {"type": "tensor", "array": "0", "dtype": "<f4", "shape": [2, 3], "requires_grad":
      false}
           | {"type": "parameter", ...same fields...}
           | {"type": "ndarray", "array": "1", "dtype": "<i8", "shape": [4]}
           | {"type": "numpy_scalar", "array": "2", "dtype": "<f8", "shape": []}
           | {"type": "none"} | {"type": "bool" | "int" | "float" | "str", "value": ...}
           | {"type": "list" | "tuple", "items": [NODE, ...]}
           | {"type": "dict", "ordered": true, "items": [[KEY_NODE, NODE], ...]}
           | {"type": "dtype", "dtype": "<f8"} | {"type": "device", "device": "cpu"}
           | {"type": "global", "path": "minigrad.nn.functional.activation.gelu"}
           | {"type": "module", ...} | {"type": "module_ref", "id": 3}  (module_records.py)

  Dicts are lists of pairs because JSON object keys can only be strings, and an
  optimizer's state is keyed by ints. The dtype and shape are recorded twice (in the
  JSON and in each .npy header) so that a file whose parts do not agree — truncated,
  tampered with, or not made by mg.save — is caught and reported as a ValueError naming
  the file, instead of loading wrong numbers.

## Whole models

`mg.save(model, "model.pt")` writes the whole model, and `mg.load("model.pt",
weights_only=False)` builds it again, as `torch.save(model, ...)` / `torch.load(...,
weights_only=False)` do, but without pickle: the file names each module's class by
import path and holds its constructor arguments (what `get_config` reports; a module
passed to a constructor is a record of its own), its parameters and buffers, its
children and its training flag (minigrad/module_records.py says how). Loading calls the
classes the file names, which it does only for minigrad's own classes and the ones you
allow (minigrad/allowlist.py): a class of your own script is refused, naming it, until
you allow it, as `torch.load(weights_only=True)` refuses what it does not know:

    mg.serialization.add_safe_globals([Net])   # or: with mg.serialization.safe_globals([Net]):
    model = mg.load("model.pt", weights_only=False)

`mg.load(path)` alone uses torch's default, `weights_only=True`, and then refuses a
model file, with torch's message, unless every class it names is allowed.

## Loading a file you did not write

`mg.load` never unpickles, and never tells you to: a pickle (what `torch.save` wrote
before its zip format) is refused as what it is. It also refuses a decompression bomb:
a zip entry may be compressed, and a few hundred KiB of zeros can claim gigabytes.
mg.save stores entries uncompressed, so its files are about as large as what they
hold; `load(f, max_expansion=100)` refuses an archive whose entries add up to more
than `max_expansion` times the file's size (archives under 1 MiB are always allowed),
before decompressing anything. Raise it for a file you trust that compresses very well
(`mg.load(path, max_expansion=10_000)`); `None` switches the check off. Each array's
.npy header is checked against its entry's size as well, so no header can make NumPy
allocate more than the entry holds. A whole-model file is different in one way: loading
it calls constructors with the sizes the file records, so a file can ask for a layer
as large as it likes. `weights_only=True`, the default, refuses such files unless you
allowed their classes; `get_unsafe_globals_in_checkpoint(path)` lists what a file names.

## Moving weights to and from PyTorch

A minigrad model and the same PyTorch model have the same state_dict names and shapes
(SPEC.md), so only the array type changes hands:

    # minigrad -> PyTorch
    state = mg.load("model.npz")
    torch_model.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in state.items()})

    # PyTorch -> minigrad
    mg.save({k: v.detach().cpu().numpy() for k, v in torch_model.state_dict().items()}, "model.npz")
    model.load_state_dict(mg.load("model.npz"))  # the values come back as ndarrays, which it
    accepts
"""

import inspect
import io
import json
import math
import os
import pickle  # only for its exception type, which torch.load raises when it refuses a class
from collections import OrderedDict

import numpy as np

from minigrad import allowlist, module_records
from minigrad import devices as _devices
from minigrad.allowlist import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals  # noqa: F401
from minigrad.array_module import on_device, to_host
from minigrad.creation import from_numpy
from minigrad.map_location import placement as map_location_placement
from minigrad.module_records import named_globals
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

FORMAT = "minigrad"
VERSION = 1
STRUCTURE_ENTRY = "__minigrad__"
ARRAY_KINDS = "biufcUS"  # bool, ints, floats, complex, strings: what .npy stores without pickle
KEY_TYPES = ("str", "int", "float", "bool", "none")


# ---- save -----------------------------------------------------------------------------------
def save(obj, f):
    """Write `obj` to `f`, a path (str or os.PathLike) or a binary file object open for
    writing: a Tensor, a state dict, an optimizer state, ... (see the module docstring),
    or a whole model, `mg.save(model, "model.pt")`, which `mg.load(path,
    weights_only=False)` builds again (see "Whole models" in the module docstring)."""
    encoder = _Encoder()
    structure = {"format": FORMAT, "version": VERSION, "root": encoder.encode(obj, "obj")}
    arrays = encoder.arrays
    arrays[STRUCTURE_ENTRY] = np.array(json.dumps(structure))
    if hasattr(f, "write"):
        if isinstance(f, io.TextIOBase):
            raise _text_mode_error(f, "save", "wb")
        np.savez(f, **arrays)
        return
    # open the file ourselves: np.savez given a path would append ".npz" to names without it
    with open(_fspath(f, "save"), "wb") as file:
        np.savez(file, **arrays)


class _Encoder:
    """Turns an object into its JSON node, collecting the arrays it holds in `arrays`."""

    def __init__(self):
        self.arrays = {}  # entry name -> array
        self.names = {}  # id(array) -> its entry name: an array reached twice is stored once
        self.module_ids = {}  # id(module) -> its record id: a module reached twice is recorded once

    def encode(self, obj, where):
        """The JSON node for `obj`, found at `where` (for error messages)."""
        if obj is None:
            return {"type": "none"}
        if isinstance(obj, bool):  # before int: bool is a subclass of int
            return {"type": "bool", "value": obj}
        if isinstance(obj, Tensor):
            node = self.array_node(obj.array, where)
            node.update(
                type="parameter" if isinstance(obj, Parameter) else "tensor",
                requires_grad=obj.requires_grad,
            )
            return node
        if isinstance(obj, np.ndarray) or on_device(obj):  # an optimizer's state holds GPU arrays
            return {"type": "ndarray", **self.array_node(obj, where)}
        if isinstance(obj, str):  # before np.generic: np.str_ is both, and loads back as a str
            return {"type": "str", "value": str(obj)}
        if isinstance(obj, np.generic):
            return {"type": "numpy_scalar", **self.array_node(np.asarray(obj), where, shared=False)}
        if isinstance(obj, int):
            return {"type": "int", "value": int(obj)}
        if isinstance(obj, float):
            return {"type": "float", "value": float(obj)}
        if isinstance(obj, (list, tuple)):
            # a namedtuple is saved as a plain tuple
            kind = "list" if isinstance(obj, list) else "tuple"
            return {
                "type": kind,
                "items": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(obj)],
            }
        if isinstance(obj, dict):
            return self.dict_node(obj, where)
        if isinstance(obj, Module):
            return module_records.encode_module(obj, self.encode, self.module_ids, where)
        if isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
            dtype = np.dtype(obj)
            if dtype.kind not in ARRAY_KINDS:
                raise TypeError(
                    f"save: cannot save the dtype {dtype} at {where}; only numeric, bool and "
                    "string dtypes"
                )
            return {"type": "dtype", "dtype": dtype.str}
        if _devices._is_device(obj):  # a minigrad or torch device; it loads as mg.device
            return {"type": "device", "device": str(obj)}
        if inspect.isclass(obj) or inspect.isfunction(obj):  # found by import path when loading
            return {"type": "global", "path": module_records.import_path(obj, where)}
        hint = ""
        if hasattr(obj, "state_dict"):
            hint = "; save its state_dict() instead"
        elif hasattr(obj, "numpy"):
            hint = "; convert it to a NumPy array first (a PyTorch tensor: .detach().cpu().numpy())"
        raise TypeError(
            f"save: cannot save a {type(obj).__module__}.{type(obj).__qualname__} at {where} "
            "(supported: Tensor, np.ndarray, NumPy scalars, None, bool, int, float, str, lists, "
            "tuples and dicts of them, modules, dtypes, devices, and classes and functions defined "
            f"at the top level of a module){hint}"
        )

    def dict_node(self, obj, where):
        items = []
        for key, value in obj.items():
            key_node = self.encode(key, f"{where} key {key!r}")
            if key_node["type"] not in KEY_TYPES:
                raise TypeError(
                    f"save: dict key {key!r} at {where} is a {type(key).__name__}; keys must be "
                    "str, int, float, bool or None"
                )
            items.append([key_node, self.encode(value, f"{where}[{key!r}]")])
        return {"type": "dict", "ordered": isinstance(obj, OrderedDict), "items": items}

    def array_node(self, array, where, shared=True):
        """The fields naming `array`'s entry; it is added unless already stored (`shared`).
        A GPU array is copied to the host, and its node records where it came from, as
        torch's files do ("device": "cuda:0"; a host array's node has no "device")."""
        if array.dtype.kind not in ARRAY_KINDS:
            raise TypeError(
                f"save: cannot save the {array.dtype} array at {where}; only numeric, bool and "
                "string dtypes"
            )
        name = self.names.get(id(array)) if shared else None
        if name is None:
            name = str(len(self.arrays))
            self.arrays[name] = to_host(array)
            if shared:
                self.names[id(array)] = name
        node = {"array": name, "dtype": array.dtype.str, "shape": list(array.shape)}
        if on_device(array):
            node["device"] = str(_devices.cuda)
        return node


# ---- load -----------------------------------------------------------------------------------
HEAD = 32  # bytes read first, to tell what a file that is not an archive is
MAX_EXPANSION = 100  # how many times its own size an archive may hold once decompressed
ALWAYS_ALLOWED = 2**20  # bytes: an archive holding less than this passes whatever its size


def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only=None,
    mmap=None,
    max_expansion=MAX_EXPANSION,
    **pickle_load_args,
):
    """Read back what `save` wrote to `f` (a path or a binary file object open for
    reading). Raises ValueError, naming the file, if it is not a valid minigrad file,
    or if its entries would decompress to more than `max_expansion` times the file's
    size (a decompression bomb; None: no limit), and TypeError for a file object open
    in text mode. See the module docstring.

    `weights_only` is torch.load's switch, with torch's default (True, or False when a
    `pickle_module` is given). A file that holds tensors, state dicts and optimizer
    states loads either way. A file that holds a whole model names its classes, and
    loading calls them: with `weights_only=True` only allow-listed classes may be used
    (`mg.serialization.add_safe_globals`), so a model file is refused unless its classes
    are all allowed, with torch's message; `weights_only=False` also lets minigrad's
    own classes be used. Either way a class that is neither is refused (a
    `pickle.UnpicklingError`, as torch's refusals), and no code is run from the file.

    The other arguments are torch.load's too, accepted so that PyTorch code runs
    unchanged. `map_location` says where tensors load, as torch's: None puts each back on
    the device it was saved from ('cpu' or 'cuda:0'); a device or a string ('cpu',
    'cuda') puts them all there; a dict maps saved locations to new ones
    ({'cuda:0': 'cpu'}); a callable `f(tensor, location)` gets each tensor, loaded on the
    CPU, with the location it was saved from, and returns it where it should be (as torch's
    `lambda storage, loc: storage.cuda()`; None keeps the saved location). The same
    applies to GPU arrays of an optimizer's state; NumPy arrays load as NumPy arrays.
    Asking for 'cuda' on a machine without a GPU raises, saying what is missing, as
    torch.load does. `pickle_module` and `pickle_load_args` have no
    effect: the file holds no pickles. `mmap` has no effect either: the arrays are read
    into memory.
    """
    _check_load_options(map_location, weights_only, mmap)
    place = map_location_placement(map_location)
    if weights_only is None:
        weights_only = pickle_module is None  # torch.load's default
    return _read(
        f, max_expansion, lambda archive, name: _decode_archive(archive, name, weights_only, place)
    )


def get_unsafe_globals_in_checkpoint(f):
    """The import paths of the classes and functions in a file written by `save` that are
    not allow-listed, so `load(f, weights_only=True)` would refuse them
    (`torch.serialization.get_unsafe_globals_in_checkpoint`). Nothing is built."""
    allowed = allowlist.allowed_paths()
    return _read(
        f,
        MAX_EXPANSION,
        lambda archive, name: [p for p in named_globals(_structure(archive)) if p not in allowed],
    )


def _read(f, max_expansion, read):
    """read(archive, name) of `f` opened as an archive written by save, after checking
    that it is one (see load); `name` names the file in error messages."""
    name = _file_name(f)
    if hasattr(f, "read"):
        if isinstance(f, io.TextIOBase):  # reading would decode the bytes, or fail to
            raise _text_mode_error(f, "load", "rb")
        data = f.read()
        if isinstance(data, str):  # a text stream of another kind
            raise _text_mode_error(f, "load", "rb")
        source, size, head = io.BytesIO(data), len(data), data[:HEAD]
    else:
        source = _fspath(f, "load")
        with open(source, "rb") as file:  # OSError (missing, a folder, no permission) propagates
            head = file.read(HEAD)
            size = os.fstat(file.fileno()).st_size
    if head.startswith(b"\x93NUMPY"):
        raise ValueError(
            f"load: {name} is a single .npy array, not a minigrad file; read it with np.load"
        )
    if not head.startswith(b"PK"):  # every zip, so every .npz, starts with "PK"
        raise ValueError(
            f"load: {name} is not a minigrad file (mg.save writes a NumPy .npz archive): "
            f"{_kind(head)}"
        )
    try:
        archive = np.load(source, allow_pickle=False)
    except OSError:
        raise
    except Exception as err:  # zipfile fails in many ways on a damaged archive
        raise ValueError(
            f"load: {name} is not a minigrad file: it is a damaged zip archive ({_reason(err)})"
        ) from None
    with archive:
        try:
            _check_expansion(archive.zip, size, max_expansion)
            return read(archive, name)
        except _Invalid as err:
            raise ValueError(f"load: {name} is not a valid minigrad file: {err}") from None


def _kind(head):
    """What a file that is not a zip archive seems to be, from its first bytes."""
    if not head:
        return "it is empty"
    if head[:1] == b"\x80":  # the PROTO opcode every pickle since protocol 2 starts with
        return (
            "it is a Python pickle (torch.save wrote those before its zip format); minigrad does "
            "not read pickles, because loading one runs whatever code it holds"
        )
    text = head.decode("utf-8", errors="ignore")  # the last character may be cut short
    if len(text) >= len(head) - 3 and all(c.isprintable() or c in "\t\r\n" for c in text):
        return f"it is text (it starts with {text!r}), not a zip archive"
    return f"it starts with the bytes {head[:8]!r}, not those of a zip archive"


def _text_mode_error(f, fn, mode):
    """The error for a file object opened in text mode: open(path) hands mg.load str (or
    fails to decode a checkpoint's bytes) and makes mg.save's bytes fail to write."""
    name = repr(getattr(f, "name", f"<{type(f).__name__}>"))
    return TypeError(
        f"{fn}: {name} is open in text mode, but a minigrad file is binary: open it with "
        f"open(path, {mode!r})"
    )


def _reason(err):
    """An error's text, unless it gives NumPy's advice to unpickle: never pass that on."""
    text = f"{type(err).__name__}: {err}"
    return (
        "it holds pickled Python objects, which mg.load never unpickles"
        if "pickle" in text
        else text
    )


def _check_expansion(zip_file, size, max_expansion):
    """Refuse an archive whose entries claim far more bytes than the file has, before
    decompressing any of them (zipfile then stops each entry at its claimed size)."""
    claimed = sum(info.file_size for info in zip_file.infolist())
    if max_expansion is not None and claimed > ALWAYS_ALLOWED and claimed > max_expansion * size:
        raise _Invalid(
            f"its entries would decompress to {claimed:,} bytes, {claimed / max(size, 1):,.0f} "
            f"times the file's {size:,} bytes (a decompression bomb?); mg.save never compresses. "
            f"If you trust the file, pass max_expansion= a larger number (now {max_expansion}) or "
            "None"
        )


class _Invalid(Exception):
    """The archive opened, but its contents are not what mg.save writes."""


def _structure(archive):
    """The JSON structure of an archive written by save, its format checked."""
    if STRUCTURE_ENTRY not in archive.files:
        torch_hint = (
            " (a PyTorch checkpoint? see the mg.save docs for converting one)"
            if _looks_like_torch(archive)
            else ""
        )
        raise _Invalid(
            f"it has no '{STRUCTURE_ENTRY}' entry, so it was not written by mg.save{torch_hint}"
        )
    text = _read_entry(archive, STRUCTURE_ENTRY)
    if text.dtype.kind != "U" or text.shape != ():
        raise _Invalid(
            f"its '{STRUCTURE_ENTRY}' entry is a {text.dtype} array of shape {text.shape}, not a "
            "text"
        )
    try:
        structure = json.loads(text.item())
    except (json.JSONDecodeError, RecursionError) as err:
        raise _Invalid(f"its structure is not valid JSON ({err})") from None
    if not isinstance(structure, dict) or structure.get("format") != FORMAT:
        raise _Invalid(f"its structure does not start with the format name '{FORMAT}'")
    if structure.get("version") != VERSION:
        raise _Invalid(
            f"it is format version {structure.get('version')!r}; this minigrad reads version "
            f"{VERSION}"
        )
    return structure


def _decode_archive(archive, name, weights_only, place):
    structure = _structure(archive)
    # every class and function the file names is checked before anything is built
    classes = {}
    for path, what in named_globals(structure).items():
        try:
            classes[path] = allowlist.find(path, weights_only)
        except allowlist.Refused:
            raise pickle.UnpicklingError(_refusal(name, path, what, weights_only)) from None
        except allowlist.NotFound as err:
            raise _Invalid(f"it names the {what} {path}, but {err}") from None
    decoder = _Decoder(archive, classes, place)
    try:
        if classes:  # building modules initialises their weights: keep the random stream as it was
            with module_records.random_stream_kept():
                obj = decoder.decode(structure.get("root"), "obj")
        else:
            obj = decoder.decode(structure.get("root"), "obj")
    except RecursionError:
        raise _Invalid("its structure is nested too deeply") from None
    except module_records.Invalid as err:
        raise _Invalid(str(err)) from None
    unused = set(archive.files) - set(decoder.loaded) - {STRUCTURE_ENTRY}
    if unused:
        raise _Invalid(f"it has array entries {sorted(unused)} that its structure does not mention")
    return obj


def _refusal(name, path, what, weights_only):
    """torch.load's message for a global it will not use, with minigrad's names."""
    short = path.rpartition(".")[2]
    allow = (
        f"Please use `mg.serialization.add_safe_globals([{path}])` or the "
        f"`mg.serialization.safe_globals([{path}])` context manager to allowlist this global if "
        f"you trust this {what}."
    )
    if weights_only:
        return (
            f"load: {name}: Weights only load failed. This file can still be loaded, to do so you "
            "have two options, do those steps only if you trust the source of the "
            "checkpoint.\n\t(1) The file holds a whole model (or another object named by its "
            "class), not only tensors. Re-running `mg.load` with `weights_only` set to `False` "
            "will likely succeed: minigrad's own classes may then be used too (a class of your own "
            "must still be allowed, see (2)), and no code is run from the file.\n\t(2) "
            "Alternatively, to load with `weights_only=True` please check the recommended steps in "
            f"the following error message.\n\tUnsupported global: GLOBAL {path} was not an allowed "
            f"global by default. {allow}"
        )
    return (
        f"load: {name} names the {what} {path}, which is neither minigrad's own nor allow-listed, "
        "so mg.load will not use it: it imports and calls nothing else. If you trust this file, "
        f"allow it before loading, with `mg.serialization.add_safe_globals([{short}])` or inside "
        f"`with mg.serialization.safe_globals([{short}]):`, where {short} is the {what} itself "
        "(defined or imported as in the script that saved the file)."
    )


class _Decoder:
    """Builds the objects a structure's nodes describe, from the archive's arrays."""

    def __init__(self, archive, classes, place):
        self.archive = archive
        self.loaded = {}  # entry name -> array, each entry read once
        self.place = place  # (host array, saved location) -> the array where map_location puts it
        self.placed = {}  # entry name -> the placed array: tensors that shared one array still do
        self.classes = classes  # path -> the allowed class or function
        self.builder = module_records.Builder(self.decode, classes)

    def decode(self, node, where):
        if not isinstance(node, dict) or "type" not in node:
            raise _Invalid(f"the node at {where} is {node!r}, not a {{'type': ...}} object")
        kind = node["type"]
        if kind == "none":
            return None
        if kind in ("bool", "int", "float", "str"):
            value = node.get("value")
            expected = {"bool": bool, "int": int, "float": (float, int), "str": str}[kind]
            if not isinstance(value, expected) or (kind == "int" and isinstance(value, bool)):
                raise _Invalid(f"the {kind} at {where} has the value {value!r}")
            return float(value) if kind == "float" else value
        if kind in ("tensor", "parameter"):
            array = self.placed_array(node, where)
            requires_grad = node.get("requires_grad")
            if not isinstance(requires_grad, bool) or (requires_grad and array.dtype.kind != "f"):
                raise _Invalid(
                    f"the {kind} at {where} has requires_grad={requires_grad!r} with dtype "
                    f"{array.dtype}"
                )
            if kind == "parameter":
                return Parameter(array, requires_grad=requires_grad)
            return from_numpy(array).requires_grad_(requires_grad)
        if kind == "ndarray":  # a NumPy array stays one; a GPU array goes where map_location says
            return self.placed_array(node, where) if "device" in node else self.array(node, where)
        if kind == "numpy_scalar":
            array = self.array(node, where)
            if array.shape != ():
                raise _Invalid(f"the NumPy scalar at {where} has shape {array.shape}")
            return array[()]
        if kind in ("list", "tuple"):
            items = node.get("items")
            if not isinstance(items, list):
                raise _Invalid(f"the {kind} at {where} has no list of items")
            values = [self.decode(x, f"{where}[{i}]") for i, x in enumerate(items)]
            return values if kind == "list" else tuple(values)
        if kind == "dict":
            return self.dict(node, where)
        if kind in ("module", "module_ref"):
            return self.builder.module(node, where)
        if kind == "dtype":
            dtype = _parse_dtype(node.get("dtype"))
            if dtype is None or dtype.kind not in ARRAY_KINDS:
                raise _Invalid(f"the dtype at {where} is {node.get('dtype')!r}")
            return dtype
        if kind == "device":
            try:
                return _devices.device(node.get("device"))
            except (TypeError, ValueError, RuntimeError):
                raise _Invalid(f"the device at {where} is {node.get('device')!r}") from None
        if kind == "global":
            path = node.get("path")
            # each was found before decoding began
            if not isinstance(path, str) or path not in self.classes:
                raise _Invalid(f"the global at {where} has the path {path!r}")
            return self.classes[path]
        raise _Invalid(f"the node at {where} has the unknown type {kind!r}")

    def dict(self, node, where):
        items = node.get("items")
        if not isinstance(items, list) or not all(
            isinstance(p, list) and len(p) == 2 for p in items
        ):
            raise _Invalid(f"the dict at {where} has no list of [key, value] pairs")
        result = OrderedDict() if node.get("ordered") else {}
        for key_node, value_node in items:
            if not isinstance(key_node, dict) or key_node.get("type") not in KEY_TYPES:
                raise _Invalid(
                    f"a key of the dict at {where} is {key_node!r}, not a str, int, float, bool or "
                    "None"
                )
            key = self.decode(key_node, f"{where} key")
            result[key] = self.decode(value_node, f"{where}[{key!r}]")
        return result

    def placed_array(self, node, where):
        """The node's array on the device map_location gives for where it was saved."""
        array = self.array(node, where)
        saved = node.get("device", "cpu")
        if saved not in ("cpu", str(_devices.cuda)):
            raise _Invalid(f"the array at {where} was saved from the device {saved!r}")
        if node["array"] not in self.placed:
            self.placed[node["array"]] = self.place(array, saved)
        return self.placed[node["array"]]

    def array(self, node, where):
        """The array entry a node names, checked against the dtype and shape the node records."""
        name = node.get("array")
        if not isinstance(name, str) or name == STRUCTURE_ENTRY or name not in self.archive.files:
            raise _Invalid(f"the array at {where} refers to a missing entry {name!r}")
        if name not in self.loaded:
            self.loaded[name] = _read_entry(self.archive, name)
        array = self.loaded[name]
        dtype = _parse_dtype(node.get("dtype"))
        if dtype is None:
            raise _Invalid(f"the array at {where} has the unknown dtype {node.get('dtype')!r}")
        if array.dtype != dtype or list(array.shape) != node.get("shape"):
            raise _Invalid(
                f"the array at {where} is {array.dtype} {list(array.shape)} in the archive but "
                f"{node.get('dtype')} {node.get('shape')} in the structure"
            )
        return array


def _read_entry(archive, name):
    """One entry of the archive as an array; reading it checks its CRC and .npy header."""
    try:
        _check_header(
            archive.zip, name + ".npy" if name + ".npy" in archive.zip.namelist() else name
        )
        return archive[name]
    except _Invalid:
        raise
    except Exception as err:  # damaged bytes fail in zipfile, zlib or NumPy's header parser
        raise _Invalid(f"its entry {name!r} cannot be read ({_reason(err)})") from None


def _check_header(zip_file, member):
    """NumPy allocates the array its .npy header describes before reading the data: the
    header must not describe more bytes than the entry holds."""
    info = zip_file.getinfo(member)
    entry_name = member.removesuffix(".npy")
    with zip_file.open(info) as entry:
        version = np.lib.format.read_magic(entry)
        # 3.0 only adds utf-8 field names, which mg.save never writes
        if version not in ((1, 0), (2, 0)):
            raise _Invalid(f"its entry {entry_name!r} is a .npy file of version {version}")
        read_header = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, _, dtype = read_header(entry)
        header_size = entry.tell()
    if dtype.hasobject:
        raise _Invalid(
            f"its entry {entry_name!r} holds pickled Python objects, which mg.load never unpickles"
        )
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > info.file_size - header_size:
        raise _Invalid(
            f"its entry {entry_name!r} claims a {dtype} array of shape {shape} ({nbytes:,} bytes) "
            f"but holds {info.file_size - header_size:,} bytes of data"
        )


# ---- helpers ----------------------------------------------------------------------------------
def _parse_dtype(text):
    """np.dtype(text), or None when `text` is not a dtype string."""
    if not isinstance(text, str):
        return None
    try:
        return np.dtype(text)
    except (TypeError, ValueError, SyntaxError):
        return None


def _fspath(f, fn):
    try:
        return os.fspath(f)
    except TypeError:
        raise TypeError(
            f"{fn}: expected a path (str or os.PathLike) or a binary file object, got "
            f"{type(f).__name__}"
        ) from None


def _file_name(f):
    if hasattr(f, "read"):
        return repr(getattr(f, "name", f"<{type(f).__name__}>"))
    return repr(os.fsdecode(_fspath(f, "load")))


def _looks_like_torch(archive):
    return any(entry.endswith("data.pkl") or "/data/" in entry for entry in archive.zip.namelist())


def _check_load_options(map_location, weights_only, mmap):
    """torch.load's keywords: reject only what minigrad cannot do, or nonsense."""
    for option, value in (("weights_only", weights_only), ("mmap", mmap)):
        if value is not None and not isinstance(value, bool):
            raise TypeError(f"load: {option} must be True, False or None, got {value!r}")
