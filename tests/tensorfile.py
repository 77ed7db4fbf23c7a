#!/usr/bin/python3
"""Read and write posbench tensorfiles (see core/tensorfile.h) with NumPy.

Layout (little-endian):
  b"PBTF", u32 version = 2 (1 is still read), u32 count, then per entry:
  u32 name_len, name bytes (UTF-8, no NUL), u32 dtype (0 = f32, 1 = i32, 2 = f64, 3 = u8),
  u32 ndim, u32 dims[ndim], then the data (product(dims) elements, row-major), then
  (version 2) u32 CRC-32 (zlib) of every byte of the entry before it.

    read(path)         -> dict name -> ndarray (insertion order = file order)
    write(path, dict)  -> writes "<path>.tmp", fsyncs, renames (the C side, core/safe_file.h, uses a
                          hidden temporary name of its own in the same directory)

Run with Debian's Python: /usr/bin/python3 tests/tensorfile.py FILE  (lists the entries)
"""
import os
import struct
import sys
import zlib

import numpy as np

MAGIC = b"PBTF"
VERSION = 2
READ_VERSIONS = (1, 2)
MAX_NDIM = 8  # tf_entry.dims[8] on the C side

DTYPES = {0: np.dtype("<f4"), 1: np.dtype("<i4"), 2: np.dtype("<f8"), 3: np.dtype("u1")}
CODES = {np.dtype("<f4"): 0, np.dtype("<i4"): 1, np.dtype("<f8"): 2, np.dtype("u1"): 3}


class TensorfileError(Exception):
    """The file is missing, truncated, corrupt (checksum) or not a tensorfile."""


def _parse(buf, path):
    pos = 0

    def take(n, what):
        nonlocal pos
        if pos + n > len(buf):
            raise TensorfileError(f"{path}: truncated at byte {pos} while reading {what} "
                                  f"(need {n} bytes, {len(buf) - pos} left)")
        out = buf[pos:pos + n]
        pos += n
        return out

    def u32(what):
        return struct.unpack("<I", take(4, what))[0]

    magic = take(4, "magic")
    if magic != MAGIC:
        raise TensorfileError(f"{path}: not a tensorfile (magic {bytes(magic)!r}, expected {MAGIC!r})")
    version = u32("version")
    if version not in READ_VERSIONS:
        raise TensorfileError(f"{path}: unsupported tensorfile version {version} (expected {READ_VERSIONS})")
    count = u32("entry count")
    out = {}
    for i in range(count):
        start = pos
        nlen = u32(f"name length of entry {i}")
        if nlen > 1 << 16:
            raise TensorfileError(f"{path}: entry {i}: implausible name length {nlen}")
        try:
            name = bytes(take(nlen, f"name of entry {i}")).decode("utf-8")
        except UnicodeDecodeError as e:
            raise TensorfileError(f"{path}: entry {i}: name is not UTF-8 ({e})") from None
        code = u32(f"dtype of {name!r}")
        if code not in DTYPES:
            raise TensorfileError(f"{path}: entry {name!r}: unknown dtype code {code}")
        ndim = u32(f"ndim of {name!r}")
        if ndim > MAX_NDIM:
            raise TensorfileError(f"{path}: entry {name!r}: ndim {ndim} > {MAX_NDIM}")
        dims = tuple(u32(f"dims of {name!r}") for _ in range(ndim))
        dt = DTYPES[code]
        n = int(np.prod(dims, dtype=np.int64)) if ndim else 1
        raw = take(n * dt.itemsize, f"data of {name!r} ({n} x {dt.name})")
        arr = np.frombuffer(raw, dtype=dt, count=n).reshape(dims).copy()
        if version >= 2:
            crc = zlib.crc32(buf[start:pos])
            if u32(f"checksum of {name!r}") != crc:
                raise TensorfileError(f"{path}: entry {name!r} fails its checksum (the file is corrupt)")
        if name in out:
            raise TensorfileError(f"{path}: duplicate entry name {name!r}")
        out[name] = arr
    if pos != len(buf):
        raise TensorfileError(f"{path}: {len(buf) - pos} trailing bytes after {count} entries")
    return out


def read(path):
    """Returns {name: ndarray}. Raises TensorfileError on a bad or unreadable file."""
    try:
        with open(path, "rb") as f:
            buf = memoryview(f.read())
    except OSError as e:
        raise TensorfileError(f"{path}: cannot read: {e.strerror or e}") from None
    return _parse(buf, path)


def _as_storable(name, value):
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        arr = arr.astype("<f8" if arr.dtype.itemsize == 8 else "<f4", copy=False)
    elif arr.dtype.kind in "iu" and arr.dtype != np.uint8:
        arr = arr.astype("<i4", copy=False)
    elif arr.dtype == np.bool_:
        arr = arr.astype("u1")
    if arr.dtype not in CODES:
        raise TypeError(f"tensorfile entry {name!r}: unsupported dtype {arr.dtype}")
    if arr.ndim == 0:
        arr = arr.reshape(1)  # scalars are stored as 1-element arrays, like the C side
    if arr.ndim > MAX_NDIM:
        raise ValueError(f"tensorfile entry {name!r}: ndim {arr.ndim} > {MAX_NDIM}")
    return np.ascontiguousarray(arr)


def write(path, entries):
    """Writes {name: array-like} (order kept). float64 stays f64, other floats become f32,
    integers become i32 (uint8 stays u8). Scalars become 1-element entries."""
    parts = [MAGIC, struct.pack("<II", VERSION, len(entries))]
    for name, value in entries.items():
        arr = _as_storable(name, value)
        nb = name.encode("utf-8")
        entry = b"".join([struct.pack("<I", len(nb)), nb, struct.pack("<II", CODES[arr.dtype], arr.ndim),
                          struct.pack(f"<{arr.ndim}I", *arr.shape), arr.tobytes()])
        parts.append(entry)
        parts.append(struct.pack("<I", zlib.crc32(entry)))
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        for p in parts:
            f.write(p)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 2:
        print(f"usage: /usr/bin/python3 {argv[0]} FILE", file=sys.stderr)
        return 2
    try:
        tf = read(argv[1])
    except TensorfileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for name, a in tf.items():
        desc = f"{a.reshape(-1)[0]!r}" if a.size == 1 else f"min {a.min()!r} max {a.max()!r}" if a.size else "empty"
        print(f"{name:40s} {a.dtype.name:8s} {str(a.shape):20s} {desc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
