"""Live counts that do not flicker: a vote over recent still frames, reset when the scene changes.

Each frame brings its counts and a tiny grey thumbnail. A frame that differs much from the one
before is in motion (a hand passing over the table): its counts do not vote. A still frame that
differs much from the window's scene is a new scene (cards dealt, a pile moved): the window
restarts. The reported counts are the per-deck median of the window's votes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from blitzcam.vision.counting import Counts

THUMB_SIZE: Final = (32, 18)
MOTION_THRESHOLD: Final = 6.0  # mean absolute grey difference to the previous frame
SCENE_THRESHOLD: Final = 10.0  # mean absolute grey difference to the window's scene
WINDOW: Final = 7


def thumbnail(frame_bgr: np.ndarray) -> np.ndarray:
    """The frame as a THUMB_SIZE grey float image (motion and scene changes are judged on it)."""
    grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
    return cv2.resize(grey, THUMB_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)


def difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).mean())


def lower_median(values: list[int]) -> int:
    """The median of `values`, the lower middle one when they are even in number: always a
    count some frame saw (votes of 2, 2, 5, 5 give 2, never 3)."""
    return sorted(values)[(len(values) - 1) // 2]


def vote(history: list[Counts]) -> Counts:
    """Per-deck lower median of the counts in the window."""
    decks = list(history[-1].per_deck)
    per_deck = {d: lower_median([c.per_deck.get(d, 0) for c in history]) for d in decks}
    return Counts(
        per_deck=per_deck,
        face_up=lower_median([c.face_up for c in history]),
        unknown=lower_median([c.unknown for c in history]),
    )


@dataclass(frozen=True, slots=True)
class Stable:
    """What the stabiliser reports: the voted counts, and whether the view is settled."""

    counts: Counts
    settled: bool  # enough still frames of this scene have voted
    votes: int


class Stabiliser:
    """Feed `update(frame_thumbnail, counts)` every frame; read the returned Stable."""

    def __init__(
        self,
        *,
        window: int = WINDOW,
        min_votes: int = 3,
        motion_threshold: float = MOTION_THRESHOLD,
        scene_threshold: float = SCENE_THRESHOLD,
    ) -> None:
        if window < 1 or not 1 <= min_votes <= window:
            raise ValueError(
                f"Stabiliser: expected 1 <= min_votes <= window, got {min_votes}, {window}"
            )
        self._votes: deque[Counts] = deque(maxlen=window)
        self._min_votes = min_votes
        self._motion, self._scene_change = motion_threshold, scene_threshold
        self._previous: np.ndarray | None = None
        self._scene: np.ndarray | None = None
        self._last: Stable | None = None

    def reset(self) -> None:
        self._votes.clear()
        self._previous = self._scene = None
        self._last = None

    def update(self, thumb: np.ndarray, counts: Counts) -> Stable:
        moving = self._previous is not None and difference(thumb, self._previous) > self._motion
        self._previous = thumb
        if moving and self._last is not None:
            return Stable(self._last.counts, settled=False, votes=len(self._votes))
        if self._scene is None or difference(thumb, self._scene) > self._scene_change:
            self._votes.clear()
            self._scene = thumb
        self._votes.append(counts)
        self._last = Stable(
            vote(list(self._votes)),
            settled=len(self._votes) >= self._min_votes,
            votes=len(self._votes),
        )
        return self._last
