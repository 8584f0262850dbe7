"""BPETokenizer: byte-level byte-pair encoding, the tokenizer of GPT-2 (Sennrich et al.
2016; Radford et al. 2019), trainable on your own text.

Start from the 256 byte values as tokens 0..255, so every string has an encoding (its
UTF-8 bytes) and no character is ever unknown. Training then grows the vocabulary one
token at a time: count every pair of neighbouring tokens in the text, give the most
frequent pair a new id (256, 257, ...), and replace the pair by that id everywhere. Each
such *merge* shortens the text; after `vocab_size - 256` merges, common words and word
pieces are single tokens:

    "aaabdaaabac"   bytes a a a b d a a a b a c
    merge a a  -> 256:  256 a b d 256 a b a c
    merge a b  -> 257:  256 257 d 256 257 a c     (tie with (256, a): the smaller pair wins)
    merge 256 257 -> 258:  258 d 258 a c

Encoding a new text replays the merges in the order they were learnt; decoding joins
the bytes of each token and decodes them as UTF-8.

Pre-splitting. As GPT-2, the text is first cut into chunks by a regular expression
(`GPT2_SPLIT_PATTERN`: words with their leading space, runs of digits, runs of
punctuation, whitespace, and English contractions), and pairs are only counted inside
a chunk. So no token spans "dog." or ". The": the merges are spent on word pieces, not
on every way a word meets punctuation. GPT-2's pattern uses the Unicode classes \\p{L}
and \\p{N} of the `regex` package; the one here spells them with the standard library's
`re` (a letter is a word character that is not a digit or "_"), which puts a few rare
characters (such as "½") with the letters instead of the numbers. `pattern=None`
trains and encodes without pre-splitting (the whole text is one chunk).

Ties. When two pairs are equally frequent, the smaller pair (compared as a tuple of
ids) is merged first, so training is deterministic and does not depend on dict order.
"""

import json
import math
import numbers
import re
from collections import Counter, defaultdict
from pathlib import Path

from minigrad.text.ids import as_id_list
from minigrad.text.saved import json_type, read_saved

