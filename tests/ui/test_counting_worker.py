"""The seam to vision/: the newest-frame mailbox, the worker thread, and the adapter that turns
vision's frame result into what the UI draws."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from blitzcam.paths import REPO_ROOT
from blitzcam.ui import counting_worker
from blitzcam.ui.counting_worker import (
    CountedFrame,
    CountingThread,
    CountSnapshot,
    DecksInPlay,
    Mailbox,
    NullCounter,
    open_source,
    snapshot_from_result,
)
from blitzcam.ui.scan_session import table_warnings
from blitzcam.vision.counting import Counts
from blitzcam.vision.detections import Detections
from tests.ui.fakes import FakeCounter, FakeSource, synthetic_frame


def _item(i: int) -> CountedFrame:
    return CountedFrame(np.zeros((2, 2, 3), np.uint8), CountSnapshot(), i)


def test_mailbox_keeps_only_the_newest_and_nudges_once() -> None:
    box = Mailbox()
    assert box.put(_item(1)) is True  # empty: the reader needs a nudge
    assert box.put(_item(2)) is False  # stale item replaced, no second nudge
    assert box.take().index == 2
    assert box.take() is None


def test_thread_delivers_counted_frames_and_stops(qtbot) -> None:
    scenes = [synthetic_frame(i, [("green-pump", False)] * (i + 1)) for i in range(3)]
    source = FakeSource([f for f, _ in scenes])
    counter = FakeCounter([s for _, s in scenes])
    thread = CountingThread(source, counter, interval_ms=1)
    seen: list[CountedFrame] = []
    thread.counted.connect(seen.append)
    thread.start()
    qtbot.waitUntil(lambda: len(seen) >= 3, timeout=5000)
    thread.stop()
    assert source.closed and not thread.is_running()
    assert all(item.snapshot is counter.snapshots[int(item.frame[0, 0, 0])] for item in seen)
    assert [item.index for item in seen] == sorted(item.index for item in seen)


def test_stopping_cuts_short_a_source_waiting_to_reconnect(qtbot) -> None:
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
    thread = CountingThread(source, NullCounter("no model"), interval_ms=1)
    thread.start()
    assert source.waiting.wait(5)
    thread.stop()  # returns once the read gave up, not after the 30 s wait
    assert source.cancelled.is_set() and not thread.is_running() and source.closed


def test_thread_reports_a_broken_counter(qtbot) -> None:
    class Broken:
        def count(self, frame_bgr: np.ndarray, *, in_play=None) -> CountSnapshot:
            raise RuntimeError("model file is corrupt")

    thread = CountingThread(FakeSource([np.zeros((4, 4, 3), np.uint8)]), Broken(), interval_ms=1)
    with qtbot.waitSignal(thread.failed, timeout=5000) as blocker:
        thread.start()
    thread.stop()
    assert blocker.args == ["RuntimeError: model file is corrupt"]


def test_thread_says_when_the_source_ends(qtbot) -> None:
    source = FakeSource([np.zeros((4, 4, 3), np.uint8)], limit=2)
    thread = CountingThread(source, NullCounter("no model"), interval_ms=1)
    with qtbot.waitSignal(thread.finished, timeout=5000):
        thread.start()
    thread.stop()
    assert source.reads == 2


LIVE_WITH_SHIPPED_MODELS = """
import sys
import numpy as np
from PySide6.QtWidgets import QApplication
from blitzcam.ui.counting_worker import CountingThread, make_counter
from tests.ui.fakes import FakeSource, synthetic_frame
app = QApplication([])
counter = make_counter()
assert type(counter).__name__ == "PipelineCounter", counter
frames = [synthetic_frame(i, [("green-pump", False)] * 3)[0] for i in range(4)]
thread = CountingThread(FakeSource(frames, limit=4), counter, interval_ms=1)
seen, done = [], []
thread.counted.connect(seen.append)
thread.finished.connect(lambda: done.append(True))
thread.failed.connect(lambda message: sys.exit("failed: " + message))
thread.start()
while not done:
    app.processEvents()
