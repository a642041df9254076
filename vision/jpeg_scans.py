"""Whether a progressive JPEG holds all of its picture: every coefficient of every component
brought to full precision by its scans.

A progressive JPEG sends its picture in scans, coarse to fine. Cut short at the end of a scan,
with an end marker written after it (a download stopped and "repaired", a copy cut off), it is
a valid file: libjpeg reads it without a word, and the picture decodes blurred; counted, its
cards were not found (99 counted from the whole file, 0 and 7 from two such cuts).
Nothing is decoded here: the scans' headers are read, their image data stepped over.
"""

from __future__ import annotations

import struct
from typing import Final

from blitzcam.vision.jpeg_segments import FRAMES, SCAN, segments

# the start-of-frame markers of the progressive processes (Huffman and arithmetic coded)
PROGRESSIVE_FRAMES: Final = frozenset({0xC2, 0xC6, 0xCA, 0xCE})
COEFFICIENTS: Final = 64


def missing_scans(data: bytes) -> bool:
    """Whether `data`, a progressive JPEG, ends before its scans have brought every coefficient
    of every component to full precision (to the last bit: Al 0); False for a baseline JPEG, or
    one whose markers cannot be walked (libjpeg has its say on those)."""
    components: dict[int, list[int]] | None = None  # each one's coarsest bit left, by coefficient
    for pos, marker in segments(data, skip_junk=True, through_scans=True):
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        body = data[pos + 4 : pos + 2 + length]
        if marker in FRAMES:
            if marker not in PROGRESSIVE_FRAMES or len(body) < 6:
                return False
            count = body[5]
            ids = [body[6 + 3 * i] for i in range(count) if 6 + 3 * i < len(body)]
            components = {c: [COEFFICIENTS] * COEFFICIENTS for c in ids}
        elif marker == SCAN and (components is None or not _scanned(body, components)):
            return False
    if components is None:
        return False
    return any(bit != 0 for bits in components.values() for bit in bits)


def _scanned(body: bytes, components: dict[int, list[int]]) -> bool:
    """Note what a scan's header says it brings (its components, coefficients Ss..Se, to bit
    Al); False for a header that cannot be read."""
    if not body:
        return False
    count = body[0]
    if len(body) < 1 + 2 * count + 3:
        return False
    ids = [body[1 + 2 * i] for i in range(count)]
    start, end, bits = body[1 + 2 * count], body[2 + 2 * count], body[3 + 2 * count]
    low = bits & 0x0F
    if start > end or end >= COEFFICIENTS:
        return False
    for component in ids:
        coarsest = components.get(component)
        if coarsest is None:
            return False
        for k in range(start, end + 1):
            coarsest[k] = min(coarsest[k], low)
    return True


def progressive_coefficient_bytes(data: bytes) -> int | None:
    """The memory a decoder holds for `data`, a progressive JPEG, before it can draw a pixel:
    every coefficient of every 8 x 8 block of every component at once (two bytes each; libjpeg
    keeps them whole, whatever the scale it is asked to decode at). None for a baseline JPEG
    (decoded a band at a time) or a frame header that cannot be read."""
    for pos, marker in segments(data, skip_junk=True):
        if marker not in FRAMES:
            continue
        if marker not in PROGRESSIVE_FRAMES:
            return None
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        body = data[pos + 4 : pos + 2 + length]
        if len(body) < 6:
            return None
        height, width = struct.unpack(">HH", body[1:5])
        count = body[5]
        factors = [body[7 + 3 * i] for i in range(count) if 7 + 3 * i < len(body)]
        if not factors or len(factors) < count:
            return None
        most_h = max(f >> 4 for f in factors) or 1
        most_v = max(f & 0x0F for f in factors) or 1
        blocks = sum(
            _up(_up(width * (f >> 4), most_h), 8) * _up(_up(height * (f & 0x0F), most_v), 8)
            for f in factors
        )
        return blocks * COEFFICIENTS * 2
    return None


def _up(a: int, b: int) -> int:
    """a / b, rounded up."""
    return -(-a // b)
