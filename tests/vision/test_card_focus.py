"""How sharp a back's drawing is read (vision/card_focus.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from blitzcam.datasets.art import render_back
from blitzcam.vision.card_focus import SOFT_BELOW, drawing_sharpness


def _back(deck: str, width: int) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(render_back(deck, width=width).rgba), cv2.COLOR_RGBA2BGR)


@pytest.mark.parametrize("deck", ["green-pump", "yellow-bucket", "red-plow"])
def test_a_drawing_reads_less_sharp_the_more_it_is_blurred(deck: str) -> None:
    back = _back(deck, 500)
    read = [drawing_sharpness(back if s == 0 else cv2.GaussianBlur(back, (0, 0), s)) for s in (0, 1, 3, 6)]
    assert read == sorted(read, reverse=True) and read[0] > 1
    assert read[-1] < SOFT_BELOW


@pytest.mark.parametrize("deck", ["red-buggy", "yellow-bucket"])
def test_a_card_rectified_larger_than_the_photo_held_it_is_read_at_the_photo_s_width(deck: str) -> None:
    # (a card 180 px wide in the photo, drawn 400 wide, has its edges spread by that drawing,
    # not by the lens: read at 400 the test photos' sharp small cards came near SOFT_BELOW)
    back = _back(deck, 400)
    small = cv2.resize(back, (180, round(180 * back.shape[0] / back.shape[1])), interpolation=cv2.INTER_AREA)
    stretched = cv2.resize(small, (400, back.shape[0]), interpolation=cv2.INTER_LINEAR)
    assert drawing_sharpness(stretched, seen_width=180) > 1.2 * drawing_sharpness(stretched)


def test_a_blank_card_reads_no_edges_and_does_not_divide_by_nothing() -> None:
    assert drawing_sharpness(np.full((625, 400, 3), 250, np.uint8)) == 0.0
