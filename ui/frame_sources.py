"""The frame sources the app opens from what the user typed or picked: a camera or a stream
opened by the worker thread on its first read (`OpenedLater`, one holder per camera at a time),
image files shown in a loop, the bundled demo footage, a video file. vision/ reads the frames;
this module decides what a spec is for the app (the first camera or else the demo, "demo").
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from blitzcam.errors import UserError
from blitzcam.ui.counting_worker import FrameSource

if TYPE_CHECKING:  # (vision/ is imported when a source opens, not with the window)
    from blitzcam.vision.capture_source import Frame
    from blitzcam.vision.sources import SourceError

# Each still of a folder or the demo is shown for so many reads and seconds at least: enough
# reads for a view to settle (its first, then three still ones over a second: vision.stabilise.
# MIN_STILL_S) and a shot or two after, and time to press Space. Counted in 30 ms, 30 reads were
# 0.9 s and no still settled, nor a shot of it; where a count takes 2 s (a 2-core laptop
# reading a big table in tiles), 30 reads were over a minute a picture: the demo's Blitz step
# was shown the Dutch step's table, and refused, and a folder's next photo came a minute on.
STILL_READS: Final = 8
STILL_SHOWN_S: Final = 5.0
GONE_AFTER_S: Final = 5.0  # no picture of a folder read for so long: it is gone
# A video file's frames are counted this far apart at least, on its own clock, those between
# taken off undecoded: a camera gives the newest frame each time counting is ready (5 to 9 a
# second here), a file would give every frame in turn, each counted (4 s of a 30 fps table take
# 122 s; a 30 s phone clip at 60 fps, minutes). Live counting settles a view on three
# still votes over a second (vision.stabilise), five or six frames of the video at this pace.
VIDEO_COUNTED_EVERY_S: Final = 0.2


class ImageLoopSource:
    """Replays image files in a loop, each shown for `repeat` reads and `seconds` at least (the
    bundled demo footage, or a folder of stills standing in for a camera). One image is decoded
    at a time: a folder of phone photos is not held in memory. `listed`: the folder's pictures
    as they are now, asked each time the loop comes round to its start, so that a photo a
    phone's sync adds during a scan is shown (it never was), and one taken away is left out."""

    def __init__(
        self,
        paths: list[Path],
        *,
        repeat: int = STILL_READS,
        seconds: float = STILL_SHOWN_S,
        clock: Callable[[], float] = time.monotonic,
        listed: Callable[[], list[Path]] | None = None,
    ) -> None:
        if not paths:
            raise ValueError("ImageLoopSource: expected at least one image, got none")
        from blitzcam.vision.images import read_image

        self._read_image = read_image
        self._paths = list(paths)
        self._listed = listed
        self._repeat = max(1, repeat)
        self._seconds, self._clock = seconds, clock
        self._turn = 0  # the loop's turns so far: the image shown is the turn's
        self._turn_reads = 0
        self._turn_since: float | None = None
        self._shown = 0
        self.demo = False  # the bundled demo footage (`demo_source`)
        self.demo_because = ""  # why the demo stands in for the first camera, where it may say
        self._unreadable: set[int] = set()  # damaged photos among good ones: passed over
        self._gone_since: float | None = None  # since when no picture has read (all failed)
        self._gone_turns = 0  # turns whose picture failed since then
        self._turn_failed = False  # the turn's picture failed to read: the next read turns
        self._read_once: set[int] = set()  # the pictures that have read
        # why the last picture to fail of those that had read failed: the one that went, where
        # the last failure may be of a file that never was a picture
        self._went: UserError | None = None
        self._frame = self._first_readable()

    def _first_readable(self) -> np.ndarray:
        """The first picture that reads, the damaged ones before it passed over as later ones
        are (a damaged first file refused the whole folder); when none reads, the first's
        error, naming it."""
        first_error: UserError | None = None
        for index, path in enumerate(self._paths):
            try:
                frame = self._read_image(path)
            except UserError as exc:
                self._unreadable.add(index)
                first_error = first_error or exc
                continue
            self._shown = index
            self._read_once.add(index)
            return frame
        assert first_error is not None
        raise first_error

    def read(self) -> np.ndarray | None:
        now = self._clock()
        if self._turn_since is None:
            self._turn_since = now
        # a picture that failed ends its turn at once, and once none reads each read tries the
        # next: a folder gone is said GONE_AFTER_S on, not after two whole turns of every
        # picture's seconds (a minute for ten photos)
        turned = (
            self._turn_reads >= self._repeat and now - self._turn_since >= self._seconds
        ) or self._turn_failed
        self._turn_failed = False
        if turned:
            self._turn, self._turn_reads, self._turn_since = self._turn + 1, 0, now
            if self._turn % len(self._paths) == 0:
                self._list_again()
        index = self._turn % len(self._paths)
        # read again at each turn, the one shown too: a folder emptied under a scan went on
        # being counted from the last picture, with no word. A picture that failed is passed
        # over while another reads; once none does, each is tried again at its turn
        every_one_failed = len(self._unreadable) == len(self._paths)
        if (turned or index != self._shown) and (index not in self._unreadable or every_one_failed):
            try:
                self._frame = self._read_image(self._paths[index])
                self._shown = index
                self._unreadable.discard(index)
                self._read_once.add(index)
                self._gone_since = None
            except UserError as exc:  # the last good picture stays in view; the loop goes on
                self._unreadable.add(index)
                self._turn_failed = True
                if index in self._read_once:
                    self._went = exc
                self._said_gone(self._went or exc, now)
        self._turn_reads += 1
        return self._frame

    def _list_again(self) -> None:
        """Take the folder's pictures as they are now (`listed`), what is known of each kept
        by its name; the list as it was where the folder lists none (emptied, or gone: that is
        said once no picture reads)."""
        if self._listed is None:
            return
        try:
            paths = list(self._listed())
        except (UserError, OSError):
            return
        if not paths or paths == self._paths:
            return
        unreadable = {self._paths[i] for i in self._unreadable}
        read_once = {self._paths[i] for i in self._read_once}
        shown = self._paths[self._shown] if self._shown >= 0 else None
        went = [path for path in self._paths if path in read_once and path not in paths]
        if went:  # (named if none is left that reads: not a file beside it that never did)
            self._went = UserError(f"{went[-1]}: no such file")
        self._paths, self._turn = paths, 0
        self._unreadable = {i for i, path in enumerate(paths) if path in unreadable}
        self._read_once = {i for i, path in enumerate(paths) if path in read_once}
        self._shown = paths.index(shown) if shown in paths else -1  # (-1: read at its turn)

    def _said_gone(self, problem: UserError, now: float) -> None:
        """SourceError once no picture has read for GONE_AFTER_S and two turns of each: a
        folder emptied, or moved. (A picture being written over by a phone's sync fails for a
        moment: one failed turn is no reason to end a scan.)"""
        if len(self._unreadable) < len(self._paths):
            return
        if self._gone_since is None:
            self._gone_since, self._gone_turns = now, 0
        self._gone_turns += 1
        if self._gone_turns < 2 * len(self._paths) or now - self._gone_since < GONE_AFTER_S:
            return
        from blitzcam.vision.sources import SourceError

        if len(self._paths) == 1 and self._listed is None:  # (a picture, not a folder's)
            raise SourceError(f"{self._paths[0]}: cannot be read any more ({problem})")
        raise SourceError(
            f"{self._paths[0].parent}: none of its pictures can be read any more (moved or "
            f"deleted?); the last: {problem}"
        )

    def close(self) -> None:
        pass


