"""minigrad.text and the bundled Tiny Shakespeare: tokenizers, the text dataset, the text.

Expected values come from outside the code under test: merges worked out by hand, a
plain BPE trainer written here that recounts every pair after every merge (the
tokenizer counts incrementally), the facts nanoGPT's shakespeare_char/prepare.py prints
for the same file, and the size and SHA-256 that files/README.md states.
"""

import hashlib
import json
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.data import DataLoader, tiny_shakespeare
from minigrad.data.shakespeare import TINY_SHAKESPEARE_FILE
from minigrad.text import (
    GPT2_SPLIT_PATTERN,
    BPETokenizer,
    CharTokenizer,
    TextDataset,
    train_val_split,
)

# What nanoGPT's data/shakespeare_char/prepare.py prints for this file.
SHAKESPEARE_CHARS = "\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SHAKESPEARE_LENGTH = 1_115_394
SHAKESPEARE_TRAIN_TOKENS, SHAKESPEARE_VAL_TOKENS = 1_003_854, 111_540


@pytest.fixture(scope="module")
def shakespeare():
    return tiny_shakespeare()


# ---- the bundled text ------------------------------------------------------------------------


def test_the_bundled_text_matches_the_size_and_checksum_its_readme_states(shakespeare):
    readme = (TINY_SHAKESPEARE_FILE.parent / "README.md").read_text()
    section = readme[readme.index("tinyshakespeare.txt.xz") :]
    stated_size = int(re.search(r"size: (\d+) bytes", section).group(1))
    stated_sha256 = re.search(r"SHA-256: ([0-9a-f]{64})", section).group(1)
    assert "karpathy/char-rnn" in section and "nanoGPT" in section  # the source is named
    data = shakespeare.encode("utf-8")
    assert len(data) == stated_size == SHAKESPEARE_LENGTH
    assert hashlib.sha256(data).hexdigest() == stated_sha256


def test_the_bundled_text_is_tiny_shakespeare_and_ships_compressed(shakespeare):
    assert TINY_SHAKESPEARE_FILE.suffix == ".xz" and TINY_SHAKESPEARE_FILE.stat().st_size < 400_000
    assert len(shakespeare) == SHAKESPEARE_LENGTH  # ASCII: as many characters as bytes
    assert shakespeare.startswith("First Citizen:\nBefore we proceed any further, hear me speak.\n")
    assert "".join(sorted(set(shakespeare))) == SHAKESPEARE_CHARS


def test_the_90_10_split_of_tiny_shakespeare_is_nanogpts(shakespeare):
    train, val = train_val_split(CharTokenizer.train(shakespeare).encode(shakespeare), 0.9)
    assert (len(train), len(val)) == (SHAKESPEARE_TRAIN_TOKENS, SHAKESPEARE_VAL_TOKENS)
    assert train.dtype == val.dtype == np.int64


# ---- CharTokenizer ---------------------------------------------------------------------------


def test_char_vocabulary_is_the_sorted_characters():
    tok = CharTokenizer.train("hello")
    assert tok.chars == ["e", "h", "l", "o"] and tok.vocab_size == 4
    assert tok.encode("hello") == [1, 0, 2, 2, 3]
    assert tok.decode([3, 0]) == "oe"


def test_char_tokenizer_of_shakespeare_has_nanogpts_65_characters(shakespeare):
    tok = CharTokenizer.train(shakespeare)
    assert tok.vocab_size == 65
    assert tok.encode("hii there") == [46, 47, 47, 1, 58, 46, 43, 56, 43]  # nanoGPT's example


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_char_round_trip_on_strings_of_the_vocabulary(data):
    vocabulary = data.draw(st.text(min_size=1, max_size=40))
    tok = CharTokenizer.train(vocabulary)
    text = data.draw(st.text(alphabet=sorted(set(vocabulary)), max_size=200))
    ids = tok.encode(text)
    assert len(ids) == len(text) and all(0 <= i < tok.vocab_size for i in ids)
    assert tok.decode(ids) == text


def test_decode_accepts_lists_arrays_and_tensors():
    tok = CharTokenizer.train("abc")
    ids = [2, 0, 1]
    for form in (ids, tuple(ids), np.array(ids), np.array(ids, dtype=np.int32), mg.tensor(ids)):
        assert tok.decode(form) == "cab"
    assert tok.decode([]) == ""


def test_char_encode_names_the_unknown_character():
    tok = CharTokenizer.train("abc")
    with pytest.raises(ValueError, match=r"'z' \(U\+007A\) at position 2 is not in the vocabulary"):
        tok.encode("abzc")


