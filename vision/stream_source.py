"""Network streams that reconnect when they drop, and live sources read on a thread of their
own so that a read gives the newest frame (`NewestFrame`)."""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import numpy as np

from blitzcam.vision import capture_source
from blitzcam.vision.capture_source import (
    Capture,
    CaptureSource,
    Frame,
    FrameSource,
    SourceError,
    capture_property,
    short_of,
    stated_frames,
)
from blitzcam.vision.source_address import shown_address

if TYPE_CHECKING:
    import urllib.parse

# a stream that dropped is tried again this many times, waiting RECONNECT_DELAY_S longer each
# time, up to RECONNECT_DELAY_MAX_S: about a minute in all, long enough for a phone's camera app
# started again or Wi-Fi changing its access point (5 tries, 7.5 s, ended a scan for either)
READER_THREAD: Final = "read "  # how a reader thread's name begins (`ui.app.inside_a_camera`)
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
# A picture that does not decode, on a connection that holds (one bad JPEG among a phone app's
# frames, the first one included), is read past on that connection, this many in a row at most:
# each was taken for a drop and the connection made again (1 bad in 20: 5 reconnects in 100
# frames; every other one bad: 2 frames a second of 20; a bad first one: "sent no pictures").
# A read that failed slowly (nothing came within the read timeout) is a drop.
BAD_PICTURES_READ_PAST: Final = 3
QUICK_FAILURE_S: Final = 0.5
CUT_SHORT_IN_A_ROW: Final = 25  # pictures cut short one after another: the stream is said bad
# ... but only while FFmpeg has no earlier picture: once it has one, it leaves the rows a cut
# picture's data did not reach as an earlier picture had them, so a table's lower part was
# another moment's (a server cutting each picture in half while the table changes:
# each picture half one table, half another, counted without a word). An MJPEG picture is
# coded alone from a camera's noisy picture: its lower rows are never the picture before's to
# the value while its first rows changed, unless they are that picture's own; or a camera's
# own banner along the bottom (its name, a clock), which is why the rows compared are this
# share of the picture (a banner of text is a line or two; a 24 px banner refuses
# every picture of its stream where the last 8 rows are compared). A loss of less than this is
# not told. Rows of one flat colour (a black bar) can be the same too, so rows under this
# spread (grey levels) say nothing.
STALE_SHARE: Final = 1 / 8
STALE_ROWS_LEAST_SPREAD: Final = 2.0


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
        every_s: float = 0.0,
    ) -> None:
        """`sleep` waits between tries (None: a wait that `cancel` cuts short). `every_s`: a
        video file served over HTTP gives its frames that far apart at least on its own clock,
        as a file on disk does (a live stream gives the newest frame it has)."""
        self._cancelled = threading.Event()
        self._tries, self._delay_s = tries, delay_s
        self._sleep = sleep or self._cancelled.wait
        self.reconnects = 0
        self._opening = time.monotonic()
        self._http = url.lower().startswith(("http://", "https://"))  # (its server can be asked)
        super().__init__(url, name=shown_address(url), opener=opener, every_s=every_s)
        if self._http and self._clip_length() == 1:  # (it played as a video of one frame)
            self.close()
            raise SourceError(f"{self.name}: {SNAPSHOT}")
        # a video file served over HTTP is read as a file is: its end is its end, and its last
        # view may be shot (a live stream's end is a failure)
        self.live = not self.is_clip()
        # (each picture coded alone: the stale rows of one cut short can be told)
        self._pictures_alone = self._codec() == "MJPG"
        self._edges: tuple[np.ndarray, np.ndarray] | None = None  # the last picture's

    def _cannot_open(self) -> str:
        # (asked why when the server answered: one silent until the open timeout says no more)
        # (capture_source's timeout read where it is used: the one it opened the capture with)
        open_timeout_s = capture_source.STREAM_OPEN_TIMEOUT_MS / 1000
        answered = time.monotonic() - self._opening < 0.9 * open_timeout_s
        why = None
        if answered and self._http:
            why = http_answer(self._spec, opening=True)
        elif answered and self._spec.lower().startswith("rtsp://"):
            why = rtsp_answer(self._spec)
        if why is None and not answered:  # (a server that answers and sends nothing is here too)
            why = (
                f"no picture came in {open_timeout_s:g} s (wrong address, the camera offline, "
                "or a server that answers but sends no pictures)"
            )
        return f"{self.name}: " + (
            why or "cannot connect to the stream (wrong address, or the camera is offline)"
        )

    def _codec(self) -> str:
        """The stream's codec as OpenCV says it (its four characters), "" where it cannot."""
        import cv2

        code = capture_property(self._capture, cv2.CAP_PROP_FOURCC)
        if not math.isfinite(code) or code <= 0:
            return ""
        return int(code).to_bytes(4, "little").decode("latin-1")

    def _came_cut_short(self, image: np.ndarray) -> bool:
        """Whether a picture came cut short: FFmpeg's fill in its last rows, or, in a stream of
        pictures coded alone, last rows that are the picture before's (`stale_rows`)."""
        before, self._edges = self._edges, picture_edges(image)
        return cut_short(image) or (self._pictures_alone and stale_rows(image, before))

    def _clip_length(self) -> int:
        """The frames the capture says the source holds: more than 0 for a video file served
        over HTTP, 0 for a live stream, whose length nobody knows."""
        return stated_frames(self._capture)

    def read_frame(self) -> Frame | None:
        """The next picture that came whole: one cut short is passed by (its lower part is
        FFmpeg's fill), and a stream that sends nothing else is said to. A clip's next one
        `every_s` after the last given, on its clock, where it is paced (every frame was
        counted, the clip played as slowly as this machine counts)."""
        if self._paced() and self.frame_time_s is not None:
            frame = self._frame_from(self.frame_time_s + self._every_s)
            if frame is not None and not self._came_cut_short(frame.image):
                return frame
            if frame is None and self._near_the_end():
                return None
            self.end_note = None  # (dropped before its end, or cut short: read on, as below)
            # the grab that failed was this read: the one below goes on to reconnect at once
            # (read again, a stalled connection's read timeout was waited through twice)
            self._grab_failed = frame is None
        for _ in range(CUT_SHORT_IN_A_ROW):
            frame = self._read_any()
            if frame is None or not self._came_cut_short(frame.image):
                return frame
        raise SourceError(
            f"{self.name}: the stream's pictures come cut short ({CUT_SHORT_IN_A_ROW} in a row: "
            "a link too slow or lossy for its size, a server sending part of each, or a camera "
            "whose picture stopped under a changing corner)"
        )

    def retrieve_frame(self) -> Frame | None:
        """The frame `skip_frame` just took, decoded; None if it cannot be or came cut short
        (the newest-frame reader then reads on, through `read_frame`)."""
        frame = super().retrieve_frame()
        return None if frame is not None and self._came_cut_short(frame.image) else frame

    def _read_any(self) -> Frame | None:
        # (a grab that failed in `skip_frame` was this read: timed from when it began)
        started = time.monotonic() - (self._grab_failed_s if self._grab_failed else 0.0)
        image = self._grab()
        if image is None and self._clip_length() == 0:
            image = self._read_past_bad_pictures(started)
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
                # (one cut short ends as a file on disk does: said to have come early)
                self.end_note = self._cut_short()
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
            # ended after its first picture: a snapshot's address (FFmpeg states no length for
            # one) played as a slideshow, reconnecting after each picture for ever
            first_only = attempt == 0 and self._index == 1 and self._http
            if first_only and (why := http_answer(self._spec)) in (SNAPSHOT, WEB_PAGE):
                raise SourceError(f"{self.name}: {why}")
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

    def _read_past_bad_pictures(self, failed_from: float) -> np.ndarray | None:
        """The next picture on this connection after one that did not decode, where the reads
        fail at once (BAD_PICTURES_READ_PAST at most); None where they do not: a drop."""
        for _ in range(BAD_PICTURES_READ_PAST):
            if time.monotonic() - failed_from > QUICK_FAILURE_S or not self._capture.isOpened():
                return None
            failed_from = time.monotonic()
            image = self._grab()
            if image is not None:
                return image
        return None

    def _reopened(self, attempt: int, what: str) -> bool | None:
        """The capture opened again after try `attempt`'s back-off: whether it opened; None
        when `cancel` came meanwhile. The opener's own failure is said as the `what`'s."""
        self._sleep(min(self._delay_s * attempt, max(self._delay_s, RECONNECT_DELAY_MAX_S)))
        if self._cancelled.is_set():
            return None
        self._capture.release()
        # (counted as the try begins: a host that lets the connection in and says nothing
        # holds it 8 s, and the view said "try 1" only 9 s after the drop)
        self.reconnects += 1
        try:
            self._capture = self._opener(self._spec)
        except Exception as exc:
            raise SourceError(f"{self.name}: cannot reconnect to the {what}: {exc}") from None
        if self._cancelled.is_set():  # (left while it opened: a one-viewer camera's next
            self._capture.release()  # scan must not find this connection still taking frames)
            return None
        self._edges = None  # (a new connection's pictures are not the old one's)
        return bool(self._capture.isOpened())

    def _near_the_end(self) -> bool:
        """Whether a clip's read failed at its end, as far as its said length can tell (a
        length estimated from its duration may be a few frames long: CLIP_LENGTH_SLACK)."""
        return not short_of(self._index, self._clip_length())

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


