"""Label formats and the generator's pure helpers (splits, resolutions)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blitzcam.datasets.generate import parse_resolution, split_of, split_sizes
from blitzcam.datasets.labels import data_yaml, parse_obb_line, to_obb_line


def test_obb_line_normalises_and_round_trips() -> None:
    poly = np.array([[0, 0], [640, 0], [640, 360], [0, 360]], np.float32)
    line = to_obb_line(0, poly, (1280, 720))
    assert line == "0 0.000000 0.000000 0.500000 0.000000 0.500000 0.500000 0.000000 0.500000"
    cls, corners = parse_obb_line(line)
    assert cls == 0
    assert np.allclose(corners * (1280, 720), poly)


def test_obb_line_clips_to_frame() -> None:
    poly = np.array([[-3, -1], [1300, 5], [1290, 730], [10, 725]], np.float32)
    _, corners = parse_obb_line(to_obb_line(1, poly, (1280, 720)))
    assert corners.min() >= 0 and corners.max() <= 1


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((3, 2)),  # a triangle
        np.zeros((4, 3)),  # 3-D points
    ],
)
def test_obb_line_rejects_bad_polygon(bad: np.ndarray) -> None:
    with pytest.raises(ValueError, match=r"must have shape \(4, 2\), got"):
        to_obb_line(0, bad, (100, 100))


def test_parse_rejects_short_line() -> None:
    with pytest.raises(ValueError, match="9 fields"):
        parse_obb_line("0 0.1 0.2")


def test_data_yaml_names_both_classes(tmp_path: Path) -> None:
    text = data_yaml(tmp_path)
    assert f'path: "{tmp_path}"' in text
    assert "train: images/train" in text and "val: images/val" in text
    assert "0: back" in text and "1: face" in text


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, (1, 0, 0)),  # a single scene: train only
        (2, (2, 0, 0)),  # too few to split
        (3, (1, 1, 1)),  # smallest split with val and test
        (10, (8, 1, 1)),  # 80/10/10
        (1000, (800, 100, 100)),  # 80/10/10
    ],
)
def test_split_sizes(n: int, expected: tuple[int, int, int]) -> None:
    assert split_sizes(n) == expected
    splits = [split_of(i, n) for i in range(n)]
    assert (splits.count("train"), splits.count("val"), splits.count("test")) == expected
    assert splits == sorted(splits, key=["train", "val", "test"].index)  # contiguous by index


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1280x720", (1280, 720)),  # the envelope's small end
        ("1920X1080", (1920, 1080)),  # capital X
        ("640x480", (640, 480)),  # smaller than the envelope, still sensible
    ],
)
def test_parse_resolution(text: str, expected: tuple[int, int]) -> None:
    assert parse_resolution(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "12x",  # missing height
        "0x720",  # zero width
        "1280",  # no separator
        "axb",  # not numbers
        "1280x-720",  # negative
        "100x100",  # too small to hold a card
        "10000x720",  # absurdly wide
        "²x720",  # a digit to str.isdigit, not to int(): said as the format, not int's words
    ],
)
def test_parse_resolution_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="resolution"):
        parse_resolution(text)


@settings(max_examples=60, deadline=None)
@given(
    corners=st.lists(st.floats(-50, 2000, allow_nan=False), min_size=8, max_size=8),
    width=st.integers(320, 1920),
    height=st.integers(240, 1080),
    cls=st.sampled_from([0, 1]),
)
def test_obb_line_round_trip_property(
    corners: list[float], width: int, height: int, cls: int
) -> None:
    """Any polygon: the line parses back to its class and to corners clipped into the frame."""
    poly = np.array(corners, np.float64).reshape(4, 2)
    back_cls, norm = parse_obb_line(to_obb_line(cls, poly, (width, height)))
    assert back_cls == cls
    assert norm.min() >= 0 and norm.max() <= 1
    clipped = np.clip(poly, 0, [width, height])
    assert np.allclose(norm * (width, height), clipped, atol=1e-5 * max(width, height))