def test_char_errors():
    tok = CharTokenizer.train("abc")
    with pytest.raises(ValueError, match="token id 3 is out of range for a vocabulary of 3"):
        tok.decode([0, 3])
    with pytest.raises(ValueError, match="token id -1 is out of range"):
        tok.decode(np.array([-1]))
    with pytest.raises(TypeError, match="token ids must be integers"):
        tok.decode(np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match="token ids must be integers"):
        tok.decode([0, "a"])
    with pytest.raises(ValueError, match="1-D sequence"):
        tok.decode(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="empty"):
        CharTokenizer.train("")
    with pytest.raises(TypeError, match="expected a str"):
        tok.encode([1, 2])


def test_char_save_and_load(tmp_path):
    tok = CharTokenizer.train("to be, or not to be: ÿ€😀")
    tok.save(tmp_path / "chars.json")
    loaded = CharTokenizer.load(tmp_path / "chars.json")
    assert loaded.chars == tok.chars
    assert loaded.encode("or not 😀") == tok.encode("or not 😀")
    BPETokenizer.train("abc", 256).save(tmp_path / "bpe.json")
    with pytest.raises(ValueError, match="does not hold a saved CharTokenizer"):
        CharTokenizer.load(tmp_path / "bpe.json")


# ---- BPETokenizer ----------------------------------------------------------------------------


def plain_bpe_merges(chunks, vocab_size):
    """The textbook trainer: after every merge, count every pair of every chunk again;
    the most frequent pair wins, the smallest pair among equals."""
    words = [list(chunk.encode("utf-8")) for chunk in chunks]
    merges = []
    while 256 + len(merges) < vocab_size:
        counts = Counter(pair for word in words for pair in zip(word, word[1:]))
        if not counts:
            break
        top = max(counts.values())
        pair = min(p for p, c in counts.items() if c == top)
        new_id = 256 + len(merges)
        merges.append(pair)
        for w, word in enumerate(words):
            out, i = [], 0
            while i < len(word):
                if word[i : i + 2] == list(pair):
                    out.append(new_id)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            words[w] = out
    return merges, words


def test_bpe_merges_of_a_tiny_corpus_by_hand():
    # "aaabdaaabac" (a=97, b=98, c=99, d=100), counted by hand:
    #   pairs aa:4 ab:2 bd:1 da:1 ba:1 ac:1              -> merge (97, 97) = 256
    #   256 a b d 256 a b a c: (256,a):2 (a,b):2, rest 1 -> tie, the smaller (97, 98) = 257
    #   256 257 d 256 257 a c: (256,257):2, rest 1       -> merge (256, 257) = 258
    #   258 d 258 a c: four pairs of count 1             -> the smallest, (97, 99) = 259
    tok = BPETokenizer.train("aaabdaaabac", 260, pattern=None)
    assert tok.merges == [(97, 97), (97, 98), (256, 257), (97, 99)]
    assert tok.vocab_size == 260
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 259]
    assert [tok.decode([i]) for i in range(256, 260)] == ["aa", "ab", "aaab", "ac"]
    assert tok.encode("daab") == [100, 256, 98]  # "aa" and "ab" both apply; "aa" was learnt first
    assert tok.encode("dab") == [100, 257]


def test_gpt2_pre_split():
    # "\n\nyes": the whitespace run before a word gives up its last character, which
    # (not being a space) becomes a chunk of its own, as with GPT-2's regex
    chunks = re.findall(GPT2_SPLIT_PATTERN, "Hello world's 42 cats!!  ok_go\n\nyes")
    assert chunks == [
        "Hello",
        " world",
        "'s",
        " 42",
        " cats",
        "!!",
        " ",
        " ok",
        "_",
        "go",
        "\n",
        "\n",
        "yes",
    ]


def test_no_merge_crosses_a_chunk():
    # "a." never occurs inside a chunk, so there is nothing to merge; without the split, "a." wins
    # (4 against 3)
    assert BPETokenizer.train("a.a.a.a.", 300).merges == []
    assert BPETokenizer.train("a.a.a.a.", 257, pattern=None).merges == [(97, 46)]


@pytest.mark.parametrize("pattern", [GPT2_SPLIT_PATTERN, None], ids=["gpt2-split", "no-split"])
def test_bpe_training_matches_the_textbook_trainer(shakespeare, pattern):
    # without the split the textbook trainer rescans one long chunk per merge: a shorter text
    text = shakespeare[: 20_000 if pattern else 4_000] + " naïve café – 東京 😀😀"
    tok = BPETokenizer.train(text, 400, pattern=pattern)
    chunks = re.findall(GPT2_SPLIT_PATTERN, text) if pattern else [text]
    merges, words = plain_bpe_merges(chunks, 400)
    assert tok.merges == merges and tok.vocab_size == 400
    # encoding the training text gives the textbook trainer's final words
    assert tok.encode(text) == [i for word in words for i in word]


