"""vision/colour_profile.py: a photo's colours brought to sRGB from a space far from it."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

from blitzcam.vision.colour_profile import as_srgb, embedded_profile
from blitzcam.vision.images import decode_picture


def _matrix_profile(name: bytes, red: tuple, green: tuple, blue: tuple, gamma: float) -> bytes:
    """A minimal ICC v2 RGB display profile: primaries (XYZ, D50) and one gamma curve."""

    def s15(value: float) -> bytes:
        return struct.pack(">i", round(value * 65536))

    def xyz(x: float, y: float, z: float) -> bytes:
        return b"XYZ \0\0\0\0" + s15(x) + s15(y) + s15(z)

    curve = b"curv\0\0\0\0" + struct.pack(">IH", 1, int(gamma * 256)) + b"\0\0"
    tags = [
        (b"desc", b"desc\0\0\0\0" + struct.pack(">I", len(name) + 1) + name + b"\0" * 88),
        (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
        (b"rXYZ", xyz(*red)), (b"gXYZ", xyz(*green)), (b"bXYZ", xyz(*blue)),
        (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve),
        (b"cprt", b"text\0\0\0\0none\0"),
    ]  # fmt: skip
    start = 128 + 4 + 12 * len(tags)
    table = body = b""
    for signature, data in tags:
        data += b"\0" * (-len(data) % 4)
        table += signature + struct.pack(">II", start + len(body), len(data))
        body += data
    header = struct.pack(">I", start + len(body)) + b"lcms" + bytes([2, 0x10, 0, 0])
    header += b"mntrRGB XYZ " + b"\0" * 12 + b"acsp" + b"APPL" + b"\0" * 24
    header = (header + s15(0.9642) + s15(1.0) + s15(0.8249)).ljust(128, b"\0")
    return header + struct.pack(">I", len(tags)) + table + body


PROPHOTO = _matrix_profile(b"ProPhoto RGB", (0.7977, 0.2880, 0.0), (0.1352, 0.7119, 0.0),
                           (0.0313, 0.0001, 0.8249), 1.8)  # fmt: skip
DISPLAY_P3 = _matrix_profile(b"Display P3", (0.5151, 0.2412, -0.0011), (0.2920, 0.6922, 0.0419),
                             (0.1571, 0.0666, 0.7841), 2.2)  # fmt: skip
# inks like the decks': a red, a green, a yellow, a blue, on a card's white and a table's brown
INKS = np.array([[[40, 40, 200], [60, 150, 40], [40, 200, 220], [170, 90, 30], [245, 245, 245],
                  [40, 70, 110]]], np.uint8).repeat(8, axis=0)  # fmt: skip


def _in_space(bgr: np.ndarray, profile: bytes) -> np.ndarray:
    """`bgr` (sRGB) as its numbers would be in the space `profile` describes."""
    from PIL import Image, ImageCms

    target = ImageCms.ImageCmsProfile(io.BytesIO(profile))
    moved = ImageCms.profileToProfile(Image.fromarray(bgr[..., ::-1]), ImageCms.createProfile("sRGB"),
                                      target, outputMode="RGB")  # fmt: skip
    return np.asarray(moved)[..., ::-1].copy()


def _png_with(bgr: np.ndarray, profile: bytes | None) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(bgr[..., ::-1]).save(out, format="PNG", **({"icc_profile": profile} if profile else {}))
    return out.getvalue()


def test_a_photo_in_prophoto_rgb_is_read_in_srgb_as_a_colour_managed_viewer_shows_it() -> None:
    # (exported from a raw developer: read as stored, table 1's red decks were no deck, 25
    # cards counted of 99; a review)
    stored = _in_space(INKS, PROPHOTO)
    assert np.abs(stored.astype(int) - INKS).mean() > 15  # (far from what it shows)
    assert np.abs(as_srgb(stored, PROPHOTO).astype(int) - INKS).mean() < 3
    picture = decode_picture(_png_with(stored, PROPHOTO), name="export.png")
    assert np.abs(picture.frame.astype(int) - INKS).mean() < 3
    assert embedded_profile(_png_with(stored, PROPHOTO)) == PROPHOTO


@pytest.mark.parametrize("profile", [None, DISPLAY_P3, b"not a profile at all"])
def test_no_profile_one_near_srgb_or_one_that_cannot_be_read_leaves_the_colours(profile) -> None:
    # (a phone's Display P3 counts the same either way, and converting a 12 MP photo cost 0.3 s)
    assert as_srgb(INKS, profile) is INKS
    assert np.array_equal(decode_picture(_png_with(INKS, profile), name="x.png").frame, INKS)


def test_a_jpeg_or_png_without_a_profile_is_told_by_its_segments_pillow_unasked() -> None:
    # (most photos carry none: the counting's start-up imports no Pillow for them)
    import subprocess
    import sys

    import cv2

    from blitzcam.vision.colour_profile import may_carry_profile

    plain_jpeg = cv2.imencode(".jpg", INKS)[1].tobytes()
    assert not may_carry_profile(plain_jpeg) and not may_carry_profile(_png_with(INKS, None))
    assert may_carry_profile(_png_with(INKS, PROPHOTO))
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(INKS[..., ::-1]).save(out, format="JPEG", icc_profile=PROPHOTO)
    assert may_carry_profile(out.getvalue()) and embedded_profile(out.getvalue()) == PROPHOTO
    code = (
        "import sys, cv2, numpy as np\n"
        "from blitzcam.vision.images import decode_picture\n"
        "data = cv2.imencode('.jpg', np.zeros((8, 8, 3), np.uint8))[1].tobytes()\n"
        "decode_picture(data, name='x.jpg')\n"
        "print('PIL' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


def test_a_damaged_tiff_header_is_read_for_its_profile_without_a_word_naming_no_file() -> None:
    # ("PIL/TiffImagePlugin.py:982: UserWarning: Truncated File Read" on the terminal, naming
    # no file, where the decode's own error names it; review)
    import io
    import warnings

    from PIL import Image

    from blitzcam.vision.colour_profile import embedded_profile

    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "TIFF", icc_profile=b"x" * 600, description="y" * 300)
    for cut in (300, 500):  # "Truncated File Read", "Tag data larger than file"
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            embedded_profile(out.getvalue()[:-cut])
        assert [str(warning.message) for warning in said] == []
