"""Frame sources read through OpenCV (a camera, a video file, a stream's connection) and a
list of image files: `FrameSource`, the interface every source gives, and its records."""

from __future__ import annotations

import math
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol, TypeVar

import numpy as np

from blitzcam.errors import UserError
from blitzcam.vision.images import ImageError, read_image
from blitzcam.vision.pixel_format import to_bgr8
from blitzcam.vision.source_address import is_stream

# FFmpeg logs on its own ("[tcp @ 0x...] Connection refused", a decoder's complaints), not
# through OpenCV's log level; OpenCV reads this once, when it first uses FFmpeg. Set when this
# module is imported (not from a worker thread beside Qt's getenv), kept when the user set it
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
V4L2_MAJOR: Final = 81  # Linux's device number of video4linux: /dev/video0 and the like
# a clip served over HTTP whose read fails this near its said length (a share of it, and at
# least 2 frames) has ended; further from it, its connection dropped
CLIP_LENGTH_SLACK: Final = 0.02
# OpenCV waits 30 s for a stream nobody answers, and as long on one that stalls mid-way, before
# it gives up (measured on a local server that accepts and stays silent, RTSP and HTTP alike):
# a wrong address's error, a reconnect, a scan left or the app's quit all waited that out. A
# phone's camera app on the same network answers in well under a second.
# the mode a camera is asked for: opened as OpenCV opens it, a webcam gives its default, 640 x
# 480 on most, its cards half the pixels across the counting is made for (1280 x 720 to 1920 x
# 1080); in MJPG, which a USB 2 webcam sends 1080p in at full rate (uncompressed, about 5 a
# second). A camera gives the nearest mode it has.
CAMERA_ASKED_SIZE: Final = (1920, 1080)
TIME_SLACK_S: Final = 1e-3  # video times this close are one (sums of floats drift)
STREAM_OPEN_TIMEOUT_MS: Final = 8000
STREAM_READ_TIMEOUT_MS: Final = 5000
_T = TypeVar("_T")


class SourceError(UserError):
    """A frame source that is missing, busy or unreadable."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame and where it came from."""

    image: np.ndarray  # BGR uint8, H x W x 3
    index: int  # 0-based position in the source
    origin: str  # the file, camera or URL it came from
    # its `frame_change.thumbnail` (without sharpness), where the reader made one: a live
    # view's frame, made on the camera's reader thread, not the window's
    thumb: np.ndarray | None = field(default=None, compare=False, repr=False)


class Capture(Protocol):
    """The part of cv2.VideoCapture the sources use (tests pass fakes)."""

    def isOpened(self) -> bool: ...  # noqa: N802 - OpenCV's name
    def read(self) -> tuple[bool, np.ndarray | None]: ...
    def release(self) -> None: ...

    # streams also ask `get(cv2.CAP_PROP_FRAME_COUNT)` where a capture has it, and a live
    # source's reader `grab()` and `retrieve()` (a frame taken, then decoded only if wanted)


def is_camera_device(spec: int | str | Path) -> bool:
    """Whether a source spec is a path to a character device (a V4L2 camera, /dev/video0): a
    camera, though named like a file."""
    if isinstance(spec, int) or is_stream(spec):
        return False
    try:
        return stat.S_ISCHR(Path(spec).stat().st_mode)
    except (OSError, ValueError):
        return False


def is_video_device(spec: str | Path) -> bool:
    """Whether a character device is a camera's, as far as the system tells: on Linux, of
    video4linux's major number (/dev/null, a terminal, are not); elsewhere, any."""
    if not sys.platform.startswith("linux"):
        return True
    try:
        return os.major(Path(spec).stat().st_rdev) == V4L2_MAJOR
    except (OSError, ValueError):
        return True  # (gone meanwhile: said as a camera that cannot be opened)


def open_capture(spec: int | str) -> Capture:
    """cv2.VideoCapture without OpenCV's log lines: a failure becomes one SourceError instead.
    A stream is opened through FFmpeg with STREAM_OPEN_TIMEOUT_MS and STREAM_READ_TIMEOUT_MS
    (where this OpenCV has no FFmpeg, as it comes)."""
    import cv2

    from blitzcam.vision.decoder_log import quiet_opencv

    with quiet_opencv():
        if is_stream(spec) and cv2.videoio_registry.hasBackend(cv2.CAP_FFMPEG):
            timeouts = [
                cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_OPEN_TIMEOUT_MS,
                cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_READ_TIMEOUT_MS,
            ]  # fmt: skip
            return cv2.VideoCapture(spec, cv2.CAP_FFMPEG, timeouts)
        return cv2.VideoCapture(spec)


