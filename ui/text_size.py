"""How large the app's text is: the bundled font at a base size, and the style sheet's sizes
with it, scaled by the user's choice (Settings → Text size): a scoreboard read from across the
table, or by eyes that want it larger. The app used to pin its text at 13 pt, whatever the
user's eyes or screen.
"""

from __future__ import annotations

import math
import re
from typing import Final

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

BASE_POINT_SIZE: Final = 13
TEXT_SIZES: Final = (100, 125, 150)  # percent of the base size, as Settings offers them

_POINT_SIZE: Final = re.compile(r"font-size: (\d+)pt")
# A length that grows with the text (a check box's square beside its label), written `Ntpx`
# ("text pixels") in the style sheet: Qt's px never scale, and 12 px boxes beside 150 % text
# were hard to see and hit.
_TEXT_PIXELS: Final = re.compile(r"\b(\d+)tpx\b")


def scaled_style(style: str, percent: int) -> str:
    """`style` with each `font-size: Npt` scaled to `percent` (whole points), and each `Ntpx`
    (a length that grows with the text) turned into pixels at `percent` (whole pixels)."""
    style = _POINT_SIZE.sub(
        lambda found: f"font-size: {round(int(found.group(1)) * percent / 100)}pt", style
    )
    # (halves rounded up: Python's round() made 2tpx 2 px at 125 %, a border that never grew)
    return _TEXT_PIXELS.sub(
        lambda found: f"{math.floor(int(found.group(1)) * percent / 100 + 0.5)}px", style
    )


def apply_text_size(app: QApplication, family: str, style: str, percent: int) -> None:
    """The application's font (`family` at the base size scaled) and its style sheet (`style`
    scaled), so that every widget, open or opened later, draws its text at that size."""
    font = QFont(family)
    font.setPointSizeF(BASE_POINT_SIZE * percent / 100)
    app.setFont(font)
    app.setStyleSheet(scaled_style(style, percent))
    app.setProperty(TEXT_SIZE_PROPERTY, percent)


TEXT_SIZE_PROPERTY: Final = "blitzcamTextSize"  # the percent set, kept on the application


def text_percent() -> int:
    """The app's text size now, in percent of the base size (100 before any is set)."""
    app = QApplication.instance()
    percent = app.property(TEXT_SIZE_PROPERTY) if isinstance(app, QApplication) else None
    return int(percent) if isinstance(percent, int) else 100


def text_scale() -> float:
    """How many times the base size the app's text is now."""
    return text_percent() / 100
