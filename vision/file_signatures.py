"""The bytes image files begin with, where more than one module tells formats apart by them."""

from __future__ import annotations

from typing import Final

PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
# a TIFF file's header, little- or big-endian; an EXIF block is a TIFF structure and starts so too
TIFF_SIGNATURES: Final = (b"II*\x00", b"MM\x00*")