class FrameSource:
    """Base: iterate frames, close when done (also as a context manager)."""

    name: str = ""
    live: bool = False  # a camera or a stream: when it stops giving frames, it has failed
    # a video file's position of the frame read last, in seconds (None: no clock of its own,
    # the frame was taken as it was read): live counting judges stillness by it
    frame_time_s: float | None = None
    # why a video ended before the end its file states (cut short, or damaged: it ends as if
    # it were all), once it has; None while it has not, or where it ended at its end
    end_note: str | None = None

    def read_frame(self) -> Frame | None:
        raise NotImplementedError

    def read(self) -> np.ndarray | None:
        """The next image alone (BGR uint8), None at the end: the app's frame-source protocol."""
        frame = self.read_frame()
        return None if frame is None else frame.image

    def close(self) -> None:
        return None

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read_frame()) is not None:
            yield frame

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ImageFiles(FrameSource):
    """One image file, or every image in a folder (sorted by name). Unreadable files raise."""

    def __init__(self, paths: list[Path], *, name: str) -> None:
        self._paths = paths
        self._next = 0
        self.name = name

    def read_frame(self) -> Frame | None:
        if self._next >= len(self._paths):
            return None
        path = self._paths[self._next]
        self._next += 1
        try:
            image = read_image(path)
        except ImageError as exc:
            raise SourceError(str(exc)) from None
        return Frame(image=image, index=self._next - 1, origin=str(path))


def _usable(ok: bool, image: np.ndarray | None) -> np.ndarray | None:
    """What a capture's read or retrieve gave, as a BGR uint8 frame; None when it gave none."""
    if not ok or image is None or image.size == 0:
        return None
    return to_bgr8(image)


def capture_property(capture: Capture, prop: int) -> float:
    """A capture's `get(prop)` (OpenCV's CAP_PROP_*) as a float; NaN when it cannot tell."""
    get = getattr(capture, "get", None)  # (fakes in tests may not have it)
    try:
        return float(get(prop)) if get is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


def stated_frames(capture: Capture) -> int:
    """The frames a capture says its video holds (OpenCV's CAP_PROP_FRAME_COUNT, estimated
    from the duration where the container counts none); 0 where it says none (a camera, a live
    stream)."""
    import cv2

    frames = capture_property(capture, cv2.CAP_PROP_FRAME_COUNT)
    return int(frames) if math.isfinite(frames) and frames > 0 else 0


def short_of(read: int, stated: int) -> bool:
    """Whether `read` frames end a video short of the `stated` ones: by more than a length
    estimated from its duration may be off (CLIP_LENGTH_SLACK, and 2 frames)."""
    return stated > 0 and read < stated - max(2, CLIP_LENGTH_SLACK * stated)


def _frames_per_second(capture: Capture) -> float:
    """A video's frame rate as its file says (0: it does not, or the capture cannot tell)."""
    import cv2

    fps = capture_property(capture, cv2.CAP_PROP_FPS)
    # (a file may say nonsense: 0, NaN, 90000 from a stream's time base; a timelapse's 0.5 is
    # its own)
    return fps if 0.0 < fps <= 1000.0 else 0.0


def _time_stamp(capture: Capture) -> float | None:
    """When the frame a capture took last is shown in its video, in seconds (OpenCV's
    CAP_PROP_POS_MSEC: its presentation time); None when the capture cannot tell."""
    import cv2

    ms = capture_property(capture, cv2.CAP_PROP_POS_MSEC)
    return ms / 1000 if math.isfinite(ms) and ms >= 0 else None


