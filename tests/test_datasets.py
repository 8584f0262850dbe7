"""The real data sets: the bundled UCI digits, the IDX reader and MNIST from local files.

The IDX files are written here byte by byte with `struct` (not with minigrad), so the
reader is held against the format's definition rather than against itself.
"""

import gzip
import struct

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.data import MNIST, DataLoader, Digits, load_digits, read_idx
from minigrad.data.digits import DIGITS_FILE, stratified_split

# ---- the bundled digits ----------------------------------------------------------------------
# Images per digit 0..9 of the UCI test set, as documented by the UCI repository and scikit-learn.
DIGIT_COUNTS = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
# The first and last rows of the source file (sklearn/datasets/data/digits.csv.gz).
FIRST_IMAGE = [
    [0, 0, 5, 13, 9, 1, 0, 0],
    [0, 0, 13, 15, 10, 15, 5, 0],
    [0, 3, 15, 2, 0, 11, 8, 0],
    [0, 4, 12, 0, 0, 8, 8, 0],
    [0, 5, 8, 0, 0, 9, 8, 0],
    [0, 4, 11, 0, 1, 12, 7, 0],
    [0, 2, 14, 5, 10, 12, 0, 0],
    [0, 0, 6, 13, 10, 0, 0, 0],
]
LAST_IMAGE_FLAT = [
    0,
    0,
    10,
    14,
    8,
    1,
    0,
    0,
    0,
    2,
    16,
    14,
    6,
    1,
    0,
    0,
    0,
    0,
    15,
    15,
    8,
    15,
    0,
    0,
    0,
    0,
    5,
    16,
    16,
    10,
]
LAST_IMAGE_FLAT += [
    0,
    0,
    0,
    0,
    12,
    15,
    15,
    12,
    0,
    0,
    0,
    4,
    16,
    6,
    4,
    16,
    6,
    0,
    0,
    8,
    16,
    10,
    8,
    16,
    8,
    0,
    0,
    1,
    8,
]
LAST_IMAGE_FLAT += [12, 14, 12, 1, 0]


def test_the_digits_file_is_small_and_documented():
    assert DIGITS_FILE.is_file() and DIGITS_FILE.stat().st_size < 100_000
    readme = (DIGITS_FILE.parent / "README.md").read_text()
    for words in [
        "Alpaydin",
        "Kaynak",
        "UCI Machine Learning Repository",
        "1998",
        "CC BY 4.0",
        "scikit-learn",
    ]:
        assert words in readme


def test_load_digits_has_the_known_size_classes_and_pixels():
    images, labels = load_digits()
    assert images.shape == (1797, 8, 8) and images.dtype == np.uint8
    assert labels.shape == (1797,) and labels.dtype == np.int64
    assert np.bincount(labels).tolist() == DIGIT_COUNTS
    assert images.min() == 0 and images.max() == 16
    assert images[0].tolist() == FIRST_IMAGE and labels[0] == 0
    assert images[-1].ravel().tolist() == LAST_IMAGE_FLAT and labels[-1] == 8
    assert labels[:10].tolist() == list(range(10))
    # fingerprints of the whole file, taken from the source CSV when it was converted
    assert int(images.sum(dtype=np.int64)) == 561718 and int(labels.sum()) == 8070


def test_the_default_split_is_stratified_disjoint_and_complete():
    images, labels = load_digits()
    train_idx, test_idx = stratified_split(labels, 0.2, seed=0)
    assert len(train_idx) == 1438 and len(test_idx) == 359
    assert np.intersect1d(train_idx, test_idx).size == 0
    assert np.array_equal(np.sort(np.concatenate([train_idx, test_idx])), np.arange(1797))
    expected_test = [int(0.2 * c + 0.5) for c in DIGIT_COUNTS]
    assert np.bincount(labels[test_idx]).tolist() == expected_test
    train, test = Digits(train=True), Digits(train=False)
    np.testing.assert_array_equal(train.data, images[train_idx])
    np.testing.assert_array_equal(test.targets, labels[test_idx])
    assert (len(train), len(test)) == (1438, 359)


def test_the_split_depends_on_its_seed_and_fraction_but_not_on_manual_seed():
    mg.manual_seed(0)
    a = Digits(train=False).targets
    mg.manual_seed(123)
    b = Digits(train=False)
    assert np.array_equal(a, b.targets)
    assert not np.array_equal(b.data, Digits(train=False, seed=1).data)
    assert len(Digits(train=False, test_fraction=0.5)) == sum(
        int(0.5 * c + 0.5) for c in DIGIT_COUNTS
    )
    assert len(Digits(train=True, test_fraction=0.0)) == 1797
    with pytest.raises(ValueError, match="test_fraction must be between 0 and 1, got 1.5"):
        Digits(test_fraction=1.5)