thread.stop()
print("counted", len(seen), "frames")
"""


def test_the_shipped_models_count_live_in_the_worker_thread(tmp_path) -> None:
    # in a QThread's event loop, OpenVINO crashed the app on the first count (SIGSEGV): run in
    # a child process, so a crash fails this test instead of ending the suite
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BLITZCAM_DATA_DIR": str(tmp_path / "data"),
           "BLITZCAM_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", LIVE_WITH_SHIPPED_MODELS], cwd=REPO_ROOT, env=env,
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "counted" in done.stdout and "counted 0 " not in done.stdout


def test_snapshot_from_a_vision_result() -> None:
    obb = np.array([[50, 50, 20, 30, 0], [100, 50, 20, 30, 0.3], [150, 50, 20, 30, 0]], np.float32)
    detections = Detections.from_obb(obb, np.ones(3), np.array([0, 0, 1])).with_decks(
        np.array([1, -1, -1]), np.array([0.9, np.nan, np.nan]), ("green-pump", "red-buggy")
    )
    result = SimpleNamespace(detections=detections, counts={"red-buggy": 1}, face_up=1, unknown=1)
    snapshot = snapshot_from_result(result)
    assert dict(snapshot.counts) == {"red-buggy": 1}
    assert [(o.deck, o.face_up) for o in snapshot.outlines] == [
        ("red-buggy", False),  # identified back
        (None, False),  # back of no enrolled deck
        (None, True),  # face-up card
    ]
    assert snapshot.face_up == 1 and snapshot.unknown == 1
    assert snapshot.record is detections
    # live counting's vote says no face-up card and no unknown back yet (this frame's one
    # detection of each is outvoted): the warnings follow the vote, as the counts do
    voted = snapshot_from_result(SimpleNamespace(**{**vars(result), "face_up": 0, "unknown": 0}))
    assert len(voted.outlines) == 3
    assert voted.face_up == 0 and voted.unknown == 0
    assert table_warnings(voted) == "" and "1 face-up card" in table_warnings(snapshot)
    # whether the vote has settled on this view reaches the scan (it shoots settled views)
    assert snapshot.settled
    assert not snapshot_from_result(SimpleNamespace(**vars(result), settled=False)).settled
    # and, until it has, what the view's own still frames vote (its counts are the view before's)
    assert snapshot.view is None and snapshot.as_its_view() is snapshot
    own = Counts(per_deck={"red-buggy": 4}, face_up=2, unknown=0)
    lagging = snapshot_from_result(
        SimpleNamespace(**vars(result), settled=False, view=own, scene=7, view_scene=8)
    )
    assert dict(lagging.counts) == {"red-buggy": 1} and lagging.scene == 7
    shot = lagging.as_its_view()
    assert shot is not None and shot.settled and dict(shot.counts) == {"red-buggy": 4}
    assert shot.scene == 8  # the number of the view it now counts
    assert (shot.face_up, shot.unknown) == (2, 0) and shot.outlines == lagging.outlines
    moving = snapshot_from_result(SimpleNamespace(**vars(result), settled=False, view=None))
    assert moving.as_its_view() is None


def test_open_source_reads_an_image_file(tmp_path) -> None:
    import cv2

    frame, _ = synthetic_frame(0, [])
    cv2.imwrite(str(tmp_path / "table.png"), frame)
    source = open_source(str(tmp_path / "table.png"))
    assert source.read().shape == frame.shape
    from blitzcam.errors import UserError

    (tmp_path / "bad.jpg").write_text("x")
    with pytest.raises(UserError, match=r"bad\.jpg: cannot decode image"):
        open_source(str(tmp_path / "bad.jpg"))
    with pytest.raises(UserError, match=r"nope\.jpg: no such file"):
        open_source(str(tmp_path / "nope.jpg"))


def test_open_source_plays_a_video_file_frame_by_frame(tmp_path) -> None:
    # through vision.sources, whose read() gives the image itself (the app once asked it for
    # a Frame record's .image, and every camera, video and stream failed on its first frame)
    import cv2

    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for level in (0, 100, 200):
        writer.write(np.full((48, 64, 3), level, np.uint8))
    writer.release()
    source = open_source(str(path))
    try:
        levels = [source.read() for _ in range(4)]
        assert [frame.shape for frame in levels[:3]] == [(48, 64, 3)] * 3
        assert [round(float(frame.mean()) / 50) * 50 for frame in levels[:3]] == [0, 100, 200]
        assert levels[3] is None and not source.live  # a file ends; it has not failed
    finally:
        source.close()


def test_no_camera_spec_falls_back_to_the_demo_when_no_camera_opens(monkeypatch) -> None:
    from blitzcam.ui.counting_worker import ImageLoopSource
    from blitzcam.vision import sources

    def no_camera(spec):
        raise sources.SourceError(f"camera {spec}: cannot open it")

    monkeypatch.setattr(sources, "open_source", no_camera)
    for listed in (False, None):  # no camera device; a system that cannot tell
        monkeypatch.setattr(counting_worker, "cameras_attached", lambda listed=listed: listed)
        source = open_source("")
        assert source.read() is not None  # the demo's first picture
        assert isinstance(source._source, ImageLoopSource)
        source.close()  # camera 0 is let go: the next scan may have it


@pytest.mark.parametrize("gives", ["no camera", "no picture"])
def test_a_camera_the_system_lists_that_fails_is_said_not_replaced_by_the_demo(
    monkeypatch, gives: str
) -> None:
    # busy in another program, camera 0 became the demo footage without a word, its counts
    # standing in for the table
    from blitzcam.vision import sources

    def failing_camera(spec):
        if gives == "no camera":
            raise sources.SourceError(f"camera {spec}: cannot open it: no such camera, or it is busy")
        return sources.ImageFiles([], name=f"camera {spec}")  # opens, gives nothing

    monkeypatch.setattr(sources, "open_source", failing_camera)
    monkeypatch.setattr(counting_worker, "cameras_attached", lambda: True)
    source = open_source("")
    with pytest.raises(sources.SourceError, match=r"^camera 0: .*(busy|gave no picture)"):
        source.read()
    source.close()


def test_a_folder_of_stills_loops_one_image_at_a_time(tmp_path) -> None:
    import cv2

    from blitzcam.errors import UserError
    from blitzcam.ui.counting_worker import ImageLoopSource

    frames = [synthetic_frame(i, [])[0] for i in range(3)]
    for name, frame in zip(("a.jpg", "b.bmp", "c.png"), frames, strict=True):
        cv2.imwrite(str(tmp_path / name), frame)
    (tmp_path / "._a.jpg").write_bytes(b"\x00\x05\x16\x07")  # macOS sidecar: not an image
    source = open_source(str(tmp_path))
    assert isinstance(source, ImageLoopSource)
    source._repeat = 1
    seen = [int(source.read()[0, 0, 0]) for _ in range(4)]
    assert seen[1:] == [1, 2, 0] and abs(seen[0]) <= 2  # in name order, round again (a.jpg lossy)
    assert source._frame is not None and not hasattr(source, "_frames")  # one held, not all
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="empty: the folder holds no image files"):
        open_source(str(tmp_path / "empty"))


def test_a_damaged_photo_in_a_folder_of_stills_is_passed_over(tmp_path) -> None:
    # it ended the scan ("cannot decode") partway round the loop
    import cv2

    frames = [synthetic_frame(i, [])[0] for i in range(3)]
    cv2.imwrite(str(tmp_path / "a.png"), frames[0])
    (tmp_path / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n broken")
    cv2.imwrite(str(tmp_path / "c.png"), frames[2])
    source = open_source(str(tmp_path))
    source._repeat = 1
    seen = [int(source.read()[0, 0, 0]) for _ in range(6)]
    assert seen == [0, 0, 2, 0, 0, 2]  # b.png's turn keeps a.png in view


def test_a_url_ending_in_jpg_is_a_stream_not_a_file(monkeypatch) -> None:
    from blitzcam.vision import sources

    asked = []

    class Opened:
        def read(self):
            return None

        def close(self) -> None:
            pass

    monkeypatch.setattr(sources, "open_source", lambda spec: asked.append(spec) or Opened())
    source = open_source("http://192.168.1.5:8080/shot.jpg")
    source.read()
    source.close()
    assert asked == ["http://192.168.1.5:8080/shot.jpg"]


def test_a_clip_over_http_is_live_only_until_it_opens_as_a_clip(monkeypatch) -> None:
    # it was taken for a live stream for good: its normal end was said as a camera failing
    from blitzcam.vision import sources

    class Clip:
        live = False

        def read(self):
            return np.zeros((4, 4, 3), np.uint8)

        def close(self) -> None:
            pass

    monkeypatch.setattr(sources, "open_source", lambda spec: Clip())
    source = open_source("http://192.168.1.5:8080/round.mp4")
    assert source.live  # nothing is known before it opens
    source.read()
    assert not source.live
    source.close()


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="needs a character device")
def test_a_camera_s_device_file_is_opened_by_the_worker_as_a_camera(monkeypatch) -> None:
    from blitzcam.vision import sources

    asked = []

    class Opened:
        live = True

        def read(self):
            return None

        def close(self) -> None:
            pass

    monkeypatch.setattr(sources, "open_source", lambda spec: asked.append(spec) or Opened())
    source = open_source("/dev/null")  # standing in for /dev/video0
    assert asked == []  # not on the GUI thread
    source.read()
    source.close()
    assert asked == ["/dev/null"]


# --- a camera or stream is opened by the worker, never on the GUI thread --------------------


class _SlowToOpen:
    """Stands in for vision's open_source: opening blocks until `answer` is set (an RTSP
    address nobody answers takes OpenCV half a minute), then gives a FakeSource."""

    def __init__(self, *, fails: bool = False) -> None:
        import threading

        self.answer = threading.Event()
        self.opening = threading.Event()
        self.threads: list[str] = []
        self.opened: list[FakeSource] = []
        self.fails = fails

    def __call__(self, spec):
        import threading

        from blitzcam.vision.sources import SourceError

        self.threads.append(threading.current_thread().name)
        self.opening.set()
        self.answer.wait(30)
        if self.fails:
            raise SourceError(f"{spec}: cannot connect to the stream (wrong address)")
        self.opened.append(FakeSource([np.zeros((4, 4, 3), np.uint8)]))
        return self.opened[-1]


@pytest.mark.parametrize("spec", ["rtsp://10.0.0.9/live", " 1 "])
def test_a_stream_or_camera_opens_in_the_worker_thread(qtbot, monkeypatch, spec) -> None:
    from blitzcam.vision import sources

    opener = _SlowToOpen()
    monkeypatch.setattr(sources, "open_source", opener)
    source = open_source(spec)  # returns at once: nothing opened yet
    assert opener.threads == [] and source.live
    thread = CountingThread(source, NullCounter("no model"), interval_ms=1)
    seen: list[CountedFrame] = []
    thread.counted.connect(seen.append)
    thread.start()
    assert opener.opening.wait(5)
    opener.answer.set()
    qtbot.waitUntil(lambda: len(seen) >= 1, timeout=5000)
    thread.stop()
    assert opener.threads == ["counting"]
    assert opener.opened[0].closed and not thread.is_running()


def test_leaving_while_a_stream_still_connects_does_not_wait_for_it(qtbot, monkeypatch) -> None:
    import threading

    from blitzcam.ui import counting_worker
    from blitzcam.vision import sources

    opener = _SlowToOpen()
    monkeypatch.setattr(sources, "open_source", opener)
    monkeypatch.setattr(counting_worker, "READ_WAIT_S", 0.2)
    thread = CountingThread(open_source("rtsp://10.0.0.9/live"), NullCounter("no model"))
    said: list[object] = []
    for signal in (thread.counted, thread.failed, thread.finished):
        signal.connect(said.append)
    thread.start()
    assert opener.opening.wait(5)
    # stop() returns while the connect goes on (it could take 30 s): asked from another thread,
    # so that a stop that waited for it fails here rather than hangs the run
    stopping = threading.Thread(target=thread.stop)
    stopping.start()
    stopping.join(timeout=10)
    assert not stopping.is_alive()
    assert thread.is_running()  # still inside the connect
    opener.answer.set()  # the connect ends: what it opened is closed, nothing more is said
    qtbot.waitUntil(lambda: not thread.is_running(), timeout=5000)
    assert opener.opened[0].closed and opener.opened[0].reads == 0
    qtbot.wait(50)
    assert said == []


def test_a_stream_that_cannot_connect_is_said_in_its_own_words(qtbot, monkeypatch) -> None:
    from blitzcam.vision import sources

    opener = _SlowToOpen(fails=True)
    opener.answer.set()
    monkeypatch.setattr(sources, "open_source", opener)
    thread = CountingThread(open_source("rtsp://10.0.0.9/live"), NullCounter("no model"))
    with qtbot.waitSignal(thread.failed, timeout=5000) as blocker:
        thread.start()
    thread.stop()
    assert blocker.args == ["rtsp://10.0.0.9/live: cannot connect to the stream (wrong address)"]


def test_a_camera_is_held_by_one_scan_at_a_time(monkeypatch) -> None:
    import threading

    from blitzcam.vision import sources

    opened: list[FakeSource] = []

    def open_camera(spec):
        opened.append(FakeSource([np.zeros((4, 4, 3), np.uint8)]))
        return opened[-1]

    monkeypatch.setattr(sources, "open_source", open_camera)
    first, second = open_source("0"), open_source("")  # "" tries camera 0 first
    assert first.read() is not None and len(opened) == 1
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(second.read()))
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive() and len(opened) == 1  # waits: the first still holds camera 0
    first.close()
    waiting.join(5)
    assert not waiting.is_alive() and len(opened) == 2 and got[0] is not None
    other = open_source("1")  # another camera is not kept waiting
    assert other.read() is not None
    third = open_source("00")  # camera 0 again, spelled otherwise: still held by `second`
    cancelled = threading.Thread(target=lambda: got.append(third.read()))
    cancelled.start()
    third.cancel()  # a scan left while waiting for the camera gives up at once
    cancelled.join(5)
    assert got[-1] is None and len(opened) == 3
    for source in (second, other, third):
        source.close()


def test_a_scan_that_stopped_waiting_still_holds_the_camera_for_the_next(monkeypatch) -> None:
    # past HOLD_WAIT_S a second scan opens the camera anyway; when the first then let go, the
    # camera was marked free while the second still held it, and a third did not wait
    import threading

    from blitzcam.ui import counting_worker
    from blitzcam.vision import sources

    monkeypatch.setattr(counting_worker, "HOLD_WAIT_S", 1.0)
    monkeypatch.setattr(
        sources, "open_source", lambda spec: FakeSource([np.zeros((4, 4, 3), np.uint8)])
    )
    first, second, third = open_source("0"), open_source("0"), open_source("0")
    assert first.read() is not None
    assert second.read() is not None  # waited 1 s, then opened it beside the first
    first.close()
    # the third waits for `second` (given far longer than the test takes: a loaded machine
    # must not see it give up and open the camera beside it)
    monkeypatch.setattr(counting_worker, "HOLD_WAIT_S", 60.0)
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(third.read()))
    waiting.start()
    waiting.join(0.1)
    assert waiting.is_alive()
    second.close()
    waiting.join(5)
    assert not waiting.is_alive() and got[0] is not None
    third.close()


def test_a_camera_that_failed_to_open_twice_is_held_once(monkeypatch) -> None:
    # (each read after a failed open held the camera once more, and closing let go once: the
    # next scan of it waited HOLD_WAIT_S, a minute, for a hold nobody had)
    from blitzcam.ui import counting_worker
    from blitzcam.vision import sources

    def busy(spec: str) -> None:
        raise sources.SourceError(f"camera {spec}: busy")

    monkeypatch.setattr(sources, "open_source", busy)
    scan = open_source("7")
    for _ in range(2):
        with pytest.raises(sources.SourceError):
            scan.read()
    assert counting_worker._HELD["7"] == 1
    scan.close()
    assert "7" not in counting_worker._HELD


def test_nothing_queued_reaches_a_stopped_scan(qtbot) -> None:
    import time

    frames = [np.zeros((4, 4, 3), np.uint8)]
    thread = CountingThread(FakeSource(frames, limit=3), NullCounter("no model"), interval_ms=1)
    said: list[object] = []
    for signal in (thread.counted, thread.failed, thread.finished):
        signal.connect(said.append)
    thread.start()
    time.sleep(0.3)  # frames counted and the end reached: their signals queued, not delivered
    thread.stop()
    qtbot.wait(50)
    assert said == []


def test_stopping_a_thread_never_started_releases_its_source() -> None:
    source = FakeSource([np.zeros((4, 4, 3), np.uint8)])
    CountingThread(source, NullCounter("no model")).stop()
    assert source.closed


def test_stopping_waits_for_the_frame_being_counted(qtbot, monkeypatch) -> None:
    import threading
    import time

    from blitzcam.ui import counting_worker

    monkeypatch.setattr(counting_worker, "READ_WAIT_S", 0.01)  # a count is waited for, whatever

    class Slow:  # the window's counter: the next scan's worker may use it right after stop
        def __init__(self) -> None:
            self.counting = threading.Event()
            self.busy = False

        def count(self, frame_bgr: np.ndarray, *, in_play=None) -> CountSnapshot:
            self.busy = True
            self.counting.set()
            time.sleep(0.3)
            self.busy = False
            return CountSnapshot()

    counter = Slow()
    thread = CountingThread(FakeSource([np.zeros((4, 4, 3), np.uint8)]), counter, interval_ms=1)
    thread.start()
    assert counter.counting.wait(5)
    thread.stop()
    assert not counter.busy


class _FakePipeline:
    def __init__(
        self,
        left_out: tuple[str, ...] = (),
        *,
        names: tuple[str, ...] = (),
        vectors: list[list[float]] | None = None,
    ) -> None:
        from blitzcam.vision.embedding import References

        self.reloads = 0
        self.profile = SimpleNamespace(left_out=left_out, names=names)
        # one reference vector per deck, in `names` order
        self.references = References(
            np.array(vectors or np.zeros((0, 2)), np.float32), np.arange(len(vectors or ()))
        )

    @property
    def look_alikes(self):
        from blitzcam.vision.lookalike import look_alikes

        return look_alikes(self.references, self.profile.names)  # as the pipeline works it out

    def reload_profile(self, *, skip_unusable: bool = False) -> None:
        assert skip_unusable  # a damaged neighbour must not stop the counter taking the new back
        self.reloads += 1


def _counter_with(pipeline: _FakePipeline):
    from blitzcam.ui.counting_worker import PipelineCounter

    return PipelineCounter(pipeline)


def test_enrolling_from_the_view_stores_the_back_and_reloads_the_profile() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.counting_worker import PipelineEnroller
    from blitzcam.vision.references import user_decks_dir

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    h, w = card.shape[:2]
    frame[100:100 + h, 400:400 + w] = card
    pipeline = _FakePipeline()
    message = PipelineEnroller(_counter_with(pipeline)).enroll("red-plow", frame)
    assert message.startswith("red-plow: enrolled")
    assert (user_decks_dir() / "red-plow.png").is_file()
    assert pipeline.reloads == 1


def test_enrolling_a_back_that_reads_like_another_decks_says_so() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.counting_worker import PipelineEnroller

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[100:100 + card.shape[0], 400:400 + card.shape[1]] = card
    pipeline = _FakePipeline(
        names=("red-plow", "green-pump", "blue-pump"),
        vectors=[[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]],  # red plow 0.8 alike green pump, 0 blue
    )
    message = PipelineEnroller(_counter_with(pipeline)).enroll("red-plow", frame)
    assert message.startswith("red-plow: enrolled")
    assert "Note: red-plow looks like green-pump to blitzcam (0.80 alike)" in message
    assert "blue-pump" not in message


def test_backs_left_out_of_the_profile_are_said_in_the_live_view() -> None:
    from blitzcam.ui.counting_worker import left_out_note

    result = SimpleNamespace(
        detections=Detections.empty(), counts={"red-plow": 0}, face_up=0, unknown=0, settled=True
    )
    counter = _counter_with(_FakePipeline(("deck reference /d/red-plow.png: cannot decode",)))
    counter._live = lambda frame, in_play=None: result
    snapshot = counter.count(np.zeros((4, 4, 3), np.uint8))
    assert "/d/red-plow.png: cannot decode" in snapshot.note and "built-in" in snapshot.note
    assert snapshot.note == left_out_note(counter.pipeline.profile.left_out)
    counter.pipeline.profile = SimpleNamespace(left_out=(), names=())  # enrolled again
    assert counter.count(np.zeros((4, 4, 3), np.uint8)).note == ""


def test_decks_in_play_that_look_alike_come_with_the_counts() -> None:
    from blitzcam.vision.embedding import References

    result = SimpleNamespace(
        detections=Detections.empty(), counts={"red-plow": 0}, face_up=0, unknown=0, settled=True
    )
    pipeline = _FakePipeline(
        names=("red-plow", "green-pump", "blue-pump", "my-deck"),
        vectors=[[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.1, 0.995]],
    )
    counter = _counter_with(pipeline)
    counter._live = lambda frame, in_play=None: result
    frame = np.zeros((4, 4, 3), np.uint8)
    # every deck a candidate: both pairs, most alike first (0.995, then 0.8)
    snapshot = counter.count(frame)
    assert snapshot.look_alike == (("blue-pump", "my-deck"), ("red-plow", "green-pump"))
    assert snapshot.note == ""  # the scan page says it (table_warnings), not the live view
    assert "red-plow and green-pump look alike" in table_warnings(snapshot)
    # a match's decks: only a pair that both play
    playing = counter.count(frame, in_play=frozenset({"red-plow", "green-pump", "blue-pump"}))
    assert playing.look_alike == (("red-plow", "green-pump"),)
    assert counter.count(frame, in_play=frozenset({"red-plow", "blue-pump"})).look_alike == ()
    # the profile reloaded with other references: their pairs
    pipeline.references = References(np.array([[1.0, 0.0]] * 4, np.float32), np.arange(4))
    assert counter.count(frame, in_play=frozenset({"red-plow", "blue-pump"})).look_alike == (
        ("red-plow", "blue-pump"),
    )


def test_the_app_counter_loads_a_damaged_profile_leniently(monkeypatch) -> None:
    from blitzcam.ui.counting_worker import PipelineCounter, make_counter
    from blitzcam.vision import pipeline as pipeline_module

    asked = {}

    def from_defaults(**kwargs):
        asked.update(kwargs)
        return _FakePipeline()

    monkeypatch.setattr(pipeline_module.CountingPipeline, "from_defaults", from_defaults)
    monkeypatch.setattr(pipeline_module, "LiveCounting", lambda pipeline: None)
    assert isinstance(make_counter(), PipelineCounter)
    assert asked == {"skip_unusable": True}


def test_forgetting_from_the_app_removes_the_print_and_reloads_the_profile() -> None:
    import cv2

    from blitzcam.datasets.art import render_back
    from blitzcam.ui.counting_worker import PipelineEnroller
    from blitzcam.vision.references import user_decks_dir

    card = cv2.cvtColor(np.ascontiguousarray(render_back("red-plow", width=300).rgba[..., :3]),
                        cv2.COLOR_RGB2BGR)
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[100:100 + card.shape[0], 400:400 + card.shape[1]] = card
    pipeline = _FakePipeline()
    enroller = PipelineEnroller(_counter_with(pipeline))
    assert enroller.enrolled() == {}
    enroller.enroll("red-plow", frame)
    assert enroller.enrolled() == {"red-plow": user_decks_dir() / "red-plow.png"}
    message = enroller.forget("red-plow")
    assert message.startswith("red-plow: read against blitzcam's own drawing again")
    assert enroller.enrolled() == {} and pipeline.reloads == 2
    assert enroller.forget("red-plow").startswith("red-plow: not forgotten: ")
    assert pipeline.reloads == 2  # nothing changed, nothing reloaded
    (user_decks_dir() / "green-pump.png").write_bytes(b"")  # damaged: it can still be forgotten
    assert enroller.enrolled() == {"green-pump": user_decks_dir() / "green-pump.png"}
    assert enroller.forget("green-pump").startswith("green-pump: read against")


def test_a_view_without_a_card_is_explained_not_raised() -> None:
    from blitzcam.ui.counting_worker import PipelineEnroller

    pipeline = _FakePipeline()
    message = PipelineEnroller(_counter_with(pipeline)).enroll("red-plow", np.zeros((480, 640, 3), np.uint8))
    assert message.startswith("red-plow: not enrolled:")
    assert pipeline.reloads == 0


def test_decks_in_play_reach_the_counter() -> None:
    counter = FakeCounter([CountSnapshot()])
    in_play = DecksInPlay(counter, ["green-pump", "red-buggy", "green-pump"])
    in_play.count(np.zeros((4, 4, 3), np.uint8))
    assert counter.in_play == {"green-pump", "red-buggy"}


def test_a_deck_enrolled_elsewhere_is_read_at_the_next_scan() -> None:
    # `blitzcam decks enroll` beside the running app: counting kept the old back until a
    # restart, while the enroll dialog already showed the new print
    import cv2

    from blitzcam.ui.counting_worker import PipelineEnroller
    from blitzcam.vision.references import user_decks_dir

    pipeline = _FakePipeline()
    counter = _counter_with(pipeline)
    counter.reset()  # a scan starts: nothing changed on disk, nothing reloaded
    assert pipeline.reloads == 0
    user_decks_dir().mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(user_decks_dir() / "red-plow.png"), np.full((90, 60, 3), 200, np.uint8))
    counter.reset()
    assert pipeline.reloads == 1
    counter.reset()
    assert pipeline.reloads == 1  # read once
    (user_decks_dir() / "red-plow.png").unlink()
    PipelineEnroller(counter).enrolled()  # the enroll dialog opens
    assert pipeline.reloads == 2


@pytest.mark.parametrize("spec", ["rstp://admin:s3cret@cam/stream", " rtmp://u:s3cret@h/live"])
def test_the_app_says_an_address_it_cannot_read_as_one_its_password_hidden(spec: str) -> None:
    # (read as a file name, "rstp://" lost a '/' and the error showed the password:
    # "rstp:/admin:s3cret@cam/stream: no such file or folder"; `blitzcam` commands hid it)
    from blitzcam.vision.sources import SourceError

    with pytest.raises(SourceError, match="not an address blitzcam can read") as raised:
        open_source(spec)
    assert "s3cret" not in str(raised.value) and "***" in str(raised.value)
