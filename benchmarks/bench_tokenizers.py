"""Tokenizer throughput in characters per second: minigrad.text against the naive ways
of doing the same thing, on Tiny Shakespeare.

    python benchmarks/bench_tokenizers.py [--quick] [--repeat 3]

- BPE training, 50,000 characters to a vocabulary of 320 (64 merges), GPT-2 pre-split:
  `BPETokenizer.train` (each distinct chunk once with its count; pair counts kept from
  merge to merge and updated only for the chunks a merge touches) against the textbook
  trainer (recount every pair of every chunk after every merge). Both learn the same
  merges (checked here; the test suite checks it on more text).
- BPE encoding, 100,000 characters the tokenizer never saw (trained on the first
  100,000 to 512): `encode` (each distinct chunk merged once, then looked up) against
  the same merges replayed on every chunk as it comes (no cache).
- character encoding, the whole text (1.1 M characters): `CharTokenizer.encode` (a dict
  lookup per character) against a search of the vocabulary list per character
  (`chars.index(c)`) and against NumPy (the text as UTF-32 code points, one table lookup
  for all of them).

No compiled tokenizer library (tiktoken, Hugging Face tokenizers) is a dependency, so
none is compared here: these are pure-Python tokenizers, and the comparison is with the
simple alternatives. The cases take turns; printed: characters per second, median
(min-max) over --repeat turns, and the speed-up over the naive way.
"""

import argparse
import re
import time
from collections import Counter

import numpy as np
from lesson_timing import span


def textbook_merges(chunks, vocab_size):
    """The textbook BPE trainer: after every merge, count every pair of every chunk
    again; the most frequent pair wins, the smallest among equals."""
    from minigrad.text.bpe import merge

    words = [list(chunk.encode("utf-8")) for chunk in chunks]
    merges = []
    while 256 + len(merges) < vocab_size:
        counts = Counter(pair for word in words for pair in zip(word, word[1:]))
        if not counts:
            break
        best = min(counts, key=lambda pair: (-counts[pair], pair))
        merges.append(best)
        words = [merge(word, best, 255 + len(merges)) for word in words]
    return merges


def cases(quick=False):
    """{task: (characters, {name: fn})}: the functions of each task, same output checked."""
    from minigrad.data import tiny_shakespeare
    from minigrad.text import GPT2_SPLIT_PATTERN, BPETokenizer, CharTokenizer

    text = tiny_shakespeare()
    n_train, vocab = (5_000, 270) if quick else (50_000, 320)
    train_text = text[:n_train]
    ours = BPETokenizer.train(train_text, vocab)
    if ours.merges != textbook_merges(re.findall(GPT2_SPLIT_PATTERN, train_text), vocab):
        raise RuntimeError("bench_tokenizers: BPETokenizer.train and the textbook trainer disagree")
    train = {
        "minigrad BPETokenizer.train": lambda: BPETokenizer.train(train_text, vocab),
        "textbook (recount every merge)": lambda: textbook_merges(
            re.findall(GPT2_SPLIT_PATTERN, train_text), vocab
        ),
    }

    n_encode = 10_000 if quick else 100_000
    bpe = BPETokenizer.train(text[:100_000], 512)
    unseen = text[100_000 : 100_000 + n_encode]

    def encode_cached():
        bpe._cache.clear()  # every call starts cold: the cache fills from this text alone
        return bpe.encode(unseen)

    def encode_uncached():
        return [
            i for chunk in re.findall(GPT2_SPLIT_PATTERN, unseen) for i in bpe._encode_chunk(chunk)
        ]

    if encode_cached() != encode_uncached():
        raise RuntimeError("bench_tokenizers: the cached and uncached BPE encodings disagree")
    encode = {
        "minigrad BPETokenizer.encode": encode_cached,
        "merges replayed per chunk": encode_uncached,
    }

    char_text = text[:100_000] if quick else text
    chars = CharTokenizer.train(text)
    table = np.full(max(map(ord, chars.chars)) + 1, -1, dtype=np.int64)
    table[[ord(c) for c in chars.chars]] = np.arange(chars.vocab_size)

    def char_numpy():
        return table[np.frombuffer(char_text.encode("utf-32-le"), dtype=np.uint32)]

    def char_index():
        return [chars.chars.index(c) for c in char_text]

    if not (chars.encode(char_text) == char_numpy().tolist() == char_index()):
        raise RuntimeError("bench_tokenizers: the character encodings disagree")
    char = {
        "minigrad CharTokenizer.encode": lambda: chars.encode(char_text),
        "list search per character": char_index,
        "NumPy table lookup": char_numpy,
    }
    return {
        f"BPE training ({len(train_text):,} chars, vocab {vocab})": (len(train_text), train),
        f"BPE encoding ({len(unseen):,} unseen chars)": (len(unseen), encode),
        f"character encoding ({len(char_text):,} chars)": (len(char_text), char),
    }


def run(repeat=3, quick=False):
    """{task: {name: [chars per second of each turn]}}, printed as a table."""
    results = {}
    for task, (n_chars, fns) in cases(quick).items():
        rates = {k: [] for k in fns}
        order = list(fns)
        for r in range(repeat):
            for k in order if r % 2 == 0 else order[::-1]:
                start = time.perf_counter()
                fns[k]()
                rates[k].append(n_chars / (time.perf_counter() - start))
        results[task] = rates
        print(f"\n{task}: characters per second, median (min-max) of {repeat} turns")
        first = order[0]
        for k, values in rates.items():
            ratio = span([a / b for a, b in zip(rates[first], values)], "{:.1f}x")
            print(f"  {k:32s} {span(values, '{:,.0f}'):>36s}   minigrad's speed-up {ratio}")
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small texts, one turn: checks that the script runs"
    )
    parser.add_argument("--repeat", type=int, default=3, help="turns per case (default: 3)")
    args = parser.parse_args()
    run(1 if args.quick else args.repeat, args.quick)


if __name__ == "__main__":
    main()
