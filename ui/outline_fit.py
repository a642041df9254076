"""Whether the live view's outlines fit the picture in view: the rules a scan and the enroll
dialog share. Qt-free; vision/ is imported once a camera's frames come.

A camera's frames are shown between counts (`CountingThread.previewed`), so the picture in view
is most often newer than the count whose outlines lie over it. Where the table in view has
moved on from that count's frame (cards moved, a hand over them), the outlines lie on cards no
longer there (for a count's time: 3.7 s in one run) and are left off, coming back only
well under the line (near it, camera noise and a lamp's flicker switch them on and off). A
count of a frame older than the picture, which the picture has moved on from (a hand's frame,
counted after the hand had gone), does not replace outlines that fit the picture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # (annotations only: this module imports no Qt)
    from blitzcam.ui.counting_worker import CountedFrame
    from blitzcam.vision.frame_change import CountedView


class OutlineFit:
    """The newest picture in view, the count whose outlines the view shows, and whether they
    are left off over it."""

    def __init__(self) -> None:
        # the newest frame shown between counts, and its number in the camera
        self.newest: tuple[np.ndarray, int] | None = None
        # ... its thumbnail, made once however often it is compared (4-8 ms of a 1080p frame
        # on the window's thread: twice a count, it was made twice), or brought by the frame
        self._newest_thumb: np.ndarray | None = None
        self.shown: CountedFrame | None = None  # the count whose outlines the view holds
        self.off = False  # they are left off: the picture has moved on from its frame
        self._views: list[tuple[CountedFrame, CountedView]] = []  # (the last two counts')

    def saw(self, frame: np.ndarray, index: int, thumb: np.ndarray | None = None) -> bool:
        """A frame shown between counts (and its `thumbnail`, where the camera's reader made
        one): whether the shown outlines are left off over it."""
        if self.newest is None or index > self.newest[1]:
            self.newest, self._newest_thumb = (frame, index), thumb
        change = None if self.shown is None else self.change(self.shown)
        if change is None:
            self.off = False
        else:
            from blitzcam.vision.frame_change import MOTION_THRESHOLD, MOVED_BACK_BELOW

            self.off = change > (MOVED_BACK_BELOW if self.off else MOTION_THRESHOLD)
        return self.off

    def counted(self, item: CountedFrame) -> tuple[bool, bool]:
        """A count: whether the view takes its outlines, and whether they are left off."""
        moved_on = self.moved_on(item)
        if moved_on and self.shown is not None and not self.off:
            return False, False  # (the shown ones fit the picture; this count's do not)
        self.shown, self.off = item, moved_on
        return True, moved_on

    def moved_on(self, item: CountedFrame) -> bool:
        """Whether the newest picture in view has moved on from `item`'s frame (by the motion
        line): a shot of `item` is not of the table the player sees."""
        judged = self._judged(item)
        return judged is not None and judged[0].moved_on(judged[1], newer_thumb=self._thumb())

    def change(self, item: CountedFrame) -> float | None:
        """How much the newest picture in view differs from `item`'s frame (CountedView);
        None when none newer than it is in view, or its source numbers no frames."""
        judged = self._judged(item)
        return None if judged is None else judged[0].change(judged[1], newer_thumb=self._thumb())

    def _thumb(self) -> np.ndarray | None:
        """The newest picture's thumbnail, made the first time it is asked for."""
        if self._newest_thumb is None and self.newest is not None:
            from blitzcam.vision.frame_change import thumbnail

            self._newest_thumb = thumbnail(self.newest[0], sharpness=False)
        return self._newest_thumb

    def _judged(self, item: CountedFrame) -> tuple[CountedView, np.ndarray] | None:
        """`item`'s frame as the newest picture is told apart from it, and that picture; None
        when none newer than it is in view, or its source numbers no frames."""
        seen = self.newest
        if seen is None or item.source_index is None or item.source_index >= seen[1]:
            return None
        view = next((view for counted, view in self._views if counted is item), None)
        if view is None:
            from blitzcam.vision.frame_change import CountedView

            corners = np.array([o.corners for o in item.snapshot.outlines], np.float32)
            view = CountedView.of(item.frame, corners.reshape(-1, 4, 2), thumb=item.snapshot.thumb)
            self._views = [*self._views[-1:], (item, view)]
        return view, seen[0]
