"""The one seam between the app and vision/: what the UI needs from a frame source and a counter,
and the worker thread that runs them.

Widgets only know `FrameSource`, `Counter` and `CountSnapshot`; tests inject fakes. The adapters
at the bottom (from `snapshot_from_result` on: `open_source`, `make_counter`, `make_enroller`
and what they build) are the only code here that imports vision/, and only when called.
Camera reading and inference run in a worker thread; results reach the GUI through a one-slot
mailbox so the newest frame always wins and stale ones are dropped, however slow either side is.
"""

from __future__ import annotations

import collections
import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal, Slot

from blitzcam.errors import UserError

DEFAULT_INTERVAL_MS: Final = 30  # pacing of the worker loop (a camera's read() also blocks)
# how long leaving a scan waits for a read in hand; a stream still connecting is left to give
# up on its own (OpenCV's connect cannot be interrupted), and closes itself then
READ_WAIT_S: Final = 1.0


# --- what the UI needs -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outline:
    """One counted (or flagged) card as the live view draws it."""

    corners: np.ndarray  # (4, 2) float32, frame pixels
    deck: str | None  # deck name; None for a back of no deck (none enrolled near enough, or
    # with decks in play, none of theirs)
    face_up: bool = False  # a face-up card: never counted, "flip this card"