@settings(max_examples=30, deadline=None)
@given(st.text(max_size=60), st.integers(256, 300))
def test_bpe_training_on_any_text_matches_the_textbook_trainer(text, vocab_size):
    tok = BPETokenizer.train(text, vocab_size)
    merges, words = plain_bpe_merges(re.findall(GPT2_SPLIT_PATTERN, text), vocab_size)
    assert tok.merges == merges
    assert tok.encode(text) == [i for word in words for i in word]


@pytest.fixture(scope="module")
def shakespeare_bpe(shakespeare):
    return BPETokenizer.train(shakespeare[:100_000], 512)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_bpe_round_trip_is_exact_on_any_string(shakespeare_bpe, text):
    ids = shakespeare_bpe.encode(text)
    assert all(0 <= i < 512 for i in ids)
    assert shakespeare_bpe.decode(ids) == text
    assert "".join(re.findall(GPT2_SPLIT_PATTERN, text)) == text  # the pre-split loses nothing


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=80), st.text())
def test_bpe_trained_on_any_text_round_trips_any_text(corpus, text):
    for pattern in (GPT2_SPLIT_PATTERN, None):
        tok = BPETokenizer.train(corpus, 280, pattern=pattern)
        assert tok.decode(tok.encode(text)) == text


def test_bpe_compresses_shakespeare(shakespeare, shakespeare_bpe):
    text = shakespeare[100_000:120_000]  # text it was not trained on
    ids = shakespeare_bpe.encode(text)
    assert len(ids) < 0.6 * len(text.encode("utf-8"))
    assert shakespeare_bpe.decode(ids) == text
    assert shakespeare_bpe.encode(" the") == [shakespeare_bpe.vocab.index(b" the")]


def test_bpe_decode_of_a_cut_character_gives_the_replacement_character():
    tok = BPETokenizer()  # no merges: one id per byte
    ids = tok.encode("é")
    assert ids == [0xC3, 0xA9]
    assert tok.decode(ids[:1]) == "\ufffd"
    assert tok.decode(mg.tensor(ids)) == tok.decode(np.array(ids)) == "é"


def test_bpe_save_and_load(tmp_path, shakespeare, shakespeare_bpe):
    shakespeare_bpe.save(tmp_path / "bpe.json")
    state = json.loads((tmp_path / "bpe.json").read_text(encoding="utf-8"))
    assert state["merges"] == [list(pair) for pair in shakespeare_bpe.merges]  # in order
    loaded = BPETokenizer.load(tmp_path / "bpe.json")
    assert loaded.vocab_size == 512 and loaded.vocab == shakespeare_bpe.vocab
    text = shakespeare[200_000:210_000] + " ünïcödé 😀"
    assert loaded.encode(text) == shakespeare_bpe.encode(text)
    unsplit = BPETokenizer.train(shakespeare[:5000], 300, pattern=None)
    unsplit.save(tmp_path / "unsplit.json")
    assert BPETokenizer.load(tmp_path / "unsplit.json").encode(text) == unsplit.encode(text)


def test_bpe_errors(tmp_path):
    with pytest.raises(ValueError, match="vocab_size must be an int >= 256"):
        BPETokenizer.train("abc", 255)
    with pytest.raises(ValueError, match="vocab_size must be an int >= 256"):
        BPETokenizer.train("abc", 300.0)
    tok = BPETokenizer.train("abcabc", 258)
    with pytest.raises(ValueError, match="token id 258 is out of range for a vocabulary of 258"):
        tok.decode([97, 258])
    with pytest.raises(TypeError, match="expected a str"):
        tok.encode(b"abc")
    with pytest.raises(ValueError, match="only ids 0..256 exist"):
        BPETokenizer(merges=[(97, 98), (257, 1)])
    CharTokenizer.train("abc").save(tmp_path / "char.json")
    with pytest.raises(ValueError, match="does not hold a saved BPETokenizer"):
        BPETokenizer.load(tmp_path / "char.json")


# ---- damaged or wrong tokenizer files: ValueErrors that name the file ----------------------------
CHAR_OK = '{"type": "char", "chars": ["a", "b", "c"]}'
BPE_OK = '{"type": "bpe", "pattern": null, "merges": [[97, 98], [256, 99]]}'

