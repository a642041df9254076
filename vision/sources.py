"""Frame sources: one interface for a webcam, a video file, an image, a folder of images, a stream.

`open_source(spec)` picks the kind from the spec (an int or digits: camera index; rtsp://, http://,
https://: network stream; a folder; an image file; any other file: video). Every source yields
`Frame` records until it ends: `read_frame()` gives the next record, `read()` just its image (the
app's protocol); both return None at the end. Network streams reconnect when
they drop; cameras and live streams are read on a thread of their own so that a read gives the
newest frame (`NewestFrame`). Errors are SourceError (a UserError: one line naming the source).
"""

from __future__ import annotations

import codecs
import enum
import math
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol, TypeVar

import numpy as np

from blitzcam.errors import UserError
from blitzcam.paths import expand_home
from blitzcam.vision.images import IMAGE_SUFFIXES, ImageError, read_image, to_bgr8

# FFmpeg logs on its own ("[tcp @ 0x...] Connection refused", a decoder's complaints), not
# through OpenCV's log level; OpenCV reads this once, when it first uses FFmpeg. Set when this
# module is imported (not from a worker thread beside Qt's getenv), kept when the user set it
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

STREAM_SCHEMES: Final = ("rtsp://", "rtsps://", "http://", "https://")
# a stream that dropped is tried again this many times, waiting RECONNECT_DELAY_S longer each
# time, up to RECONNECT_DELAY_MAX_S: about a minute in all, long enough for a phone's camera app
# started again or Wi-Fi changing its access point (5 tries, 7.5 s, ended a scan for either)
RECONNECT_TRIES: Final = 30
RECONNECT_DELAY_S: Final = 0.5
RECONNECT_DELAY_MAX_S: Final = 2.0
RECONNECT_FOR_S: Final = 60.0  # however many tries that is
HTTP_ASK_TIMEOUT_S: Final = 2.0  # asking an address that gave no stream why
# FFmpeg fills a picture that came cut short (a slow or lossy link, a server sending part of
# each JPEG) with this colour (BGR) from where its data ends: counted, its lower half's cards
# were lost without a word (99 backs on a table read as 61)
CUT_SHORT_FILL: Final = (0, 135, 0)
CUT_SHORT_ROWS: Final = 8  # the frame's last rows all of the fill: cut short
CUT_SHORT_IN_A_ROW: Final = 25  # pictures cut short one after another: the stream is said bad
V4L2_MAJOR: Final = 81  # Linux's device number of video4linux: /dev/video0 and the like
MAX_CAMERA_INDEX: Final = 9999  # (OpenCV takes a C int; a camera index is small)
DEMO: Final = "demo"  # the app's word for its bundled footage (ui/frame_sources.py)
# a clip served over HTTP whose read fails this near its said length (a share of it, and at
# least 2 frames) has ended; further from it, its connection dropped
CLIP_LENGTH_SLACK: Final = 0.02
# OpenCV waits 30 s for a stream nobody answers, and as long on one that stalls mid-way, before
# it gives up (measured on a local server that accepts and stays silent, RTSP and HTTP alike):
# a wrong address's error, a reconnect, a scan left or the app's quit all waited that out. A
# phone's camera app on the same network answers in well under a second.
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


def is_stream(spec: int | str | Path) -> bool:
    """Whether a source spec is a network stream's address."""
    return isinstance(spec, str) and spec.lower().startswith(STREAM_SCHEMES)


def shown_address(spec: str) -> str:
    """A source spec as messages show it: in anything shaped like an address (scheme://..., a
    scheme blitzcam reads or not: `rstp://` is a typo, and still holds the password) the
    password of its userinfo (rtsp://user:secret@host/..., as phone camera apps ask for) and
    the values of query parameters named like secrets (?pwd=secret, ;password=, access_token=)
    replaced by ***; anything else as it is. The userinfo ends at the last @ before the host,
    so a password holding / or ? (typed as it is, unescaped) is hidden whole."""
    shown, last = [], 0
    for _key, start, end in _secret_spans(spec):
        shown += [spec[last:start], HIDDEN]
        last = end
    return "".join([*shown, spec[last:]])