DEMO_DIR: Final = Path(__file__).resolve().parent.parent / "datasets" / "demo"


def demo_source() -> FrameSource:
    """The bundled demo footage (datasets/demo/*.jpg), marked `demo`: views say what it is."""
    source = ImageLoopSource(sorted(DEMO_DIR.glob("*.jpg")))
    source.demo = True
    return source


def is_demo(spec: str) -> bool:
    """Whether a camera spec asks for the demo footage, as the commands read it
    (`vision.sources.is_demo`, imported when asked: OpenCV loads with it); and `demo` itself
    whatever is there (a folder named so where the app started is no camera)."""
    from blitzcam.vision.sources import DEMO
    from blitzcam.vision.sources import is_demo as names_the_demo

    return spec.strip() == DEMO or names_the_demo(spec)


# what may hold a live source whose first picture is late (said on the empty view)
CAMERA_LATE: Final = (
    "a camera wakes in a second or two; one in use by another program may give none"
)
STREAM_LATE: Final = (
    "the address has not answered yet: is the phone's camera app serving, on this network?"
)
PIPE_LATE: Final = "a named pipe gives pictures once a program writes video into it"


def open_source(spec: str) -> FrameSource:
    """A camera index ("0"), a video or image file, an image folder, a stream URL, or "demo".

    "" means the first camera, falling back to the demo footage when there is none. Files and
    folders are opened now, so a wrong name is said at once; a camera, a stream or a named pipe
    is opened by the worker thread on its first read (see OpenedLater). The rest is read as the
    commands read it (vision.sources.read_spec); stills are shown in a loop, standing in for a
    camera.
    """
    from blitzcam.vision.sources import SpecKind, image_files, open_spec, read_spec
    from blitzcam.vision.sources import open_source as vision_open

    spec = spec.strip()
    if is_demo(spec):
        return demo_source()
    if not spec:
        return OpenedLater(_first_camera_or_demo, spec="0", opening_hint=CAMERA_LATE)
    read = read_spec(spec)
    if read.live:  # held by its index ("00" is camera 0 too), device file or address
        # (a video file served over HTTP, known once it opens, paced as one on disk)
        return OpenedLater(
            lambda: vision_open(spec, video_every_s=VIDEO_COUNTED_EVERY_S),
            spec=str(read.target),
            opening_hint=STREAM_LATE if read.kind is SpecKind.STREAM else CAMERA_LATE,
        )
    if read.kind is SpecKind.FOLDER:
        folder = Path(read.target)
        return ImageLoopSource(image_files(folder), listed=lambda: image_files(folder))
    if read.kind is SpecKind.IMAGE:
        return ImageLoopSource([Path(read.target)])
    if not Path(read.target).is_file():  # a named pipe: its open waits for a writer (the
        return OpenedLater(  # window froze)
            lambda: open_spec(read, video_every_s=VIDEO_COUNTED_EVERY_S),
            spec=str(read.target),
            opening_hint=PIPE_LATE,
        )
    return open_spec(read, video_every_s=VIDEO_COUNTED_EVERY_S)  # a video file


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
    except SourceError as exc:
        if cameras_attached():
            raise
        return _demo_instead(exc)
    try:
        first = source.read()
    except SourceError as exc:
        if cameras_attached():
            source.close()
            raise
        first, failed = None, exc
    else:
        failed = SourceError("camera 0: it opened but gave no picture")
    if first is None:
        source.close()
        if cameras_attached():
            raise failed
        return _demo_instead(failed)
    return _Primed(source, first)


