"""A JPEG's segments walked from its start to its first scan, without decoding anything: where
the frame header and the image data are, and a copy without a segment of metadata."""

from __future__ import annotations

import struct
from collections.abc import Collection, Iterator

SCAN = 0xDA  # start of scan: the image data follows, with no segments to walk


def segments(data: bytes, *, skip_junk: bool) -> Iterator[tuple[int, int]]:
    """(position, marker) of each segment of a JPEG, in order, up to its first scan, whose
    entropy-coded data has no segments to walk. Bytes that start no segment are stepped over
    one at a time with `skip_junk`, else they end the walk."""
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            if not skip_junk:
                return
            pos += 1
            continue
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length follows these
            pos += 2
            continue
        yield pos, marker
        if marker == SCAN:
            return
        pos = _end_of(data, pos)


def first_scan(data: bytes) -> int | None:
    """Where a JPEG's first scan (its image data) starts, found by walking its segments (an EXIF
    thumbnail's scan is inside a segment, stepped over); None when the walk does not reach one."""
    return next((pos for pos, m in segments(data, skip_junk=False) if m == SCAN), None)


def without_segments(data: bytes, markers: Collection[int]) -> bytes:
    """`data` without its segments before the first scan whose marker is one of `markers`;
    `data` as it is when its segments cannot be walked to a scan (nothing is cut blind)."""
    walked = list(segments(data, skip_junk=False))
    if not walked or walked[-1][1] != SCAN:
        return data
    kept, start = [], 0
    for pos, marker in walked:
        if marker in markers:
            kept.append(data[start:pos])
            start = _end_of(data, pos)
    kept.append(data[start:])
    return b"".join(kept)


def _end_of(data: bytes, pos: int) -> int:
    """Where the segment at `pos` ends: its marker, then its length (which counts itself)."""
    return pos + 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