def with_secrets_of(edited: str, original: str) -> str:
    """An address edited where it was shown hidden (a settings field), with `original`'s
    secrets put back where a *** still stands in their place: the userinfo's password where the
    edited address's password is ***, a parameter's value where the parameter of that name is
    ***. The host or path changed, a parameter moved or another secret typed in: each keeps
    its own; anything else as typed."""
    kept: dict[str, list[str]] = {}
    for key, start, end in _secret_spans(original):
        kept.setdefault(key, []).append(original[start:end])
    parts, last = [], 0
    for key, start, end in _secret_spans(edited):
        if edited[start:end] == HIDDEN and kept.get(key):
            parts += [edited[last:start], kept[key].pop(0)]
            last = end
    return "".join([*parts, edited[last:]])


HIDDEN: Final = "***"  # what a secret is shown as


def _secret_spans(spec: str) -> list[tuple[str, int, int]]:
    """Where the secrets of an address lie in `spec` (see shown_address), in order, each with
    what it is: "@" for the userinfo's password, else its parameter's name (lower-cased)."""
    found = _ADDRESS.match(spec)
    if found is None:
        return []
    offset, rest = found.end(1), found.group(2)
    spans = []
    at = _userinfo_end(rest)
    authority_start = 0
    user = rest[:at].split(":", 1)[0] if at >= 0 else ""
    if at >= 0 and not any(c in user for c in "/?#;"):  # (else the @ is in the path or query)
        if ":" in rest[:at]:
            spans.append(("@", offset + len(user) + 1, offset + at))
        authority_start = at + 1  # (a user name alone: no secret)
    host_end = _first_of(rest, "/?#;", authority_start)
    for value in _SECRET_VALUE.finditer(rest, host_end):
        name = value.group(1)[1:-1].lower()  # (between the ? & or ; and the =)
        spans.append((name, offset + value.end(1), offset + value.end()))
    return spans


# scheme://: any scheme, after any spaces
_ADDRESS: Final = re.compile(r"(\s*[A-Za-z][A-Za-z0-9+.\-]*://)(.*)\Z", re.DOTALL)
_NO_COLON: Final = re.compile(r"(rtsps?|https?)//", re.IGNORECASE)  # a stream's, mistyped


def as_pasted(text: str) -> str:
    """A source as a person pastes it, as the file or address it names: a path copied with its
    quotes ("Copy as path" on Windows), or as a file:// URL (a file manager's or a browser's)."""
    from urllib.parse import unquote, urlsplit

    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
        text = stripped[1:-1]
    if text.strip().lower().startswith("file://"):
        url = urlsplit(text.strip())
        if url.netloc in ("", "localhost"):  # (another machine's file is no file here)
            path = unquote(url.path)
            # file:///C:/x.mp4 is C:/x.mp4 on Windows
            return path[1:] if re.match(r"/[A-Za-z]:/", path) else path
    return text


# a parameter whose name says it holds a secret (pwd, password, passwd, pass, token,
# access_token, auth, secret, credential ..., or ending in key or sig: key, apikey, sig; not
# keyframe; pw and psw whole, as some cameras name it), and its value, to & ; # or the end
_SECRET_VALUE: Final = re.compile(
    r"([?&;](?:[^=&;#?/]*(?:pass|pwd|token|auth|secret|cred|signature)[^=&;#?/]*"
    r"|[^=&;#?/]*(?:key|sig)|ps?w)=)[^&;#]*",
    re.IGNORECASE,
)


def _first_of(text: str, chars: str, start: int = 0) -> int:
    """The first index at or after `start` of any of `chars` in `text` (its length if none)."""
    return min((i for c in chars if (i := text.find(c, start)) >= 0), default=len(text))


def _userinfo_end(rest: str) -> int:
    """Where an address's userinfo ends (after scheme://): the last @ that is followed by a
    host (a name of no delimiters, or an [IPv6], and a :port, up to a / ? # ; or the end), or
    -1. Taking the last such @ hides a password with an @ / or ? typed in it; an @ in the
    query (?mail=a@b&x=1) is followed by no host."""
    for at in range(len(rest) - 1, -1, -1):
        if rest[at] == "@" and _HOST.match(rest, at + 1):
            return at
    return -1


