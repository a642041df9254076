"""ui/review_pictures.py: what a round's review shows of its scan."""

from __future__ import annotations

import numpy as np

from blitzcam.ui.counting_worker import CountSnapshot
from blitzcam.ui.review_pictures import PICTURE_WIDTH, review_pictures
from blitzcam.ui.scan_session import ScanSession, Shot
from tests.ui.fakes import players


def _shot(width: int, **counts: int) -> Shot:
    frame = np.zeros((width * 9 // 16, width, 3), np.uint8)
    return Shot(frame, CountSnapshot(counts={k.replace("_", "-"): v for k, v in counts.items()}))


def test_the_last_shot_of_each_step_shot_is_pictured_and_the_other_step_said_unshot(qapp) -> None:
    session = ScanSession(players(2)).with_shot(_shot(320, green_pump=4))
    session = session.with_shot(_shot(640, green_pump=3))
    pictures = review_pictures(session, 2.0)
    assert len(pictures.captures) == len(pictures.enlarged) == 1
    assert pictures.captions == ("Dutch piles: the last of 2 shots; the counts are their sum",)
    assert pictures.unshot == ("Blitz",)
    # drawn at 2 device pixels to each, at the review's width; enlarged, at the width asked
    assert pictures.captures[0].width() == 2 * PICTURE_WIDTH
    assert pictures.enlarged[0](900).width() == 1800
    assert pictures.check == ()


def test_both_steps_shot_once_each_are_pictured_in_order(qapp) -> None:
    session = ScanSession(players(2)).with_shot(_shot(320, green_pump=4))
    session = session.next_step().with_shot(_shot(320, red_buggy=2))
    pictures = review_pictures(session, 1.0)
    assert pictures.captions == ("Dutch piles", "Blitz piles")
    assert pictures.unshot == ()
    assert [image.width() for image in pictures.captures] == [PICTURE_WIDTH] * 2


def test_a_scan_with_no_shot_pictures_nothing_and_says_both_steps_unshot(qapp) -> None:
    pictures = review_pictures(ScanSession(players(2)), 1.0)
    assert pictures.captures == pictures.captions == pictures.enlarged == ()
    assert pictures.unshot == ("Dutch", "Blitz")
