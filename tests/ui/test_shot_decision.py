"""What a press of Capture does, decided without a widget (ui/shot_decision.py): each row of its
table, as the scan's own tests (test_scan.py) walk it through the window."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from blitzcam.game.counts import Counts
from blitzcam.ui.counting_worker import CountedFrame, CountSnapshot
from blitzcam.ui.scan_session import ScanSession, Shot
from blitzcam.ui.shot_decision import (
    ENDED_IN_MOTION,
    FRAME_SHOT_ALREADY,
    HOLD_STILL,
    LAST_VIEW_SHOT,
    MOVING_AT_THE_END,
    NO_FRAME_YET,
    ShotAsked,
    decide_shot,
    waiting_for_view,
)
from tests.ui.fakes import players

ANN, BOB = players(2)


def _frame(index: int, ann: int = 9, *, settled: bool = True, scene: int | None = None,
           own: int | None = None) -> CountedFrame:  # fmt: skip
    """Frame `index` counted (its view `scene`: its own number unless said); `own`: while not
    settled, the vote of its view's own still frames (None: it moves)."""
    view = None if own is None else Counts(per_deck={ANN.deck: own, BOB.deck: 0}, face_up=0, unknown=0)
    snapshot = CountSnapshot(counts={ANN.deck: ann, BOB.deck: 0}, settled=settled, view=view,
                             scene=index if scene is None else scene, view_scene=index)  # fmt: skip
    return CountedFrame(np.zeros((4, 4, 3), np.uint8), snapshot, index)


def _asked(latest: CountedFrame | None, **facts: object) -> ShotAsked:
    facts = {"session": ScanSession((ANN, BOB)), "last_still": None, **facts}
    return ShotAsked(latest=latest, **facts)


def _shot_of(frame: CountedFrame) -> ScanSession:
    return ScanSession((ANN, BOB)).with_shot(Shot(frame.frame, frame.snapshot, frame.index))


@pytest.mark.parametrize(
    ("asked", "action", "message"),
    [
        (_asked(_frame(1), failure="The camera is gone"), "refuse", "The camera is gone"),
        (_asked(None, previewed=True), "wait", HOLD_STILL),  # a picture, not yet counted
        (_asked(None), "refuse", NO_FRAME_YET),
        (_asked(None, ended=True, no_frames="The video has no frames: Enter"), "refuse",
         "The video has no frames: Enter"),
        (_asked(_frame(1), stale=True, tries=2), "wait", waiting_for_view(2)),
        (_asked(_frame(1, settled=False)), "wait", HOLD_STILL),  # counts still the last view's
        (_asked(_frame(1), moved_on=True), "wait", HOLD_STILL),  # the table moved on from it
        (_asked(_frame(1, settled=False), ended=True), "refuse", ENDED_IN_MOTION),
        (_asked(_frame(1)), "shoot", ""),
    ],
)
def test_each_row_of_the_table(asked: ShotAsked, action: str, message: str) -> None:
    decision = decide_shot(asked)
    assert (decision.action, decision.message) == (action, message)
    assert (decision.shot is not None) == (action == "shoot")


def test_a_video_that_ended_moving_shoots_its_last_still_view_or_its_own_vote() -> None:
    still = _frame(3)
    ended = _asked(_frame(5, settled=False, scene=3), ended=True, last_still=None)
    assert decide_shot(replace(ended, last_still=still)).shot is still
    assert decide_shot(replace(ended, last_still=still)).message == MOVING_AT_THE_END
    own = decide_shot(_asked(_frame(5, settled=False, own=12), ended=True))
    assert own.action == "shoot" and own.shot.snapshot.counts[ANN.deck] == 12
    assert own.shot.snapshot.settled and own.message == ""


def test_a_view_shot_already_is_refused_and_its_next_frame_asked_twice() -> None:
    first = _frame(1)
    shot_once = _asked(_frame(1), session=_shot_of(first))
    assert decide_shot(shot_once).message == FRAME_SHOT_ALREADY
    assert decide_shot(replace(shot_once, ended=True)).message == LAST_VIEW_SHOT
    again = _asked(_frame(2, scene=1), session=_shot_of(first))  # the same view, a newer frame
    asked = decide_shot(again)
    assert asked.action == "ask" and asked.scene == 1 and "Press again" in asked.message
    assert "as the" not in asked.message  # (the same step)
    pressed_again = decide_shot(replace(again, asked_about=1))
    assert pressed_again.action == "shoot" and pressed_again.shot.index == 2
    blitz = replace(again, session=_shot_of(first).next_step())
    assert " as the Dutch cards" in decide_shot(blitz).message
