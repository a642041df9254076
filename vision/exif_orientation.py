"""The EXIF orientation of PNG and WebP files, and turning a picture upright by it.

OpenCV turns a JPEG upright as its EXIF orientation says, and its TIFF decoder turns every TIFF,
but a PNG or WebP read with its alpha channel and full bit depth (IMREAD_UNCHANGED) comes back as
stored: its boxes were in other pixels than the picture a viewer shows. The tag is found here
by walking the file's chunks, without decoding the image.
"""

from __future__ import annotations

import struct
from typing import Final

import numpy as np

from blitzcam.vision.file_signatures import PNG_SIGNATURE, TIFF_SIGNATURES, is_webp

ORIENTATION_TAG: Final = 0x0112
EXIF_PREFIX: Final = b"Exif\x00\x00"  # some writers put it before the TIFF header; most do not


def stored_orientation(data: bytes) -> int:
    """The EXIF orientation (1-8) a PNG's eXIf chunk or a WebP's EXIF chunk gives; 1 (as
    stored) for any other file, or where there is none or it cannot be read."""
    exif = _png_exif(data) if data[:8] == PNG_SIGNATURE else _webp_exif(data)
    if exif is None:
        return 1
    orientation = exif_orientation(exif.removeprefix(EXIF_PREFIX))
    return orientation if orientation in range(1, 9) else 1


def exif_orientation(tiff: bytes) -> int | None:
    """The orientation tag of an EXIF block (a TIFF header and its first IFD), if it has one."""
    at = _orientation_at(tiff)
    if at is None:
        return None
    order = "<" if tiff[:2] == b"II" else ">"
    return struct.unpack(f"{order}H", tiff[at : at + 2])[0]


def as_stored(tiff: bytes) -> tuple[bytes, int]:
    """A TIFF file with its first picture's Orientation tag set to 1 (as stored), and the
    orientation it said (1 where it said none): for a decoder that turns a tiled picture
    wrongly, the turn made afterwards (`upright`)."""
    at = _orientation_at(tiff)
    if at is None:
        return tiff, 1
    order = "<" if tiff[:2] == b"II" else ">"
    said = struct.unpack(f"{order}H", tiff[at : at + 2])[0]
    return tiff[:at] + struct.pack(f"{order}H", 1) + tiff[at + 2 :], said


def _orientation_at(tiff: bytes) -> int | None:
    """Where the value of the orientation tag of a TIFF header's first IFD is (a SHORT, in
    its entry's value field), if it has one; None for a BigTIFF, which has other entries."""
    if len(tiff) < 8 or tiff[:4] not in TIFF_SIGNATURES:
        return None
    order = "<" if tiff[:2] == b"II" else ">"
    (offset,) = struct.unpack(f"{order}I", tiff[4:8])
    if offset + 2 > len(tiff):
        return None
    (entries,) = struct.unpack(f"{order}H", tiff[offset : offset + 2])
    for i in range(entries):
        start = offset + 2 + 12 * i
        if start + 12 > len(tiff):
            return None
        tag, kind, count = struct.unpack(f"{order}HHI", tiff[start : start + 8])
        if tag == ORIENTATION_TAG and kind == 3 and count >= 1:  # SHORT, in the value field
            return start + 8
    return None


def upright(image: np.ndarray, orientation: int) -> np.ndarray:
    """`image` (rows, columns[, channels]) as a viewer shows it under EXIF `orientation`."""
    turns = {
        1: lambda a: a,
        2: lambda a: a[:, ::-1],  # mirrored across
        3: lambda a: a[::-1, ::-1],  # a half turn
        4: lambda a: a[::-1],  # mirrored top to bottom
        5: lambda a: np.swapaxes(a, 0, 1),  # mirrored along the main diagonal
        6: lambda a: np.rot90(a, -1),  # a quarter turn clockwise
        7: lambda a: np.swapaxes(a[::-1, ::-1], 0, 1),  # mirrored along the other diagonal
        8: lambda a: np.rot90(a, 1),  # a quarter turn anticlockwise
    }
    return np.ascontiguousarray(turns.get(orientation, turns[1])(image))


def _png_exif(data: bytes) -> bytes | None:
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"eXIf":
            return data[pos + 8 : pos + 8 + length]
        if kind == b"IEND":
            return None
        pos += 12 + length
    return None


def _webp_exif(data: bytes) -> bytes | None:
    if not is_webp(data):
        return None
    pos = 12
    while pos + 8 <= len(data):
        kind = data[pos : pos + 4]
        (length,) = struct.unpack("<I", data[pos + 4 : pos + 8])
        if kind == b"EXIF":
            return data[pos + 8 : pos + 8 + length]
        pos += 8 + length + (length & 1)  # chunks are padded to an even length
    return None
