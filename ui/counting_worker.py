"""The one seam between the app and vision/: what the UI needs from a frame source and a counter,
and the worker thread that runs them.

Widgets only know `FrameSource`, `Counter` and `CountSnapshot`; tests inject fakes. The real
ones are made elsewhere: `ui.pipeline_adapters` (vision's pipeline as a Counter, its enrollment
as an Enroller) and `ui.frame_sources` (what a camera, stream, file or folder spec opens); they
import vision/ only when called, and this module not at all.
Camera reading and inference run in a worker thread; results reach the GUI through a one-slot
mailbox so the newest frame always wins and stale ones are dropped, however slow either side is.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from blitzcam.errors import UserError
from blitzcam.game.counts import Counts

WORKER_THREAD: Final = "counting"  # the worker thread's name (`ui.app.inside_a_camera`)
# an enrollment's thread (ui/enroll.py), in the models as a count is (`inside_a_camera`)
ENROLL_THREAD: Final = "enrolling"
# how a failure of the counter (not of the camera) is said, on the view and the status line
COUNTING_STOPPED: Final = "Counting stopped: "
DEFAULT_INTERVAL_MS: Final = 30  # pacing of the worker loop (a camera's read() also blocks)
# how long leaving a scan waits for a read in hand; a stream still connecting is left to give
# up on its own (OpenCV's connect cannot be interrupted), and closes itself then
READ_WAIT_S: Final = 1.0
# how long it waits for a frame being counted: a quick count ends within it (the source is
# then released at once), a slow one is finished by the worker unwaited for
COUNT_WAIT_S: Final = 0.1
TURN_POLL_S: Final = 0.05  # how often a worker waiting for the counter's turn looks at stop
# how often the live view asks a camera or stream for a frame of its own: 15 a second. Shown
# only as counted (2-10 a second on a laptop), the picture jerked; each frame asked for is
# decoded (about 10 ms for 1080p MJPEG here) and painted (about 3 ms at 960 px)
PREVIEW_INTERVAL_MS: Final = 66
# how often the window is asked whether counting is wanted now (`count_while`), and how often
# a worker held off meanwhile looks again: a scan left open behind the confirm dialog, or in a
# minimised window, would count on at a core's full use for nobody (97 % of a core)
COUNT_WHILE_MS: Final = 500
PAUSED_POLL_S: Final = 0.2
# how often a frame is read while the counter says the table is unmoved (`Counter.unmoved`)
UNMOVED_POLL_S: Final = 0.1


# --- what the UI needs -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outline:
    """One counted (or flagged) card as the live view draws it."""

    corners: np.ndarray  # (4, 2) float32, frame pixels
    deck: str | None  # deck name; None for a back of no deck (none enrolled near enough, or
    # with decks in play, none of theirs)
    face_up: bool = False  # a face-up card: never counted, "flip this card"


@dataclass(frozen=True, slots=True)
class CountSnapshot:
    """What one frame says: backs per deck, outlines to draw, and the vision record behind it."""

    counts: Mapping[str, int] = field(default_factory=dict)  # deck name -> backs seen
    outlines: tuple[Outline, ...] = ()
    record: Any = None  # vision's detections record, kept for saving labels
    note: str = ""  # e.g. why nothing is counted (no detector model)
    # live counting votes these as it votes the counts (None: this frame's outlines say), so a
    # "flip it" warning does not blink with one frame's detection
    voted_face_up: int | None = None
    voted_unknown: int | None = None
    # live counting: enough still frames of this view agree. Until then the counts are the view
    # before's (a hand over the table, cards just moved) while the frame is the new one
    settled: bool = True
    # not settled: the vote of this view's own still frames so far (None while it moves). A
    # video that ends before its last view settled is shot with these (`as_its_view`)
    view: Counts | None = None
    # live counting numbers the view the counts are of (a new number when the vote restarts on
    # another view), so that one view is not shot twice; `view` is of view `view_scene`
    # (`scene`'s, or the next when it is another view)
    scene: int = 0
    view_scene: int = 0
    # pairs of decks in play whose backs read nearly alike (vision/lookalike.py): their cards
    # may be counted to each other
    look_alike: tuple[tuple[str, str], ...] = ()
    # the decks its backs were decided among, where a scan gave its match's (`DecksInPlay`):
    # a count in flight as the players' decks changed is told from one made after
    in_play: frozenset[str] | None = None
    # the picture counted (width, height), where it is too small or too dark for its count to
    # be trusted (vision.images: is_small, is_very_dark; a webcam left at 640 x 480 read wrong
    # with no word, where `blitzcam count` notes both)
    small_picture: tuple[int, int] | None = None
    dark_picture: bool = False
    # the frame's thumbnail as live counting judged it (vision.frame_change.thumbnail; None:
    # not counted live): the live view compares newer pictures with it (an array: not compared)
    thumb: Any = field(default=None, compare=False)
    # live counting: whether the frame's own count of each deck is the vote's (None: not live)
    agrees: bool | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", MappingProxyType(dict(self.counts)))

    def as_its_view(self) -> CountSnapshot | None:
        """This snapshot with the counts of its own view (itself when settled); None while the
        view moves, when no still frame of it has voted."""
        if self.settled:
            return self
        if self.view is None:
            return None
        return dataclasses.replace(
            self,
            counts=self.view.per_deck,
            voted_face_up=self.view.face_up,
            voted_unknown=self.view.unknown,
            settled=True,
            view=None,
            scene=self.view_scene,
        )

    @property
    def face_up(self) -> int:
        """Face-up cards on the table (never counted)."""
        if self.voted_face_up is not None:
            return self.voted_face_up
        return sum(outline.face_up for outline in self.outlines)

    @property
    def unknown(self) -> int:
        """Backs recognised as no deck in play (counted for nobody)."""
        if self.voted_unknown is not None:
            return self.voted_unknown
        return sum(o.deck is None and not o.face_up for o in self.outlines)


@runtime_checkable
class FrameSource(Protocol):
    """Camera, video file, stream or image folder: `read()` gives the newest BGR frame or None."""

    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


@runtime_checkable
class Counter(Protocol):
    """Counts the backs of one BGR frame, per deck; with `in_play`, each back is decided
    among those decks only (a match's decks), the others reported as zeros. `at`: when the
    frame was taken on the source's own clock (a video file's position, in seconds; None: it
    was taken now), which live counting judges stillness by. One may also say that a frame
    need not be counted yet (`unmoved(frame) -> bool`: the table as last counted, settled)."""

    def count(
        self,
        frame_bgr: np.ndarray,
        *,
        in_play: frozenset[str] | None = None,
        at: float | None = None,
    ) -> CountSnapshot: ...


@runtime_checkable
class Enroller(Protocol):
    """Learns a deck's back from a frame showing it, or forgets it; each returns a one-line
    result for the user, or raises (UserError) saying why it did not. `enrolled` gives the
    decks read against a stored print of their own. One may also say why a frame holds no
    card to enroll (`card_problem(frame) -> str | None`), looked at before a print is asked
    to be replaced."""

    def enroll(self, deck: str, frame_bgr: np.ndarray) -> str: ...

    def forget(self, deck: str) -> str: ...

    def enrolled(self) -> Mapping[str, Path]: ...


class NullCounter:
    """Counts nothing (no detector model yet): the live view still shows the camera."""

    def __init__(self, note: str) -> None:
        self.note = note

    def count(
        self,
        frame_bgr: np.ndarray,
        *,
        in_play: frozenset[str] | None = None,
        at: float | None = None,
    ) -> CountSnapshot:
        return CountSnapshot(note=self.note)


class DecksInPlay:
    """A counter that decides every back among a match's decks only: with fewer decks to
    choose from, a faded or half-covered copy is less often left unidentified."""

    def __init__(self, counter: Counter, decks: Iterable[str]) -> None:
        self.counter = counter
        self.decks = frozenset(decks)

    def count(
        self,
        frame_bgr: np.ndarray,
        *,
        in_play: frozenset[str] | None = None,
        at: float | None = None,
    ) -> CountSnapshot:
        decks = self.decks if in_play is None else in_play  # (read once: swapped whole)
        snapshot = self.counter.count(frame_bgr, in_play=decks, at=at)
        return dataclasses.replace(snapshot, in_play=decks)

    def unmoved(self, frame_bgr: np.ndarray) -> bool:
        """The counter's `unmoved`, where it has one."""
        unmoved = getattr(self.counter, "unmoved", None)
        return unmoved is not None and bool(unmoved(frame_bgr))

    def reset(self) -> None:
        """The counter's live vote forgotten, when it keeps one (stand-ins and NullCounter
        do not)."""
        reset = getattr(self.counter, "reset", None)
        if reset is not None:
            reset()


