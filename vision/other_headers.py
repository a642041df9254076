"""The headers of picture formats that OpenCV decodes whole and Pillow does not read (Radiance
HDR, PFM, Sun raster), and of the ISO media files (HEIC, AVIF) told apart by their brand.

Without a size from the header, a file is decoded whatever it takes: a 16 MB Radiance
HDR of 16000 x 16000 pixels takes 6.3 GB (float32, 12 bytes a pixel), past the limit
every other format is held to. Only headers are read; nothing is decoded.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Final

RADIANCE_SIGNATURES: Final = (b"#?RADIANCE", b"#?RGBE")
SUN_RASTER_SIGNATURE: Final = b"\x59\xa6\x6a\x95"
# an ISO media file's brands (`ftyp`) that say HEIF pictures: an iPhone's photos, which OpenCV
# does not decode (said as "not an image file OpenCV can read, or corrupt")
HEIF_BRANDS: Final = frozenset(
    {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"}
)
AVIF_BRANDS: Final = frozenset({b"avif", b"avis"})
# a Radiance file's size line, read as OpenCV reads it (sscanf's "-Y %d +X %d": any spaces,
# a sign before a number, anything after)
_RADIANCE_SIZE: Final = re.compile(rb"\s*[-+]([XY])\s+\+?(\d+)\s+[-+]([XY])\s+\+?(\d+)")
# bytes a Radiance pixel takes decoded: its float32 colour (`images.decoding_peak` doubles it
# for the rows it is read from: measured, 367 MB for 4000 x 4000, a 16000 x 16000 file 6.3 GB)
RADIANCE_PER_PIXEL: Final = 12


@dataclass(frozen=True)
class RawHeader:
    """A size read from a header, and what a pixel takes decoded as OpenCV decodes it."""

    size: tuple[int, int]  # (width, height)
    per_pixel: int  # bytes
    kind: str  # the format's name, as messages say it


def raw_header(data: bytes) -> RawHeader | None:
    """The header of a Radiance HDR, PFM or Sun raster file; None for another format, or a
    header that says no size (OpenCV's decode then says what is wrong)."""
    if data.startswith(RADIANCE_SIGNATURES):
        return _radiance(data)
    if data[:2] in (b"PF", b"Pf") and data[2:3].isspace():
        fields = [field.removeprefix(b"+") for field in data[2:256].split(maxsplit=2)]
        if len(fields) < 2 or not (fields[0].isdigit() and fields[1].isdigit()):
            return None
        bands = 3 if data[1:2] == b"F" else 1
        return RawHeader((int(fields[0]), int(fields[1])), 4 * bands, "PFM")
    if data[:4] == SUN_RASTER_SIGNATURE and len(data) >= 16:
        width, height, _depth = struct.unpack(">III", data[4:16])
        return RawHeader((width, height), 4, "Sun raster")  # (decoded to colour, alpha at most)
    return None


def _radiance(data: bytes) -> RawHeader | None:
    """A Radiance header: text lines to an empty one, then its size as `-Y H +X W` (or another
    of its eight orientations)."""
    end = data.find(b"\n\n")
    if end < 0:
        return None
    found = _RADIANCE_SIZE.match(data, end + 2, end + 2 + 256)
    if found is None or found.group(1) == found.group(3):
        return None
    first, second = int(found.group(2)), int(found.group(4))
    width, height = (second, first) if found.group(1) == b"Y" else (first, second)
    return RawHeader((width, height), RADIANCE_PER_PIXEL, "Radiance HDR")


def iso_brands(data: bytes) -> frozenset[bytes]:
    """The brands an ISO media file (HEIC, AVIF, MP4) says it is, major and compatible; none for
    another kind of file."""
    if len(data) < 16 or data[4:8] != b"ftyp":
        return frozenset()
    box = min(struct.unpack(">I", data[:4])[0], len(data), 4096)
    brands = [data[8:12]] + [data[i : i + 4] for i in range(16, box - 3, 4)]
    return frozenset(brands)


def is_heif_not_avif(data: bytes) -> bool:
    """Whether `data` is a HEIF picture (an iPhone's HEIC photo) and not an AVIF one, which
    OpenCV reads."""
    brands = iso_brands(data)
    return bool(brands & HEIF_BRANDS) and not brands & AVIF_BRANDS


def is_avif(data: bytes) -> bool:
    return bool(iso_brands(data) & AVIF_BRANDS)


# the bytes video containers begin with (past an offset for some), and their names as messages
# say them: a video given where a picture is read was "not an image file OpenCV can read"
EBML_SIGNATURE: Final = b"\x1a\x45\xdf\xa3"  # Matroska and WebM
ASF_SIGNATURE: Final = b"\x30\x26\xb2\x75\x8e\x66\xcf\x11"  # Windows Media
MPEG_PACK_START: Final = b"\x00\x00\x01\xba"  # an MPEG program stream (.mpg, a DVD's .vob)
MPEG_TS_SYNC: Final = 0x47  # each 188-byte packet of an MPEG transport stream (.ts, .mts)
MPEG_TS_PACKET: Final = 188


def video_kind(data: bytes) -> str | None:
    """The kind of video container `data` begins as ("MP4 or MOV", "AVI", "Matroska or WebM",
    ...); None for anything else, an ISO media picture (HEIC, AVIF) included."""
    brands = iso_brands(data)
    if brands and not brands & (HEIF_BRANDS | AVIF_BRANDS):
        return "MP4 or MOV"
    if data[:4] == b"RIFF" and data[8:12] == b"AVI ":
        return "AVI"
    if data.startswith(EBML_SIGNATURE):
        return "Matroska or WebM"
    if data.startswith(ASF_SIGNATURE):
        return "Windows Media"
    if data.startswith(b"FLV\x01"):
        return "Flash video"
    if data.startswith(MPEG_PACK_START):
        return "MPEG"
    # (a GIF starts with 0x47 too: one byte); a camcorder's .mts puts 4 bytes of time before
    # each packet, 192 bytes apart
    for step, start in ((MPEG_TS_PACKET, 0), (MPEG_TS_PACKET + 4, 4)):
        packets = min((len(data) - start) // step, 8)
        if packets >= 4 and all(data[start + i * step] == MPEG_TS_SYNC for i in range(packets)):
            return "MPEG transport stream"
    return None
