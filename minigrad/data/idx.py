"""read_idx: the IDX file format that MNIST (and Fashion-MNIST) are distributed in.

An IDX file is a tiny header followed by raw numbers, all big-endian:

    bytes 0-1   0x00 0x00                   (always zero)
    byte  2     the element type            (0x08 uint8, 0x09 int8, 0x0B int16,
                                             0x0C int32, 0x0D float32, 0x0E float64)
    byte  3     the number of dimensions d
    4*d bytes   each dimension's size, an unsigned 32-bit integer
    the rest    prod(sizes) elements, row-major

So MNIST's training images start 00 00 08 03 | 60000 | 28 | 28 (the "magic number"
0x00000803), then 47,040,000 bytes of pixels. The files are usually distributed
gzipped; `read_idx` recognises gzip by its own magic bytes (1f 8b), whatever the name.
"""

import gzip
import struct
import zlib

import numpy as np

IDX_TYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
GZIP_MAGIC = b"\x1f\x8b"


def read_idx(path):
    """The array stored in the IDX file at `path` (plain or gzipped), in native byte order.

    Raises ValueError, naming the file, when the header is not an IDX header or the
    data is shorter or longer than the header says.
    """
    raw = _read_bytes(path)
    if len(raw) < 4:
        raise ValueError(
            f"read_idx: {path} has {len(raw)} bytes, too short for an IDX header (4 bytes at least)"
        )
    zero, type_code, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or type_code not in IDX_TYPES:
        raise ValueError(
            f"read_idx: {path} is not an IDX file: it starts with magic number 0x{raw[:4].hex()}, "
            f"expected 0x0000TTDD with TT an element type in {[f'{t:02x}' for t in IDX_TYPES]} and "
            "DD the number of dims"
        )
    header_size = 4 + 4 * ndim
    if len(raw) < header_size:
        raise ValueError(
            f"read_idx: {path} is truncated: its header promises {ndim} dimension sizes but the "
            "file ends"
        )
    shape = struct.unpack(f">{ndim}I", raw[4:header_size])
    dtype = IDX_TYPES[type_code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    found = len(raw) - header_size
    if found != expected:
        problem = "is truncated" if found < expected else "has extra bytes after the data"
        raise ValueError(
            f"read_idx: {path} {problem}: shape {shape} of {dtype.name} needs {expected} bytes of "
            f"data after the {header_size}-byte header, found {found}"
        )
    data = np.frombuffer(raw, dtype=dtype, offset=header_size).reshape(shape)
    return data.astype(dtype.newbyteorder("="))  # a writable copy in this machine's byte order


def _read_bytes(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] != GZIP_MAGIC:
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as err:  # BadGzipFile is an OSError
        raise ValueError(
            f"read_idx: {path} looks gzipped but cannot be decompressed ({err})"
        ) from err