def ask_for_full_hd(capture: Capture) -> None:
    """Ask a camera for CAMERA_ASKED_SIZE in MJPG (a capture that takes no settings, as tests'
    fakes: nothing asked)."""
    setter = getattr(capture, "set", None)
    if setter is None:
        return
    import cv2

    from blitzcam.vision.decoder_log import quiet_opencv

    width, height = CAMERA_ASKED_SIZE
    with quiet_opencv():  # (the format first: V4L2 picks the sizes of the format it has)
        setter(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        setter(cv2.CAP_PROP_FRAME_WIDTH, width)
        setter(cv2.CAP_PROP_FRAME_HEIGHT, height)


class CaptureSource(FrameSource):
    """A camera or video file through cv2.VideoCapture."""

    reconnects: int = 0  # a camera that fails is not opened again

    def __init__(
        self,
        spec: int | str,
        *,
        name: str,
        opener: Callable[[int | str], Capture],
        every_s: float = 0.0,
    ) -> None:
        """`every_s`: a video file's frames are given this far apart at least on its own clock,
        those between taken off undecoded (`read_frame`); 0: every frame."""
        self.name = name
        self._every_s = every_s
        # a camera index, or a camera's device file (/dev/video0); any other path is a video
        self.live = isinstance(spec, int) or is_camera_device(spec)
        self._spec = spec
        self._opener = opener
        self._capture = opener(spec)
        self._index = 0
        self._grab_failed = False
        self._grab_failed_s = 0.0  # how long the failed grab took
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceError(self._cannot_open())
        if self.live:
            ask_for_full_hd(self._capture)
        self._fps = 0.0 if self.live else _frames_per_second(self._capture)
        self._stamp: tuple[int, float] | None = None  # the last stamp that advanced: index, s
        self._timed: tuple[int, float] | None = None  # the last frame given a time: index, s
        self._clockless = False  # no time can be told (no rate, and a stamp stood still)

    def _cannot_open(self) -> str:
        if self.live and not isinstance(self._spec, int) and not is_video_device(self._spec):
            return f"{self.name}: a device, but not a camera (cameras are /dev/video0 and the like)"
        if self.live:
            return (
                f"{self.name}: cannot open it: no such camera, "
                "or it is busy (used by another program)"
            )
        return f"{self.name}: cannot open it as a video (unreadable or not a video format)"

    def _grab(self) -> np.ndarray | None:
        if self._grab_failed:  # `skip_frame` found no frame: that was this read
            self._grab_failed = False
            return None
        return _usable(*self._quietly(self._capture.read))

    def _quietly(self, read: Callable[[], _T]) -> _T:
        """`read()` of the capture; a stream's without OpenCV's log lines (a stalled one's
        "Stream timeout triggered" reached the terminal before blitzcam's own one line)."""
        if not is_stream(self._spec):
            return read()
        from blitzcam.vision.decoder_log import quiet_opencv

        with quiet_opencv():
            return read()

    def read_frame(self) -> Frame | None:
        """The next frame; a video's next one `every_s` after the last given, on its clock."""
        if self._paced() and self.frame_time_s is not None:
            return self._frame_from(self.frame_time_s + self._every_s)
        image = self._grab()
        if image is None:
            if self.live:  # a camera has no end: it was unplugged, or another program took it
                raise SourceError(
                    f"{self.name}: stopped giving frames (unplugged, or taken by another program)"
                )
            # (a video cut short, as a copy or download that stopped, or damaged past some
            # frame ends as if that were all: the scan shot its last view with no word)
            self.end_note = self._cut_short()
            return None
        self._index += 1
        self._note_time()
        return Frame(image=image, index=self._index - 1, origin=self.name)

    def _paced(self) -> bool:
        """Whether frames are taken `every_s` apart on the video's clock (once it has one): a
        video file's, on disk or served over HTTP, that can be skipped through undecoded."""
        return self._every_s > 0 and not self.live and self.can_skip()

    def _cut_short(self) -> str | None:
        """Why a video that gave its last frame ended short of the frames it states, by its
        count and by its clock; None where it did not. (A count OpenCV estimates, duration
        times the stated rate for MKV and WebM, is too long for a video shot at a lower rate
        than it states: a whole screen recording would be said cut at half.)"""
        stated, timed = stated_frames(self._capture), self.frame_time_s
        # its clock, in frames at the stated rate (its count, where it has no clock)
        clock = (
            self._index if timed is None or self._fps <= 0 else math.floor(timed * self._fps) + 1
        )
        if not (short_of(self._index, stated) and short_of(clock, stated)):
            return None
        return (
            f"{self.name}: the video ends after {self._index} of the {stated} frames it says it "
            "holds: the rest cannot be read (cut short, or damaged)"
        )

    def _note_time(self) -> None:
        """`frame_time_s` of the frame just taken: the time stamp the file gives it (a phone
        records at a variable rate, fewer frames a second in a dim room: a frame's index at the
        rate the file states put a second of video at two). A frame whose stamp is missing or
        did not advance is timed a frame after the last, at the stated rate or else at the
        mean rate of the stamps so far, and the next stamp that advances is the clock again:
        it never goes back, nor stands still for long. A camera's frames have none: they are
        taken now."""
        if self.live or self._clockless:
            return
        index, stamp, timed = self._index - 1, _time_stamp(self._capture), self._timed
        if stamp is not None and (self._stamp is None or stamp > self._stamp[1]):
            self._stamp = (index, stamp)
            at = stamp if timed is None else max(stamp, timed[1])
        elif timed is None:  # (the first frame, without a stamp: from 0 at the stated rate)
            if self._fps <= 0:
                return  # no clock of its own: the frames are timed as they are read
            at = index / self._fps
        elif (gap := self._frame_gap()) is not None:
            at = timed[1] + (index - timed[0]) * gap
        else:  # no rate, and stamps that stood still from the first: no clock from here
            self._clockless, self.frame_time_s = True, None
            return
        self._timed = (index, at)
        self.frame_time_s = at

    def _frame_gap(self) -> float | None:
        """Seconds between frames: at the rate the file states, or else the mean of its time
        stamps so far; None when neither tells."""
        if self._fps > 0:
            return 1.0 / self._fps
        if self._stamp is not None and self._stamp[0] > 0 and self._stamp[1] > 0:
            return self._stamp[1] / self._stamp[0]
        return None

    def _frame_from(self, at_s: float) -> Frame | None:
        """The first frame shown at `at_s` or later on the video's clock (one whose time cannot
        be told too), those before it taken off undecoded; one that does not decode is passed
        over. None at the end (`end_note` then says whether it came early, or whether the
        frames before it did not decode)."""
        undecoded = 0  # frames taken since the last given that did not decode
        while self.skip_frame():
            self._note_time()
            if self.frame_time_s is not None and self.frame_time_s < at_s - TIME_SLACK_S:
                continue  # (0.4 + 0.2 s is over 18 frames' 0.6: the 19th was given)
            image = _usable(*self._capture.retrieve())  # type: ignore[attr-defined]
            if image is not None:
                return Frame(image=image, index=self._index - 1, origin=self.name)
            undecoded += 1
        self._grab_failed = False  # (the failed grab was the read that ends it)
        self.end_note = self._cut_short() or (
            f"{self.name}: its last {undecoded} frames do not decode (damaged)"
            if undecoded > 1
            else None
        )
        return None

    def can_skip(self) -> bool:
        """Whether frames can be taken without decoding them (`skip_frame`)."""
        return hasattr(self._capture, "grab") and hasattr(self._capture, "retrieve")

    def skip_frame(self) -> bool:
        """Take the next frame off the source without decoding it (OpenCV's grab: a camera's
        MJPEG is then not decoded, a stream's frame not converted to BGR); its index is used.
        False when no frame came: the next `read_frame` then says whether the source ended or
        dropped (reconnecting at once: the failed grab was its read, a stalled stream's whole
        read timeout)."""
        started = time.monotonic()
        if not self._quietly(self._capture.grab):  # type: ignore[attr-defined]
            self._grab_failed = True
            # (how long it took: a stall's is the read timeout, a picture that does not decode
            # fails at once, and a stream reads on past that)
            self._grab_failed_s = time.monotonic() - started
            return False
        self._index += 1
        return True

    def retrieve_frame(self) -> Frame | None:
        """The frame `skip_frame` just took, decoded; None if it cannot be."""
        image = _usable(*self._capture.retrieve())  # type: ignore[attr-defined]
        if image is None:
            return None
        self._note_time()
        return Frame(image=image, index=self._index - 1, origin=self.name)

    def cancel(self) -> None:
        """Nothing to give up: a camera's read returns within a frame's time."""
        return None

    def close(self) -> None:
        self._capture.release()
