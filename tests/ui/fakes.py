"""Fakes for the UI tests: a frame source replaying seeded synthetic frames, a counter that knows
what each frame holds, and record factories. No camera, no model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from PySide6.QtCore import QEvent, QObject

from blitzcam.game.decks import DECK_NAMES
from blitzcam.game.rules import Match, Player, Round, Settings, Tally
from blitzcam.ui.counting_worker import CountSnapshot, Outline
from blitzcam.ui.deck_colours import deck_rgb

NAMES = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal")


def plain(text: str) -> str:
    """`text` without the bidirectional marks that set names apart (game/text.py)."""
    return text.translate(dict.fromkeys(map(ord, "\u200e\u2068\u2069")))


def players(n: int = 3, *, teams: Sequence[str] | None = None) -> tuple[Player, ...]:
    return tuple(
        Player(NAMES[i], DECK_NAMES[i], None if teams is None else teams[i]) for i in range(n)
    )


def round_of(**tallies: tuple[int, int]) -> Round:
    return Round({name: Tally(dutch=d, blitz=b) for name, (d, b) in tallies.items()})


def match_of(*rounds: Round, n: int = 3, target: int = 75, teams: Sequence[str] | None = None,
             variant: str = "standard") -> Match:
    return Match(players(n, teams=teams), Settings(target=target, variant=variant), tuple(rounds))


def card_corners(cx: float, cy: float, angle_deg: float, w: float = 60, h: float = 90) -> np.ndarray:
    box = cv2.boxPoints(((cx, cy), (w, h), angle_deg))
    return box.astype(np.float32)


def synthetic_frame(
    index: int, cards: Sequence[tuple[str | None, bool]], *, seed: int = 0, size=(640, 360)
) -> tuple[np.ndarray, CountSnapshot]:
    """A seeded table frame with `cards` (deck or None, face_up) and the snapshot a perfect
    counter would return. Pixel (0, 0) holds `index`, so the fake counter knows the frame."""
    rng = np.random.default_rng(seed + index)
    w, h = size
    frame = np.full((h, w, 3), (40, 60, 90), np.uint8)
    frame += rng.integers(0, 12, size=frame.shape, dtype=np.uint8)
    outlines = []
    counts: dict[str, int] = {}
    cols = 8
    for i, (deck, face_up) in enumerate(cards):
        cx = 50 + (i % cols) * 75 + rng.uniform(-5, 5)
        cy = 70 + (i // cols) * 110 + rng.uniform(-5, 5)
        corners = card_corners(cx, cy, rng.uniform(-20, 20))
        colour = (230, 230, 230) if face_up else deck_rgb(deck or "")[::-1]
        cv2.fillPoly(frame, [corners.astype(np.int32)], (250, 250, 245))
        inner = card_corners(cx, cy, 0, 30, 45)
        cv2.fillPoly(frame, [inner.astype(np.int32)], colour)
        outlines.append(Outline(corners, None if face_up else deck, face_up))
        if deck is not None and not face_up:
            counts[deck] = counts.get(deck, 0) + 1
    frame[0, 0] = (index, index, index)
    # each index is a view of its own to the live vote (a shot of another frame of the same
    # view is asked for twice)
    return frame, CountSnapshot(counts=counts, outlines=tuple(outlines), scene=index)


class FakeSource:
    """Replays frames in a loop; `None` after `limit` reads when one is given."""

    def __init__(self, frames: Sequence[np.ndarray], *, limit: int | None = None) -> None:
        self.frames = list(frames)
        self.limit = limit
        self.reads = 0
        self.closed = False

    def read(self) -> np.ndarray | None:
        if self.limit is not None and self.reads >= self.limit:
            return None
        frame = self.frames[self.reads % len(self.frames)]
        self.reads += 1
        return frame

    def close(self) -> None:
        self.closed = True


class FakeCounter:
    """Returns the snapshot registered for the frame whose pixel (0, 0) holds its index."""

    def __init__(self, snapshots: Sequence[CountSnapshot]) -> None:
        self.snapshots = list(snapshots)
        self.calls = 0
        self.at: float | None = None  # the source's clock of the last frame counted
        self.in_play: frozenset[str] | None = None  # the decks of the last call
        self.resets = 0  # live votes forgotten (a scan starting)

    def reset(self) -> None:
        self.resets += 1

    def count(
        self,
        frame_bgr: np.ndarray,
        *,
        in_play: frozenset[str] | None = None,
        at: float | None = None,
    ) -> CountSnapshot:
        self.calls += 1
        self.in_play = in_play
        self.at = at
        return self.snapshots[int(frame_bgr[0, 0, 0]) % len(self.snapshots)]


class ScriptedFeed:
    """A source + counter pair whose current frame the test chooses (`show(i)`)."""

    def __init__(self, scenes: Sequence[tuple[np.ndarray, CountSnapshot]]) -> None:
        self.frames = [f for f, _ in scenes]
        self.counter = FakeCounter([s for _, s in scenes])
        self.current = 0
        self.closed = False

    def show(self, index: int) -> None:
        self.current = index

    def read(self) -> np.ndarray | None:
        return self.frames[self.current]

    def close(self) -> None:
        self.closed = True


class QuitsReaching(QObject):
    """An application event filter that counts the quits that reach the application
    (`reached`), keeping them from closing the tests' windows."""

    def __init__(self) -> None:
        super().__init__()
        self.reached = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Quit:
            self.reached += 1
            return True
        return False


def held_while_unwatched(qtbot: Any, watched: list[bool], widget: Any, counter: FakeCounter) -> None:
    """Starts `widget` (a scan or the enroll dialog, its view's `is_watched` patched to read
    `watched[0]`, False now) and checks that its counting is held until its view is watched."""
    widget.start()
    qtbot.waitUntil(lambda: widget._thread.held, timeout=5000)
    watched[0] = True
    qtbot.waitUntil(lambda: not widget._thread.held and counter.calls > 0, timeout=5000)
