"""Reading back a tokenizer that `save` wrote: the JSON file, checked.

A tokenizer file can be damaged (cut short by a full disk, edited by hand) or simply be
the wrong file. Every way its contents can be wrong is a ValueError that names the
caller, the file and what is wrong, instead of a JSONDecodeError that does not say which
file, or a KeyError from deep inside the constructor. A path that does not exist or is
a folder raises Python's own FileNotFoundError or IsADirectoryError, which name it.
"""

import json
from pathlib import Path

# what json.loads makes of each JSON type, named as JSON names them
JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "number",
    float: "number",
}


def json_type(value):
    """The JSON name of a parsed value's type: 'object', 'array', 'string', ..."""
    return "null" if value is None else JSON_TYPES.get(type(value), type(value).__name__)


def read_saved(path, kind, where, keys):
    """The JSON object in the file at `path`, checked to be a saved tokenizer: its "type"
    is `kind` and it has every one of `keys`. `where` ("CharTokenizer.load") and the path
    begin every error message."""
    name = where.split(".")[0]  # "CharTokenizer.load" -> the class
    where = f"{where}: {path}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{where} is not UTF-8 text (byte {err.start}), so not a saved tokenizer"
        ) from None
    try:
        state = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{where} is not valid JSON ({err.msg} at line {err.lineno} column {err.colno}); "
            "is the file cut short or damaged?"
        ) from None
    if not isinstance(state, dict):
        raise ValueError(
            f"{where} does not hold a saved {name}: expected a JSON object, got a JSON "
            f"{json_type(state)}"
        )
    if state.get("type") != kind:
        raise ValueError(
            f"{where} does not hold a saved {name}: its type is {state.get('type')!r}, expected "
            f"{kind!r}"
        )
    for key in keys:
        if key not in state:
            raise ValueError(f"{where} lacks the key {key!r} that a saved {name} has")
    return state