# (file contents, what the message must say); each is read by the tokenizer of its type
BAD_CHAR_FILES = {
    "not-json": ("chars: a, b, c", "not valid JSON"),
    "empty": ("", "not valid JSON"),
    "truncated": (CHAR_OK[:25], "not valid JSON"),
    "a-list": ('["a", "b"]', "expected a JSON object, got a JSON array"),
    "a-number": ("3", "expected a JSON object, got a JSON number"),
    "no-type": ('{"chars": ["a"]}', "its type is None, expected 'char'"),
    "no-chars": ('{"type": "char"}', "lacks the key 'chars'"),
    "chars-a-string": (
        '{"type": "char", "chars": "abc"}',
        "'chars' must be a list of single characters, got a JSON string",
    ),
    "chars-a-number": (
        '{"type": "char", "chars": 5}',
        "'chars' must be a list of single characters, got a JSON number",
    ),
    "chars-not-characters": ('{"type": "char", "chars": ["a", 1]}', "single characters, got 1"),
    "chars-twice": ('{"type": "char", "chars": ["a", "a"]}', "holds a character twice"),
    "chars-empty": ('{"type": "char", "chars": []}', "the vocabulary is empty"),
}
BAD_BPE_FILES = {
    "not-json": ("merges: 97 98", "not valid JSON"),
    "truncated": (BPE_OK[:-6], "not valid JSON"),
    "a-list": ("[[97, 98]]", "expected a JSON object, got a JSON array"),
    "no-merges": ('{"type": "bpe", "pattern": null}', "lacks the key 'merges'"),
    "no-pattern": ('{"type": "bpe", "merges": []}', "lacks the key 'pattern'"),
    "merges-a-dict": (
        '{"type": "bpe", "pattern": null, "merges": {"97": 98}}',
        "'merges' must be a list",
    ),
    "merge-of-three": (
        '{"type": "bpe", "pattern": null, "merges": [[97, 98, 99]]}',
        "merge 0 is [97, 98, 99]",
    ),
    "merge-of-floats": (
        '{"type": "bpe", "pattern": null, "merges": [[97.5, 98]]}',
        "merge 0 is [97.5, 98]",
    ),
    "merge-of-strings": (
        '{"type": "bpe", "pattern": null, "merges": [["a", "b"]]}',
        "merge 0 is ['a', 'b']",
    ),
    "merge-of-bools": (
        '{"type": "bpe", "pattern": null, "merges": [[true, 98]]}',
        "merge 0 is [True, 98]",
    ),
    "unknown-id": (
        '{"type": "bpe", "pattern": null, "merges": [[97, 98], [300, 99]]}',
        "only ids 0..256 exist",
    ),
    "negative-id": (
        '{"type": "bpe", "pattern": null, "merges": [[-1, 98]]}',
        "only ids 0..255 exist",
    ),
    "pattern-a-number": (
        '{"type": "bpe", "pattern": 5, "merges": []}',
        "'pattern' must be a string or null",
    ),
    "pattern-not-a-regex": (
        '{"type": "bpe", "pattern": "(", "merges": []}',
        "'pattern' is not a regular expression",
    ),
}


