"""The bytes image files begin with, where more than one module tells formats apart by them,
and a PNG's chunks as its bytes list them."""

from __future__ import annotations

import codecs
import struct
from typing import Final

PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
# a TIFF file's header, little- or big-endian; an EXIF block is a TIFF structure and starts so too
TIFF_SIGNATURES: Final = (b"II*\x00", b"MM\x00*")
GIF_SIGNATURES: Final = (b"GIF87a", b"GIF89a")


def is_webp(data: bytes) -> bool:
    """Whether a file's first bytes are a WebP's (a RIFF container of WEBP)."""
    return data[:4] == b"RIFF" and data[8:12] == b"WEBP"


def png_chunks(data: bytes) -> list[bytes]:
    """The types of a PNG's chunks (length, type, data, CRC), in order, to IEND or to where
    the file ends (a cut-short file has no IEND in the list)."""
    types = []
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length = struct.unpack(">I", data[pos : pos + 4])[0]
        types.append(data[pos + 4 : pos + 8])
        if types[-1] == b"IEND":
            break
        pos += 12 + length
    return types


def is_text(head: bytes) -> bool:
    """Whether a file's first bytes are text (UTF-8, no NUL): a video's or a picture's header never
    is."""
    if not head or b"\0" in head:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head)  # a character cut at the end is fine
    except UnicodeDecodeError:
        return False
    return True


def ends_early(data: bytes) -> bool:
    """Whether a WebP, GIF, BMP or TIFF file ends before what its own header says it holds: a
    copy or download cut short (asked of a file that did not decode; a PNG's and a JPEG's end
    are told by `vision.images.is_truncated`)."""
    if is_webp(data):
        return len(data) < 8 + struct.unpack("<I", data[4:8])[0]
    if data[:6] in GIF_SIGNATURES:
        return _gif_ends_early(data)
    if data[:2] == b"BM" and len(data) >= 18:  # (the file's size, and where its pixels start)
        if struct.unpack("<I", data[14:18])[0] not in _BMP_HEADER_SIZES:
            return False  # (no BMP's: a text beginning "BMW 320i" was said cut short)
        size, start = struct.unpack("<I", data[2:6])[0], struct.unpack("<I", data[10:14])[0]
        return len(data) < size or len(data) <= start
    if data[:4] in TIFF_SIGNATURES:
        return _tiff_ends_early(data)
    return False


# the sizes a BMP's second header is written in (OS/2 1.x, Windows 3.x, the extended ones)
_BMP_HEADER_SIZES: Final = frozenset({12, 16, 40, 52, 56, 64, 108, 124})
# a TIFF's tags that say where its pixels lie: strips (offsets, byte counts) or tiles
_TIFF_PIXEL_TAGS: Final = {273: "offsets", 279: "counts", 324: "offsets", 325: "counts"}
# the bytes of one value of each TIFF field type (BYTE, ASCII, SHORT, LONG, RATIONAL, ...)
_TIFF_TYPE_SIZES: Final = dict(zip(range(1, 13), (1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8), strict=True))
_TIFF_INTEGERS: Final = {3: "H", 4: "I"}  # the types a strip's or tile's place is written in


def _tiff_ends_early(data: bytes) -> bool:
    """Whether a (classic) TIFF's first directory, a value it points to, or the pixels it
    places lie past the file's end."""
    order = "<" if data[:2] == b"II" else ">"
    if len(data) < 8:
        return True
    ifd = struct.unpack(order + "I", data[4:8])[0]
    if ifd + 2 > len(data):
        return True
    entries = struct.unpack(order + "H", data[ifd : ifd + 2])[0]
    if ifd + 2 + 12 * entries > len(data):
        return True
    values: dict[str, list[int]] = {"offsets": [], "counts": []}
    for k in range(entries):
        entry = data[ifd + 2 + 12 * k : ifd + 14 + 12 * k]
        tag, kind, count = struct.unpack(order + "HHI", entry[:8])
        length = count * _TIFF_TYPE_SIZES.get(kind, 0)
        if length <= 4:
            raw = entry[8 : 8 + length]
        else:
            at = struct.unpack(order + "I", entry[8:12])[0]
            if at + length > len(data):
                return True
            raw = data[at : at + length]
        if tag in _TIFF_PIXEL_TAGS and kind in _TIFF_INTEGERS:
            values[_TIFF_PIXEL_TAGS[tag]] += struct.unpack(
                f"{order}{count}{_TIFF_INTEGERS[kind]}", raw
            )
    pairs = zip(values["offsets"], values["counts"], strict=False)
    return any(offset + length > len(data) for offset, length in pairs)


def gif_lacks_only_its_trailer(data: bytes) -> bool:
    """Whether a GIF is whole but for its last byte, the trailer (";"), with a picture in it,
    as some writers leave them: OpenCV refuses it and Pillow reads it. (Cut between the
    frames of an animation it is so too: its first is what is read.)"""
    if data[:6] not in GIF_SIGNATURES or data.endswith(b";"):
        return False
    ends_early, images = _gif_walk(data + b";")
    return not ends_early and images > 0


def _gif_ends_early(data: bytes) -> bool:
    """Whether a GIF's blocks run past the file's end before its trailer (";")."""
    return _gif_walk(data)[0]


def _gif_walk(data: bytes) -> tuple[bool, int]:
    """A GIF's blocks walked: whether they run past its end before its trailer, and the
    pictures passed on the way."""
    images = 0
    pos = 13
    if len(data) < pos:
        return True, 0
    if data[10] & 0x80:  # a global colour table
        pos += 3 << ((data[10] & 7) + 1)
    while pos < len(data):
        block = data[pos]
        if block == 0x3B:
            return False, images
        if block == 0x21:  # an extension: its label, then sub-blocks
            pos += 2
        elif block == 0x2C:  # an image: its descriptor, a local colour table, LZW's code size
            if pos + 10 > len(data):
                return True, images
            images += 1
            flags = data[pos + 9]
            pos += 10 + ((3 << ((flags & 7) + 1)) if flags & 0x80 else 0) + 1
        else:
            return False, images  # (not a GIF's block: damaged, not cut short)
        while pos < len(data) and data[pos]:  # sub-blocks, each its length first, to a 0
            pos += 1 + data[pos]
        pos += 1
    return True, images
