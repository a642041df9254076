"""Reading one image file into a BGR uint8 frame, whatever the file holds, or a clear error.

Grayscale, 16-bit and RGBA files are normalised to 8-bit BGR; very large JPEG photos are decoded
at a reduced scale (cv2.IMREAD_REDUCED_*) chosen from the size in the file's header, so a
12000x9000 photo never needs its full-resolution pixels in memory (a PNG, decoded whole, is
refused from its header when that would take over 2 GiB). Truncated PNG/JPEG files are
refused rather than counted with a grey band where the missing rows would be, and so is a JPEG
whose image data libjpeg says is damaged (vision/jpeg_check.py).
"""

from __future__ import annotations

import io
import logging
import stat
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

import cv2
import numpy as np

from blitzcam.errors import UserError
from blitzcam.paths import not_there, out_of_reach
from blitzcam.vision.colour_profile import as_srgb, embedded_profile, may_carry_profile
from blitzcam.vision.decoder_log import LIBJPEG_LINES, LIBPNG_LINES, decoder_lines, quiet_opencv
from blitzcam.vision.exif_orientation import as_stored, stored_orientation, upright
from blitzcam.vision.file_signatures import (
    GIF_SIGNATURES,
    PNG_SIGNATURE,
    TIFF_SIGNATURES,
    ends_early,
    gif_lacks_only_its_trailer,
    is_text,
    is_webp,
    png_chunks,
)
from blitzcam.vision.jpeg_check import (
    junk_before_end,
    junk_before_marker,
    libjpeg_warning,
    says_damaged,
    segment_named,
    without_junk_before_end,
)
from blitzcam.vision.jpeg_scans import missing_scans, progressive_coefficient_bytes
from blitzcam.vision.jpeg_segments import (
    FRAMES,
    first_scan,
    segments,
    without_junk_between_segments,
    without_segments,
)
from blitzcam.vision.other_headers import is_avif, is_heif_not_avif, raw_header, video_kind
from blitzcam.vision.pixel_format import (
    has_transparency,
    to_bgr8,
    wholly_transparent,
    without_empty_alpha,
)

