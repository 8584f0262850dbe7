"""Tiny Shakespeare: the text that char-rnn and nanoGPT learn to write, bundled.

1,115,394 characters of Shakespeare's plays (speaker, colon, lines; 65 distinct
characters), the file `data/tinyshakespeare/input.txt` of Andrej Karpathy's char-rnn
(https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt),
which nanoGPT's shakespeare_char example downloads. Shakespeare is in the public
domain; `files/README.md` states the file's size and SHA-256.

It ships compressed with the standard library's lzma (364 KB instead of 1.1 MB), so
training a language model on it needs no network:

    from minigrad.data import tiny_shakespeare
    from minigrad.text import CharTokenizer

    text = tiny_shakespeare()
    tok = CharTokenizer.train(text)  # 65 characters
"""

import lzma
from pathlib import Path

TINY_SHAKESPEARE_FILE = Path(__file__).parent / "files" / "tinyshakespeare.txt.xz"


def tiny_shakespeare():
    """The whole Tiny Shakespeare text as one `str` (1,115,394 characters)."""
    with lzma.open(TINY_SHAKESPEARE_FILE, "rb") as f:
        return f.read().decode("utf-8")
