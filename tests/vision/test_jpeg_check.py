"""What libjpeg says about a JPEG's image data: damage told from an encoder's quirks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from blitzcam.vision.jpeg_check import (
    STRAY_BYTES_MAX,
    junk_before_end,
    libjpeg_warning,
    says_damaged,
    segment_named,
    without_junk_before_end,
)

NOISE = np.random.default_rng(3).integers(0, 255, (240, 320, 3), dtype=np.uint8)
CLEAN = cv2.imencode(".jpg", NOISE)[1].tobytes()


def _with_junk_before_end(data: bytes, junk: int) -> bytes:
    return data[:-2] + bytes(range(1, junk + 1)) + data[-2:]


def _scan(data: bytes) -> int:
    return data.find(b"\xff\xda")  # (these files have no EXIF thumbnail)


def test_a_clean_jpeg_gives_no_warning() -> None:
    assert libjpeg_warning(CLEAN) is None


def test_image_data_cut_short_is_said_in_libjpegs_words() -> None:
    cut = CLEAN[: len(CLEAN) // 2] + b"\xff\xd9"  # the end marker put back
    warning = libjpeg_warning(cut)
    assert warning == "Corrupt JPEG data: premature end of data segment"
    assert says_damaged(warning)


def test_a_file_libjpeg_cannot_read_is_said_too() -> None:
    said = libjpeg_warning(b"\xff\xd8 not a picture")
    # (libjpeg-turbo's own words, which its versions put their own way: some sentence)
    assert isinstance(said, str) and len(said.split()) >= 3


@pytest.mark.parametrize(
    "warning",
    [
        "Corrupt JPEG data: premature end of data segment",
        "Corrupt JPEG data: bad Huffman code",
        "Corrupt JPEG data: bad arithmetic code",
        "Corrupt JPEG data: found marker 0xd9 instead of RST3",
        "Corrupt JPEG data: 12 extraneous bytes before marker 0xda",  # in the image data
        # the blocks ended early, thousands of bytes of image data left (a flipped bit's)
        "Corrupt JPEG data: 2105 extraneous bytes before marker 0xd9",
        "Premature end of JPEG file",
        "Inconsistent progression sequence for component 0 coefficient 1",
        # an FF and a code the standard reserves, in the image data (bytes changed there)
        "Unsupported marker type 0x78",
        "Unsupported marker type 0x01",
    ],
)
def test_warnings_about_the_image_data_say_damage(warning: str) -> None:
    assert says_damaged(warning)


@pytest.mark.parametrize(
    "warning",
    [
        "Corrupt JPEG data: 15 extraneous bytes before marker 0xd9",  # a camera's stray bytes
        f"Corrupt JPEG data: {STRAY_BYTES_MAX} extraneous bytes before marker 0xd9",
        "Warning: unknown JFIF revision number 2.01",
        "Unknown Adobe color transform code 7",
        "Invalid SOS parameters for sequential JPEG",
        "Corrupt JPEG data: bad ICC marker",
        "Unsupported marker type 0xdc",  # DNL: the standard's, which libjpeg lacks
    ],
)
def test_warnings_about_metadata_or_quirks_do_not(warning: str) -> None:
    assert not says_damaged(warning)


def test_stray_bytes_before_the_end_are_counted_from_the_warning() -> None:
    warning = libjpeg_warning(_with_junk_before_end(CLEAN, 20))
    assert warning is not None and junk_before_end(warning) is not None
    assert junk_before_end("Corrupt JPEG data: 15 extraneous bytes before marker 0xd9") == 15
    assert junk_before_end("Corrupt JPEG data: 15 extraneous bytes before marker 0xda") is None
    assert junk_before_end("Corrupt JPEG data: premature end of data segment") is None


@pytest.mark.parametrize("junk", [8, 20, 100])
def test_stray_bytes_taken_out_leave_the_same_picture_and_no_warning(junk: int) -> None:
    quirky = _with_junk_before_end(CLEAN, junk)
    warning = libjpeg_warning(quirky)
    assert warning is not None
    mended = without_junk_before_end(quirky, junk_before_end(warning), scan=_scan(quirky))
    assert libjpeg_warning(mended) is None
    assert len(mended) < len(quirky)
    decoded = cv2.imdecode(np.frombuffer(mended, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, cv2.imdecode(np.frombuffer(CLEAN, np.uint8), cv2.IMREAD_COLOR))


def test_nothing_is_taken_from_before_the_scan_or_for_no_stray_bytes() -> None:
    quirky = _with_junk_before_end(CLEAN, 20)
    scan = _scan(quirky)
    assert without_junk_before_end(quirky, 0, scan=scan) == quirky
    assert without_junk_before_end(quirky, len(quirky), scan=scan) == quirky  # into the header
    # an end marker only before the scan (an EXIF thumbnail's): none after it to cut before
    assert without_junk_before_end(quirky, 5, scan=len(quirky) - 1) == quirky


def test_a_warning_about_a_metadata_segment_names_it() -> None:
    assert segment_named("Warning: unknown JFIF revision number 2.01") == 0xE0  # APP0
    assert segment_named("Unknown Adobe color transform code 7") == 0xEE  # APP14
    for other in (
        "Invalid SOS parameters for sequential JPEG",
        "Corrupt JPEG data: premature end of data segment",
        "Corrupt JPEG data: bad ICC marker",  # (libjpeg reads ICC only when asked)
    ):
        assert segment_named(other) is None


def test_two_bytes_changed_near_the_end_of_the_image_data_are_damage() -> None:
    # (an FF 78 600 bytes before the end: the last block row came out grey, under the 8 rows
    # the grey-band test looks for, and the picture was counted)
    data = bytearray(CLEAN)
    at = len(data) - 600
    data[at : at + 2] = b"\xff\x78"
    warning = libjpeg_warning(bytes(data))
    assert warning == "Unsupported marker type 0x78" and says_damaged(warning)
