"""CharTokenizer: one token per character, the tokenizer of char-rnn and nanoGPT's
shakespeare_char.

The vocabulary is the sorted set of the characters of the training text, and a
character's id is its place in that list:

    tok = CharTokenizer.train("hello")  # vocabulary ['e', 'h', 'l', 'o']
    tok.encode("hell")                  # [1, 0, 2, 2]
    tok.decode([1, 0, 2, 2, 3])         # 'hello'

It is the simplest tokenizer that works: a tiny vocabulary (65 for Tiny Shakespeare),
so the embedding and output layers are small, at the price of long sequences (one token
per character), so the model sees little text per context window. A character that was
not in the training text has no id; encoding it is an error that names it.
"""

import json
from pathlib import Path

from minigrad.text.ids import as_id_list
from minigrad.text.saved import json_type, read_saved


class CharTokenizer:
    """`CharTokenizer(chars)`: a tokenizer whose vocabulary is `chars` (distinct
    characters; id i is chars[i]). Usually built with `CharTokenizer.train(text)`."""

    def __init__(self, chars):
        chars = list(chars)
        for c in chars:
            if not isinstance(c, str) or len(c) != 1:
                raise ValueError(
                    f"CharTokenizer: the vocabulary must hold single characters, got {c!r}"
                )
        if len(set(chars)) != len(chars):
            raise ValueError("CharTokenizer: the vocabulary holds a character twice")
        if not chars:
            raise ValueError("CharTokenizer: the vocabulary is empty")
        self.chars = chars  # id -> character (nanoGPT's itos)
        self.ids = {c: i for i, c in enumerate(chars)}  # character -> id (nanoGPT's stoi)

    @classmethod
    def train(cls, text):
        """The tokenizer whose vocabulary is every character of `text`, sorted (by code point)."""
        if not isinstance(text, str):
            raise TypeError(f"CharTokenizer.train: expected a str, got {type(text).__name__}")
        if not text:
            raise ValueError(
                "CharTokenizer.train: the text is empty, so there is no vocabulary to learn"
            )
        return cls(sorted(set(text)))

    @property
    def vocab_size(self):
        """How many ids there are: 0..vocab_size-1."""
        return len(self.chars)

    def encode(self, text):
        """`text` as a list of ids, one per character."""
        if not isinstance(text, str):
            raise TypeError(f"CharTokenizer.encode: expected a str, got {type(text).__name__}")
        try:
            return [self.ids[c] for c in text]
        except KeyError:
            # find the first unknown character only now, so the common path stays one loop
            position, c = next((i, c) for i, c in enumerate(text) if c not in self.ids)
            raise ValueError(
                f"CharTokenizer.encode: character {c!r} (U+{ord(c):04X}) at position {position} is "
                f"not in the vocabulary of {self.vocab_size} characters; train the tokenizer on "
                "text that contains it"
            ) from None

    def decode(self, ids):
        """The text of `ids` (a list, NumPy array or Tensor of ids)."""
        return "".join(
            self.chars[i] for i in as_id_list(ids, self.vocab_size, "CharTokenizer.decode")
        )

    def save(self, path):
        """Write the vocabulary to `path` as JSON: {"type": "char", "chars": [...]}."""
        Path(path).write_text(
            json.dumps({"type": "char", "chars": self.chars}, ensure_ascii=False), encoding="utf-8"
        )

    @classmethod
    def load(cls, path):
        """The tokenizer that `save` wrote to `path`. A file that is not one (not JSON, cut
        short, another shape, a vocabulary that is not distinct single characters) is a
        ValueError naming the file; a missing path or a folder, Python's own errors."""
        state = read_saved(path, "char", "CharTokenizer.load", ["chars"])
        chars = state["chars"]
        if not isinstance(chars, list):
            raise ValueError(
                f"CharTokenizer.load: {path}: 'chars' must be a list of single characters, "
                f"got a JSON {json_type(chars)}"
            )
        try:
            return cls(chars)
        except ValueError as err:  # the constructor's check, said about the file
            raise ValueError(f"CharTokenizer.load: {path}: {err}") from None

    def __repr__(self):
        return f"CharTokenizer(vocab_size={self.vocab_size})"
