"""Walking a JPEG's segments: the first scan found past an EXIF thumbnail, metadata cut whole."""

from __future__ import annotations

import cv2
import numpy as np

from blitzcam.vision.jpeg_segments import (
    SCAN,
    first_scan,
    segments,
    without_junk_between_segments,
    without_segments,
)

PICTURE = np.random.default_rng(5).integers(0, 255, (48, 64, 3), dtype=np.uint8)
CLEAN = cv2.imencode(".jpg", PICTURE)[1].tobytes()
APP0, APP1, COM = 0xE0, 0xE1, 0xFE


def _segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + (len(body) + 2).to_bytes(2, "big") + body


def _with_segments(jpeg: bytes, *extra: bytes) -> bytes:
    return jpeg[:2] + b"".join(extra) + jpeg[2:]


def _markers(data: bytes) -> list[int]:
    return [marker for _, marker in segments(data, skip_junk=False)]


def test_the_walk_ends_at_the_first_scan() -> None:
    markers = _markers(CLEAN)
    assert markers[0] == APP0 and markers[-1] == SCAN
    assert first_scan(CLEAN) == CLEAN.find(b"\xff\xda")


def test_a_thumbnails_scan_inside_a_segment_is_stepped_over() -> None:
    thumbnail = cv2.imencode(".jpg", PICTURE[:8, :8])[1].tobytes()
    data = _with_segments(CLEAN, _segment(APP1, b"Exif\x00\x00" + thumbnail))
    assert data.find(b"\xff\xda") < data.find(CLEAN[2:])  # the thumbnail's scan comes first
    assert first_scan(data) == data.find(CLEAN[2:]) + CLEAN[2:].find(b"\xff\xda")


def test_segments_left_out_whole_and_the_rest_kept_byte_for_byte() -> None:
    note, exif = _segment(COM, b"made by hand"), _segment(APP1, b"Exif\x00\x00" + bytes(30))
    data = _with_segments(CLEAN, note, exif)
    assert without_segments(data, {COM}) == _with_segments(CLEAN, exif)
    assert without_segments(data, {COM, APP1}) == CLEAN
    without_jfif = without_segments(CLEAN, {APP0})
    assert APP0 not in _markers(without_jfif) and _markers(without_jfif)[-1] == SCAN
    assert len(without_jfif) == len(CLEAN) - 2 - int.from_bytes(CLEAN[4:6], "big")
    assert without_segments(data, ()) == data


def test_nothing_is_cut_from_a_file_whose_segments_do_not_reach_a_scan() -> None:
    broken = CLEAN[:20] + b"\x00" + CLEAN[20:]  # a byte where a segment should start
    assert first_scan(broken) is None
    assert without_segments(broken, {APP0, COM}) == broken
    assert without_segments(CLEAN[:30], {APP0}) == CLEAN[:30]  # cut before its scan


def test_walked_through_its_scans_a_progressive_jpeg_shows_each_scan_and_ends_at_its_end() -> None:
    progressive = cv2.imencode(".jpg", PICTURE, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    walked = list(segments(progressive, skip_junk=True, through_scans=True))
    scans = [pos for pos, marker in walked if marker == SCAN]
    assert len(scans) > 1  # (libjpeg's progressive script has ten for a colour picture)
    # every scan header found, none taken from inside image data (where a 0xFF is stuffed)
    every = [at for at in range(len(progressive) - 1) if progressive[at : at + 2] == b"\xff\xda"]
    assert scans == every
    assert scans[0] == first_scan(progressive)
    assert walked[-1][0] < len(progressive) - 2  # the end marker is where it stopped, unwalked
    # without `through_scans`, the first scan ends the walk, as before
    assert [marker for _, marker in segments(progressive, skip_junk=True)][-1] == SCAN
    assert sum(m == SCAN for _, m in segments(progressive, skip_junk=True)) == 1


def _with_padding_before(jpeg: bytes, nth: int, padding: bytes) -> bytes:
    """`jpeg` with `padding` before its `nth` segment (0: the first after the start marker)."""
    at = list(segments(jpeg, skip_junk=False))[nth][0]
    return jpeg[:at] + padding + jpeg[at:]


def test_padding_between_the_headers_segments_is_cut_and_the_rest_kept_byte_for_byte() -> None:
    assert without_junk_between_segments(CLEAN) == CLEAN
    scan = len(list(segments(CLEAN, skip_junk=False))) - 1
    for nth in (0, 1, scan):
        assert without_junk_between_segments(_with_padding_before(CLEAN, nth, b"\x00\x00")) == CLEAN
    twice = _with_padding_before(_with_padding_before(CLEAN, 2, b"\x00"), 0, b"\x12\x34\x56")
    assert without_junk_between_segments(twice) == CLEAN
    # FF fill bytes before a marker are the standard's own, and stay
    filled = _with_padding_before(CLEAN, 1, b"\xff\xff")
    assert without_junk_between_segments(filled) == filled


def test_nothing_is_cut_past_the_first_scan_or_from_a_walk_that_reaches_none() -> None:
    progressive = cv2.imencode(".jpg", PICTURE, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    later = [pos for pos, m in segments(progressive, skip_junk=True, through_scans=True)]
    second_scan = [p for p in later if progressive[p + 1] == SCAN][1]
    between_scans = progressive[:second_scan] + b"\x00\x00" + progressive[second_scan:]
    assert without_junk_between_segments(between_scans) == between_scans
    assert without_junk_between_segments(CLEAN[:30]) == CLEAN[:30]  # cut before its scan