# a host: an [IPv6] (with a %25 zone) or a name of anything but the delimiters (docker's
# rtsp_server, kamera-küche.local), a :port, then / ? # ; or the end
# (not & or =: an @ in a query, ?mail=a@b&x=1, is followed by no host)
_HOST: Final = re.compile(r"(\[[0-9A-Fa-f:.%A-Za-z]+\]|[^\s/?#;@:\[\]&=]+)(:\d*)?(?=[/?#;]|\Z)")


def _open_capture(spec: int | str) -> Capture:
    """cv2.VideoCapture without OpenCV's log lines: a failure becomes one SourceError instead.
    A stream is opened through FFmpeg with STREAM_OPEN_TIMEOUT_MS and STREAM_READ_TIMEOUT_MS
    (where this OpenCV has no FFmpeg, as it comes)."""
    import cv2

    from blitzcam.vision.images import quiet_opencv

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


def _capture_property(capture: Capture, prop: int) -> float:
    """A capture's `get(prop)` (OpenCV's CAP_PROP_*) as a float; NaN when it cannot tell."""
    get = getattr(capture, "get", None)  # (fakes in tests may not have it)
    try:
        return float(get(prop)) if get is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


def _frames_per_second(capture: Capture) -> float:
    """A video's frame rate as its file says (0: it does not, or the capture cannot tell)."""
    import cv2

    fps = _capture_property(capture, cv2.CAP_PROP_FPS)
    # (a file may say nonsense: 0, NaN, 90000 from a stream's time base; a timelapse's 0.5 is
    # its own)
    return fps if 0.0 < fps <= 1000.0 else 0.0


def _time_stamp(capture: Capture) -> float | None:
    """When the frame a capture took last is shown in its video, in seconds (OpenCV's
    CAP_PROP_POS_MSEC: its presentation time); None when the capture cannot tell."""
    import cv2

    ms = _capture_property(capture, cv2.CAP_PROP_POS_MSEC)
    return ms / 1000 if math.isfinite(ms) and ms >= 0 else None


class CaptureSource(FrameSource):
    """A camera or video file through cv2.VideoCapture."""

    reconnects: int = 0  # a camera that fails is not opened again

    def __init__(
        self, spec: int | str, *, name: str, opener: Callable[[int | str], Capture]
    ) -> None:
        self.name = name
        # a camera index, or a camera's device file (/dev/video0); any other path is a video
        self.live = isinstance(spec, int) or is_camera_device(spec)
        self._spec = spec
        self._opener = opener
        self._capture = opener(spec)
        self._index = 0
        self._grab_failed = False
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceError(self._cannot_open())
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
        from blitzcam.vision.images import quiet_opencv

        with quiet_opencv():
            return read()

    def read_frame(self) -> Frame | None:
        image = self._grab()
        if image is None:
            if self.live:  # a camera has no end: it was unplugged, or another program took it
                raise SourceError(
                    f"{self.name}: stopped giving frames (unplugged, or taken by another program)"
                )
            return None
        self._index += 1
        self._note_time()
        return Frame(image=image, index=self._index - 1, origin=self.name)

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

    def can_skip(self) -> bool:
        """Whether frames can be taken without decoding them (`skip_frame`)."""
        return hasattr(self._capture, "grab") and hasattr(self._capture, "retrieve")

    def skip_frame(self) -> bool:
        """Take the next frame off the source without decoding it (OpenCV's grab: a camera's
        MJPEG is then not decoded, a stream's frame not converted to BGR); its index is used.
        False when no frame came: the next `read_frame` then says whether the source ended or
        dropped (reconnecting at once: the failed grab was its read, a stalled stream's whole
        read timeout)."""
        if not self._quietly(self._capture.grab):  # type: ignore[attr-defined]
            self._grab_failed = True
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