def test_a_digit_example_is_a_scaled_float_image_and_an_int_label():
    ds = Digits(train=True)
    image, label = ds[0]
    assert isinstance(image, mg.Tensor) and image.shape == (1, 8, 8) and image.dtype == np.float32
    assert isinstance(label, int) and label == ds.targets[0]
    np.testing.assert_allclose(image.data[0], ds.data[0] / 16.0)
    raw, _ = Digits(train=True, normalize=False)[0]
    np.testing.assert_array_equal(raw.data[0], ds.data[0].astype(np.float32))
    assert ds.classes == list(range(10))
    assert repr(ds) == "Digits(1438 images of 8x8, 10 classes)"


def test_digits_apply_transform_and_target_transform():
    ds = Digits(train=False, transform=lambda x: x.reshape(-1), target_transform=lambda y: y + 100)
    image, label = ds[3]
    assert image.shape == (64,)
    assert label == ds.targets[3] + 100


def test_digits_are_learnable_through_the_dataloader():
    """A linear classifier trained for a few epochs of SGD on the training part must
    classify most of the test part: the images and labels belong together."""
    mg.manual_seed(0)
    train, test = Digits(train=True), Digits(train=False)
    w, b = mg.zeros(64, 10, requires_grad=True), mg.zeros(10, requires_grad=True)
    for _ in range(3):
        for x, y in DataLoader(train, batch_size=32, shuffle=True):
            assert x.shape[1:] == (1, 8, 8) and y.dtype == np.int64
            loss = F.cross_entropy(x.reshape(len(x), -1) @ w + b, y)
            w.grad = b.grad = None
            loss.backward()
            with mg.no_grad():
                w.array -= 0.5 * w.grad.array
                b.array -= 0.5 * b.grad.array
    x, y = next(iter(DataLoader(test, batch_size=len(test))))
    accuracy = ((x.reshape(len(x), -1) @ w + b).argmax(1) == y).float().mean().item()
    assert accuracy > 0.85


# ---- IDX files -----------------------------------------------------------------------------------
def idx_bytes(array, type_code, fmt):
    """An IDX file's bytes, by the format's definition: 0, 0, type, ndim, sizes, data
    (big-endian)."""
    header = struct.pack(">BBBB", 0, 0, type_code, array.ndim) + struct.pack(
        f">{array.ndim}I", *array.shape
    )
    return header + array.astype(fmt).tobytes()


def write(path, data, gzipped=False):
    path.write_bytes(gzip.compress(data) if gzipped else data)
    return path


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize(
    "array, type_code, fmt",
    [
        (np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4), 0x08, ">u1"),
        (np.array([-128, -1, 0, 127], dtype=np.int8), 0x09, ">i1"),
        (np.array([[-300, 2], [3, 30000]], dtype=np.int16), 0x0B, ">i2"),
        (np.array([[-(2**31), 1, 2**31 - 1]], dtype=np.int32), 0x0C, ">i4"),
        (np.array([1.5, -2.25, 1e30], dtype=np.float32), 0x0D, ">f4"),
        (np.array([[np.pi]], dtype=np.float64), 0x0E, ">f8"),
    ],
    ids=["uint8", "int8", "int16", "int32", "float32", "float64"],
)
def test_read_idx_reads_every_element_type(tmp_path, array, type_code, fmt, gzipped):
    path = write(tmp_path / "a-idx", idx_bytes(array, type_code, fmt), gzipped)
    out = read_idx(path)
    assert out.shape == array.shape and out.dtype == array.dtype and out.dtype.isnative
    np.testing.assert_array_equal(out, array)
    out[...] = 0  # a writable copy, not a view of the file's bytes


def test_read_idx_recognises_gzip_by_content_not_by_name(tmp_path):
    array = np.arange(6, dtype=np.uint8).reshape(2, 3)
    path = write(tmp_path / "no-suffix", idx_bytes(array, 0x08, ">u1"), gzipped=True)
    np.testing.assert_array_equal(read_idx(path), array)