# --- the worker ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountedFrame:
    """A frame and what it says, handed from the worker to the GUI."""

    frame: np.ndarray  # BGR
    snapshot: CountSnapshot
    index: int  # frames counted so far by the worker (tells the GUI how many it skipped)
    # the frame's number in its camera or stream, as the frames shown between counts carry
    # it (None: a source that numbers none, a file or the demo)
    source_index: int | None = None


class Mailbox:
    """Holds only the newest item; `put` says whether it was empty (the reader needs a nudge)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._item: CountedFrame | None = None

    def put(self, item: CountedFrame) -> bool:
        with self._lock:
            was_empty = self._item is None
            self._item = item
            return was_empty

    def take(self) -> CountedFrame | None:
        with self._lock:
            item, self._item = self._item, None
            return item


class CountingWorker(QObject):
    """The worker loop: read a frame, count it, post it; again every `interval_ms` at most.

    It runs in a thread Python started (`CountingThread`), never in a QThread's event loop:
    there each slot call gets a Python thread state that PySide deletes on return, and with
    OpenVINO running the shipped models that teardown crashed the app (SIGSEGV or "double
    free" in tstate_delete_common) on the first live count."""

    ready = Signal()  # a new item is in the mailbox
    failed = Signal(str)  # the source broke; the loop has stopped
    # the counter broke on a frame the source gave: its failure, not the camera's (a broken
    # model said "No view from the camera" over a live camera's picture); the loop has stopped
    counting_failed = Signal(str)
    # the source has no more frames: why, where it ended before its end (a video cut short:
    # its `end_note`), else ""
    finished = Signal(str)

    def __init__(
        self,
        source: FrameSource,
        counter: Counter,
        mailbox: Mailbox,
        interval_ms: int,
        *,
        turn: threading.Lock | None = None,
        on_start: Callable[[], object] | None = None,
    ) -> None:
        super().__init__()
        self._source = source
        self._counter = counter
        self._mailbox = mailbox
        self._interval_s = max(0, interval_ms) / 1000
        self._stopping = threading.Event()
        self._counting = threading.Event()  # set while a frame is counted
        self._turn = turn or threading.Lock()  # (its own: the counter is shared with nobody)
        self._on_start = on_start
        self._index = 0
        self._held = threading.Event()  # set while counting is not wanted (`hold`)
        self._unmoved = getattr(counter, "unmoved", None)
        self._rested = False  # the last frame read was not counted: the table unmoved

    @property
    def held(self) -> bool:
        """Counting is held off now (`hold`)."""
        return self._held.is_set()

    def hold(self, held: bool) -> None:
        """Count no frame while `held` (from any thread): nobody sees the counts. A camera's
        reader takes its frames on undecoded meanwhile; a video waits where it was."""
        if held:
            self._held.set()
        else:
            self._held.clear()

    def run(self) -> None:
        """The loop, until `stop`, the source's end or a failure; then the source is closed
        here, in the thread that read it (a read that outlived `stop` included)."""
        try:
            while not self._stopping.is_set():
                if self._held.is_set():
                    self._stopping.wait(PAUSED_POLL_S)
                    continue
                started = time.monotonic()
                if not self._tick():
                    return
                pace = UNMOVED_POLL_S if self._rested else self._interval_s
                self._stopping.wait(max(0.0, pace - (time.monotonic() - started)))
        finally:
            self._source.close()

    def stop(self) -> None:
        """Ask the loop to end (safe from any thread); a frame being counted is finished in
        this thread, unwaited for, and a frame waiting for its turn is never counted."""
        self._stopping.set()

    @property
    def counting(self) -> bool:
        """A frame is being counted now."""
        return self._counting.is_set()

    def _take_turn(self) -> bool:
        """Wait for the counter's turn (another scan's worker may be finishing a frame);
        False, without it, once the loop is to end: a scan left counts nothing more, and
        does not take the next scan's turn."""
        while not self._turn.acquire(timeout=TURN_POLL_S):
            if self._stopping.is_set():
                return False
        if self._stopping.is_set():
            self._turn.release()
            return False
        return True

    def _tick(self) -> bool:
        """One frame; False when the loop must end."""
        counting = False  # (what broke: the counter, or the source)
        try:
            frame = self._source.read()
            # a video file's own clock (its frames read faster or slower than they were shot)
            at = getattr(self._source, "frame_time_s", None)
            source_index = getattr(self._source, "frame_index", None)
            if self._stopping.is_set():
                return False  # nobody listens any more
            if frame is None:
                self.finished.emit(getattr(self._source, "end_note", None) or "")
                return False
            # the table as last counted, settled, not moved since: not counted again yet (a
            # still table counted five times a second took most of a laptop's two cores). Not
            # before this worker's first count: the counter's last may be another scan's. A
            # camera's or stream's only: a video's reads move its clock (each read at rest took
            # it 0.2 s on, and the vote saw a stall every 2 s), and a folder's or the demo's
            # pictures turn after so many reads (a settled picture turned in 0.4 s)
            live = bool(getattr(self._source, "live", False))
            self._rested = bool(live and self._index and self._unmoved and self._unmoved(frame))
            if self._rested:
                return True
            if not self._take_turn():
                return False
            try:
                self._counting.set()
                counting = True
                if self._on_start is not None:  # (before the first frame, in this turn)
                    on_start, self._on_start = self._on_start, None
                    on_start()
                snapshot = self._counter.count(frame, at=at)
            finally:
                self._counting.clear()
                self._turn.release()
        except Exception as exc:  # a broken camera or model must not take the app down
            if not self._stopping.is_set():  # a SourceError's line already names the source
                said = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
                (self.counting_failed if counting else self.failed).emit(said)
            return False
        self._index += 1
        if self._mailbox.put(CountedFrame(frame, snapshot, self._index, source_index)):
            self.ready.emit()  # queued to the GUI thread: emitted from another
        return True


def _stop_when_gone(worker: CountingWorker, source: FrameSource) -> Callable[..., None]:
    """What ends a worker whose handle is destroyed unstopped (its scan or dialog deleted with
    its window, never closed): its loop ran on for the rest of the process, every few
    milliseconds, and collected other threads' garbage. It holds the worker and the source,
    not the handle, which is gone by then."""

    def stop(*_: object) -> None:
        worker.stop()
        cancel = getattr(source, "cancel", None)  # (a stream waiting to reconnect gives up)
        if cancel is not None:
            cancel()

    return stop


class CountingThread(QObject):
    """GUI-side handle: starts the worker thread, re-emits the newest counted frame, asks a
    camera or stream for frames of its own between counts (`previewed`), stops cleanly."""

    counted = Signal(object)  # CountedFrame, newest only
    # a frame for the eye only, between counts (np.ndarray, BGR, its number in the source, and
    # its thumbnail where the camera's reader made one, else None), from a source that can
    # give one (a camera or stream: `peek`)
    previewed = Signal(object, int, object)
    failed = Signal(str)
    counting_failed = Signal(str)  # (CountingWorker)
    finished = Signal(str)  # why the source ended before its end, else "" (CountingWorker)

    def __init__(
        self,
        source: FrameSource,
        counter: Counter,
        *,
        interval_ms: int = DEFAULT_INTERVAL_MS,
        turn: threading.Lock | None = None,
        on_start: Callable[[], object] | None = None,
        preview_while: Callable[[], bool] = lambda: True,
        count_while: Callable[[], bool] = lambda: True,
        parent: QObject | None = None,
    ) -> None:
        """`turn`: the lock the workers of one counter take to count a frame (a scan left
        finishes its frame in hand while the next scan's worker starts); `on_start`: run in
        the worker in its first turn, before its first frame (a scan's live vote forgotten:
        after the frame the last scan had in hand, never during it); `preview_while`: whether
        frames between counts are wanted now (the view on screen: each costs a decode and a
        paint, which a minimised window's counting paid for nothing); `count_while`: whether
        counting is (asked every COUNT_WHILE_MS on the window's thread)."""
        super().__init__(parent)
        self.source = source
        self._mailbox = Mailbox()
        self._worker = CountingWorker(
            source, counter, self._mailbox, interval_ms, turn=turn, on_start=on_start
        )
        self._thread = threading.Thread(target=self._worker.run, name=WORKER_THREAD, daemon=True)
        self._stopped = False  # after stop, what the worker had already queued is dropped
        self._worker.ready.connect(self._on_ready, Qt.ConnectionType.QueuedConnection)
        self._worker.failed.connect(self._on_failed, Qt.ConnectionType.QueuedConnection)
        self._worker.counting_failed.connect(
            self._on_counting_failed, Qt.ConnectionType.QueuedConnection
        )
        self._worker.finished.connect(self._on_finished, Qt.ConnectionType.QueuedConnection)
        self.destroyed.connect(_stop_when_gone(self._worker, source))
        self._preview = QTimer(self)
        self._preview.setInterval(PREVIEW_INTERVAL_MS)
        self._preview.timeout.connect(self._on_preview)
        self._preview_while = preview_while
        self._count_while = count_while
        self._wanted = QTimer(self)
        self._wanted.setInterval(COUNT_WHILE_MS)
        self._wanted.timeout.connect(self._on_wanted)

    def start(self) -> None:
        if self._thread.ident is None:  # a thread starts once
            self._thread.start()
            self._wanted.start()
            if callable(getattr(self.source, "peek", None)):
                self._preview.start()

    @property
    def held(self) -> bool:
        """Counting is held off now: nobody sees the counts (`count_while`)."""
        return self._worker.held

    @Slot()
    def _on_wanted(self) -> None:
        self._worker.hold(not self._count_while())

    def is_running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Stop the loop; the source is released by the worker as its loop ends. Returns once
        the read in hand has ended, or after READ_WAIT_S when it has not; at once for a camera or
        stream the worker opened (`OpenedLater.let_go_in_its_worker`: a stream connecting or
        reconnecting held the window 1 s, in an open OpenCV cannot interrupt). A frame being
        counted is waited for COUNT_WAIT_S at most (a table read in tiles takes seconds on a
        slow machine): the worker finishes it unheard and then releases the source. Safe to
        call twice: a second call waits for nothing (on quit the window and the app each
        stopped it, and a stream still connecting held the quit 2 s, not 1)."""
        if self._stopped:
            return
        self._stopped = True
        self._preview.stop()
        self._wanted.stop()
        self._worker.stop()
        cancel = getattr(self.source, "cancel", None)  # a stream waiting to reconnect gives up
        if cancel is not None:
            cancel()
        if self._thread.ident is None:  # never started: nothing else will release it
            self.source.close()
            return
        if getattr(self.source, "let_go_in_its_worker", False):
            return  # (OpenedLater: the next scan of its camera waits for it, in its own worker)
        self._thread.join(COUNT_WAIT_S if self._worker.counting else READ_WAIT_S)

    @Slot()
    def _on_ready(self) -> None:
        item = self._mailbox.take()
        if item is not None and not self._stopped:  # a scan left must not shoot or go on
            self.counted.emit(item)

    @Slot()
    def _on_preview(self) -> None:
        if not getattr(self.source, "can_peek", True):  # (opened as a source with none to give)
            self._preview.stop()
            return
        if self._stopped or not self._preview_while():
            return
        frame = self.source.peek()  # type: ignore[attr-defined]  # (started only where it can)
        if frame is not None:
            self.previewed.emit(frame.image, frame.index, frame.thumb)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._preview.stop()  # (the last frame stays in view, the failure said over it)
        if not self._stopped:
            self.failed.emit(message)

    @Slot(str)
    def _on_counting_failed(self, message: str) -> None:
        self._preview.stop()  # (no frame is counted any more: the view would say otherwise)
        if not self._stopped:
            self.counting_failed.emit(message)

    @Slot(str)
    def _on_finished(self, note: str) -> None:
        self._preview.stop()
        if not self._stopped:
            self.finished.emit(note)
