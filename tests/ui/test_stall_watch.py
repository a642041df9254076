"""A live source's latest view told stale by how long since it came and the usual gap."""

from __future__ import annotations

from blitzcam.ui.stall_watch import STALE_AFTER_S, StallWatch, stream_stalled


def _watch() -> tuple[StallWatch, list[float]]:
    now = [10.0]
    return StallWatch(lambda: now[0]), now


def test_nothing_is_stale_before_a_view() -> None:
    watch, now = _watch()
    now[0] += 100.0
    assert not watch.stalled() and watch.since() == 0.0


def test_a_view_is_stale_past_the_line_or_three_usual_gaps() -> None:
    watch, now = _watch()
    watch.saw_view(0)
    now[0] += STALE_AFTER_S - 0.1
    assert not watch.stalled()
    now[0] += 0.2
    assert watch.stalled()
    # a slow counter (2 s a view): a view is stale only after three of its gaps
    for _ in range(4):
        watch.saw_view(0)
        now[0] += 2.0
    assert watch.since() == 2.0 and not watch.stalled()
    now[0] += 3.9
    assert not watch.stalled()
    now[0] += 0.2
    assert watch.stalled()


def test_one_long_stall_does_not_become_the_usual_gap() -> None:
    watch, now = _watch()
    for _ in range(3):
        watch.saw_view(0)
        now[0] += 0.5
    now[0] += 40.0  # a stall, then views again
    watch.saw_view(0)
    now[0] += 3.5
    assert watch.stalled()  # (the lower median of the gaps is still half a second)


def test_tries_are_counted_from_the_latest_view() -> None:
    watch, now = _watch()
    watch.saw_view(4)  # four reconnects before this view
    now[0] += 9.0
    assert watch.tries(7) == 3
    assert watch.said(7) == stream_stalled(9.0, 3)
    assert "reconnecting (try 3)" in watch.said(7)
    assert "may be reconnecting" in watch.said(4)  # no try yet: perhaps only slow


def test_the_camera_s_own_last_frame_decides_where_the_source_says() -> None:
    # a count that takes 4.5 s (a table read in tiles; an enrollment holding the counter's
    # turn) read nothing meanwhile: by the counts alone, a working camera looked stalled
    watch, now = _watch()
    for _ in range(3):
        watch.saw_view(0)
        now[0] += 0.5
    now[0] += 4.0  # no count for 4.5 s, but the camera's reader took a frame just now
    assert watch.stalled() and not watch.stalled(camera_at=now[0] - 0.1)
    assert watch.stalled(camera_at=now[0] - 3.5)  # the camera itself silent
    assert watch.said(2, camera_at=now[0] - 6.0) == stream_stalled(6.0, 2)