MAX_SIDE: Final = 4096  # frames are shrunk to at most this many pixels on the long side
MAX_FILE_BYTES: Final = 512 * 1024 * 1024
# OpenCV's own limit (CV_IO_MAX_IMAGE_PIXELS): it refuses a bigger picture, in words about its
# source files; said here from the header, in ours
MAX_PIXELS: Final = 1 << 30
# A PNG is decoded whole, at its own depth and channels, before it is shrunk: beyond this a
# laptop may run out of memory (a 30000x30000 one needed 2.7 GB), refused from the header
MAX_WHOLE_DECODE_BYTES: Final = 2 << 30
# (.jfif and .jpe: JPEGs as browsers on Windows save them; a GIF's first frame is read)
IMAGE_SUFFIXES: Final = frozenset(
    {".jpg", ".jpeg", ".jfif", ".jpe", ".png", ".bmp", ".tif", ".tiff", ".webp", ".jp2", ".pbm",
     ".pgm", ".ppm", ".gif", ".avif"}
)  # fmt: skip
HEIC_SUFFIXES: Final = frozenset({".heic", ".heif"})  # an iPhone's photos: said, not read
# a picture's long side under which its count is noted as doubtful (the envelope's frames
# are 1280 x 720 and up; a 4:3 1024 x 768 photo reads well)
SMALL_PICTURE_SIDE: Final = 960
# a picture's mean grey under which it is noted as too dark (generated dim tables, the
# envelope's darkest, go down to 26)
DARK_MEAN_GREY: Final = 20
_REDUCED: Final = {
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


class ImageError(UserError):
    """An image file that cannot be turned into a frame; the message names the file."""


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header without decoding; None for other formats."""
    if data[:8] == PNG_SIGNATURE and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:2] == b"\xff\xd8":
        for pos, marker in segments(data, skip_junk=True):
            if pos + 9 > len(data):
                break
            if marker in FRAMES:
                height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
                return width, height
    return None


def is_small(size: tuple[int, int]) -> bool:
    """Whether a picture of `size` (width, height) is too small for its count to be trusted
    (SMALL_PICTURE_SIDE: 320 x 180 gave 3 cards too many of one deck; a 320 x 240 video 57
    backs of 81)."""
    return max(size) < SMALL_PICTURE_SIDE


def is_very_dark(frame: np.ndarray) -> bool:
    """Whether a picture is too dark for its count to be trusted (DARK_MEAN_GREY, on every
    fourth pixel each way: 10 % of a table's light read "0 cards", unsaid why)."""
    return float(np.asarray(frame[::4, ::4], np.float32).mean()) < DARK_MEAN_GREY


def is_picture(head: bytes) -> bool:
    """Whether a file's first bytes are a still picture's (a JPEG, a PNG, a format whose header
    is read before decoding, a HEIC photo), whatever its name: a photo saved without its
    extension, or as `.jpg_large`, was played as a video, its EXIF turn lost."""
    return (
        head[:3] == b"\xff\xd8\xff"
        or head[:8] == PNG_SIGNATURE
        or _header_pillow_reads(head)
        or raw_header(head) is not None
        or is_heif_not_avif(head)
    )


_PILLOW_LIMIT = threading.Lock()  # Pillow's own bomb limit is a module setting: set in turn


def _header_pillow_reads(data: bytes) -> bool:
    """Whether `data` starts as a TIFF, WebP, BMP, PNM, GIF, JPEG 2000 or AVIF file does: the
    formats OpenCV decodes whole whose headers `_pillow_header` reads (`raw_header` reads a few
    more; anything else is left to OpenCV without a probe)."""
    return (
        data[:4] in TIFF_SIGNATURES
        or data[:6] in GIF_SIGNATURES  # (a 650 KB GIF of 30000 x 30000 px took 7 GB)
        or is_webp(data)
        or data[:2] == b"BM"
        or (len(data) > 2 and data[:1] == b"P" and data[1:2] in b"1234567" and data[2:3].isspace())
        or data[:12] == b"\x00\x00\x00\x0cjP  \r\n\x87\n"  # JPEG 2000 (JP2)
        or data[:4] == b"\xff\x4f\xff\x51"  # JPEG 2000 codestream
        or is_avif(data)
    )


@dataclass(frozen=True)
class _Header:
    """What Pillow reads of a file's header (see `_pillow_header`)."""

    size: tuple[int, int]  # (width, height)
    per_pixel: int  # bytes a pixel takes decoded
    kind: str  # the format's name
    frames: int = 1  # 2: more than one (an animation's frames, a TIFF's pages)
    palette: bool = False  # its colours are a palette's (a GIF's 256 at most)
    # how the picture is to be turned upright, as EXIF says it (1-8): an AVIF's own rotation
    # and mirror (irot, imir), which OpenCV's decode does not apply; 1 for other formats
    orientation: int = 1
    # a tiled TIFF its Orientation tag turns: OpenCV turns each tile, then the whole again
    tiles_turned: bool = False


class _Heard(logging.Handler):
    """What a library logs, kept (see `_pillow_header`)."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage())


@contextmanager
def _logged_into(logger: logging.Logger, into: list[str]) -> Iterator[None]:
    """`logger`'s warnings and errors into `into`, not on to Python's last-resort handler, which
    writes them to stderr naming no file."""
    handler, propagated = _Heard(into), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.propagate = propagated
        logger.removeHandler(handler)


def _pillow_header(data: bytes, name: str, said: list[str] | None = None) -> _Header | None:
    """The header of a file of another format than PNG and JPEG (TIFF, WebP, BMP, PNM, GIF,
    JPEG 2000), read by Pillow without decoding the pixels; None when it cannot tell. A pixel
    is counted at its bands times their sample size (a palette as the 4 bytes of colour and
    alpha OpenCV may decode it to). ImageError naming `name` for a header past twice
    MAX_PIXELS, where Pillow says no size. What Pillow logs meanwhile goes into `said` (a
    TIFF's "More samples per pixel than can be decoded: 7"), off the terminal."""
    import warnings

    from PIL import Image

    heard = [] if said is None else said
    with _PILLOW_LIMIT, warnings.catch_warnings(), _logged_into(logging.getLogger("PIL"), heard):
        # Pillow's limit set to ours while it reads: it warns from there (the size is judged
        # by `_check_pixels`) and refuses from twice that
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        # and what it says of a damaged header ("Tag data larger than file") names no file:
        # the decode's own error does
        warnings.simplefilter("ignore", UserWarning)
        before, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, MAX_PIXELS
        try:
            with Image.open(io.BytesIO(data)) as image:
                size, mode, bands = image.size, image.mode, len(image.getbands())
                kind = image.format or "picture"
                # (a GIF's n_frames walks every frame: 1 s for 30,000; is_animated looks at one)
                frames = 2 if getattr(image, "is_animated", False) else 1
                # (Pillow gives an AVIF's irot and imir as the EXIF orientation they make)
                turned = image.getexif().get(0x0112, 1) if kind == "AVIF" else 1
                tags = getattr(image, "tag_v2", {})
                tiles_turned = kind == "TIFF" and 322 in tags and tags.get(274, 1) not in (1, None)
        except Image.DecompressionBombError:
            raise ImageError(
                f"{name}: cannot decode image: the header says more than {2 * MAX_PIXELS:,} pixels"
            ) from None
        except Exception:  # a probe: what it cannot tell, OpenCV's decode does
            # (Pillow's own errors, SyntaxError among them for some headers; and in a process
            # that imported ultralytics, whose patched Image.open raises ModuleNotFoundError
            # for a file Pillow cannot identify, having looked for a HEIF plugin)
            return None
        finally:
            Image.MAX_IMAGE_PIXELS = before
    sample = 2 if mode.startswith("I;16") else 4 if mode in ("I", "F") else 1
    palette = mode in ("P", "PA")
    orientation = turned if isinstance(turned, int) and turned in range(1, 9) else 1
    return _Header(
        size, 4 if palette else bands * sample, kind, frames, palette, orientation, tiles_turned
    )


def is_truncated(data: bytes) -> bool:
    """A PNG that ends before its IEND chunk, or a JPEG without an end-of-image marker after its
    image data. Bytes after the end are allowed: phones append a video (motion photos) or
    maker data to their JPEGs, and decoders stop at the end marker."""
    if data[:8] == PNG_SIGNATURE:
        return b"IEND" not in png_chunks(data)
    if data[:2] == b"\xff\xd8":
        scan = first_scan(data)
        if scan is None:  # no image data found by walking the segments
            return data.find(b"\xff\xd9", max(0, len(data) - 64)) == -1
        # entropy-coded data never holds FF D9 (an FF there is followed by 00 or a restart
        # marker), and thumbnails in the EXIF segment come before the scan
        return data.find(b"\xff\xd9", scan) == -1
    return False


def _only_end_marker_missing(data: bytes) -> bool:
    """Whether a JPEG that `is_truncated` lacks only its end marker, its image data whole (as
    some cameras' snapshots are written): libjpeg reads every block of it, the marker put back,
    without a word, where data cut short runs out before its last block."""
    return first_scan(data) is not None and libjpeg_warning(data + b"\xff\xd9") is None


def _png_decode_bytes(data: bytes, size: tuple[int, int] | None) -> int | None:
    """The bytes a PNG's pixels take decoded, from its header and `size` (`header_size`;
    None for another format). One that may be transparent is decoded as it is
    (`decode_picture`): four channels with alpha or a palette (which may hold transparency),
    else three, at 2 bytes a sample when 16-bit; any other into 8-bit colour."""
    if size is None or data[:8] != PNG_SIGNATURE or len(data) < 26:
        return None
    width, height = size
    if not _may_be_transparent(data):
        return width * height * 3
    depth, colour_type = data[24], data[25]
    channels = 4 if colour_type in (3, 4, 6) else 3
    return width * height * channels * (2 if depth == 16 else 1)


def decoding_peak(decoded: int, factor: int) -> int:
    """The most memory OpenCV holds decoding a picture (not a JPEG) of `decoded` bytes whole:
    the picture twice (a full read), or once and the copy reduced by `factor` (measured on
    6000 x 6000 PNG, WebP and TIFF files: 103 MiB decoded, 208 MiB at the peak; 131 read at
    half; counted once, a PNG said to take 2 GiB takes 4.06 GB)."""
    return decoded + (decoded if factor == 1 else decoded // (factor * factor))


def reduction_for(size: tuple[int, int] | None, max_side: int = MAX_SIDE) -> int:
    """The IMREAD_REDUCED factor (1, 2, 4 or 8) that keeps the long side at or above max_side
    (and the short side at a pixel or more: OpenCV fails on a 9000x1 strip read at half)."""
    if size is None:
        return 1
    factor = 1
    while factor < 8 and max(size) // (factor * 2) >= max_side and min(size) // (factor * 2) >= 1:
        factor *= 2
    return factor


def _pnm_maxval(data: bytes) -> int | None:
    """The largest sample value a binary PGM/PPM file declares (None: not one, or unreadable;
    OpenCV scales the plain-text kinds, P2 and P3, itself)."""
    if data[:2] not in (b"P5", b"P6"):
        return None
    tokens: list[bytes] = []
    for line in data[2:512].split(b"\n"):
        tokens += line.split(b"#", 1)[0].split()
        if len(tokens) >= 3:
            break
    try:
        return int(tokens[2])
    except (IndexError, ValueError):
        return None


def _stretched_to_full_range(image: np.ndarray, data: bytes) -> np.ndarray:
    """A PNM's samples scaled so that its maxval is white (OpenCV leaves a binary file's
    samples as they are: maxval 1023 in 16 bits, or 15 in 8, would read nearly black)."""
    maxval = _pnm_maxval(data)
    full = {np.dtype(np.uint8): 255, np.dtype(np.uint16): 65535}.get(image.dtype)
    if maxval is None or full is None or not 0 < maxval < full:
        return image
    stretched = np.clip(image.astype(np.float32) * (full / maxval), 0, full)
    return stretched.astype(image.dtype)


@dataclass(frozen=True)
class Picture:
    """A decoded image file: the frame to count (long side at most MAX_SIDE) and the picture's
    own size, so that what is found on the frame can be told in the file's pixels."""

    frame: np.ndarray  # BGR uint8
    size: tuple[int, int]  # (width, height) of the whole picture, as a viewer shows it
    transparent: bool = False  # some of it is not opaque (laid on a grey, `over`)
    invisible: bool = False  # none of it is: wholly transparent, it shows nothing
    frames: int = 1  # 2: more than one (an animation's frames, a TIFF's pages): the first read
    palette: bool = False  # a palette's colours (256 at most: a deck's ink may be lost)

    @property
    def scale(self) -> tuple[float, float]:
        """The picture's pixels per frame pixel, across and down (1.0 when not shrunk)."""
        return self.size[0] / self.frame.shape[1], self.size[1] / self.frame.shape[0]


def decode_image(data: bytes, *, name: str, max_side: int = MAX_SIDE) -> np.ndarray:
    """Image file bytes -> BGR uint8 frame, long side at most max_side; ImageError if not."""
    return decode_picture(data, name=name, max_side=max_side).frame


def decode_picture(data: bytes, *, name: str, max_side: int = MAX_SIDE, over: int = 255) -> Picture:
    """Image file bytes -> the frame and the picture's size; ImageError naming `name` if not.

    A picture is turned upright as its EXIF orientation says (as photo viewers show it), and a
    large JPEG is decoded at a reduced scale by the JPEG decoder itself. Other formats are
    decoded whole, with their alpha channel, then shrunk before transparency is laid on grey
    `over` (white)."""
    if not data:
        raise ImageError(f"{name}: cannot decode image: the file is empty (0 bytes)")
    truncated = is_truncated(data)
    jpeg = data[:2] == b"\xff\xd8"
    if truncated and not jpeg:
        raise ImageError(f"{name}: cannot decode image: the file is truncated")
    if is_heif_not_avif(data):
        raise ImageError(
            f"{name}: cannot decode image: a HEIC photo (as iPhones take them), which cannot be "
            "read here: save it as JPEG (or set the camera to take 'Most Compatible' photos)"
        )
    if (video := video_kind(data)) is not None:  # (a video, not "not an image file")
        raise ImageError(
            f"{name}: cannot decode image: a video ({video}), not a picture (a video is read "
            "as a camera: blitzcam app --camera FILE)"
        )
    size = header_size(data)
    if size is not None:
        _check_pixels(*size, name)
    read_whole = False  # whether libjpeg read all of a JPEG's image data without a complaint
    if jpeg and size is not None:
        # (a progressive one is held whole, however small it is decoded: a 12 MB file of
        # 32000 x 32000 px takes 6.4 GB, twice over)
        needed = progressive_coefficient_bytes(data)
        if needed is not None and needed > MAX_WHOLE_DECODE_BYTES:
            raise ImageError(_too_large(name, size, "progressive JPEG", needed, "a baseline JPEG"))
    if truncated:  # (after the size checks: libjpeg reads the whole file to tell)
        if not _only_end_marker_missing(data):
            raise ImageError(f"{name}: cannot decode image: the file is truncated")
        data += b"\xff\xd9"
    if gif_lacks_only_its_trailer(data):  # (as a JPEG's end marker: put back)
        data += b";"
    if jpeg:
        data, read_whole = _as_libjpeg_reads_it(data, name)
    needed, kind = _png_decode_bytes(data, size), "PNG"
    frames, palette = 1, data[:8] == PNG_SIGNATURE and len(data) > 25 and data[25] == 3
    if data[:8] == PNG_SIGNATURE and b"acTL" in png_chunks(data):  # (an animated PNG: its
        frames = 2  # first frame read, said as a GIF's is)
    pillow_said: list[str] = []  # what Pillow logged of a header it could not read
    orientation = None  # as the header Pillow read says it; None: as `stored_orientation` finds
    tiles_turned = False  # a tiled TIFF turned by its Orientation tag (turned here)
    if size is None and _header_pillow_reads(data):
        # decoded whole too, whatever its size: a 3.6 MB TIFF of 30000 x 30000 px took 5.5 GB
        header = _pillow_header(data, name, pillow_said)
        if header is not None:
            (width, height), kind = header.size, header.kind
            _check_pixels(width, height, name)
            size, needed = (width, height), width * height * header.per_pixel
            frames, palette = header.frames, header.palette
            orientation = header.orientation if kind == "AVIF" else None
            tiles_turned = header.tiles_turned
    elif size is None and (other := raw_header(data)) is not None:
        (width, height), kind = other.size, other.kind
        _check_pixels(width, height, name)
        size, needed = (width, height), width * height * other.per_pixel
    # the decoder reduces a JPEG itself; any other file is decoded whole and then shrunk, so a
    # reduced colour read saves memory only by dropping what it cannot hold: kept for those
    # with no transparency to lay on white
    factor = reduction_for(size, max_side) if jpeg or not _may_be_transparent(data) else 1
    if needed is not None and not jpeg:
        needed = decoding_peak(needed, factor)
    if size is not None and needed is not None and needed > MAX_WHOLE_DECODE_BYTES:
        raise ImageError(_too_large(name, size, kind, needed, "a JPEG"))
    buffer = np.frombuffer(data, dtype=np.uint8)
    # both JPEG flags apply the EXIF orientation; IMREAD_UNCHANGED keeps alpha and 16 bits
    flags = _REDUCED[factor] if factor > 1 else cv2.IMREAD_COLOR if jpeg else cv2.IMREAD_UNCHANGED
    if not jpeg:  # a PNG's or WebP's orientation is applied below, with its alpha kept
        flags |= cv2.IMREAD_IGNORE_ORIENTATION
    turn = 1
    if tiles_turned:  # (OpenCV turns each tile of a tiled TIFF, then the whole again: a
        # picture scrambled, its boxes off): decoded as stored, then turned here
        stored, turn = as_stored(data)
        buffer = np.frombuffer(stored, dtype=np.uint8)
    image = _decoded_by_opencv(
        buffer, flags, name, jpeg=jpeg, read_whole=read_whole, pillow_said=pillow_said
    )
    image = upright(image, turn)
    if not jpeg and data[:4] not in TIFF_SIGNATURES:  # OpenCV turns a TIFF itself
        # (a PNG, WebP or AVIF came as stored)
        image = upright(image, stored_orientation(data) if orientation is None else orientation)
    if jpeg and not read_whole and (band := grey_filled_edge(image)) >= GREY_FILL_MIN_DEPTH:
        raise ImageError(
            f"{name}: cannot decode image: corrupt: a band {band} px deep along its edge is "
            "the flat grey a JPEG decoder fills missing image data with"
        )
    if data[:2] == b"BM" or data[:4] in TIFF_SIGNATURES:
        image = without_empty_alpha(image)
    image = _stretched_to_full_range(image, data)
    whole = _upright_size(size, image.shape[1], image.shape[0]) if factor > 1 else None
    whole = whole or (image.shape[1], image.shape[0])
    long_side = max(image.shape[:2])
    if long_side > max_side:
        if image.dtype not in _RESIZABLE:  # e.g. a signed-integer TIFF: resize cannot take it
            image = to_bgr8(image, over=over)
        # shrunk before to_bgr8 where it can be: its blend on white works in float32
        scale = max_side / long_side
        new_wh = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
        image = cv2.resize(image, new_wh, interpolation=cv2.INTER_AREA)
    return Picture(
        as_srgb(to_bgr8(image, over=over), _profile_of(data)),  # (a profile's colours as sRGB)
        whole,
        transparent=has_transparency(image),
        invisible=wholly_transparent(image),
        frames=frames,
        palette=palette,
    )


def _profile_of(data: bytes) -> bytes | None:
    """The ICC profile `data` carries (`embedded_profile`), read whatever the picture's size
    (checked already: Pillow's own bomb limit would have said none)."""
    if not may_carry_profile(data):  # (most photos: Pillow not imported for them)
        return None
    from PIL import Image

    with _PILLOW_LIMIT:
        before, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None
        try:
            return embedded_profile(data)
        finally:
            Image.MAX_IMAGE_PIXELS = before


def _decoded_by_opencv(
    buffer: np.ndarray,
    flags: int,
    name: str,
    *,
    jpeg: bool,
    read_whole: bool,
    pillow_said: list[str],
) -> np.ndarray:
    """`buffer` decoded by OpenCV with `flags`; ImageError naming `name`, in the words of the
    library that refused it where one said why (libpng, libjpeg, Pillow's probe)."""
    # what a decoder's library says on the process's stderr, naming no file: libpng of a PNG,
    # libjpeg of a JPEG its strict read could not judge (it prints past OpenCV's log level)
    heard: list[str] = []
    png = bytes(buffer[:8]) == PNG_SIGNATURE
    listened = LIBPNG_LINES if png else LIBJPEG_LINES if jpeg and not read_whole else None
    try:
        with quiet_opencv(), decoder_lines(heard, listened):
            image = cv2.imdecode(buffer, flags)  # a damaged TIFF or BMP said once, in our words
    except cv2.error as exc:
        raise ImageError(
            f"{name}: cannot decode image: {str(exc).strip().splitlines()[-1]}"
        ) from None
    if image is None or image.size == 0:
        errors = [line for line in heard if line.startswith("libpng error")]
        if errors:
            said = errors[0].removeprefix("libpng error:").strip()
            raise ImageError(f"{name}: cannot decode image: corrupt PNG (libpng: {said})")
        if heard and not png:
            raise ImageError(f"{name}: cannot decode image: corrupt JPEG (libjpeg: {heard[-1]})")
        if pillow_said:
            raise ImageError(
                f"{name}: cannot decode image: its header is damaged or not read "
                f"here (Pillow: {pillow_said[-1]})"
            )
        head = bytes(buffer[:4096])
        if ends_early(bytes(buffer)):  # (said of a WebP, GIF, BMP or TIFF cut short as of any
            raise ImageError(f"{name}: cannot decode image: the file is truncated")  # other)
        if is_text(head) and not is_picture(head):  # (was "not an image file OpenCV can read")
            if b"<svg" in head.lower():  # (a drawing in text: "a text file" misled)
                raise ImageError(
                    f"{name}: cannot decode image: an SVG drawing, which blitzcam does not "
                    "read: export it as a PNG or JPEG"
                )
            raise ImageError(f"{name}: cannot decode image: a text file, not a picture")
        raise ImageError(
            f"{name}: cannot decode image: not an image file OpenCV can read, or corrupt"
        )
    return image


def _check_pixels(width: int, height: int, name: str) -> None:
    """ImageError naming `name` unless a header's size is one a picture may have."""
    if width < 1 or height < 1:
        raise ImageError(f"{name}: cannot decode image: the header says {width}x{height} pixels")
    if width * height > MAX_PIXELS:
        raise ImageError(
            f"{name}: cannot decode image: the header says {width}x{height} pixels, more "
            f"than the {MAX_PIXELS:,} a picture may have"
        )


def _too_large(name: str, size: tuple[int, int], kind: str, needed: int, instead: str) -> str:
    """Why a picture of `size` is not decoded: held whole, it needs more memory than allowed."""
    return (
        f"{name}: cannot decode image: a {size[0]}x{size[1]} {kind} is decoded whole, which "
        f"would take {needed / (1 << 30):.1f} GiB of memory, more than the "
        f"{MAX_WHOLE_DECODE_BYTES / (1 << 30):.0f} GiB allowed: save it smaller, or as {instead}"
    )


def _as_libjpeg_reads_it(data: bytes, name: str) -> tuple[bytes, bool]:
    """A JPEG's bytes as OpenCV is to decode them, and whether libjpeg read all of its image data
    without a complaint; ImageError naming `name` when libjpeg says that data is damaged."""
    warning = libjpeg_warning(data)
    left_out: set[int] = set()
    while warning is not None:
        # a word about metadata, or about padding between the header's segments, ends libjpeg's
        # strict read before the image data, and OpenCV would print it naming no file: both
        # read the same picture without that segment, or that padding
        if (marker := segment_named(warning)) not in (None, *left_out):
            left_out.add(marker)
            mended = without_segments(data, {marker})
        elif junk_before_marker(warning):
            mended = without_junk_between_segments(data)
        else:
            break
        if mended == data:
            break
        data, warning = mended, libjpeg_warning(mended)
    read_whole = warning is None
    if warning is not None and says_damaged(warning):
        raise ImageError(
            f"{name}: cannot decode image: its image data is damaged (libjpeg: {warning})"
        )
    if warning is not None:  # an encoder's quirk, or a variant OpenCV may read and libjpeg not
        junk, scan = junk_before_end(warning), first_scan(data)
        if junk is not None and scan is not None:  # stray bytes a camera wrote before the end
            data = without_junk_before_end(data, junk, scan=scan)
            read_whole = libjpeg_warning(data) is None
    if missing_scans(data):  # (libjpeg reads a progressive JPEG cut after a scan unsaid)
        raise ImageError(
            f"{name}: cannot decode image: the file is cut short: a progressive JPEG whose "
            "last scans are missing (it would be read blurred)"
        )
    return data, read_whole


_RESIZABLE: Final = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))


def has_colour(frame: np.ndarray) -> bool:
    """Whether a BGR frame holds any colour (a grayscale file is read as three equal channels):
    without it the decks' inks, which tell green pump from red pump, cannot be read."""
    for part in (frame[::8, ::8], frame):  # a colour photo shows it in a sample at once
        if not (np.array_equal(part[..., 0], part[..., 1])
                and np.array_equal(part[..., 1], part[..., 2])):  # fmt: skip
            return True
    return False


# libjpeg decodes what is missing from a damaged file's data (bytes zeroed or cut, with an end
# marker still there) as blocks of level 128, and says so only on the terminal: the picture's
# last rows (an edge, once EXIF has turned it) come back exactly that grey, which a camera's
# noise never makes. A count of such a picture missed what the grey hides. libjpeg's own warning
# (vision/jpeg_check.py) says so first; this is the second line, for a file whose image data
# libjpeg did not read to the end without a word (an encoder's quirk in a scan header stops its
# strict read, as does a JPEG variant it cannot read). Bars of that grey laid on a picture on
# purpose (letterboxing) come in pairs, so an edge whose opposite edge is the same grey is not
# taken for damage.
JPEG_MISSING_GREY: Final = 128
GREY_FILL_MIN_DEPTH: Final = 8  # rows or columns of the decoded picture


def grey_filled_edge(image: np.ndarray) -> int:
    """How many rows (or columns) deep the deepest edge of the picture is exactly the grey
    that libjpeg fills missing data with, across its whole width (or height), where the
    opposite edge is not that grey too."""

    def depth(edge: np.ndarray) -> int:
        rows = 0
        while rows < edge.shape[0] and bool((edge[rows] == JPEG_MISSING_GREY).all()):
            rows += 1
        return rows

    across = image.swapaxes(0, 1)
    bands = [(image[::-1], image), (across[::-1], across)]  # (an edge, the one opposite)
    deepest = 0
    for a, b in (*bands, *((b, a) for a, b in bands)):
        if depth(b[:1]) == 0:
            deepest = max(deepest, depth(a))
    return deepest


def _may_be_transparent(data: bytes) -> bool:
    """Whether a file may hold transparency: a PNG whose header says so (grey or colour with
    alpha, or a tRNS chunk), or any format but JPEG and PNG (TIFF, WebP and others can; their
    headers are not read here)."""
    if data[:8] != PNG_SIGNATURE:
        return data[:2] != b"\xff\xd8"
    if len(data) < 26:
        return True
    # a tRNS chunk (before the image data) makes a palette, grey or colour PNG transparent too
    return data[25] in (4, 6) or b"tRNS" in png_chunks(data)


def _upright_size(
    stored: tuple[int, int] | None, width: int, height: int
) -> tuple[int, int] | None:
    """The header's (width, height), swapped when the decoder turned the picture a quarter
    turn: whichever reads the reduced frame at the same scale across and down."""
    if stored is None:
        return None
    w, h = stored
    if abs(w / width - h / height) <= abs(h / width - w / height):
        return w, h
    return h, w


def read_image(path: Path, *, max_side: int = MAX_SIDE, over: int = 255) -> np.ndarray:
    """Read an image file as a BGR uint8 frame; ImageError naming the file when it cannot be.
    Transparency is laid on grey `over` (white)."""
    return read_picture(path, max_side=max_side, over=over).frame


def read_picture(path: Path, *, max_side: int = MAX_SIDE, over: int = 255) -> Picture:
    """Read an image file as a Picture (frame and size); ImageError naming the file.
    Transparency is laid on grey `over` (white)."""
    data = read_file_bytes(path)
    return decode_picture(data, name=str(path), max_side=max_side, over=over)


def read_file_bytes(path: Path) -> bytes:
    """An image file's bytes, up to the largest an image file may be; ImageError naming the
    file when they cannot be read."""
    path = Path(path)
    try:
        if path.is_dir():
            raise ImageError(f"{path}: is a folder, not an image file")
        status = path.stat()
        # a file, or a pipe (`... | blitzcam count /dev/stdin`); a device such as /dev/zero
        # never ends, and says 0 bytes
        if not (stat.S_ISREG(status.st_mode) or stat.S_ISFIFO(status.st_mode)):
            raise ImageError(f"{path}: is not an image file (a device?)")
        if status.st_size > MAX_FILE_BYTES:
            raise ImageError(
                f"{path}: cannot decode image: {status.st_size} bytes is too large for an "
                "image file"
            )
        with path.open("rb") as file:
            data = _read_at_most(file, MAX_FILE_BYTES, expected=status.st_size)
        if data is None:  # a pipe, or a file that grew since
            raise ImageError(f"{path}: cannot decode image: too large for an image file")
    except FileNotFoundError:
        raise ImageError(f"{path}: {not_there(path)}") from None
    except PermissionError:
        # (the folder it is in, where that is what cannot be entered: "the file" was said of
        # a name not there)
        why = out_of_reach(path) or "cannot read the file: permission denied"
        raise ImageError(f"{path}: {why}") from None
    except OSError as exc:
        raise ImageError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    return data


def read_picture_stream(
    file: BinaryIO, *, name: str, max_side: int = MAX_SIDE, over: int = 255
) -> Picture:
    """As `read_picture`, from an open binary stream (standard input) said as `name`."""
    data = read_stream_bytes(file, name=name)
    return decode_picture(data, name=name, max_side=max_side, over=over)


def read_stream_bytes(file: BinaryIO, *, name: str) -> bytes:
    """An open binary stream's bytes (standard input's), said as `name` when they cannot be
    read or are more than an image file may be."""
    try:
        data = _read_at_most(file, MAX_FILE_BYTES, expected=0)
    except OSError as exc:
        raise ImageError(f"{name}: cannot read it: {exc.strerror or exc}") from None
    if data is None:
        raise ImageError(f"{name}: cannot decode image: too large for an image file")
    if not data:  # (no file to be empty: nothing was piped in)
        raise ImageError(f"{name}: cannot decode image: nothing came (no picture was piped in)")
    return data


def _read_at_most(file: BinaryIO, limit: int, *, expected: int) -> bytes | None:
    """The whole of `file`, or None when it holds more than `limit` bytes. Read in pieces: one
    read of `limit` would reserve that much memory for every small file."""
    pieces, total = [], 0
    size = min(max(expected, 1 << 16), limit) + 1
    while piece := file.read(size):
        pieces.append(piece)
        total += len(piece)
        if total > limit:
            return None
        size = min(1 << 20, limit + 1 - total)
    return b"".join(pieces)


def write_png_atomic(path: Path, image_bgr: np.ndarray) -> None:
    """Write a PNG whole or not at all (readers never see half a file); creates the folder."""
    from blitzcam.files import write_bytes_atomic

    ok, encoded = cv2.imencode(".png", image_bgr)
    if not ok:
        raise ImageError(f"{path}: cannot encode the image as PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, encoded.tobytes())
