"""A JPEG's segments walked from its start to its first scan (or through every scan, their image
data stepped over), without decoding anything: where the frame header and the image data are,
and a copy without a segment of metadata."""

from __future__ import annotations

import struct
from collections.abc import Collection, Iterator

SCAN = 0xDA  # start of scan: the image data follows, with no segments to walk
# the start-of-frame markers: SOF0-SOF15 but DHT, JPG and DAC, which share their range
FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
END = 0xD9  # end of image


def segments(
    data: bytes, *, skip_junk: bool, through_scans: bool = False
) -> Iterator[tuple[int, int]]:
    """(position, marker) of each segment of a JPEG, in order, up to its first scan, whose
    entropy-coded data has no segments to walk; with `through_scans`, on past each scan's image
    data to the end marker (a progressive JPEG's later scans, its tables between them). Bytes
    that start no segment are stepped over with `skip_junk`, as libjpeg does, else they end
    the walk."""
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
        if marker == END and through_scans:
            return
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length follows these
            pos += 2
            continue
        yield pos, marker
        if marker == SCAN:
            if not through_scans:
                return
            pos = _after_image_data(data, _end_of(data, pos))
            continue
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


def without_junk_between_segments(data: bytes) -> bytes:
    """`data` without bytes that start no segment between its segments before the first scan
    (an encoder's padding, which libjpeg steps over with a warning and OpenCV decodes past
    printing it on the terminal): the same picture, its image data untouched. `data` as it is
    when there are none, or when its segments cannot be walked to a scan."""
    walked = list(segments(data, skip_junk=True))
    if not walked or walked[-1][1] != SCAN:
        return data
    kept, start = [data[:2]], 2
    for pos, marker in walked:
        gap = data[start:pos]
        if not gap.strip(b"\xff"):  # FF fill before a marker is the standard's own: kept
            kept.append(gap)
        if marker == SCAN:
            kept.append(data[pos:])
            break
        start = _end_of(data, pos)
        kept.append(data[pos:start])
    return b"".join(kept)


def _end_of(data: bytes, pos: int) -> int:
    """Where the segment at `pos` ends: its marker, then its length (which counts itself)."""
    return pos + 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]


def _after_image_data(data: bytes, pos: int) -> int:
    """Where a scan's image data ends: at the first marker that is not a stuffed 00 or a
    restart (RST0-7), or the file's end."""
    while True:
        pos = data.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(data):
            return len(data)
        following = data[pos + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            pos += 1 if following == 0xFF else 2
            continue
        return pos