# a phone camera app's still picture, a new one each time it is asked (/shot.jpg, /photo.jpg)
SNAPSHOT: Final = (
    "a single picture (a snapshot), not a video stream: give the stream's address (phone "
    "camera apps serve it at another path, such as /video)"
)
WEB_PAGE: Final = (
    "a web page, not a video stream (phone camera apps serve their page and their stream at "
    "other paths, such as /video)"
)


# OpenSSL's reasons when the server answers a TLS hello in plain HTTP (http.server's 400; a
# server that hangs up at once)
PLAIN_HTTP_TO_TLS: Final = frozenset(
    {
        "WRONG_VERSION_NUMBER",
        "UNEXPECTED_EOF_WHILE_READING",
        "HTTP_REQUEST",
        "PACKET_LENGTH_TOO_LONG",
    }
)


def http_answer(
    url: str, *, opening: bool = False, timeout_s: float = HTTP_ASK_TIMEOUT_S
) -> str | None:
    """Why an HTTP address gave no stream, as its server answers a plain request: a password
    refused, no such path, a web page (phone camera apps serve their page and their stream at
    other paths); None when the answer says nothing more (no answer, a stream after all, an
    address it cannot be asked at). The user name and password in the address are given to
    that server alone, when it asks for them, never followed to another (a redirect) nor put
    in a message. `opening`: asked of an address that opened nothing OpenCV reads, where an
    answer of a file is the file's fault (a live stream that dropped answers so too)."""
    import http.client
    import ssl
    import urllib.error
    import urllib.parse
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None  # (answered as the HTTPError of its 3xx)

    try:
        parts = urllib.parse.urlsplit(url)
        netloc, bare = _without_userinfo(parts)
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
        if exc.code == 401 and parts.username is None:  # (nothing was refused: none was given)
            return (
                "the camera asks for a user name and password (HTTP 401): give them in the "
                "address, as http://user:password@host:port/video"
            )
        if exc.code in (401, 403):
            return f"the camera refused the user name or password (HTTP {exc.code})"
        if exc.code == 404 and parts.path.rstrip("/").lower() == "/video":
            return (  # (sent to try /video, which it was)
                "no stream at this path (HTTP 404): the server there serves no stream at "
                "/video; the camera app's own screen shows the address it serves (another "
                "program on that port?)"
            )
        if exc.code == 404:
            return (
                "no stream at this path (HTTP 404): phone camera apps serve theirs at a path "
                "such as /video"
            )
        if 300 <= exc.code < 400:
            return f"the address sends elsewhere (HTTP {exc.code}): give the stream's own"
        return f"the server answered HTTP {exc.code}, not a stream"
    except urllib.error.URLError as exc:
        # an s typed after http: "offline" sends the user to look at the wrong thing;
        # only what a plain HTTP server's answer to a TLS hello gives (a certificate of the
        # camera's own, an old TLS: HTTPS spoken)
        reason = exc.reason
        if isinstance(reason, ssl.SSLError) and reason.reason in PLAIN_HTTP_TO_TLS:
            return "the server does not answer in HTTPS (phone camera apps serve http://)"
        return None  # (no answer in time, refused)
    except (OSError, ValueError):  # (hung up; a port of 99999)
        return None
    except http.client.InvalidURL:  # (no answer: nothing was asked; said before, in general)
        return None
    except http.client.HTTPException:  # (its answer no HTTP: an RTSP camera's port, say)
        return (
            "the server does not answer in HTTP (a camera's RTSP port answers at rtsp://…, "
            "not http://)"
        )
    media = "" if kind is None else kind.split(";")[0].strip().lower()
    if media in ("text/html", "text/plain"):
        return WEB_PAGE
    if media.startswith("image/"):
        return SNAPSHOT
    if opening and media and not media.startswith("multipart/"):  # (at once, with a file)
        return "the server sends a file, but no video that can be read (not one, or damaged)"
    if opening and media.startswith("multipart/"):  # (the address and camera were blamed)
        return (
            "the server answers with a stream, but no picture in it could be read (its camera "
            "in use by another app, or not a JPEG stream)"
        )
    return None