class StreamSource(CaptureSource):
    """A network stream (RTSP, HTTP MJPEG) that reconnects when it drops, for about a minute."""

    def __init__(
        self,
        url: str,
        *,
        opener: Callable[[int | str], Capture],
        tries: int = RECONNECT_TRIES,
        delay_s: float = RECONNECT_DELAY_S,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        """`sleep` waits between tries (None: a wait that `cancel` cuts short)."""
        self._cancelled = threading.Event()
        self._tries, self._delay_s = tries, delay_s
        self._sleep = sleep or self._cancelled.wait
        self.reconnects = 0
        self._opening = time.monotonic()
        self._http = url.lower().startswith(("http://", "https://"))  # (its server can be asked)
        super().__init__(url, name=shown_address(url), opener=opener)
        # a video file served over HTTP is read as a file is: its end is its end, and its last
        # view may be shot (a live stream's end is a failure)
        self.live = not self.is_clip()

    def _cannot_open(self) -> str:
        # (asked why when the server answered: one silent until the open timeout says no more)
        answered = time.monotonic() - self._opening < 0.9 * STREAM_OPEN_TIMEOUT_MS / 1000
        why = http_answer(self._spec) if self._http and answered else None
        return f"{self.name}: " + (
            why or "cannot connect to the stream (wrong address, or the camera is offline)"
        )

    def _clip_length(self) -> int:
        """The frames the capture says the source holds: more than 0 for a video file served
        over HTTP, 0 (or less) for a live stream, whose length nobody knows."""
        import cv2

        frames = _capture_property(self._capture, cv2.CAP_PROP_FRAME_COUNT)
        return int(frames) if math.isfinite(frames) else 0

    def read_frame(self) -> Frame | None:
        """The next picture that came whole: one cut short is passed by (its lower part is
        FFmpeg's fill), and a stream that sends nothing else is said to."""
        for _ in range(CUT_SHORT_IN_A_ROW):
            frame = self._read_any()
            if frame is None or not cut_short(frame.image):
                return frame
        raise SourceError(
            f"{self.name}: the stream's pictures come cut short ({CUT_SHORT_IN_A_ROW} in a row: "
            "a link too slow or lossy for its size, or a server sending part of each)"
        )

    def retrieve_frame(self) -> Frame | None:
        """The frame `skip_frame` just took, decoded; None if it cannot be or came cut short
        (the newest-frame reader then reads on, through `read_frame`)."""
        frame = super().retrieve_frame()
        return None if frame is not None and cut_short(frame.image) else frame

    def _read_any(self) -> Frame | None:
        image = self._grab()
        if image is None and self._clip_length() > 0:
            if self._index == 0:  # (the first read of a clip gave nothing: no frames to come)
                raise SourceError(
                    f"{self.name}: the video gave no frames (one whose index is at its end, "
                    "as some cameras and OpenCV write them, cannot be read as it downloads)"
                )
            # a clip that ended, or whose connection dropped before its end: read on from where
            # it was (half a video served over HTTP ended as if it were all; reconnecting
            # without a seek would play it again from the start)
            image = None if self._near_the_end() else self._resumed()
            if image is None:
                return None
        attempt, dropped = 0, time.monotonic()
        while image is None:
            if self._cancelled.is_set():
                return None  # the reader is going away: no more tries
            if self._index == 0:  # no frame ever: reconnecting is for drops (6.7 s a try)
                # (an empty video served over HTTP has no length either)
                raise SourceError(
                    f"{self.name}: connected, but the stream sent no pictures (not a video "
                    "stream, or not one blitzcam can decode)"
                )
            # (a host that never answers takes the open timeout, 8 s, each try: a minute in all)
            if attempt >= self._tries or time.monotonic() - dropped >= RECONNECT_FOR_S:
                # (what its server answers now: a 503 on every try was said as silence)
                why = http_answer(self._spec) if self._http else None
                raise SourceError(
                    f"{self.name}: the stream dropped and did not come back after {attempt} tries "
                    f"({time.monotonic() - dropped:.0f} s)" + (f": {why}" if why else "")
                )
            attempt += 1
            opened = self._reopened(attempt, "stream")
            if opened is None:
                return None
            if opened:
                image = self._grab()
        self._index += 1
        if not self.live:  # a video file served over HTTP: its own clock, as a file's
            self._note_time()
        return Frame(image=image, index=self._index - 1, origin=self.name)

    def _reopened(self, attempt: int, what: str) -> bool | None:
        """The capture opened again after try `attempt`'s back-off: whether it opened; None
        when `cancel` came meanwhile. The opener's own failure is said as the `what`'s."""
        self._sleep(min(self._delay_s * attempt, max(self._delay_s, RECONNECT_DELAY_MAX_S)))
        if self._cancelled.is_set():
            return None
        self._capture.release()
        try:
            self._capture = self._opener(self._spec)
        except Exception as exc:
            raise SourceError(f"{self.name}: cannot reconnect to the {what}: {exc}") from None
        self.reconnects += 1
        return bool(self._capture.isOpened())

    def _near_the_end(self) -> bool:
        """Whether a clip's read failed at its end, as far as its said length can tell (a
        length estimated from its duration may be a few frames long: CLIP_LENGTH_SLACK)."""
        length = self._clip_length()
        return self._index >= length - max(2, CLIP_LENGTH_SLACK * length)

    def _resumed(self) -> np.ndarray | None:
        """The frame after the last one read of a clip whose read failed before its end: its
        connection opened again and the frame sought; None where it holds no more frames (its
        length was an estimate). SourceError when it cannot be reached again, or its server
        cannot seek."""
        import cv2

        for attempt in range(1, self._tries + 1):
            opened = self._reopened(attempt, "video")
            if opened is None:
                return None
            if not opened:
                continue
            sought = getattr(self._capture, "set", None)
            if sought is None or not sought(cv2.CAP_PROP_POS_FRAMES, self._index):
                raise SourceError(
                    f"{self.name}: the video dropped at frame {self._index + 1} of "
                    f"{self._clip_length()}, and cannot be read on from there"
                )
            return self._grab()  # (no frame: the clip does end here)
        raise SourceError(
            f"{self.name}: the video dropped at frame {self._index + 1} of "
            f"{self._clip_length()} and did not come back after {self._tries} tries"
        )

    def cancel(self) -> None:
        """Have a read that waits to reconnect give up now (from any thread): the app stops its
        worker with it, or Esc waited out the back-off, up to a minute."""
        self._cancelled.set()

    def is_clip(self) -> bool:
        """A video file served over HTTP (it has a length), not a live stream."""
        return self._clip_length() > 0


def http_answer(url: str, *, timeout_s: float = HTTP_ASK_TIMEOUT_S) -> str | None:
    """Why an HTTP address gave no stream, as its server answers a plain request: a password
    refused, no such path, a web page (phone camera apps serve their page and their stream at
    other paths); None when the answer says nothing more (no answer, a stream after all, an
    address it cannot be asked at). The user name and password in the address are given to
    that server alone, when it asks for them, never followed to another (a redirect) nor put
    in a message."""
    import urllib.error
    import urllib.parse
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None  # (answered as the HTTPError of its 3xx)

    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        netloc = (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")
        bare = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
        handlers: list[urllib.request.BaseHandler] = [NoRedirect()]
        if parts.username is not None:
            passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
            passwords.add_password(
                None,
                f"{parts.scheme}://{netloc}/",
                urllib.parse.unquote(parts.username),
                urllib.parse.unquote(parts.password or ""),
            )
            handlers.append(urllib.request.HTTPBasicAuthHandler(passwords))
        with urllib.request.build_opener(*handlers).open(bare, timeout=timeout_s) as answer:
            kind = answer.headers.get("Content-Type")
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            return f"the camera refused the user name or password (HTTP {exc.code})"
        if exc.code == 404:
            return (
                "no stream at this path (HTTP 404): phone camera apps serve theirs at a path "
                "such as /video"
            )
        if 300 <= exc.code < 400:
            return f"the address sends elsewhere (HTTP {exc.code}): give the stream's own"
        return f"the server answered HTTP {exc.code}, not a stream"
    except (OSError, ValueError):  # (no answer in time, refused; a port of 99999)
        return None
    if kind is not None and kind.split(";")[0].strip().lower() in ("text/html", "text/plain"):
        return (
            "a web page, not a video stream (phone camera apps serve their page and their "
            "stream at other paths, such as /video)"
        )
    return None


def cut_short(image: np.ndarray) -> bool:
    """Whether a streamed picture came cut short: its last rows are all FFmpeg's fill, to the
    value (a camera's own picture has noise in every row, a black one too)."""
    if image.ndim != 3 or image.shape[0] < CUT_SHORT_ROWS or image.shape[2] != 3:
        return False
    return bool((image[-CUT_SHORT_ROWS:] == np.asarray(CUT_SHORT_FILL, image.dtype)).all())


class NewestFrame(FrameSource):
    """A camera or live stream read on a thread of its own, keeping only its newest frame.

    A stream sends 25-30 frames a second whether or not anyone reads them, and OpenCV hands them
    out in order: read once per count (100-500 ms), it fell further behind the table every
    second, without bound (measured on a 30 fps MJPEG server: 27 frames behind after 1 s, 189
    after 7 s). A camera's driver queues a few frames the same way (V4L2's four buffers in
    OpenCV, handed out oldest first: a count saw the table as it was a few frames before).
    Here a reader thread takes every frame as it comes and `read_frame` gives the newest one
    not given yet (waiting for it when there is none), so what is counted is what is on the
    table now; frames in between are dropped (their indices are skipped). Only a frame someone
    waits for is decoded: the others are taken undecoded (`CaptureSource.skip_frame`), since
    a count reads 2-10 of the 30 frames a second a camera sends; a reader that comes while a
    frame is being taken gets that one, decoded then (`retrieve_frame`). The thread
    owns the stream: it reconnects there, a failure reaches the next `read_frame`, and the
    stream is released by the thread when it ends (OpenCV must not be released mid-read).
    """

    def __init__(self, stream: CaptureSource) -> None:
        self.stream = stream
        self.name, self.live = stream.name, True
        self._changed = threading.Condition()
        self._newest: Frame | None = None
        self._given = -1  # the index of the last frame given
        self._waiting = 0  # readers waiting in read_frame
        self._failure: Exception | None = None
        self._ended = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        # when the reader last took a frame off the stream (time.monotonic), decoded or not:
        # the camera's own liveness, which a slow count (nothing read meanwhile) is not
        self.last_frame_at: float | None = None
        self.clock: Callable[[], float] = time.monotonic

    @property
    def reconnects(self) -> int:
        return self.stream.reconnects

    def _read_on(self) -> None:
        try:
            skipping = self.stream.can_skip()
            while not self._stopping:
                if not skipping or self._wanted():
                    frame = self.stream.read_frame()
                elif not self.stream.skip_frame():
                    frame = self.stream.read_frame()  # ended, or dropped: reconnects
                else:  # taken, undecoded: the camera's all the same
                    self.last_frame_at = self.clock()
                    if not self._wanted():
                        continue
                    # came while that frame was taken: it is the newest
                    frame = self.stream.retrieve_frame() or self.stream.read_frame()
                if frame is not None:
                    self.last_frame_at = self.clock()
                with self._changed:
                    if frame is None:
                        break
                    self._newest = frame
                    self._changed.notify_all()
        except Exception as exc:  # given to the reader, in its thread
            with self._changed:
                self._failure = exc
        finally:
            self.stream.close()
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def read_frame(self) -> Frame | None:
        with self._changed:
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(
                    target=self._read_on, name=f"read {self.name}", daemon=True
                )
                self._thread.start()
            self._waiting += 1
            try:
                self._changed.wait_for(lambda: self._fresh() or self._ended or self._stopping)
            finally:
                self._waiting -= 1
            newest = self._newest
            if newest is not None and self._fresh() and not self._stopping:
                self._given = newest.index
                return newest
            if self._failure is not None:
                failure, self._failure = self._failure, None
                raise failure
            return None

    def _wanted(self) -> bool:
        """A reader waits, with no fresh frame to take (one that has one wants no other)."""
        with self._changed:
            return self._waiting > 0 and not self._fresh()

    def _fresh(self) -> bool:
        return self._newest is not None and self._newest.index != self._given

    def cancel(self) -> None:
        """A read waiting for a frame, or the stream waiting to reconnect, gives up now (from
        any thread)."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self.stream.cancel()

    def close(self) -> None:
        """Stop reading; the thread releases the stream when its read returns, waited for up to
        the stream's read timeout (a stream that lets one viewer in at a time is free again
        for the next scan), or here when it never started."""
        self.cancel()
        with self._changed:
            thread = self._thread
        if thread is None:
            self.stream.close()
        elif thread is not threading.current_thread():
            thread.join(timeout=STREAM_READ_TIMEOUT_MS / 1000 + 1.0)


def _in_name_order(path: Path) -> tuple[tuple[int, int | str], ...]:
    """As a file browser sorts: letters whatever their case, numbers by value (img2 before
    img10), so a folder of photos plays in the order it was shot."""
    parts = re.split(r"(\d+)", path.name.casefold())  # the numbers at odd places
    keys = tuple((0, int(part)) if i % 2 else (1, part) for i, part in enumerate(parts))
    return (*keys, (1, path.name))  # img01 / img1, IMG1 / img1: one order whatever the disk


def image_files(folder: Path) -> list[Path]:
    """The image files of a folder, in name order (`_in_name_order`); SourceError naming it
    when it has none."""
    try:
        images = sorted(  # not hidden files: macOS leaves '._IMG.jpg' beside each photo
            (
                p
                for p in Path(folder).iterdir()
                if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file() and not p.name.startswith(".")
            ),
            key=_in_name_order,
        )
    except OSError as exc:
        raise SourceError(f"{folder}: cannot read the folder: {exc.strerror or exc}") from None
    if not images:
        raise SourceError(
            f"{folder}: the folder holds no image files ({', '.join(sorted(IMAGE_SUFFIXES))})"
        )
    return images


class SpecKind(enum.Enum):
    """What a source spec names."""

    CAMERA = "camera"  # by index
    CAMERA_DEVICE = "camera device"  # by its device file, /dev/video0
    STREAM = "stream"
    FOLDER = "folder"  # of images
    IMAGE = "image"
    VIDEO = "video"


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A source spec read: its kind, and the camera index, address or path it names."""

    kind: SpecKind
    target: int | str | Path

    @property
    def live(self) -> bool:
        """A camera or a stream, not a file or a folder."""
        return self.kind in (SpecKind.CAMERA, SpecKind.CAMERA_DEVICE, SpecKind.STREAM)


def read_spec(spec: int | str | Path) -> SourceSpec:
    """What a source spec names: an int or digits, a camera's index; rtsp://, http://, https://,
    a stream; a folder; an image file; a camera's device file; any other file, a video (a leading
    ~ is the home folder). SourceError for one that names none of them: empty, an address of
    another scheme (its password hidden), a file that is not there, cannot be read or is text.
    The commands and the app both read a spec with it, so that they take it alike."""
    if isinstance(spec, int) or (
        isinstance(spec, str) and spec.strip().isascii() and spec.strip().isdigit()
    ):  # ascii: str.isdigit() also takes '²', which int() refuses
        if not 0 <= int(spec) <= MAX_CAMERA_INDEX:  # (OpenCV's C int: a traceback past it)
            raise SourceError(
                f"camera {spec}: no such camera (an index is 0 to {MAX_CAMERA_INDEX})"
            )
        return SourceSpec(SpecKind.CAMERA, int(spec))
    text = as_pasted(str(spec))
    if not text.strip():  # Path("") is the current folder
        raise SourceError("an empty source names no camera, file, folder or stream")
    if text.strip() == DEMO and not expand_home(Path(text)).exists():
        raise SourceError(
            f"{DEMO}: the app's demo footage (blitzcam app --camera demo); here, a camera's "
            "index, a video, a picture or a folder of pictures, or a stream's address"
        )
    if is_stream(text.strip()):  # (spaces around an address pasted in)
        # FFmpeg knows http:// but not Http:// (a phone's keyboard capitalises the first letter):
        # a scheme is the same in any case (RFC 3986)
        scheme, rest = text.strip().split("://", 1)
        return SourceSpec(SpecKind.STREAM, f"{scheme.lower()}://{rest}")
    if _ADDRESS.match(text):  # rstp://, rtmp://: said as an address, its password hidden
        raise SourceError(
            f"{shown_address(text.strip())}: not an address blitzcam can read (a stream's "
            f"starts with {', '.join(STREAM_SCHEMES)})"
        )
    path = expand_home(Path(text))
    if not path.exists():
        if _NO_COLON.match(text.strip()):  # (Path made http//host of it http/host)
            scheme = text.strip().split("/", 1)[0]
            raise SourceError(
                f"{shown_address(text.strip())}: no such file or folder (an address? its "
                f"scheme takes a colon: {scheme.lower()}://)"
            )
        raise SourceError(f"{path}: no such file or folder")
    if path.is_dir():
        return SourceSpec(SpecKind.FOLDER, path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return SourceSpec(SpecKind.IMAGE, path)
    if is_camera_device(path):  # opened as the camera it is (a read open can hold it)
        return SourceSpec(SpecKind.CAMERA_DEVICE, path)
    if not path.is_file():  # a named pipe, a socket: what is read of it now is lost to FFmpeg
        return SourceSpec(SpecKind.VIDEO, path)
    try:
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError as exc:
        raise SourceError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    if (
        is_text(head)
        and path.suffix.lower() not in TEXT_VIDEO_SUFFIXES
        and not head.startswith(TEXT_VIDEO_SIGNATURES)
    ):
        # FFmpeg plays any text file as a video of its characters (notes.txt: 640 x 400)
        raise SourceError(f"{path}: a text file, not a video")
    return SourceSpec(SpecKind.VIDEO, path)


def open_source(
    spec: int | str | Path, *, opener: Callable[[int | str], Capture] = _open_capture
) -> FrameSource:
    """The frame source a spec names (`read_spec`)."""
    return open_spec(read_spec(spec), opener=opener)


def open_spec(
    read: SourceSpec, *, opener: Callable[[int | str], Capture] = _open_capture
) -> FrameSource:
    """The frame source of a spec already read (`read_spec`), not read again: a named pipe's
    bytes are read once, and a video file named `./0` is no camera."""
    target, kind = read.target, read.kind
    if kind is SpecKind.CAMERA:
        return NewestFrame(CaptureSource(target, name=f"camera {target}", opener=opener))
    if kind is SpecKind.STREAM:
        stream = StreamSource(str(target), opener=opener)
        return stream if stream.is_clip() else NewestFrame(stream)
    path = Path(target)
    if kind is SpecKind.FOLDER:
        return ImageFiles(image_files(path), name=str(path))
    if kind is SpecKind.IMAGE:
        return ImageFiles([path], name=str(path))
    if kind is SpecKind.CAMERA_DEVICE:
        return NewestFrame(CaptureSource(str(path), name=str(path), opener=opener))
    return CaptureSource(str(path), name=str(path), opener=opener)


# the text files FFmpeg reads as videos on purpose: a stream's playlist, an RTP session
TEXT_VIDEO_SUFFIXES: Final = (".m3u8", ".m3u", ".sdp", ".y4m")
# ... and videos whose first bytes can read as text: raw frames after a text header, as a dark
# YUV4MPEG2 video's do (no byte of them 0 nor over 127)
TEXT_VIDEO_SIGNATURES: Final = (b"YUV4MPEG2",)


def is_text(head: bytes) -> bool:
    """Whether a file's first bytes are text (UTF-8, no NUL): a video's container header never
    is."""
    if not head or b"\0" in head:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head)  # a character cut at the end is fine
    except UnicodeDecodeError:
        return False
    return True
