"""Turning a portrait frame to fill the detector's landscape input, and its boxes back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from blitzcam.vision.detections import obb_corners
from blitzcam.vision.orientation import fills_more_turned, turn_back_obb, turn_frame

NETWORK_HW = (736, 1280)


@pytest.mark.parametrize(
    ("frame_hw", "turned"),
    [
        ((1920, 1080), True),  # a portrait phone frame
        ((1440, 1080), True),  # portrait 4:3
        ((1080, 1920), False),  # 16:9, as the network was made for
        ((1080, 1440), False),  # landscape 4:3
        ((1000, 1000), False),  # square: both ways fill it alike
        ((0, 100), False),
    ],
)
def test_only_a_frame_that_fills_more_turned_is_turned(
    frame_hw: tuple[int, int], turned: bool
) -> None:
    assert fills_more_turned(frame_hw, NETWORK_HW) is turned


def test_a_portrait_network_turns_landscape_frames() -> None:
    assert fills_more_turned((1080, 1920), (1280, 736))
    assert not fills_more_turned((1920, 1080), (1280, 736))


def test_the_frame_turns_a_quarter_clockwise() -> None:
    frame = np.zeros((4, 2, 3), np.uint8)
    frame[0, 0] = 255  # top-left of the portrait frame ...
    turned = turn_frame(frame)
    assert turned.shape == (2, 4, 3)
    assert turned[0, 3].tolist() == [255, 255, 255]  # ... is the turned frame's top-right


def _mask(hw: tuple[int, int], obb: np.ndarray) -> np.ndarray:
    """The boxes filled in; a box's coordinates put pixel (i, j) between x = j and j + 1
    (OpenCV's drawing puts it at x = j: half a pixel off)."""
    mask = np.zeros(hw, np.uint8)
    for corners in obb_corners(obb):
        cv2.fillPoly(mask, [np.round((corners - 0.5) * 16).astype(np.int32)], 255, shift=4)
    return mask


@pytest.mark.parametrize("seed", range(5))
def test_a_box_turned_back_covers_the_same_pixels_of_the_frame(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame_hw = (480, 270)  # portrait: turned it is 270 high, 480 wide
    turned_obb = np.column_stack(
        [
            rng.uniform(60, 420, 6),  # x in the turned frame
            rng.uniform(60, 210, 6),  # y
            rng.uniform(20, 60, 6),
            rng.uniform(10, 40, 6),
            rng.uniform(-np.pi / 4, 3 * np.pi / 4, 6),
        ]
    ).astype(np.float32)
    back = turn_back_obb(turned_obb, frame_hw)
    # the boxes drawn in the frame, turned with it, land where they were drawn in the turned frame
    in_frame = turn_frame(_mask(frame_hw, back))
    in_turned = _mask((frame_hw[1], frame_hw[0]), turned_obb)
    assert in_turned.any()
    differ = np.count_nonzero(in_frame != in_turned)
    # only anti-aliasing-free edge pixels may round the other way
    assert differ <= 0.02 * np.count_nonzero(in_turned)
    assert back.dtype == np.float32 and back.shape == turned_obb.shape
    np.testing.assert_allclose(back[:, 4], turned_obb[:, 4])  # the angle stays in its range


def test_no_boxes_turn_back_to_no_boxes() -> None:
    assert turn_back_obb(np.zeros((0, 5), np.float32), (1920, 1080)).shape == (0, 5)