def _without_userinfo(parts: urllib.parse.SplitResult) -> tuple[str, str]:
    """An address's host and port (an IPv6 host in its brackets), and the address itself
    without its user name, password and fragment: what is asked of its server."""
    import urllib.parse

    host = parts.hostname or ""
    netloc = (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")
    return netloc, urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


def rtsp_answer(url: str, *, timeout_s: float = HTTP_ASK_TIMEOUT_S) -> str | None:
    """Why an RTSP address opened nothing, as its camera answers a DESCRIBE sent without the
    address's user name and password (those go to FFmpeg alone, never over the wire here): it
    asks for them (401), no stream at that path (404); None when it says nothing more (no
    answer, no RTSP, a stream after all). A wrong password was said as "wrong address, or the
    camera is offline", the commonest mistake in setting up an IP camera sent elsewhere."""
    import socket
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname or "", parts.port or 554
        bare = _without_userinfo(parts)[1]
        request = f"DESCRIBE {bare} RTSP/1.0\r\nCSeq: 1\r\nAccept: application/sdp\r\n\r\n"
        with socket.create_connection((host, port), timeout=timeout_s) as connection:
            connection.sendall(request.encode("utf-8"))
            status = connection.recv(256).split(b"\r\n", 1)[0].decode("latin-1").split()
    except (OSError, ValueError, UnicodeError):  # (no answer, refused; a port of 99999)
        return None
    if len(status) < 2 or not status[0].startswith("RTSP/") or not status[1].isdigit():
        return None
    code = int(status[1])
    if code == 401 and parts.username is None:
        return (
            "the camera asks for a user name and password (RTSP 401): give them in the address, "
            "as rtsp://user:password@host:554/live"
        )
    if code in (401, 403):  # (asked without them: whether those given are right is unknown)
        return (
            f"the camera asks for a user name and password (RTSP {code}), and the stream did "
            "not open with those given: check them"
        )
    if code == 404:
        return "no stream at this path (RTSP 404): the camera's manual gives its stream's path"
    return None if code < 400 else f"the camera answered RTSP {code}, not a stream"


def cut_short(image: np.ndarray) -> bool:
    """Whether a streamed picture came cut short: its last rows are all FFmpeg's fill, to the
    value (a camera's own picture has noise in every row, a black one too)."""
    if image.ndim != 3 or image.shape[0] < CUT_SHORT_ROWS or image.shape[2] != 3:
        return False
    return bool((image[-CUT_SHORT_ROWS:] == np.asarray(CUT_SHORT_FILL, image.dtype)).all())


def _lower_rows(image: np.ndarray) -> int:
    """How many of a picture's last rows `stale_rows` compares (STALE_SHARE of it)."""
    return max(CUT_SHORT_ROWS, round(image.shape[0] * STALE_SHARE))


def _upper_rows(image: np.ndarray) -> np.ndarray:
    """CUT_SHORT_ROWS rows STALE_SHARE down a picture: under a banner along its top (a camera's
    clock) that stays the same while the picture changes."""
    start = _lower_rows(image)
    return image[start : start + CUT_SHORT_ROWS]


def picture_edges(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A picture's rows `stale_rows` compares (copies): a band near its top (`_upper_rows`)
    and its lower STALE_SHARE."""
    return _upper_rows(image).copy(), image[-_lower_rows(image) :].copy()


def stale_rows(image: np.ndarray, before: tuple[np.ndarray, np.ndarray] | None) -> bool:
    """Whether a picture's lower rows (STALE_SHARE of it) are, to the value, those of the
    picture before (`before`: its `picture_edges`) while its first rows changed, and are not of
    one flat colour: rows an MJPEG picture cut short did not reach."""
    if before is None or image.ndim != 3 or image.shape[0] < 2 * _lower_rows(image):
        return False
    top, bottom = _upper_rows(image), image[-_lower_rows(image) :]
    if top.shape != before[0].shape or not np.array_equal(bottom, before[1]):
        return False
    if np.array_equal(top, before[0]):  # the same picture again: none of it is stale
        return False
    return float(bottom.mean(axis=2).std()) >= STALE_ROWS_LEAST_SPREAD


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

    The live view asks for frames of its own (`peek`), more often than a count reads one: the
    reader decodes the next frame it takes after each ask, and that frame is the counter's
    newest too, so a count never waits on a decode the view has done.
    """

    def __init__(self, stream: CaptureSource) -> None:
        self.stream = stream
        self.name, self.live = stream.name, True
        self._changed = threading.Condition()
        self._newest: Frame | None = None
        self._given = -1  # the index of the last frame given
        self._peeked = -1  # the index of the last frame the live view was given (`peek`)
        self._peek_wanted = False  # the live view asked: the next frame taken is decoded
        self._waiting = 0  # readers waiting in read_frame
        self._failure: Exception | None = None
        self._ended = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        # when the reader last took a frame off the stream (time.monotonic), decoded or not:
        # the camera's own liveness, which a slow count (nothing read meanwhile) is not
        self.last_frame_at: float | None = None
        # the stream's reconnects when it did: the tries since are this outage's (counted from
        # when a view was last counted, they left out the tries made while that count ran)
        self.last_frame_reconnects = 0
        self.clock: Callable[[], float] = time.monotonic

    @property
    def reconnects(self) -> int:
        return self.stream.reconnects

    def _took_frame(self) -> None:
        self.last_frame_at = self.clock()
        self.last_frame_reconnects = self.stream.reconnects

    def _read_on(self) -> None:
        try:
            skipping = self.stream.can_skip()
            while not self._stopping:
                if not skipping or self._wanted():
                    frame = self.stream.read_frame()
                elif not self.stream.skip_frame():
                    frame = self.stream.read_frame()  # ended, or dropped: reconnects
                else:  # taken, undecoded: the camera's all the same
                    self._took_frame()
                    if not self._wanted():
                        continue
                    # came while that frame was taken: it is the newest
                    frame = self.stream.retrieve_frame() or self.stream.read_frame()
                if frame is not None:
                    self._took_frame()
                with self._changed:
                    if frame is None:
                        break
                    for_the_eye = self._peek_wanted
                    self._newest, self._peek_wanted = frame, False
                    self._changed.notify_all()
                if for_the_eye:
                    self._add_thumb(frame)
        except Exception as exc:  # given to the reader, in its thread
            with self._changed:
                self._failure = exc
        finally:
            self.stream.close()
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def _add_thumb(self, frame: Frame) -> None:
        """Give the live view's frame its thumbnail, made here, on the reader's thread (8 ms of
        a 1080p frame, 15 a second, that the window's thread spent comparing it with the
        count whose outlines lie over it); the counter, given the frame first, never waits
        for it. A view that took the frame meanwhile makes its own."""
        from blitzcam.vision.frame_change import thumbnail

        with_thumb = dataclasses.replace(frame, thumb=thumbnail(frame.image, sharpness=False))
        with self._changed:
            if self._newest is frame:
                self._newest = with_thumb

    def read_frame(self) -> Frame | None:
        with self._changed:
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(
                    target=self._read_on, name=f"{READER_THREAD}{self.name}", daemon=True
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

    @property
    def frame_index(self) -> int | None:
        """The number of the frame `read_frame` gave last (None before one): the live view
        orders counted frames and peeked ones by it."""
        return None if self._given < 0 else self._given

    def peek(self) -> Frame | None:
        """The newest frame for the eye, without taking it from the counter: each frame once,
        None until a newer one is decoded (or before the first read). Each call asks for the
        next frame the reader takes, so the live view's pace (15 asks a second) bounds the
        decoding it costs, and a source nobody peeks decodes no more than before."""
        with self._changed:
            self._peek_wanted = not self._stopping
            newest = self._newest
            if newest is None or newest.index == self._peeked:
                return None
            self._peeked = newest.index
            return newest

    def _wanted(self) -> bool:
        """A reader waits, with no fresh frame to take (one that has one wants no other), or
        the live view asked for a frame since the last one decoded."""
        with self._changed:
            return self._peek_wanted or (self._waiting > 0 and not self._fresh())

    def _fresh(self) -> bool:
        return self._newest is not None and self._newest.index != self._given

    def cancel(self) -> None:
        """A read waiting for a frame, or the stream waiting to reconnect, gives up now (from
        any thread)."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self.stream.cancel()

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            # the process is ending: nobody waits for the stream to be free, and a read or a
            # reconnect's open held Ctrl+C 3-6 s (`decks enroll --camera` on a stalled stream)
            self.cancel()
            return
        self.close()

    def close(self) -> None:
        """Stop reading; the thread releases the stream when its read (or a reconnect's open)
        returns, waited for up to the stream's read or open timeout (a stream that lets one
        viewer in at a time is free again for the next scan), or here when it never started."""
        self.cancel()
        with self._changed:
            thread = self._thread
        if thread is None:
            self.stream.close()
        elif thread is not threading.current_thread():
            # a read, or a reconnect's open (a host gone quiet), ends within its timeout
            longest = max(
                capture_source.STREAM_READ_TIMEOUT_MS, capture_source.STREAM_OPEN_TIMEOUT_MS
            )
            thread.join(timeout=longest / 1000 + 1.0)