@pytest.mark.parametrize(
    "cls, contents, message",
    [(CharTokenizer, *v) for v in BAD_CHAR_FILES.values()]
    + [(BPETokenizer, *v) for v in BAD_BPE_FILES.values()],
    ids=[f"char-{k}" for k in BAD_CHAR_FILES] + [f"bpe-{k}" for k in BAD_BPE_FILES],
)
def test_a_bad_tokenizer_file_is_a_value_error_naming_the_file(cls, contents, message, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(contents, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        cls.load(path)
    assert f"{cls.__name__}.load: {path}" in str(info.value)
    assert message in str(info.value)
    # not a JSONDecodeError, KeyError or re.error that slipped through
    assert type(info.value) is ValueError


@pytest.mark.parametrize("cls", [CharTokenizer, BPETokenizer])
def test_a_tokenizer_file_that_is_not_text_or_not_a_file(cls, tmp_path):
    binary = tmp_path / "weights.npz"
    binary.write_bytes(b"PK\x03\x04\xff\xfe\x00\x01")
    with pytest.raises(ValueError, match=f"{cls.__name__}.load: .*weights.npz is not UTF-8 text"):
        cls.load(binary)
    with pytest.raises(IsADirectoryError, match="tmp|test"):  # Python's own, with the path
        cls.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="missing.json"):
        cls.load(tmp_path / "missing.json")


def test_good_files_written_by_hand_still_load(tmp_path):
    (tmp_path / "char.json").write_text(CHAR_OK, encoding="utf-8")
    (tmp_path / "bpe.json").write_text(BPE_OK, encoding="utf-8")
    assert CharTokenizer.load(tmp_path / "char.json").encode("cab") == [2, 0, 1]
    bpe = BPETokenizer.load(tmp_path / "bpe.json")
    assert bpe.encode("abcab") == [257, 256] and bpe.decode([257]) == "abc"


# ---- TextDataset -----------------------------------------------------------------------------


def test_text_dataset_examples_are_windows_shifted_by_one():
    tokens = np.arange(100) * 3
    ds = TextDataset(tokens, block_size=8)
    assert len(ds) == 92
    x, y = ds[5]
    assert x.dtype == y.dtype == mg.int64 and x.shape == y.shape == (8,)
    assert x.tolist() == list(range(15, 39, 3)) and y.tolist() == list(range(18, 42, 3))
    x, y = ds[len(ds) - 1]
    assert y.tolist()[-1] == 297  # the last example ends at the last token
    assert ds[-1][0].tolist() == x.tolist()
    with pytest.raises(IndexError, match="index 92 is out of range for 92 examples"):
        ds[92]
    for form in ([int(t) for t in tokens], mg.tensor(tokens)):
        assert TextDataset(form, 8)[5][1].tolist() == list(range(18, 42, 3))


def test_random_batch_shapes_shift_and_offsets():
    ds = TextDataset(np.arange(50), block_size=6)
    mg.manual_seed(0)
    x, y = ds.random_batch(12)
    assert x.shape == y.shape == (12, 6) and x.dtype == y.dtype == mg.int64
    assert np.array_equal(y.numpy(), x.numpy() + 1)  # each row a window, y one token on
    assert np.array_equal(x.numpy()[:, 1:], y.numpy()[:, :-1])
    starts = set()
    for _ in range(200):
        starts.update(ds.random_batch(8)[0].numpy()[:, 0].tolist())
    assert starts == set(range(len(ds)))  # every offset, the last one included, is drawn


def test_random_batch_is_reproducible_under_manual_seed():
    ds = TextDataset(np.arange(1000), block_size=16)
    mg.manual_seed(123)
    first = [ds.random_batch(4)[0].numpy() for _ in range(3)]
    mg.manual_seed(123)
    again = [ds.random_batch(4)[0].numpy() for _ in range(3)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], first[1])  # the stream moves on between batches
    mg.manual_seed(124)
    assert not np.array_equal(ds.random_batch(4)[0].numpy(), first[0])


def test_random_batch_with_its_own_generator_leaves_the_global_stream_alone():
    ds = TextDataset(np.arange(1000), block_size=16)
    mg.manual_seed(0)
    expected = ds.random_batch(4)[0].numpy()
    mg.manual_seed(0)
    a = ds.random_batch(4, generator=mg.Generator().manual_seed(7))[0].numpy()
    assert np.array_equal(ds.random_batch(4)[0].numpy(), expected)
    assert np.array_equal(ds.random_batch(4, generator=mg.Generator().manual_seed(7))[0].numpy(), a)
    with pytest.raises(TypeError, match="TextDataset.random_batch: generator must be"):
        ds.random_batch(4, generator=7)


def test_text_dataset_works_with_a_dataloader():
    ds = TextDataset(np.arange(40), block_size=5)
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert x.shape == y.shape == (4, 5)
    assert x.numpy()[:, 0].tolist() == [0, 1, 2, 3] and np.array_equal(y.numpy(), x.numpy() + 1)


def test_text_dataset_errors():
    with pytest.raises(ValueError, match="11 tokens are too few for block_size 11"):
        TextDataset(np.arange(11), 11)
    with pytest.raises(ValueError, match="block_size must be a positive int"):
        TextDataset(np.arange(11), 0)
    with pytest.raises(ValueError, match="1-D sequence"):
        TextDataset(np.zeros((4, 4), dtype=np.int64), 2)
    with pytest.raises(TypeError, match="token ids must be integers"):
        TextDataset(np.zeros(10), 2)
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        TextDataset(np.arange(11), 4).random_batch(0)
    with pytest.raises(ValueError, match="train_fraction must be between 0 and 1"):
        train_val_split(np.arange(10), 1.5)


def test_train_val_split_takes_the_head_and_the_tail():
    train, val = train_val_split(list(range(10)), 0.9)
    assert train.tolist() == list(range(9)) and val.tolist() == [9]
