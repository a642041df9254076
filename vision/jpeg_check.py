"""What libjpeg says about a JPEG's image data, read before OpenCV decodes the picture.

OpenCV's decoder mends damaged image data (a flipped bit, a block of bytes zeroed, data cut
short with the end marker still there) with flat grey or smeared blocks and says so only on the
terminal, in a line that names no file: the picture is then counted as decoded, wrongly.
simplejpeg's strict decode raises libjpeg's first warning instead, in libjpeg's own words;
decoded at an eighth of the size it still reads every byte of the image data (1.5 ms for a
1438x808 scene). JPEG carries no checksum: damage that still decodes to valid codes is not seen
by libjpeg, nor here (of 200 copies of a scene with 1-5 bits flipped, it noticed 70).
"""

from __future__ import annotations

import re
from typing import Final

# libjpeg's warnings (jerror.h, JWRN_*) that say the image data itself is damaged. The others
# are about metadata (a JFIF revision or Adobe transform it does not know, an ICC marker) or an
# encoder's harmless quirk: the picture decodes as it was made. A strict read ends at the first
# warning, so the ones about a segment of metadata are read again without that segment.
_DAMAGE: Final = re.compile(
    r"premature end of data segment|bad huffman code|bad arithmetic code|found marker 0x[0-9a-f]+ "
    r"instead of rst|extraneous bytes before marker|premature end of jpeg file|inconsistent "
    r"progression sequence",
    re.IGNORECASE,
)
# A marker libjpeg does not support: one of the codes the standard reserves (0x01-0xBF) is never
# written by an encoder, so within the image data it is bytes changed there (an FF and what
# follows it end the scan early, and the picture's last blocks come out grey). A code of the
# standard's that libjpeg lacks (DNL, 0xDC; JPEG-LS's 0xF7) is a variant OpenCV may read.
_UNSUPPORTED_MARKER: Final = re.compile(r"unsupported marker type 0x([0-9a-f]{2})", re.IGNORECASE)
FIRST_STANDARD_MARKER: Final = 0xC0
# Bytes between the last of the image data and the end marker: some cameras write a few, and
# libjpeg, having read every block, steps over them. Damage says the same: a flipped bit that
# puts the decoder out of step often ends the picture's blocks early, and thousands of bytes of
# image data are left over. More than this many is damage.
_JUNK_BEFORE_END: Final = re.compile(r"(\d+) extraneous bytes before marker 0xd9", re.IGNORECASE)
STRAY_BYTES_MAX: Final = 64
# Warnings about a segment of metadata, and that segment's marker. libjpeg says them before it
# reads any image data, so its strict read ends there, and OpenCV's decoder prints them on the
# terminal naming no file. The picture decodes the same without the segment: a JFIF header's
# revision changes nothing libjpeg does with it, and with an Adobe transform code it does not
# know libjpeg decodes as if there were no Adobe segment.
_SEGMENT_NAMED: Final = (
    (re.compile(r"unknown JFIF revision", re.IGNORECASE), 0xE0),  # APP0
    (re.compile(r"unknown Adobe color transform", re.IGNORECASE), 0xEE),  # APP14
)


def libjpeg_warning(data: bytes) -> str | None:
    """libjpeg's first complaint reading all of a JPEG's image data, or None when it has none.

    A file libjpeg cannot read at all (another format, an unsupported JPEG variant) is said as
    well: OpenCV's decoder, which may read more variants, has the last word on those."""
    # (imported here: training, which never reads a JPEG so, runs on a lent GPU machine
    # without it; an import at the top stops both GPU scripts at their first line)
    import simplejpeg

    try:
        simplejpeg.decode_jpeg(data, "GRAY", min_height=1, min_width=1)  # the 1/8 scale
    except ValueError as exc:
        return str(exc).strip() or "unreadable"
    return None


def says_damaged(warning: str) -> bool:
    """Whether a libjpeg warning says the image data is damaged (so the decoded picture
    holds blocks that were never photographed), not a quirk of metadata or of an encoder."""
    junk = junk_before_end(warning)
    if junk is not None:
        return junk > STRAY_BYTES_MAX
    marker = _UNSUPPORTED_MARKER.search(warning)
    if marker is not None:
        return int(marker.group(1), 16) < FIRST_STANDARD_MARKER
    return bool(_DAMAGE.search(warning))


def segment_named(warning: str) -> int | None:
    """The marker of the metadata segment a libjpeg warning is about, which the picture decodes
    the same without; None for any other warning."""
    return next((marker for words, marker in _SEGMENT_NAMED if words.search(warning)), None)


def junk_before_end(warning: str) -> int | None:
    """How many bytes libjpeg stepped over just before the end marker, after every block of
    the picture was read (a few: a camera's stray bytes; many: damage); None when the warning
    says something else."""
    found = _JUNK_BEFORE_END.search(warning)
    return int(found.group(1)) if found else None


def junk_before_marker(warning: str) -> bool:
    """Whether a libjpeg warning says it stepped over bytes before a marker other than the end
    (padding between the header's segments, or image data left over before a later scan's)."""
    return "extraneous bytes before marker" in warning.lower() and junk_before_end(warning) is None


def without_junk_before_end(data: bytes, junk: int, *, scan: int) -> bytes:
    """`data` without the `junk` bytes libjpeg stepped over before the end marker that follows
    the first scan (at `scan`): the same picture, which OpenCV then decodes without a line on
    the terminal. `data` as it is when no such end marker has that many bytes before it."""
    # entropy-coded data never holds FF D9 (an FF in it is followed by 00 or a restart marker);
    # libjpeg counts neither the end marker nor FF fill bytes before it, so what is cut here is
    # stray bytes or fill, never image data
    end = data.find(b"\xff\xd9", scan)
    if junk <= 0 or end - junk <= scan:
        return data
    return data[: end - junk] + data[end:]
