"""The bytes image files begin with, where more than one module tells formats apart by them,
and a PNG's chunks as its bytes list them."""

from __future__ import annotations

import codecs
import struct
from typing import Final

PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
# a TIFF file's header, little- or big-endian; an EXIF block is a TIFF structure and starts so too
TIFF_SIGNATURES: Final = (b"II*\x00", b"MM\x00*")


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
