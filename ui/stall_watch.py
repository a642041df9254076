"""When a live source's views came: a view that is the table now told from a stalled stream's
last one. A stream that stalls or reconnects sends nothing for seconds, and its last picture
stays up, looking live; shooting it, or enrolling a deck from it, took an old picture for the
table. Qt-free: the scan and the enrollment dialog ask it on each press and on a timer.

Where the source says when its camera last gave a frame (`last_frame_at`, its reader thread's
clock), that decides: a count that is slow (a table read in tiles, the counter's turn taken by
an enrollment) reads nothing meanwhile, and is no stall. Otherwise the counted views' own times
do, against their usual gap.
"""

from __future__ import annotations

import collections
import statistics
import time
from collections.abc import Callable
from typing import Final, Protocol

# a live view older than this (or than three gaps between counts, when counting is slower) is
# not the table now
STALE_AFTER_S: Final = 3.0
# how often a camera view asks whether its live source has stalled (the counting thread sends
# nothing while it does, so nothing else would tell the players their picture froze)
STALL_CHECK_MS: Final = 1000


# a camera wakes in about a second and a stream answers in a few: a live view still empty
# after this long says what may hold it (a named pipe with no writer waited silently for ever)
FIRST_PICTURE_LATE_S: Final = 5.0


def first_picture_late(seconds: float, hint: str) -> str:
    """What an empty live view says while its camera or stream has given no picture yet:
    how long it has waited, and what may hold it (`hint`, the source's own, or "")."""
    said = f"No picture from the camera yet ({seconds:.0f} s)"
    return f"{said}: {hint}" if hint else said


def stream_stalled(seconds: float, tries: int) -> str:
    """What a live view says of itself while its source sends nothing new: how long since its
    last view, and the stream's tries to come back since then (0: none yet, it may only be
    slow). Its last picture stays under it, which is not the table now."""
    since = f"No new picture from the camera for {seconds:.0f} s"
    if tries <= 0:
        return f"{since}: the picture below is not the table now (a stream may be reconnecting)"
    return f"{since}: the stream dropped, reconnecting (try {tries})"


class StallWatch:
    """The times of a source's last few views, and its reconnects when the latest came. It
    reads what the source says of itself (`reconnects`, a stream's; `last_frame_at`, a live
    reader's clock), each only where the source has it."""

    def __init__(self, source: object, clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.clock = clock
        self._latest_at: float | None = None
        self._began_at: float | None = None  # when the view began to wait (`begin`)
        self._reconnects_seen = 0
        # the last few times between views: their lower median is a count's usual time (a
        # stall, or a slow first count, is not)
        self._gaps: collections.deque[float] = collections.deque(maxlen=5)

    def _reconnects(self) -> int:
        return int(getattr(self.source, "reconnects", 0) or 0)

    def _camera_at(self) -> float | None:
        return getattr(self.source, "last_frame_at", None)

    def begin(self) -> None:
        """The view starts waiting for its source's first picture now."""
        self._began_at = self.clock()

    def waited(self) -> float:
        """Seconds since `begin` (0 before it)."""
        return 0.0 if self._began_at is None else self.clock() - self._began_at

    def saw_view(self) -> None:
        """A view came (the stream's tries to come back are its outage's from now on)."""
        now = self.clock()
        if self._latest_at is not None:
            self._gaps.append(now - self._latest_at)
        self._latest_at, self._reconnects_seen = now, self._reconnects()

    def since(self) -> float:
        """Seconds since the latest view, or since the camera's latest frame where the source
        says (0 before any view)."""
        if self._latest_at is None:
            return 0.0
        camera_at = self._camera_at()
        return self.clock() - (self._latest_at if camera_at is None else camera_at)

    def stalled(self) -> bool:
        """Whether the latest view is too old to be the table now (never before one): by the
        camera's latest frame where the source says when it came, else by the views' usual
        gap."""
        if self._latest_at is None:
            return False
        if self._camera_at() is not None:
            return self.since() > STALE_AFTER_S
        usual = statistics.median_low(self._gaps) if self._gaps else 0.0
        return self.since() > max(STALE_AFTER_S, 3 * usual)

    def tries(self) -> int:
        """The stream's tries to come back since the camera's latest frame where the source
        says how many it had made then, else since the latest view (the count running at the
        drop came once the first tries were made: "try 1" was said at the fourth)."""
        then = getattr(self.source, "last_frame_reconnects", None)
        return max(0, self._reconnects() - (self._reconnects_seen if then is None else then))

    def said(self) -> str:
        """`stream_stalled` of now."""
        return stream_stalled(self.since(), self.tries())


class MessageView(Protocol):
    """What `said_late` needs of a live view (ui.live_view.LiveView)."""

    def has_picture(self) -> bool: ...
    def message(self) -> str: ...
    def show_message(self, message: str, *, until_picture: bool = False) -> None: ...


def said_late(view: MessageView, source: object, watch: StallWatch) -> None:
    """Show on `view`, while it has no picture and its live `source` is FIRST_PICTURE_LATE_S
    late with its first, how long it has waited and what may hold it (the source's
    `opening_hint`, where it has one); the first picture answers it."""
    if view.has_picture() or not getattr(source, "live", False):
        return
    if (waited := watch.waited()) < FIRST_PICTURE_LATE_S:
        return
    said = first_picture_late(waited, str(getattr(source, "opening_hint", "") or ""))
    if view.message() != said:
        view.show_message(said, until_picture=True)