GOOD = idx_bytes(np.arange(12, dtype=np.uint8).reshape(3, 4), 0x08, ">u1")


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x00\x00", r"has 2 bytes, too short for an IDX header"),
        (b"\x01\x02" + GOOD[2:], r"not an IDX file: it starts with magic number 0x01020802"),
        (b"\x00\x00\x07\x02" + GOOD[4:], r"not an IDX file: .*0x00000702"),
        (GOOD[:9], r"truncated: its header promises 2 dimension sizes"),
        (GOOD[:-1], r"is truncated: shape \(3, 4\) of uint8 needs 12 bytes .* found 11"),
        (GOOD + b"\x00", r"has extra bytes after the data: .* found 13"),
        (b"\x1f\x8b" + b"not really gzip", r"looks gzipped but cannot be decompressed"),
        (gzip.compress(GOOD)[:-6], r"looks gzipped but cannot be decompressed"),
    ],
    ids=[
        "short",
        "magic",
        "type",
        "header",
        "truncated",
        "extra",
        "gzip-garbage",
        "gzip-truncated",
    ],
)
def test_read_idx_rejects_damaged_files_naming_them(tmp_path, data, message):
    path = write(tmp_path / "bad-idx3-ubyte", data)
    with pytest.raises(ValueError, match=message) as info:
        read_idx(path)
    assert "bad-idx3-ubyte" in str(info.value)


# ---- MNIST from a folder -------------------------------------------------------------------------
def fake_mnist(folder, part, n, gzipped, rows=4, cols=3, seed=0):
    """Write a tiny MNIST part (n images of rows x cols) into `folder`; return its arrays."""
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, rows, cols), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n, dtype=np.uint8)
    suffix = ".gz" if gzipped else ""
    folder.mkdir(parents=True, exist_ok=True)
    write(folder / f"{part}-images-idx3-ubyte{suffix}", idx_bytes(images, 0x08, ">u1"), gzipped)
    write(folder / f"{part}-labels-idx1-ubyte{suffix}", idx_bytes(labels, 0x08, ">u1"), gzipped)
    return images, labels


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("train", [True, False], ids=["train", "t10k"])
def test_mnist_reads_the_standard_files(tmp_path, train, gzipped):
    images, labels = fake_mnist(tmp_path, "train" if train else "t10k", n=5, gzipped=gzipped)
    # the other part
    fake_mnist(tmp_path, "t10k" if train else "train", n=2, gzipped=not gzipped, seed=9)
    ds = MNIST(tmp_path, train=train)
    assert len(ds) == 5
    np.testing.assert_array_equal(ds.data, images)
    assert ds.targets.dtype == np.int64 and ds.targets.tolist() == labels.tolist()
    image, label = ds[4]
    assert image.shape == (1, 4, 3) and image.dtype == np.float32
    np.testing.assert_allclose(image.data[0], images[4] / 255.0, rtol=1e-6)
    assert label == labels[4] and isinstance(label, int)


def test_mnist_reads_a_torchvision_folder_and_batches(tmp_path):
    images, labels = fake_mnist(tmp_path / "MNIST" / "raw", "train", n=6, gzipped=True)
    ds = MNIST(str(tmp_path), transform=lambda x: x * 2, target_transform=lambda y: -y)
    x, y = next(iter(DataLoader(ds, batch_size=6)))
    assert x.shape == (6, 1, 4, 3)
    np.testing.assert_allclose(x.array[:, 0], images / 255.0 * 2, rtol=1e-6)
    assert y.tolist() == [-int(v) for v in labels]


def test_mnist_says_which_files_are_missing_and_where_to_get_them(tmp_path):
    fake_mnist(tmp_path, "train", n=2, gzipped=False)
    (tmp_path / "train-labels-idx1-ubyte").unlink()
    with pytest.raises(FileNotFoundError) as info:
        MNIST(tmp_path, train=True)
    message = str(info.value)
    assert (
        "train-labels-idx1-ubyte" in message and "train-images" not in message.split("not found")[0]
    )
    assert str(tmp_path) in message and "https://ossci-datasets.s3.amazonaws.com/mnist/" in message
    with pytest.raises(
        FileNotFoundError, match="t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte"
    ):
        MNIST(tmp_path, train=False)


def test_mnist_rejects_files_that_do_not_fit_together(tmp_path):
    images, labels = fake_mnist(tmp_path, "train", n=3, gzipped=False)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(labels[:2], 0x08, ">u1"))
    with pytest.raises(ValueError, match="has 3 images but .* has 2 labels"):
        MNIST(tmp_path)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes(labels.astype(np.int32), 0x0C, ">i4"))
    with pytest.raises(ValueError, match=r"should hold uint8 labels \(N,\), got int32"):
        MNIST(tmp_path)
    write(tmp_path / "train-images-idx3-ubyte", idx_bytes(images.reshape(3, 12), 0x08, ">u1"))
    with pytest.raises(
        ValueError, match=r"should hold uint8 images \(N, rows, cols\), got uint8 \(3, 12\)"
    ):
        MNIST(tmp_path)
    write(tmp_path / "train-images-idx3-ubyte", b"\x00\x00\x08\x03garbage")
    with pytest.raises(ValueError, match="train-images-idx3-ubyte is truncated"):
        MNIST(tmp_path)