@dataclass(frozen=True, slots=True)
class ViewCounts:
    """What the still frames of a view not settled yet vote so far (see CountSnapshot.view),
    and the number of that view (CountSnapshot.scene's, or another when it is another view)."""

    counts: Mapping[str, int]
    face_up: int
    unknown: int
    scene: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", MappingProxyType(dict(self.counts)))


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
    view: ViewCounts | None = None
    # live counting numbers the view the counts are of (a new number when the vote restarts on
    # another view), so that one view is not shot twice
    scene: int = 0
    # pairs of decks in play whose backs read nearly alike (vision/lookalike.py): their cards
    # may be counted to each other
    look_alike: tuple[tuple[str, str], ...] = ()

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
            counts=self.view.counts,
            voted_face_up=self.view.face_up,
            voted_unknown=self.view.unknown,
            settled=True,
            view=None,
            scene=self.view.scene,
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
    among those decks only (a match's decks), the others reported as zeros."""

    def count(
        self, frame_bgr: np.ndarray, *, in_play: frozenset[str] | None = None
    ) -> CountSnapshot: ...


@runtime_checkable
class Enroller(Protocol):
    """Learns a deck's back from a frame showing it, or forgets it; each returns a one-line
    result for the user. `enrolled` gives the decks read against a stored print of their own."""

    def enroll(self, deck: str, frame_bgr: np.ndarray) -> str: ...

    def forget(self, deck: str) -> str: ...

    def enrolled(self) -> Mapping[str, Path]: ...


class NullCounter:
    """Counts nothing (no detector model yet): the live view still shows the camera."""

    def __init__(self, note: str) -> None:
        self.note = note

    def count(
        self, frame_bgr: np.ndarray, *, in_play: frozenset[str] | None = None
    ) -> CountSnapshot:
        return CountSnapshot(note=self.note)


class DecksInPlay:
    """A counter that decides every back among a match's decks only: with fewer decks to
    choose from, a faded or half-covered copy is less often left unidentified."""

    def __init__(self, counter: Counter, decks: Iterable[str]) -> None:
        self.counter = counter
        self.decks = frozenset(decks)

    def count(
        self, frame_bgr: np.ndarray, *, in_play: frozenset[str] | None = None
    ) -> CountSnapshot:
        return self.counter.count(frame_bgr, in_play=self.decks if in_play is None else in_play)

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
    failed = Signal(str)  # the source or the counter broke; the loop has stopped
    finished = Signal()  # the source has no more frames

    def __init__(
        self, source: FrameSource, counter: Counter, mailbox: Mailbox, interval_ms: int
    ) -> None:
        super().__init__()
        self._source = source
        self._counter = counter
        self._mailbox = mailbox
        self._interval_s = max(0, interval_ms) / 1000
        self._stopping = threading.Event()
        self._counting = threading.Lock()  # held while a frame is counted
        self._index = 0

    def run(self) -> None:
        """The loop, until `stop`, the source's end or a failure; then the source is closed
        here, in the thread that read it (a read that outlived `stop` included)."""
        try:
            while not self._stopping.is_set():
                started = time.monotonic()
                if not self._tick():
                    return
                self._stopping.wait(max(0.0, self._interval_s - (time.monotonic() - started)))
        finally:
            self._source.close()

    def stop(self) -> None:
        """Ask the loop to end (safe from any thread). Returns once no frame is being counted:
        the counter is the window's, and the next scan's worker may use it at once."""
        self._stopping.set()
        with self._counting:
            pass

    def _tick(self) -> bool:
        """One frame; False when the loop must end."""
        try:
            frame = self._source.read()
            if self._stopping.is_set():
                return False  # nobody listens any more
            if frame is None:
                self.finished.emit()
                return False
            with self._counting:
                if self._stopping.is_set():
                    return False
                snapshot = self._counter.count(frame)
        except Exception as exc:  # a broken camera or model must not take the app down
            if not self._stopping.is_set():  # a SourceError's line already names the source
                said = isinstance(exc, UserError)
                self.failed.emit(str(exc) if said else f"{type(exc).__name__}: {exc}")
            return False
        self._index += 1
        if self._mailbox.put(CountedFrame(frame, snapshot, self._index)):
            self.ready.emit()  # queued to the GUI thread: emitted from another
        return True


class CountingThread(QObject):
    """GUI-side handle: starts the worker thread, re-emits the newest frame, stops cleanly."""

    counted = Signal(object)  # CountedFrame, newest only
    failed = Signal(str)
    finished = Signal()

    def __init__(
        self,
        source: FrameSource,
        counter: Counter,
        *,
        interval_ms: int = DEFAULT_INTERVAL_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.source = source
        self._mailbox = Mailbox()
        self._worker = CountingWorker(source, counter, self._mailbox, interval_ms)
        self._thread = threading.Thread(target=self._worker.run, name="counting", daemon=True)
        self._stopped = False  # after stop, what the worker had already queued is dropped
        self._worker.ready.connect(self._on_ready, Qt.ConnectionType.QueuedConnection)
        self._worker.failed.connect(self._on_failed, Qt.ConnectionType.QueuedConnection)
        self._worker.finished.connect(self._on_finished, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
        if self._thread.ident is None:  # a thread starts once
            self._thread.start()

    def is_running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Stop the loop; the source is released by the worker as its loop ends. Returns once
        no frame is being counted and the read in hand has ended, or after READ_WAIT_S when
        it has not (a stream still connecting): the window never freezes on a camera. Safe
        to call twice."""
        self._stopped = True
        self._worker.stop()  # waits out a frame being counted
        cancel = getattr(self.source, "cancel", None)  # a stream waiting to reconnect gives up
        if cancel is not None:
            cancel()
        if self._thread.ident is None:  # never started: nothing else will release it
            self.source.close()
            return
        self._thread.join(READ_WAIT_S)

    @Slot()
    def _on_ready(self) -> None:
        item = self._mailbox.take()
        if item is not None and not self._stopped:  # a scan left must not shoot or go on
            self.counted.emit(item)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        if not self._stopped:
            self.failed.emit(message)

    @Slot()
    def _on_finished(self) -> None:
        if not self._stopped:
            self.finished.emit()


# --- adapters to vision/ ---------------------------------------------------------------------


def snapshot_from_result(result: Any) -> CountSnapshot:
    """vision's frame result -> CountSnapshot (the only place that reads its fields)."""
    from blitzcam.vision.detections import UNKNOWN_NAME

    detections = result.detections
    face_mask = np.asarray(detections.of_class("face"))
    back_mask = np.asarray(detections.of_class("back"))
    outlines = []
    for row in range(len(detections)):
        if not (face_mask[row] or back_mask[row]):
            continue
        name = detections.deck_name(row) if back_mask[row] else None
        outlines.append(
            Outline(
                corners=np.asarray(detections.corners[row], dtype=np.float32),
                deck=None if name in (None, UNKNOWN_NAME) else name,
                face_up=bool(face_mask[row]),
            )
        )
    counts = {str(deck): int(n) for deck, n in dict(result.counts).items()}
    return CountSnapshot(
        counts=counts,
        outlines=tuple(outlines),
        record=detections,
        voted_face_up=int(result.face_up),
        voted_unknown=int(result.unknown),
        settled=bool(getattr(result, "settled", True)),
        view=_view_counts(getattr(result, "view", None), getattr(result, "view_scene", None)),
        scene=int(getattr(result, "scene", 0)),
    )


def _view_counts(view: Any, scene: int | None) -> ViewCounts | None:
    """vision's Counts of a view not settled, and its number -> ViewCounts (None stays None)."""
    if view is None:
        return None
    per_deck = {str(deck): int(n) for deck, n in dict(view.per_deck).items()}
    return ViewCounts(
        per_deck, face_up=int(view.face_up), unknown=int(view.unknown), scene=int(scene or 0)
    )


class PipelineCounter:
    """Counter backed by vision's pipeline (ONNX detector + deck identification).

    Live counts are voted over recent still frames (vision's LiveCounting), so a hand passing
    over the table does not change them; the outlines are always the current frame's.
    """

    def __init__(self, pipeline: Any) -> None:
        from blitzcam.vision.pipeline import LiveCounting
        from blitzcam.vision.references import decks_folder_state

        self.pipeline = pipeline
        self._live = LiveCounting(pipeline)
        self._decks_seen = decks_folder_state()  # the profile as the pipeline loaded it

    def refresh_profile(self, *, changed: bool = False) -> bool:
        """Load the deck profile again if its folder changed since it was loaded (a deck
        enrolled or forgotten with `blitzcam decks` while the app ran: it was counted against
        the old back until a restart), or `changed` (by the app itself: a file system whose
        times are coarse may not show it); whether it did."""
        from blitzcam.vision.references import decks_folder_state

        now = decks_folder_state()
        if not changed and (now is None or now == self._decks_seen):
            return False
        self.pipeline.reload_profile(skip_unusable=True)
        self._decks_seen = now
        return True

    def count(
        self, frame_bgr: np.ndarray, *, in_play: frozenset[str] | None = None
    ) -> CountSnapshot:
        from blitzcam.vision.lookalike import among

        snapshot = dataclasses.replace(
            snapshot_from_result(self._live(frame_bgr, in_play=in_play)),
            look_alike=tuple((p.deck, p.other) for p in among(self.pipeline.look_alikes, in_play)),
        )
        note = left_out_note(self.pipeline.profile.left_out)
        return dataclasses.replace(snapshot, note=note) if note else snapshot

    def reset(self) -> None:
        """A new scan starts: no vote from the last one (see LiveCounting.reset), and the deck
        profile as it is on disk now."""
        self.refresh_profile()
        self._live.reset()


def left_out_note(left_out: tuple[str, ...]) -> str:
    """What the live view says while enrolled backs are left out of the deck profile."""
    if not left_out:
        return ""
    return (
        f"Left out of your deck profile: {'; '.join(left_out)}. Until it is enrolled again "
        "(Camera → Enroll decks…), a deck of the eight is read against its built-in art and a "
        "deck of your own is not counted."
    )


class PipelineEnroller:
    """Enrolls a deck from the live view, then has the counter use the new reference at once."""

    def __init__(self, counter: PipelineCounter) -> None:
        from blitzcam.vision.enrollment import FrameEnroller

        self._counter = counter
        self._enroller = FrameEnroller()

    def enroll(self, deck: str, frame_bgr: np.ndarray) -> str:
        from blitzcam.vision.lookalike import involving

        try:
            message = self._enroller.enroll(deck, frame_bgr)
        except UserError as exc:
            return f"{deck}: not enrolled: {exc}"
        # enrollment stores only a back that loads; another file gone bad is left out, and
        # the live view says so
        pipeline = self._counter.pipeline
        self._counter.refresh_profile(changed=True)
        pairs = involving(pipeline.look_alikes, deck)
        return " ".join([message, *(f"Note: {pair.note()}." for pair in pairs)])

    def forget(self, deck: str) -> str:
        from blitzcam.vision.enrollment import forget_deck

        try:
            paths = forget_deck(deck)
        except UserError as exc:
            return f"{deck}: not forgotten: {exc}"
        self._counter.refresh_profile(changed=True)
        removed = ", ".join(map(str, paths))
        return f"{deck}: read against blitzcam's own drawing again (removed {removed})"

    def enrolled(self) -> dict[str, Path]:
        """The eight decks' enrolled prints, a damaged one too: it is left out of the profile
        (the live view says so), and this is where it can be forgotten."""
        from blitzcam.game.decks import DECK_NAMES
        from blitzcam.vision.references import enrolled_files

        # the dialog shows the prints on disk: counting reads them too (one enrolled with
        # `blitzcam decks` meanwhile)
        self._counter.refresh_profile()
        files = enrolled_files(problems=[])  # a badly named file is the live view's news
        return {deck: path for deck, path in files.items() if deck in DECK_NAMES}


def make_counter() -> Counter:
    """The real counter when vision/ has a pipeline and a model; else a NullCounter saying why."""
    try:
        from blitzcam.vision.pipeline import CountingPipeline

        # a damaged enrolled back is left out (and said), not a reason to count nothing
        return PipelineCounter(CountingPipeline.from_defaults(skip_unusable=True))
    except Exception as exc:  # missing module, no model shipped yet, bad model file
        return NullCounter(f"no card counting available ({exc}); enter the counts by hand")


def make_enroller(counter: Counter) -> Enroller | None:
    """Enrollment from the live view needs the real pipeline (to pick up the new reference)."""
    return PipelineEnroller(counter) if isinstance(counter, PipelineCounter) else None


class ImageLoopSource:
    """Replays image files in a loop, each shown for `repeat` reads (the bundled demo footage, or
    a folder of stills standing in for a camera). One image is decoded at a time: a folder of
    phone photos is not held in memory."""

    def __init__(self, paths: list[Path], *, repeat: int = 30) -> None:
        if not paths:
            raise ValueError("ImageLoopSource: expected at least one image, got none")
        from blitzcam.vision.images import read_image

        self._read_image = read_image
        self._paths = list(paths)
        self._repeat = max(1, repeat)
        self._reads = 0
        self._shown = 0
        self._unreadable: set[int] = set()  # damaged photos among good ones: passed over
        self._frame = read_image(self._paths[0])  # a bad first file is said now, naming it

    def read(self) -> np.ndarray | None:
        index = (self._reads // self._repeat) % len(self._paths)
        if index != self._shown and index not in self._unreadable:
            try:
                self._frame = self._read_image(self._paths[index])
                self._shown = index
            except UserError:  # the last good picture stays in view; the loop goes on
                self._unreadable.add(index)
        self._reads += 1
        return self._frame

    def close(self) -> None:
        pass


DEMO_DIR: Final = Path(__file__).resolve().parent.parent / "datasets" / "demo"


def demo_source() -> FrameSource:
    """The bundled demo footage (datasets/demo/*.jpg)."""
    return ImageLoopSource(sorted(DEMO_DIR.glob("*.jpg")))


def open_source(spec: str) -> FrameSource:
    """A camera index ("0"), a video or image file, an image folder, a stream URL, or "demo".

    "" means the first camera, falling back to the demo footage when there is none. Files and
    folders are opened now, so a wrong name is said at once; a camera or a stream is opened by
    the worker thread on its first read (see OpenedLater).
    """
    from blitzcam.paths import expand_home
    from blitzcam.vision.images import IMAGE_SUFFIXES
    from blitzcam.vision.sources import STREAM_SCHEMES, image_files, is_camera_device
    from blitzcam.vision.sources import open_source as vision_open

    spec = spec.strip()
    if spec == "demo":
        return demo_source()
    if not spec:
        return OpenedLater(_first_camera_or_demo, spec="0")
    if spec.lower().startswith(STREAM_SCHEMES) or (spec.isascii() and spec.isdigit()):
        held = str(int(spec)) if spec.isdigit() else spec  # "00" is camera 0 too
        return OpenedLater(lambda: vision_open(spec), spec=held)  # read() gives BGR images
    if "://" in spec:  # an address of no scheme blitzcam reads (`rstp://`): said as one, its
        return vision_open(spec)  # password hidden (as a path it lost a '/' and showed it)
    path = expand_home(Path(spec))  # a URL is never a local path
    if is_camera_device(path):  # /dev/video0: a camera, opened as one (by the worker)
        return OpenedLater(lambda: vision_open(str(path)), spec=str(path))
    if path.is_dir():  # stills standing in for a camera: shown in a loop
        return ImageLoopSource(image_files(path))
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageLoopSource([path])
    return vision_open(str(path))  # a video file


def cameras_attached() -> bool | None:
    """Whether the system lists the first camera (Linux: /dev/video0, the device camera 0
    opens; a Raspberry Pi's codec nodes are /dev/video10 and on); None where it cannot be told
    without opening one (Windows, macOS)."""
    if not sys.platform.startswith("linux"):
        return None
    return Path("/dev/video0").exists()


def _first_camera_or_demo() -> FrameSource:
    """The first camera when one opens and gives a frame, else the demo footage: when there is
    no camera. Where the system lists one, its failure (busy in another program) is said
    instead: the demo's counts standing in for the table said nothing of it."""
    from blitzcam.vision.sources import SourceError
    from blitzcam.vision.sources import open_source as vision_open

    try:
        source = vision_open("0")
    except SourceError:
        if cameras_attached():
            raise
        return demo_source()
    try:
        first = source.read()
    except SourceError:
        if cameras_attached():
            source.close()
            raise
        first = None
    if first is None:
        source.close()
        if cameras_attached():
            raise SourceError("camera 0: it opened but gave no picture")
        return demo_source()
    return _Primed(source, first)


# the cameras and streams an OpenedLater is opening or holding, by spec: a scan left while its
# camera was still opening lets go of it only when the open returns, and the next scan's worker
# waits for that (a camera opened twice is "busy", or the demo footage stands in for it)
# (counted: one that stopped waiting past HOLD_WAIT_S holds the spec beside the first, and the
# first letting go must not free it for a third)
_HELD: collections.Counter[str] = collections.Counter()
_RELEASED = threading.Condition()
# past this, the camera is opened anyway (a stream's connect gives up after
# vision.sources.STREAM_OPEN_TIMEOUT_MS, a camera's in seconds): the worst is the "busy" error
# there would have been
HOLD_WAIT_S: Final = 60.0


class OpenedLater:
    """A camera or stream that the worker thread opens on its first read.

    Opening one takes a second (a camera waking up) or up to STREAM_OPEN_TIMEOUT_MS (an RTSP
    address nobody answers); on the GUI thread that froze the window. A failure to open
    reaches the window as any failed read does. `cancel` (from any thread) makes a read still
    opening close what it opened and end the source. One spec is held by one OpenedLater at a
    time: a second waits, in its worker thread, until the first is closed."""

    @property
    def live(self) -> bool:
        """A camera or a stream (when it stops giving frames, it has failed), until it is open:
        then what it is (a video served over HTTP ends as a file does)."""
        source = self._source
        return True if source is None else bool(getattr(source, "live", False))

    def __init__(self, open_source: Callable[[], FrameSource], *, spec: str) -> None:
        self._open = open_source
        self._spec = spec
        self._source: FrameSource | None = None
        self._lock = threading.Lock()  # the source opened vs. a cancel or close from the GUI
        self._cancelled = False
        self._holds = False

    def read(self) -> np.ndarray | None:
        if self._source is None:
            if not self._hold():
                return None
            source = self._open()
            with self._lock:
                if not self._cancelled:
                    self._source = source
            if self._source is None:  # cancelled while it opened
                source.close()
                return None
        return self._source.read()

    def _hold(self) -> bool:
        """Wait until no other OpenedLater holds this spec, then hold it; False if cancelled."""
        give_up = time.monotonic() + HOLD_WAIT_S
        with _RELEASED:
            if self._holds:  # (a read again after an open that failed: held once, not twice)
                return not self._cancelled
            while _HELD[self._spec] > 0 and not self._cancelled:
                if time.monotonic() > give_up:
                    break
                _RELEASED.wait(0.1)
            if self._cancelled:
                return False
            _HELD[self._spec] += 1
            self._holds = True
            return True

    def _let_go(self) -> None:
        with _RELEASED:
            if self._holds:
                _HELD[self._spec] -= 1
                if _HELD[self._spec] <= 0:
                    del _HELD[self._spec]
                self._holds = False
                _RELEASED.notify_all()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            source = self._source
        cancel = getattr(source, "cancel", None)
        if cancel is not None:
            cancel()

    def close(self) -> None:
        with self._lock:
            self._cancelled = True
            source, self._source = self._source, None
        try:
            if source is not None:
                source.close()
        finally:
            self._let_go()


class _Primed:
    """A source whose first frame was read to see that it works: that frame comes first."""

    def __init__(self, source: FrameSource, first: np.ndarray) -> None:
        self._source = source
        self._first: np.ndarray | None = first
        self.live = bool(getattr(source, "live", False))

    def read(self) -> np.ndarray | None:
        first, self._first = self._first, None
        return first if first is not None else self._source.read()

    def cancel(self) -> None:  # a read waiting for the camera gives up (the worker stopping)
        cancel = getattr(self._source, "cancel", None)
        if cancel is not None:
            cancel()

    def close(self) -> None:
        self._source.close()