def _demo_instead(failed: SourceError) -> FrameSource:
    """The demo footage standing in for the first camera, which `failed`: where the system
    lists no camera (Windows, macOS), why it may not have opened is said beside it, since
    there it may be one in use by another program or not yet allowed (the demo alone said
    nothing of either). Short: it stands in the scan's side panel."""
    source = demo_source()
    if cameras_attached() is None:
        source.demo_because = (
            "no camera opened: in use by another program, or not allowed in the system's "
            "privacy settings?"
        )
    return source


# the cameras and streams an OpenedLater is opening or holding, by spec: a scan left while its
# camera was still opening lets go of it only when the open returns, and the next scan's worker
# waits for that (a camera opened twice is "busy", or the demo footage stands in for it)
# (counted: one that stopped waiting past HOLD_WAIT_S holds the spec beside the first, and the
# first letting go must not free it for a third)
_HELD: collections.Counter[str] = collections.Counter()
_RELEASED = threading.Condition()
# past this, the camera is opened anyway (a stream's connect gives up after
# vision.capture_source.STREAM_OPEN_TIMEOUT_MS, a camera's in seconds): the worst is the
# "busy" error there would have been
HOLD_WAIT_S: Final = 60.0


class _Wrapping:
    """What a source wrapping another passes through to it: the live view's frames between
    counts and their numbers, and when its camera last gave one, where the wrapped camera or
    stream has them (vision.stream_source.NewestFrame). The first camera, primed, passed no
    time on: a count slower than 3 s said a stream sending 15 pictures a second had stalled."""

    _source: FrameSource | None

    @property
    def frame_index(self) -> int | None:
        """The wrapped source's number of the frame read last; None where it numbers none (or
        is not open yet)."""
        return getattr(self._source, "frame_index", None)

    @property
    def end_note(self) -> str | None:
        """Why the wrapped video ended before its end, where it did (a named pipe's: else the note
        stays on the source inside)."""
        return getattr(self._source, "end_note", None)

    @property
    def frame_time_s(self) -> float | None:
        """The wrapped source's own clock, where it has one (a video file served over HTTP)."""
        return getattr(self._source, "frame_time_s", None)

    @property
    def reconnects(self) -> int:
        """How often the wrapped stream has connected again after a drop (0: none, or no stream
        yet); read from the GUI thread while the worker waits on one."""
        return int(getattr(self._source, "reconnects", 0) or 0)

    @property
    def last_frame_reconnects(self) -> int | None:
        """The wrapped stream's reconnects when its camera last gave a frame, where its reader
        says (vision.stream_source.NewestFrame); None otherwise."""
        return getattr(self._source, "last_frame_reconnects", None)

    @property
    def last_frame_at(self) -> float | None:
        """When the wrapped camera or stream last gave a frame (time.monotonic), where its
        reader says (vision.stream_source.NewestFrame); None before, or for a source that does
        not."""
        return getattr(self._source, "last_frame_at", None)

    @property
    def demo(self) -> bool:
        """Whether the wrapped source is the bundled demo footage (none chosen, or no camera)."""
        return bool(getattr(self._source, "demo", False))

    @property
    def demo_because(self) -> str:
        """Why the demo stands in for the first camera, where it says ("" otherwise)."""
        return str(getattr(self._source, "demo_because", "") or "")

    def peek(self) -> Frame | None:
        """The wrapped source's newest frame for the live view; None where it has none to give
        (or is not open yet). Never waits."""
        peek = getattr(self._source, "peek", None)
        return None if peek is None else peek()


