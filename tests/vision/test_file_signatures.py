"""Telling formats and their ends apart by their bytes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from blitzcam.vision.file_signatures import ends_early


def _encoded(fmt: str, **options) -> bytes:
    rng = np.random.default_rng(3)  # (noise: compressed, it still fills the file throughout)
    picture = Image.fromarray(rng.integers(0, 256, (90, 160, 3), dtype=np.uint8))
    if fmt == "GIF":
        picture = picture.convert("P", palette=Image.Palette.ADAPTIVE)
    written = io.BytesIO()
    picture.save(written, fmt, **options)
    return written.getvalue()


FORMATS = {
    "webp": lambda: _encoded("WEBP", quality=80),
    "webp lossless": lambda: _encoded("WEBP", lossless=True),
    "gif": lambda: _encoded("GIF"),
    "bmp": lambda: _encoded("BMP"),
    "tiff": lambda: _encoded("TIFF"),
    "tiff lzw": lambda: _encoded("TIFF", compression="tiff_lzw"),
    "tiff big-endian": lambda: _big_endian_tiff(),
    "tiff by opencv": lambda: _opencv("tiff"),
    "bmp by opencv": lambda: _opencv("bmp"),
    "gif animated": lambda: _animated_gif(),
}


def _opencv(ending: str) -> bytes:
    import cv2

    picture = np.random.default_rng(4).integers(0, 256, (90, 160, 3), dtype=np.uint8)
    return cv2.imencode(f".{ending}", picture)[1].tobytes()


def _big_endian_tiff() -> bytes:
    samples = np.random.default_rng(6).integers(0, 65535, (60, 80), dtype=np.uint16)
    written = io.BytesIO()  # (Pillow writes a 16-bit big-endian picture as "MM")
    Image.frombytes("I;16B", (80, 60), samples.astype(">u2").tobytes()).save(written, "TIFF")
    assert written.getvalue()[:4] == b"MM\x00*"
    return written.getvalue()


def _animated_gif() -> bytes:
    rng = np.random.default_rng(5)
    frames = [Image.fromarray(rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)) for _ in range(3)]
    written = io.BytesIO()  # (GIF89a: each frame's control extension before it, a loop's too)
    frames[0].save(written, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return written.getvalue()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_cut_anywhere_ends_early_and_a_whole_one_does_not(fmt: str) -> None:
    # (a cut WebP, GIF, BMP or TIFF was "not an image file OpenCV can read, or corrupt";
    # a JPEG's and a PNG's said "the file is truncated"; review)
    data = FORMATS[fmt]()
    assert not ends_early(data)
    assert not ends_early(data + b"\0" * 16)  # (bytes after the end are no cut)
    cuts = [*range(18, len(data), max(1, len(data) // 23)), len(data) - 1]  # (past the magic)
    assert [cut for cut in cuts if not ends_early(data[:cut])] == []


def test_other_files_never_end_early() -> None:
    assert not ends_early(b"")
    assert not ends_early(b"hello, world")
    assert not ends_early(b"\x89PNG\r\n\x1a\n")  # (a PNG's end is told elsewhere)
    # text that happens to begin as a BMP or a GIF does (a BMW's service log; review)
    assert not ends_early(b"BMW 320i service log\nOil changed at 120,000 km\n")
    assert not ends_early(b"GIF89a is a format from 1989, said the notes\n")


def test_a_cut_file_is_said_truncated_when_it_does_not_decode() -> None:
    from blitzcam.errors import UserError
    from blitzcam.vision.images import decode_image

    for fmt in ("webp", "gif", "bmp", "tiff"):
        data = FORMATS[fmt]()
        with pytest.raises(UserError, match=r"^x: cannot decode image: the file is truncated$"):
            decode_image(data[: len(data) // 2], name="x")


def test_a_gif_lacking_only_its_trailer_is_read_as_a_jpeg_lacking_its_end_marker_is() -> None:
    # (OpenCV refused it and it was said cut short; Pillow reads it: diff review)
    from blitzcam.vision.file_signatures import gif_lacks_only_its_trailer
    from blitzcam.vision.images import decode_image

    data = FORMATS["gif"]()
    assert gif_lacks_only_its_trailer(data[:-1]) and not gif_lacks_only_its_trailer(data)
    assert not gif_lacks_only_its_trailer(data[: len(data) // 2])  # (cut in its pictures)
    assert decode_image(data[:-1], name="x").shape == decode_image(data, name="x").shape


def test_a_gif_cut_before_its_first_picture_is_said_cut_short() -> None:
    # (taken as lacking only its trailer, it was "not an image file": diff review)
    from blitzcam.vision.file_signatures import gif_lacks_only_its_trailer

    data = FORMATS["gif"]()
    header = 13 + (3 << ((data[10] & 7) + 1))  # its header and colour table, no picture
    assert not gif_lacks_only_its_trailer(data[:header])
    assert ends_early(data[:header])
