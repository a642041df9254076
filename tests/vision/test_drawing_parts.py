"""Whether the detector boxes each card of an enrolled back once (vision/drawing_parts.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from blitzcam.datasets.art import render_back
from blitzcam.vision.drawing_parts import COPIES, SPLIT_FROM, boxes_on_each_card, parts_note


def _back(deck: str) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(render_back(deck, width=400).rgba), cv2.COLOR_RGBA2BGR)


def _in_two_parts() -> np.ndarray:
    """A back of one's own whose drawing is two, set apart: a bucket over a plow."""
    bucket, plow = _back("yellow-bucket"), _back("red-plow")
    quarter = bucket.shape[0] // 4
    card = np.empty_like(bucket)
    card[:] = bucket[5, 5]  # (its paper)
    card[90:246, 100:300] = cv2.resize(bucket[quarter : 3 * quarter], (200, 156))
    card[380:536, 100:300] = cv2.resize(plow[quarter : 3 * quarter], (200, 156))
    return card


@pytest.fixture(scope="module")
def detector():
    from blitzcam.vision.pipeline import counting_detector

    return counting_detector()


def test_a_drawing_in_two_parts_is_boxed_twice_a_card_and_said(detector) -> None:
    # (an owl with "OWL" written over it was counted 40 times where 19 lay; enroll review)
    from blitzcam.vision.pipeline import COUNT_CONF

    counts = boxes_on_each_card(_in_two_parts(), detector, COUNT_CONF)
    assert len(counts) == COPIES and sum(n >= 2 for n in counts) >= SPLIT_FROM
    assert parts_note(counts).startswith("blitzcam finds 2 drawings on some cards of this back")


@pytest.mark.parametrize("deck", ["green-pump", "red-buggy", "blue-plow"])
def test_a_drawing_of_one_piece_is_boxed_once_a_card(detector, deck: str) -> None:
    from blitzcam.vision.pipeline import COUNT_CONF

    counts = boxes_on_each_card(_back(deck), detector, COUNT_CONF)
    assert counts == [1] * COPIES and parts_note(counts) is None


def test_a_card_boxed_twice_now_and_then_is_not_said() -> None:
    assert parts_note([1, 2] + [1] * (COPIES - 2)) is None  # (a stray box)
    assert parts_note([2] * SPLIT_FROM + [1] * (COPIES - SPLIT_FROM)) is not None


def test_decks_enroll_says_a_deck_of_one_s_own_is_boxed_in_parts(tmp_path, capsys) -> None:
    import argparse

    from blitzcam.commands.decks import enroll_command

    photo = np.full((1200, 1600, 3), (45, 60, 80), np.uint8)
    card = _in_two_parts()
    photo[280:905, 600:1000] = card
    path = tmp_path / "own.jpg"
    cv2.imwrite(str(path), photo)
    assert enroll_command(argparse.Namespace(own=False, deck="my-deck", image=path, camera=None)) == 0
    err = capsys.readouterr().err
    assert "note: blitzcam finds 2 drawings on some cards of this back" in err
    # ... and the eight decks, drawn in one piece, are not tried (a photo with glare parted one)
    photo[280:905, 600:1000] = _back("green-pump")
    cv2.imwrite(str(path), photo)
    assert enroll_command(argparse.Namespace(own=False, deck="green-pump", image=path, camera=None)) == 0
    assert "drawings on some cards" not in capsys.readouterr().err