class OpenedLater(_Wrapping):
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

    # a scan left lets it go in its worker, however long its open or read takes, unwaited for:
    # the next OpenedLater of its spec waits for that, in its own worker (`_hold`)
    let_go_in_its_worker = True

    def __init__(
        self, open_source: Callable[[], FrameSource], *, spec: str, opening_hint: str = ""
    ) -> None:
        self._open = open_source
        self._spec = spec
        # what may hold it, said on the view when its first picture is late (ui.stall_watch)
        self.opening_hint = opening_hint
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

    @property
    def can_peek(self) -> bool:
        """Whether `peek` may give a frame: until it is open, and then if the opened source
        can (a video served over HTTP cannot: the view need not ask it 15 times a second)."""
        source = self._source
        return source is None or callable(getattr(source, "peek", None))

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


class _Primed(_Wrapping):
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


def camera_spec_problem(camera: str) -> str | None:
    """Why a camera spec names nothing the app could read (a file or folder not there, a folder
    of no pictures, a text file, an address of another scheme), or None. A camera, a device
    file or a stream is not opened here: it may be off, or unplugged, until the first scan."""
    from blitzcam.vision.sources import SourceError, SpecKind, image_files, read_spec

    camera = camera.strip()  # (as opening it takes it: ' pics' was refused, and played)
    if not camera or is_demo(camera) or camera.startswith("/dev/"):
        return None
    try:
        read = read_spec(camera)
        if read.kind is SpecKind.FOLDER:  # the app plays its pictures: it needs some
            image_files(Path(read.target))
    except SourceError as exc:
        return str(exc)
    return None


def camera_problem(camera: str, problem: Exception) -> str:
    """Why a camera did not open, naming it once ("Camera '/x/t.jpg': /x/t.jpg: no such file"
    named it twice), with no stream password in it."""
    from blitzcam.vision.source_address import shown_address

    said = shown_address(camera).strip()
    # (as the source names itself too: its scheme in small letters; " HTTP://..." said twice)
    scheme, sep, rest = said.partition("://")
    if said and str(problem).startswith((said, scheme.lower() + sep + rest)):
        return f"Camera: {problem}"
    return f"Camera {said!r}: {problem}"