# --8<-- [start:split_pattern]
# GPT-2's pre-split pattern, written for the standard library's `re`:
#   's 't 're 've 'm 'll 'd   English contractions
#   ' ?[^\W\d_]+'             a word (letters), with the space before it
#   ' ?\d+'                   a number, with the space before it
#   ' ?(?:[^\s\w]|_)+'        punctuation and symbols, with the space before them
#   '\s+(?!\S)'               whitespace, except the last space before a word ...
#   '\s+'                     ... which joins that word (" dog"), as in GPT-2
GPT2_SPLIT_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"""
# --8<-- [end:split_pattern]

BYTES = 256  # tokens 0..255 are the byte values; merged tokens follow


def _is_id(value):
    return isinstance(value, int) and not isinstance(value, bool)


def merge(ids, pair, new_id):
    """`ids` with every occurrence of `pair` (left to right, not overlapping) replaced
    by `new_id`: merge([1, 2, 2, 2], (2, 2), 9) == [1, 9, 2]."""
    merged = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


class BPETokenizer:
    """`BPETokenizer(merges=(), pattern=GPT2_SPLIT_PATTERN)`: a byte-level BPE tokenizer
    whose merge i joins the pair `merges[i]` into token 256 + i. Usually built with
    `BPETokenizer.train(text, vocab_size)`."""

    def __init__(self, merges=(), pattern=GPT2_SPLIT_PATTERN):
        self.merges = []  # (left id, right id), in the order they were learnt
        self.ranks = {}  # (left id, right id) -> its index in merges (its token is 256 + index)
        self.vocab = [bytes([b]) for b in range(BYTES)]  # id -> the bytes it stands for
        for left, right in merges:
            self._add_merge(int(left), int(right))
        self.pattern = pattern
        self._split = (
            re.compile(pattern).findall
            if pattern is not None
            else (lambda text: [text] if text else [])
        )
        self._cache = {}  # chunk -> its ids: a text repeats its words, so each is merged once

    def _add_merge(self, left, right):
        new_id = len(self.vocab)
        if not (0 <= left < new_id and 0 <= right < new_id):
            raise ValueError(
                f"BPETokenizer: merge {len(self.merges)} joins ({left}, {right}), but only ids "
                f"0..{new_id - 1} exist before it"
            )
        self.ranks[(left, right)] = len(self.merges)
        self.merges.append((left, right))
        self.vocab.append(self.vocab[left] + self.vocab[right])

    @property
    def vocab_size(self):
        """How many ids there are: the 256 bytes and one per merge."""
        return len(self.vocab)

    @classmethod
    def train(cls, text, vocab_size, pattern=GPT2_SPLIT_PATTERN):
        """Learn `vocab_size - 256` merges from `text` (fewer if the text runs out of pairs
        first: then `vocab_size` of the result is smaller than asked)."""
        if not isinstance(text, str):
            raise TypeError(f"BPETokenizer.train: expected a str, got {type(text).__name__}")
        if (
            not isinstance(vocab_size, numbers.Integral)
            or isinstance(vocab_size, bool)
            or vocab_size < BYTES
        ):
            raise ValueError(
                f"BPETokenizer.train: vocab_size must be an int >= {BYTES} (the byte tokens come "
                f"first), got {vocab_size!r}"
            )
        tokenizer = cls(pattern=pattern)

        # --8<-- [start:train]
        # Each distinct chunk is trained on once, weighted by how often it occurs: a
        # text of a million characters has only tens of thousands of distinct words.
        chunk_counts = Counter(tokenizer._split(text))
        words = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
        counts = list(chunk_counts.values())

        # pair_counts[pair]: how often `pair` occurs in the text (overlaps included, as
        # "aaa" holds (a, a) twice); where[pair]: the words that may hold it. Both are
        # updated after each merge for the words it touched, instead of recounted.
        pair_counts = Counter()
        where = defaultdict(set)
        for w, (word, count) in enumerate(zip(words, counts)):
            for pair in zip(word, word[1:]):
                pair_counts[pair] += count
                where[pair].add(w)

        while tokenizer.vocab_size < vocab_size and pair_counts:
            # the most frequent pair; among equals, the smallest (deterministic ties)
            best = min(pair_counts, key=lambda pair: (-pair_counts[pair], pair))
            new_id = tokenizer.vocab_size
            tokenizer._add_merge(*best)
            for w in where.pop(best):
                old_word, count = words[w], counts[w]
                new_word = merge(old_word, best, new_id)
                if len(new_word) == len(old_word):
                    continue  # a stale entry: an earlier merge already took this pair away
                for pair in zip(old_word, old_word[1:]):
                    pair_counts[pair] -= count
                for pair in zip(new_word, new_word[1:]):
                    pair_counts[pair] += count
                    where[pair].add(w)
                for pair in zip(old_word, old_word[1:]):
                    if pair_counts[pair] == 0:
                        del pair_counts[pair]
                words[w] = new_word
        return tokenizer
        # --8<-- [end:train]

    def _encode_chunk(self, chunk):
        """The ids of one chunk: its bytes, then the learnt merges, earliest first."""
        ids = list(chunk.encode("utf-8"))
        rank = self.ranks
        while len(ids) >= 2:
            # the pair that was merged earliest in training must be merged first, since
            # later merges were learnt on text where it was already merged
            pair = min(zip(ids, ids[1:]), key=lambda p: rank.get(p, math.inf))
            if pair not in rank:
                break  # no pair of this chunk was ever merged
            ids = merge(ids, pair, BYTES + rank[pair])
        return ids

    def encode(self, text):
        """`text` as a list of ids: pre-split into chunks, each chunk's UTF-8 bytes merged."""
        if not isinstance(text, str):
            raise TypeError(f"BPETokenizer.encode: expected a str, got {type(text).__name__}")
        ids = []
        for chunk in self._split(text):
            if chunk not in self._cache:
                if len(self._cache) >= 100_000:
                    self._cache.clear()  # bound the memory an endless stream of new words takes
                self._cache[chunk] = self._encode_chunk(chunk)
            ids.extend(self._cache[chunk])
        return ids

    def decode(self, ids):
        """The text of `ids` (a list, NumPy array or Tensor of ids). A slice of a text's
        ids may cut a character's UTF-8 bytes in two; such bytes decode as U+FFFD, as in
        GPT-2, while the ids of a whole text decode to exactly that text."""
        data = b"".join(
            self.vocab[i] for i in as_id_list(ids, self.vocab_size, "BPETokenizer.decode")
        )
        return data.decode("utf-8", errors="replace")

    def save(self, path):
        """Write the tokenizer to `path` as JSON: the split pattern and the merges in order."""
        state = {
            "type": "bpe",
            "pattern": self.pattern,
            "merges": [list(pair) for pair in self.merges],
        }
        Path(path).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path):
        """The tokenizer that `save` wrote to `path`. A file that is not one (not JSON, cut
        short, another shape, merges that are not pairs of ints or use ids not made yet, a
        pattern that is not a regular expression) is a ValueError naming the file; a
        missing path or a folder, Python's own errors."""
        where = f"BPETokenizer.load: {path}"
        state = read_saved(path, "bpe", "BPETokenizer.load", ["pattern", "merges"])
        merges, pattern = state["merges"], state["pattern"]
        if not isinstance(merges, list):
            raise ValueError(
                f"{where}: 'merges' must be a list of [left, right] id pairs, got a JSON "
                f"{json_type(merges)}"
            )
        for i, pair in enumerate(merges):
            # JSON true is a Python bool, an int subclass: refused, as 97.5 and "a" are
            if not (isinstance(pair, list) and len(pair) == 2 and all(_is_id(x) for x in pair)):
                raise ValueError(
                    f"{where}: merge {i} is {pair!r}; each merge must be a pair [left, right] of "
                    "int ids"
                )
        if pattern is not None and not isinstance(pattern, str):
            raise ValueError(
                f"{where}: 'pattern' must be a string or null, got a JSON {json_type(pattern)}"
            )
        try:
            re.compile(pattern or "")
        except re.error as err:
            raise ValueError(f"{where}: 'pattern' is not a regular expression ({err})") from None
        try:
            return cls(merges=merges, pattern=pattern)
        except ValueError as err:  # a merge of ids that do not exist yet
            raise ValueError(f"{where}: {err}") from None

    def __repr__(self):
        return f"BPETokenizer(vocab_size={self.vocab_size})"
