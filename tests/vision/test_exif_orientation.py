"""vision/exif_orientation.py: PNG and WebP pictures turned upright as their EXIF says."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from blitzcam.vision.exif_orientation import exif_orientation, stored_orientation, upright
from blitzcam.vision.images import decode_picture


def _stored(rng: np.random.Generator) -> np.ndarray:
    """A seeded 60x100 RGB picture no turn or mirror leaves the same."""
    return rng.integers(0, 256, (60, 100, 3), dtype=np.uint8)


def _saved(rgb: np.ndarray, kind: str, orientation: int | None, *, mode: str = "RGB") -> bytes:
    image = Image.fromarray(rgb).convert(mode)
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    extra = {"lossless": True} if kind == "WEBP" else {}
    out = io.BytesIO()
    image.save(out, format=kind, exif=exif.tobytes(), **extra)
    return out.getvalue()


@pytest.mark.parametrize("kind", ["PNG", "WEBP"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_each_orientation_is_turned_as_opencv_turns_a_colour_read(kind: str, orientation: int) -> None:
    # (read with its alpha and bit depth kept, OpenCV gave a PNG or WebP as stored: boxes in
    # pixels other than the picture a viewer shows)
    data = _saved(_stored(np.random.default_rng(orientation)), kind, orientation)
    assert stored_orientation(data) == orientation
    as_opencv_turns_it = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    picture = decode_picture(data, name=f"photo.{kind.lower()}")
    np.testing.assert_array_equal(picture.frame, as_opencv_turns_it)
    assert picture.size == (as_opencv_turns_it.shape[1], as_opencv_turns_it.shape[0])


def test_a_transparent_png_keeps_its_alpha_as_it_is_turned() -> None:
    rgb = _stored(np.random.default_rng(3))
    rgba = np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])
    rgba[:10, :20, 3] = 0  # the stored top-left corner, clear: laid on white
    data = _saved(rgba, "PNG", 6, mode="RGBA")
    picture = decode_picture(data, name="clear.png")
    assert picture.transparent and picture.frame.shape == (100, 60, 3)
    # a quarter turn clockwise: the stored top-left corner is now the top-right
    assert (picture.frame[:20, -10:] == 255).all() and not (picture.frame[:20, :10] == 255).all()


def test_a_tiff_is_turned_once() -> None:
    # OpenCV's TIFF decoder turns it, whatever the flags: not turned again here
    data = _saved(_stored(np.random.default_rng(4)), "TIFF", 6)
    as_opencv_turns_it = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    np.testing.assert_array_equal(decode_picture(data, name="scan.tif").frame, as_opencv_turns_it)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", 1),  # nothing
        (b"GIF89a" + bytes(20), 1),  # a format without EXIF
        (b"\x89PNG\r\n\x1a\n" + bytes(4) + b"IHDR", 1),  # a PNG cut short, no eXIf
        (b"RIFF\x10\x00\x00\x00WEBPEXIF\xff\xff\xff\xff", 1),  # an EXIF chunk longer than the file
    ],
)
def test_a_file_without_a_readable_tag_is_taken_as_stored(data: bytes, expected: int) -> None:
    assert stored_orientation(data) == expected


@pytest.mark.parametrize(
    ("tiff", "expected"),
    [
        (b"MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00", 6),  # big-endian
        (b"II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x03\x00\x00\x00", 3),  # little-endian
        (b"II*\x00\x08\x00\x00\x00\x05\x00", None),  # five entries said, none there
        (b"II*\x00\xff\x00\x00\x00", None),  # its first IFD past the end
        (b"not a tiff header", None),
    ],
)
def test_the_tag_is_read_from_either_byte_order(tiff: bytes, expected: int | None) -> None:
    assert exif_orientation(tiff) == expected


def test_upright_turns_grey_and_colour_alike() -> None:
    grey = np.arange(6, dtype=np.uint8).reshape(2, 3)
    np.testing.assert_array_equal(upright(grey, 6), [[3, 0], [4, 1], [5, 2]])
    np.testing.assert_array_equal(upright(grey, 9), grey)  # no such orientation: as stored
