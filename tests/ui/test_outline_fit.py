"""ui/outline_fit.py: whether the live view's outlines fit the picture in view."""

from __future__ import annotations

import numpy as np

from blitzcam.ui.counting_worker import CountedFrame, CountSnapshot
from blitzcam.ui.outline_fit import OutlineFit


def _table(at: int) -> np.ndarray:
    table = np.zeros((36, 64, 3), np.uint8)
    table[8:28, 16 * at : 16 * at + 16] = 200
    return table


def _count(index: int | None, table: np.ndarray) -> CountedFrame:
    return CountedFrame(table, CountSnapshot(), 1, source_index=index)


def test_outlines_fit_until_the_table_in_view_moves_on_from_their_frame() -> None:
    fit = OutlineFit()
    assert fit.saw(_table(0), 1) is False  # nothing counted yet: nothing to leave off
    assert fit.counted(_count(1, _table(0))) == (True, False)
    assert fit.saw(_table(0), 2) is False
    assert fit.saw(_table(2), 3) is True  # cards moved
    assert fit.moved_on(fit.shown)
    # a count of the new table takes over; one of the old, counted late, is kept out while
    # the shown outlines fit, and taken when they do not
    assert fit.counted(_count(3, _table(2))) == (True, False)
    assert fit.counted(_count(2, _table(0))) == (False, False)
    assert fit.shown.source_index == 3


def test_a_source_that_numbers_no_frames_is_never_judged() -> None:
    # (a file or the demo: each counted frame is the picture)
    fit = OutlineFit()
    assert fit.counted(_count(None, _table(0))) == (True, False)
    assert fit.change(_count(None, _table(0))) is None
    assert fit.saw(_table(2), 5) is False


def test_each_picture_is_made_a_thumbnail_once_and_a_count_brings_its_own(monkeypatch) -> None:
    # (on the window's thread, 4-6 ms of a 1080p frame: the counted frame's was made again
    # though the counting thread had made it, and the newest picture's at each comparison)
    from blitzcam.vision import frame_change

    made = []
    real = frame_change.thumbnail
    monkeypatch.setattr(frame_change, "thumbnail", lambda frame, **k: made.append(1) or real(frame, **k))
    fit = OutlineFit()
    fit.saw(_table(0), 1)
    counted = CountedFrame(_table(0), CountSnapshot(thumb=real(_table(0))), 1, source_index=1)
    assert fit.counted(counted) == (True, False) and made == []  # no newer picture: nothing to do
    fit.saw(_table(2), 2)  # the newest picture: compared to the count, made once
    assert made == [1]
    assert fit.moved_on(counted) and fit.change(counted) > 6 and fit.saw(_table(2), 2)
    assert made == [1]  # (the count's own came with it)
    late = _count(1, _table(0))  # a count without one (the enroll dialog's): made for it
    assert fit.moved_on(late) and made == [1, 1]
    assert fit.change(late) == fit.change(counted)  # the same measure either way


def test_a_picture_that_brings_its_thumbnail_is_not_made_one(monkeypatch) -> None:
    # (a camera's reader makes the live view's thumbnails: 8 ms of a 1080p frame, 15 a
    # second, off the window's thread)
    from blitzcam.vision import frame_change

    made = []
    real = frame_change.thumbnail
    monkeypatch.setattr(frame_change, "thumbnail", lambda frame, **k: made.append(1) or real(frame, **k))
    fit = OutlineFit()
    counted = CountedFrame(_table(0), CountSnapshot(thumb=real(_table(0))), 1, source_index=1)
    fit.counted(counted)
    assert fit.saw(_table(2), 2, real(_table(2), sharpness=False)) is True  # cards moved
    assert fit.saw(_table(0), 3, real(_table(0), sharpness=False)) is False  # back as counted
    assert made == []
