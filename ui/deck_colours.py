"""Each deck's colour on screen, and card images converted for Qt.

The outline colour of a deck is its printing ink. The expansion pack reuses the base inks on other
drawings, so its decks get a lighter shade of the same ink: on a crowded table green-pump and
green-bucket must still be told apart at a glance.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

import numpy as np
from PySide6.QtGui import QGuiApplication, QIcon, QImage, QPixmap

from blitzcam.game.decks import DECKS_BY_NAME, deck_by_name

# Screen versions of the printing inks (blitzcam.datasets.art.INKS), a little brighter for a
# dark background.
BASE_INKS: Final[dict[str, tuple[int, int, int]]] = {
    "green": (40, 170, 90),
    "red": (222, 56, 62),
    "yellow": (232, 178, 30),
    "blue": (60, 120, 220),
}
EXPANSION_LIGHTEN: Final = 0.45  # share of white mixed into an ink for the expansion decks
UNKNOWN_RGB: Final = (170, 170, 170)  # a back that matched no enrolled deck
FACE_UP_RGB: Final = (255, 64, 200)  # a face-up card: never counted, must be flipped


def deck_rgb(deck: str) -> tuple[int, int, int]:
    """The outline/accent colour of a deck as (r, g, b); unknown names get grey."""
    if deck not in DECKS_BY_NAME:
        return UNKNOWN_RGB
    info = deck_by_name(deck)
    r, g, b = BASE_INKS[info.ink]
    if info.pack == "base":
        return (r, g, b)
    mix = EXPANSION_LIGHTEN
    return tuple(round(c + (255 - c) * mix) for c in (r, g, b))  # type: ignore[return-value]


# the least contrast of text with its background (WCAG's, for text under 18 pt): the base red
# and blue inks as names on the round table measured 3.8 and 3.9
TEXT_CONTRAST: Final = 4.5
TABLE_RGB: Final = (24, 30, 42)  # the round table's background (#181e2a, ui/app.py)


def deck_text_rgb(deck: str, background: tuple[int, int, int] = TABLE_RGB) -> tuple[int, int, int]:
    """A deck's colour for a name written in it on `background`: its `deck_rgb`, with white
    mixed in, in twentieths, until it reads (TEXT_CONTRAST)."""
    rgb = deck_rgb(deck)
    for step in range(21):
        mixed = tuple(round(c + (255 - c) * step / 20) for c in rgb)
        if contrast(mixed, background) >= TEXT_CONTRAST:  # type: ignore[arg-type]
            return mixed  # type: ignore[return-value]
    return (255, 255, 255)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2's contrast ratio of two sRGB colours (1 to 21)."""

    def luminance(rgb: tuple[int, int, int]) -> float:
        linear = [
            c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
            for c in (v / 255 for v in rgb)
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted((luminance(a), luminance(b)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def deck_label(deck: str) -> str:
    """'green-pump' -> 'Green pump' (the UI's spelling of a deck name)."""
    return deck.replace("-", " ").capitalize()


# one of the eight decks named in a rule's words, as the command line names it
_DECK_IN_TEXT: Final = re.compile(
    r"(?<![\w-])(" + "|".join(re.escape(name) for name in DECKS_BY_NAME) + r")(?![\w-])"
)


def with_deck_labels(text: str) -> str:
    """A rule's words ("their deck, green-pump, is Ed's now") with each of the eight decks
    named as the app names them everywhere else ("Green pump")."""
    return _DECK_IN_TEXT.sub(lambda found: deck_label(found.group(1)), text)


def rgba_to_qimage(rgba: np.ndarray) -> QImage:
    """(H, W, 4) uint8 RGBA -> a QImage that owns a copy of the pixels."""
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise ValueError(f"expected (H, W, 4) uint8 RGBA, got {rgba.shape} {rgba.dtype}")
    data = np.ascontiguousarray(rgba)
    h, w = data.shape[:2]
    return QImage(data.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()


def bgr_to_qimage(bgr: np.ndarray) -> QImage:
    """(H, W, 3) uint8 BGR camera frame -> QImage (copied, safe to keep)."""
    if bgr.ndim != 3 or bgr.shape[2] != 3 or bgr.dtype != np.uint8:
        raise ValueError(f"expected (H, W, 3) uint8 BGR, got {bgr.shape} {bgr.dtype}")
    data = np.ascontiguousarray(bgr)
    h, w = data.shape[:2]
    return QImage(data.data, w, h, 3 * w, QImage.Format.Format_BGR888).copy()


def back_pixmap(deck: str, width: int = 96, *, ratio: float | None = None) -> QPixmap:
    """The deck's back as drawn by blitzcam's card art, `width` logical pixels wide, drawn at
    the screen's own resolution: `ratio` device pixels per logical pixel (default: the primary
    screen's, 1 without one), so a 2x screen shows it sharp, not stretched from 1x."""
    if ratio is None:
        app = QGuiApplication.instance()
        screen = app.primaryScreen() if app is not None else None
        ratio = screen.devicePixelRatio() if screen is not None else 1.0
    return _back_pixmap(deck, width, max(1.0, float(ratio)))


@cache
def _back_pixmap(deck: str, width: int, ratio: float) -> QPixmap:
    from blitzcam.datasets.art import render_back

    pixmap = QPixmap.fromImage(rgba_to_qimage(render_back(deck, width=round(width * ratio)).rgba))
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


def back_icon(deck: str, width: int = 48) -> QIcon:
    return QIcon(back_pixmap(deck, width))
