"""A live source's latest view told stale by how long since it came and the usual gap."""

from __future__ import annotations

from types import SimpleNamespace

from blitzcam.ui.stall_watch import STALE_AFTER_S, StallWatch, stream_stalled


def _watch() -> tuple[StallWatch, list[float]]:
    """A watch of a source that says nothing of itself, and its clock's one number."""
    now = [10.0]
    return StallWatch(SimpleNamespace(), lambda: now[0]), now


def test_nothing_is_stale_before_a_view() -> None:
    watch, now = _watch()
    now[0] += 100.0
    assert not watch.stalled() and watch.since() == 0.0


def test_a_view_is_stale_past_the_line_or_three_usual_gaps() -> None:
    watch, now = _watch()
    watch.saw_view()
    now[0] += STALE_AFTER_S - 0.1
    assert not watch.stalled()
    now[0] += 0.2
    assert watch.stalled()
    # a slow counter (2 s a view): a view is stale only after three of its gaps
    for _ in range(4):
        watch.saw_view()
        now[0] += 2.0
    assert watch.since() == 2.0 and not watch.stalled()
    now[0] += 3.9
    assert not watch.stalled()
    now[0] += 0.2
    assert watch.stalled()


def test_one_long_stall_does_not_become_the_usual_gap() -> None:
    watch, now = _watch()
    for _ in range(3):
        watch.saw_view()
        now[0] += 0.5
    now[0] += 40.0  # a stall, then views again
    watch.saw_view()
    now[0] += 3.5
    assert watch.stalled()  # (the lower median of the gaps is still half a second)


def test_tries_are_counted_from_the_latest_view() -> None:
    watch, now = _watch()
    watch.source.reconnects = 4  # four reconnects before this view
    watch.saw_view()
    now[0] += 9.0
    watch.source.reconnects = 7
    assert watch.tries() == 3
    assert watch.said() == stream_stalled(9.0, 3)
    assert "reconnecting (try 3)" in watch.said()
    watch.source.reconnects = 4
    assert "may be reconnecting" in watch.said()  # no try yet: perhaps only slow


def test_the_camera_s_own_last_frame_decides_where_the_source_says() -> None:
    # a count that takes 4.5 s (a table read in tiles; an enrollment holding the counter's
    # turn) read nothing meanwhile: by the counts alone, a working camera looked stalled
    watch, now = _watch()
    for _ in range(3):
        watch.saw_view()
        now[0] += 0.5
    now[0] += 4.0  # no count for 4.5 s, but the camera's reader took a frame just now
    assert watch.stalled()
    watch.source.last_frame_at = now[0] - 0.1
    assert not watch.stalled()
    watch.source.last_frame_at = now[0] - 3.5
    assert watch.stalled()  # the camera itself silent
    watch.source.last_frame_at, watch.source.reconnects = now[0] - 6.0, 2
    assert watch.said() == stream_stalled(6.0, 2)


def test_tries_are_counted_from_the_camera_s_last_frame_where_the_source_says() -> None:
    # the count running when the stream dropped came after its first tries: counted from that
    # view, the banner said "try 1" at the fourth and "try 5" at the eighth (review)
    watch, now = _watch()
    watch.source.reconnects, watch.source.last_frame_reconnects = 0, 0
    watch.source.last_frame_at = now[0]
    now[0] += 2.0
    watch.source.reconnects = 3  # three tries while the last count ran
    watch.saw_view()  # ... which comes now, of the frame before the drop
    now[0] += 1.5
    assert watch.tries() == 3 and "reconnecting (try 3)" in watch.said()
    watch.source.reconnects = 8
    assert watch.tries() == 8
    # a frame came (the stream back, then dropped again twice): its tries from there
    watch.source.last_frame_at, watch.source.last_frame_reconnects = now[0], 8
    watch.source.reconnects = 10
    assert watch.tries() == 2
