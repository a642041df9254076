"""What a round's review shows of its scan: the last shot of each step with its outlines, a
line saying what the counts are of, the shot again at any width for a look at it large, the
piles no shot was taken of, and the players whose decks look alike to blitzcam."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QImage

from blitzcam.ui.live_view import render_capture
from blitzcam.ui.scan_session import STEPS, ScanSession, Shot, look_alike_players

PILES = {"dutch": "Dutch", "blitz": "Blitz"}  # each step's piles, as the review names them
PICTURE_WIDTH = 480  # a capture's width in the review, in pixels as laid out


@dataclass(frozen=True)
class ReviewPictures:
    """What `ConfirmDialog` is given of a scan (its arguments of the same names)."""

    captures: tuple[QImage, ...] = ()
    captions: tuple[str, ...] = ()
    enlarged: tuple[Callable[[int], QImage], ...] = ()
    unshot: tuple[str, ...] = ()
    check: tuple[str, ...] = ()


def review_pictures(session: ScanSession, ratio: float) -> ReviewPictures:
    """The review's pictures of `session`, drawn at `ratio` device pixels to each."""
    shot = [step for step in STEPS if session.shots(step)]
    last = [session.shots(step)[-1] for step in shot]
    return ReviewPictures(
        captures=tuple(
            render_capture(s.frame, s.snapshot, width=PICTURE_WIDTH, ratio=ratio) for s in last
        ),
        captions=tuple(capture_caption(PILES[step], len(session.shots(step))) for step in shot),
        enlarged=tuple(_drawn_at_any_width(s, ratio) for s in last),
        unshot=tuple(PILES[step] for step in STEPS if step not in shot),
        check=look_alike_players(session.players, session.all_shots),
    )


def _drawn_at_any_width(shot: Shot, ratio: float) -> Callable[[int], QImage]:
    return lambda width: render_capture(shot.frame, shot.snapshot, width=width, ratio=ratio)


def capture_caption(piles: str, shots: int) -> str:
    """The line under a review's picture of one step: the counts are of every shot of it,
    the picture of the last (a pile counted in a picture that did not show it looked wrong)."""
    if shots == 1:
        return f"{piles} piles"
    return f"{piles} piles: the last of {shots} shots; the counts are their sum"
