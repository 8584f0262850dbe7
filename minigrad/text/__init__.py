"""minigrad.text: turning text into token ids and ids into training examples.

    from minigrad.data import tiny_shakespeare
    from minigrad.text import CharTokenizer, TextDataset

    text = tiny_shakespeare()
    tok = CharTokenizer.train(text)
    ds = TextDataset(tok.encode(text), block_size=64)
    x, y = ds.random_batch(12)  # (12, 64) int64 each, y = x shifted by one

- char.py     CharTokenizer: one token per character (char-rnn, nanoGPT's shakespeare_char)
- bpe.py      BPETokenizer: byte-level byte-pair encoding (GPT-2's tokenizer, trainable)
- ids.py      the token ids that decode accepts: list, NumPy array or Tensor, range-checked
- saved.py    reading a saved tokenizer's JSON file back, with errors that name the file
- dataset.py  TextDataset, train_val_split: a token stream cut into (x, y) blocks
"""

from minigrad.text.bpe import GPT2_SPLIT_PATTERN, BPETokenizer
from minigrad.text.char import CharTokenizer
from minigrad.text.dataset import TextDataset, train_val_split

__all__ = ["GPT2_SPLIT_PATTERN", "BPETokenizer", "CharTokenizer", "TextDataset", "train_val_split"]
