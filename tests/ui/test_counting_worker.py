"""The seam to vision/: the newest-frame mailbox and the worker thread."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest

from blitzcam.ui.counting_worker import (
    CountedFrame,
    CountingThread,
    CountSnapshot,
    DecksInPlay,
    Mailbox,
    NullCounter,
)
from tests.ui.fakes import FakeCounter, FakeSource, synthetic_frame


@pytest.fixture
def threads() -> Iterator[Callable[..., CountingThread]]:
    """Makes CountingThreads, each stopped as the test ends (an assert failing before a test's
    own stop left its worker looping for the rest of the suite)."""
    made: list[CountingThread] = []

    def make(*args: object, **kwargs: object) -> CountingThread:
        made.append(thread := CountingThread(*args, **kwargs))
        return thread

    yield make
    for thread in made:
        thread.stop()  # (safe twice)


def _item(i: int) -> CountedFrame:
    return CountedFrame(np.zeros((2, 2, 3), np.uint8), CountSnapshot(), i)


def test_mailbox_keeps_only_the_newest_and_nudges_once() -> None:
    box = Mailbox()
    assert box.put(_item(1)) is True  # empty: the reader needs a nudge
    assert box.put(_item(2)) is False  # stale item replaced, no second nudge
    assert box.take().index == 2
    assert box.take() is None


def test_thread_delivers_counted_frames_and_stops(qtbot, threads) -> None:
    scenes = [synthetic_frame(i, [("green-pump", False)] * (i + 1)) for i in range(3)]
    source = FakeSource([f for f, _ in scenes])
    counter = FakeCounter([s for _, s in scenes])
    thread = threads(source, counter, interval_ms=1)
    seen: list[CountedFrame] = []
    thread.counted.connect(seen.append)
    thread.start()
    qtbot.waitUntil(lambda: len(seen) >= 3, timeout=5000)
    thread.stop()
    assert source.closed and not thread.is_running()
    assert all(item.snapshot is counter.snapshots[int(item.frame[0, 0, 0])] for item in seen)
    assert [item.index for item in seen] == sorted(item.index for item in seen)


def test_stopping_cuts_short_a_source_waiting_to_reconnect(qtbot, threads) -> None:
    import threading

    class Reconnecting(FakeSource):  # its read waits out a back-off unless cancelled
        def __init__(self) -> None:
            super().__init__([np.zeros((4, 4, 3), np.uint8)])
            self.cancelled = threading.Event()
            self.waiting = threading.Event()

        def read(self):
            self.waiting.set()
            return None if self.cancelled.wait(30) else super().read()

        def cancel(self) -> None:
            self.cancelled.set()

    source = Reconnecting()
    thread = threads(source, NullCounter("no model"), interval_ms=1)
    thread.start()
    assert source.waiting.wait(5)
    thread.stop()  # returns once the read gave up, not after the 30 s wait
    assert source.cancelled.is_set() and not thread.is_running() and source.closed


def test_a_video_s_own_clock_reaches_the_counter(qtbot, threads) -> None:
    source = FakeSource([np.zeros((4, 4, 3), np.uint8)] * 3, limit=3)
    source.frame_time_s = 1.5  # (a video file's position of the frame read last)
    counter = FakeCounter([CountSnapshot()])
    thread = threads(source, counter, interval_ms=1)
    with qtbot.waitSignal(thread.finished, timeout=5000):
        thread.start()
    thread.stop()
    assert counter.calls == 3 and counter.at == 1.5


def test_thread_reports_a_broken_counter(qtbot, threads) -> None:
    class Broken:
        def count(self, frame_bgr: np.ndarray, *, in_play=None, at=None) -> CountSnapshot:
            raise RuntimeError("model file is corrupt")

    thread = threads(FakeSource([np.zeros((4, 4, 3), np.uint8)]), Broken(), interval_ms=1)
    camera: list[str] = []
    thread.failed.connect(camera.append)
    with qtbot.waitSignal(thread.counting_failed, timeout=5000) as blocker:
        thread.start()
    thread.stop()
    # the counter's, not the camera's (a broken model was said as "No view from the camera")
    assert blocker.args == ["RuntimeError: model file is corrupt"] and camera == []


def test_thread_reports_a_broken_camera_as_the_camera_s(qtbot, threads) -> None:
    from blitzcam.vision.sources import SourceError

    class Unplugged(FakeSource):
        def read(self) -> np.ndarray | None:
            raise SourceError("camera 0: it gave no picture")

    thread = threads(Unplugged([]), NullCounter("no model"), interval_ms=1)
    counter: list[str] = []
    thread.counting_failed.connect(counter.append)
    with qtbot.waitSignal(thread.failed, timeout=5000) as blocker:
        thread.start()
    thread.stop()
    assert blocker.args == ["camera 0: it gave no picture"] and counter == []


def test_a_frame_the_counter_calls_unmoved_is_read_but_not_counted(qtbot, threads) -> None:
    # (a still table was counted five times a second, most of a laptop's two cores for the
    # same numbers; resources review)
    from blitzcam.ui.counting_worker import DecksInPlay

    class Resting(FakeCounter):
        def __init__(self) -> None:
            super().__init__([CountSnapshot()])
            self.asked = 0

        def unmoved(self, frame_bgr: np.ndarray) -> bool:
            self.asked += 1
            return int(frame_bgr[0, 0, 0]) == 0  # (frame 1: the table moved)

    frames = [np.zeros((4, 4, 3), np.uint8)] * 3 + [np.ones((4, 4, 3), np.uint8)]
    for live, counted in ((True, 2), (False, 4)):
        counter = Resting()
        source = FakeSource(frames, limit=4)
        source.live = live
        thread = threads(source, DecksInPlay(counter, ["red-plow"]), interval_ms=1)
        with qtbot.waitSignal(thread.finished, timeout=5000):
            thread.start()
        thread.stop()
        # a camera's: the first counted (this worker's first: the counter's last count may be
        # another scan's), the next two unmoved and not, the moved one counted at once; a
        # video's or a folder's, every one (their reads move their clock or turn their pictures)
        assert source.reads == 4 and counter.calls == counted


@pytest.mark.parametrize("note", [None, "clip.mp4: the video ends after 2 of the 90 frames"])
def test_thread_says_when_the_source_ends(qtbot, threads, note: str | None) -> None:
    source = FakeSource([np.zeros((4, 4, 3), np.uint8)], limit=2)
    source.end_note = note  # (a video cut short says why it ended)
    thread = threads(source, NullCounter("no model"), interval_ms=1)
    with qtbot.waitSignal(thread.finished, timeout=5000) as ended:
        thread.start()
    thread.stop()
    assert source.reads == 2 and ended.args == [note or ""]


def test_nothing_queued_reaches_a_stopped_scan(qtbot, threads) -> None:
    import time

    frames = [np.zeros((4, 4, 3), np.uint8)]
    thread = threads(FakeSource(frames, limit=3), NullCounter("no model"), interval_ms=1)
    said: list[object] = []
    for signal in (thread.counted, thread.failed, thread.counting_failed, thread.finished):
        signal.connect(said.append)
    thread.start()
    # frames counted and the end reached: their signals queued, not delivered (no events are
    # processed while it waits, so this test is not vacuous on a slow machine)
    deadline = time.monotonic() + 10
    while thread.is_running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not thread.is_running() and thread.source.reads == 3
    thread.stop()
    qtbot.wait(50)
    assert said == []


def test_stopping_a_thread_never_started_releases_its_source() -> None:
    source = FakeSource([np.zeros((4, 4, 3), np.uint8)])
    CountingThread(source, NullCounter("no model")).stop()
    assert source.closed


def test_stopping_twice_waits_once_for_a_source_still_opening(qtbot, threads) -> None:
    # (on quit the window and the app each stopped a scan whose stream was still connecting:
    # each waited READ_WAIT_S, the quit held 2 s, the window frozen for the first; review)
    import threading

    opening = threading.Event()
    opened = threading.Event()

    class Connecting(FakeSource):  # its first read waits as an open nobody answers does
        def read(self):
            opening.set()
            opened.wait(10)
            return None

    thread = threads(Connecting([]), NullCounter(""), interval_ms=1)
    thread.start()
    assert opening.wait(5)
    waits: list[float | None] = []
    join = thread._thread.join
    thread._thread.join = lambda timeout=None: (waits.append(timeout), join(0.01))[1]  # type: ignore[method-assign]
    thread.stop()
    thread.stop()
    assert len(waits) == 1
    opened.set()


def test_stopping_does_not_wait_for_the_frame_being_counted(qtbot, threads) -> None:
    # leaving a scan waited out a table read in tiles (up to 2.5 s on a 2-core laptop) with
    # the window frozen; the count now ends in the worker, unheard, and the source after it
    import threading

    class Held:  # a count that lasts until the test lets it go
        def __init__(self) -> None:
            self.counting = threading.Event()
            self.let_go = threading.Event()
            self.busy = False

        def count(self, frame_bgr: np.ndarray, *, in_play=None, at=None) -> CountSnapshot:
            self.busy = True
            self.counting.set()
            self.let_go.wait(10)  # (the old stop waited here: 10 s, then busy was False)
            self.busy = False
            return CountSnapshot()

    counter = Held()
    source = FakeSource([np.zeros((4, 4, 3), np.uint8)])
    thread = threads(source, counter, interval_ms=1)
    said: list[object] = []
    thread.counted.connect(said.append)
    thread.start()
    assert counter.counting.wait(5)
    thread.stop()
    assert counter.busy and not source.closed  # returned with the count still running
    counter.let_go.set()
    qtbot.waitUntil(lambda: not thread.is_running(), timeout=5000)
    qtbot.wait(50)
    assert source.closed and said == []  # released once counted; nothing reached the scan


def test_a_scan_left_while_waiting_for_its_turn_counts_nothing(qtbot, threads) -> None:
    # the window's scans share one counter and take turns with it: a scan left while another's
    # frame was still being counted must not count its own frame once the turn comes (nor
    # forget the next scan's live vote after that scan had forgotten it), and the next scan
    # forgets the last one's vote after the frame in hand, never during it
    import threading

    log: list[str] = []
    let_go = threading.Event()

    class Shared:
        def count(self, frame_bgr: np.ndarray, *, in_play=None, at=None) -> CountSnapshot:
            scan = int(frame_bgr[0, 0, 0])
            log.append(f"count {scan}")
            if scan == 1:
                let_go.wait(10)  # a table read in tiles
            return CountSnapshot()

    counter, turn = Shared(), threading.Lock()

    def scan(n: int) -> CountingThread:
        return threads(
            FakeSource([np.full((4, 4, 3), n, np.uint8)]), counter, interval_ms=1, turn=turn,
            on_start=lambda: log.append(f"reset {n}"),
        )

    first, second, third = scan(1), scan(2), scan(3)
    first.start()
    qtbot.waitUntil(lambda: "count 1" in log, timeout=5000)
    first.stop()  # left with its frame in hand
    second.start()
    qtbot.waitUntil(lambda: second.source.reads > 0, timeout=5000)  # waiting for its turn
    second.stop()
    qtbot.waitUntil(lambda: not second.is_running(), timeout=5000)  # gone without it
    third.start()
    let_go.set()
    qtbot.waitUntil(lambda: "count 3" in log, timeout=5000)
    third.stop()
    assert log[:4] == ["reset 1", "count 1", "reset 3", "count 3"]
    assert "count 2" not in log and "reset 2" not in log


def test_decks_in_play_reach_the_counter() -> None:
    counter = FakeCounter([CountSnapshot()])
    in_play = DecksInPlay(counter, ["green-pump", "red-buggy", "green-pump"])
    in_play.count(np.zeros((4, 4, 3), np.uint8))
    assert counter.in_play == {"green-pump", "red-buggy"}


def test_a_worker_whose_handle_is_destroyed_unstopped_stops(qtbot) -> None:
    # a scan deleted with its window, never closed: its loop ran on for the rest of the suite
    import shiboken6
    from PySide6.QtCore import QObject

    owner = QObject()
    thread = CountingThread(FakeSource([np.zeros((8, 8, 3), np.uint8)]), NullCounter(""),
                            interval_ms=1, parent=owner)  # fmt: skip
    thread.start()
    worker_thread = thread._thread
    qtbot.waitUntil(worker_thread.is_alive, timeout=2000)
    shiboken6.delete(owner)  # (the handle goes with it, as a scan's with its window)
    qtbot.waitUntil(lambda: not worker_thread.is_alive(), timeout=5000)


class PeekedSource(FakeSource):
    """A camera whose reader numbers its frames and has frames of its own for the live view
    (NewestFrame.peek): each peek gives the next of `views`, numbered from 100, then None."""

    def __init__(self, frames: list[np.ndarray], views: list[np.ndarray]) -> None:
        from blitzcam.vision.capture_source import Frame

        super().__init__(frames)
        self.views = [Frame(view, 100 + i, "camera") for i, view in enumerate(views)]
        self.peeks = 0

    @property
    def frame_index(self) -> int:
        return self.reads - 1

    def peek(self):
        self.peeks += 1
        return self.views.pop(0) if self.views else None


def test_a_camera_s_own_frames_reach_the_view_between_counts(qtbot, threads) -> None:
    # the view moved only as often as a frame was counted (2-10 a second on a laptop)
    views = [np.full((4, 4, 3), i, np.uint8) for i in range(3)]
    source = PeekedSource([np.zeros((4, 4, 3), np.uint8)], views)
    thread = threads(source, NullCounter("slow"), interval_ms=10_000)  # one count, then a wait
    shown: list[tuple[int, int]] = []
    counted: list[CountedFrame] = []
    thread.previewed.connect(lambda frame, index, _thumb: shown.append((int(frame[0, 0, 0]), index)))
    thread.counted.connect(counted.append)
    thread.start()
    qtbot.waitUntil(lambda: len(shown) == 3 and len(counted) == 1, timeout=5000)
    assert shown == [(0, 100), (1, 101), (2, 102)]
    assert counted[0].source_index == 0  # the camera's number of the counted frame, to order by
    qtbot.waitUntil(lambda: source.peeks > 4, timeout=5000)  # None: nothing emitted
    assert len(shown) == 3
    thread.stop()
    peeks = source.peeks
    qtbot.wait(250)
    assert source.peeks == peeks  # a scan left asks no more


def test_frames_between_counts_are_not_asked_for_while_the_view_is_not_seen(qtbot, threads) -> None:
    # (each costs a decode and a paint: a minimised window's counts were a fifth slower)
    source = PeekedSource([np.zeros((4, 4, 3), np.uint8)], [np.zeros((4, 4, 3), np.uint8)])
    seen = [False]
    thread = threads(source, NullCounter("x"), interval_ms=10_000, preview_while=lambda: seen[0])
    thread.start()
    qtbot.wait(300)
    assert source.peeks == 0
    seen[0] = True
    qtbot.waitUntil(lambda: source.peeks > 0, timeout=5000)


def test_nothing_is_counted_while_nobody_sees_the_counts(qtbot, threads) -> None:
    # a scan left open behind the confirm dialog, or in a minimised window, counted on at a
    # core's full use for nobody (review: 97 % of a core)
    source = FakeSource([np.zeros((4, 4, 3), np.uint8)])
    counter = FakeCounter([CountSnapshot()])
    seen = [True]
    thread = threads(source, counter, interval_ms=1, count_while=lambda: seen[0])
    thread.start()
    qtbot.waitUntil(lambda: counter.calls > 0, timeout=5000)
    seen[0] = False
    qtbot.waitUntil(lambda: thread.held, timeout=5000)
    qtbot.wait(100)  # (a frame in hand when it was asked is finished)
    calls, reads = counter.calls, source.reads
    qtbot.wait(700)
    assert (counter.calls, source.reads) == (calls, reads)  # neither read nor counted
    seen[0] = True
    qtbot.waitUntil(lambda: counter.calls > calls, timeout=5000)
    assert not thread.held


def test_a_source_that_opens_with_no_frames_of_its_own_is_asked_no_more(qtbot, threads) -> None:
    # (an address opened as a video served over HTTP: asked 15 times a second all scan long)
    source = PeekedSource([np.zeros((4, 4, 3), np.uint8)], [])
    source.can_peek = False
    thread = threads(source, NullCounter("x"), interval_ms=10_000)
    thread.start()
    qtbot.wait(300)
    assert source.peeks == 0 and not thread._preview.isActive()


def test_a_source_with_no_frames_of_its_own_is_only_shown_as_counted(qtbot, threads) -> None:
    thread = threads(FakeSource([np.zeros((4, 4, 3), np.uint8)]), NullCounter("x"), interval_ms=1)
    shown: list[object] = []
    thread.previewed.connect(lambda *frame: shown.append(frame))
    thread.start()
    qtbot.wait(250)
    assert shown == []
