"""Labels for text that people type (player and team names, and messages quoting them)."""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Final

from PySide6 import QtGui
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

RIGHT_TO_LEFT_MARK: Final = "\u200f"


def reads_right_to_left(text: str) -> bool:
    """Whether `text` runs right to left: its first letter of a direction is Arabic or Hebrew
    (Unicode's first-strong rule)."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


def elided(metrics: QFontMetrics, text: str, width: int) -> str:
    """`text` cut with "…" to `width`, the "…" at its end as it reads: an Arabic name's cut
    end is its left, but the "…" after it, in a line laid out left to right, was drawn on its
    right, beside its first word (a mark of its direction after it keeps it with the name).
    A number is never cut inside: "with -10 points" read "with -1…", another number; it is
    left out whole. A line's part after a KEEP_END is kept whole, the part before it cut
    to the room left ("Bartholomew Montgo… 36", not "Bartholomew Montgomery 3…")."""
    head, tab, tail = text.partition(KEEP_END)
    if tab:
        tail = " " + tail
        room = width - metrics.horizontalAdvance(tail)
        return elided(metrics, head, room) + tail if room > 0 else tail.lstrip()
    cut = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
    if cut != text:
        kept = cut.removesuffix(ELLIPSIS)
        if len(kept) < len(text) and _in_a_number(text, len(kept)):
            kept = re.sub(r"[-−+]?[\d.,]*$", "", kept).rstrip()
            cut = kept + ELLIPSIS
    if cut != text and reads_right_to_left(text):
        return cut + RIGHT_TO_LEFT_MARK
    return cut


# between a line's part that may be cut short and its end, kept whole (a total after a name):
# the unit separator, a control character no name may hold (game/names.py refuses them)
KEEP_END: Final = "\x1f"
ELLIPSIS: Final = "…"


def _in_a_number(text: str, at: int) -> bool:
    """Whether a cut of `text` at `at` falls inside a number (a digit on both sides of it, or a
    sign before one)."""
    before, after = text[at - 1 : at], text[at : at + 1]
    return after.isdigit() and (before.isdigit() or before in "-−+.,")


def shown_plain(text: str) -> str:
    """`text` as a tooltip or a screen reader says it: a KEEP_END a space."""
    return text.replace(KEEP_END, " ")


def as_plain(text: str) -> str:
    """`text` as typed, for a message box or a tooltip, which Qt reads as markup when it
    might be ('<s>Ann' struck through the rest of a question, 'Bob<br>Jr' broke its line):
    escaped then, its spaces and line breaks kept (markup collapses them), else as it is (a
    plain tooltip keeps its own layout)."""
    if not QtGui.Qt.mightBeRichText(text):  # (Qt's own guess: QtGui's, not QtCore's Qt)
        return text
    return '<p style="white-space:pre-wrap">' + html.escape(text, quote=False) + "</p>"


def plain_label(text: str = "") -> QLabel:
    """A QLabel that shows `text` as typed: Qt would read a name like '<u>Ann</u>' as markup."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


# how much larger a label may be drawn than the smallest of those it is `drawn_near`
NEAR_SPREAD: Final = 1.4


class ElidedLabel(QLabel):
    """A plain-text label that may be narrower than its text: each line's end is cut short
    with "…" and the whole text is its tooltip. Eight players' names in a row of totals must
    not push the window wider than the screen. With `shrink_to` (points), a text too wide is
    first drawn smaller, down to that size ("North Side Sharks" on a card read "North …")."""

    def __init__(
        self, text: str = "", parent: QWidget | None = None, *, shrink_to: float | None = None
    ) -> None:
        super().__init__(parent)
        self._shrink_to = shrink_to
        # labels side by side drawn at one size with this one, the smallest any needs
        self.drawn_with: list[ElidedLabel] = []
        self._fitted: tuple[tuple[str, str, int], float] | None = None  # (`fitted_size`)
        # a label this one is never drawn larger than (a heading over it)
        self.at_most: ElidedLabel | None = None
        # labels of a row this one is drawn near in size to: NEAR_SPREAD times the smallest
        # any needs at most (each its own size, "Bob" was drawn at 30 pt beside "Christina" at
        # 15 in one row of cards)
        self.drawn_near: list[ElidedLabel] = []
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(as_plain(shown_plain(text)))

    def set_shrink_to(self, points: float | None) -> None:
        """Draw a text too wide down to `points` (None: never smaller) from now on."""
        if points != self._shrink_to:
            self._shrink_to = points
            self._fitted = None
            self.updateGeometry()
            self.update()

    def minimumSizeHint(self) -> QSize:
        height = super().minimumSizeHint().height()
        return QSize(self.fontMetrics().horizontalAdvance("…") * 3, height)

    def shown_font(self) -> QFont:
        """The font the text is drawn in now: the label's, or smaller (`shrink_to`), as small
        as the smallest of the labels it is `drawn_with`, and none larger than its own
        `at_most`."""
        font = QFont(self.font())
        size = min(label._capped_size() for label in [self, *self.drawn_with])
        if self.drawn_near:
            least = min(label.fitted_size() for label in [self, *self.drawn_near])
            size = min(size, least * NEAR_SPREAD)
        if size > 0:
            font.setPointSizeF(min(size, font.pointSizeF()))
        return font

    def _capped_size(self) -> float:
        """`fitted_size`, no larger than `at_most`'s shown size."""
        size = self.fitted_size()
        if self.at_most is not None:
            size = min(size, self.at_most.shown_font().pointSizeF())
        return size

    def fitted_size(self) -> float:
        """The size (points) the text is drawn at alone: the label's, or smaller, down to
        `shrink_to`, until no line is cut. Kept while the text, font and width stay: each of
        a row's labels asks its siblings', and a deck line its name's (fitted afresh each
        time, painting the cards' names and deck lines took 16.5 ms, not 6.7)."""
        key = (self.text(), self.font().key(), self.contentsRect().width())
        if self._fitted is None or self._fitted[0] != key:
            self._fitted = (key, self._fit())
        return self._fitted[1]

    def _fit(self) -> float:
        font = QFont(self.font())
        size, width = font.pointSizeF(), self.contentsRect().width()
        if self._shrink_to is None or size <= 0:
            return size
        lines = self.text().split("\n")  # (each line decides, not all as one)

        def cut() -> bool:
            # (as `shown_text` cuts: Qt cuts a text exactly as wide as the room, and "Player 0"
            # on a card was drawn "Player…" at 18 pt where it fitted at 17)
            metrics = QFontMetrics(font)
            return any(elided(metrics, line, width) != shown_plain(line) for line in lines)

        while size > self._shrink_to and cut():
            size = max(self._shrink_to, size - 1)
            font.setPointSizeF(size)
        return size

    def shown_text(self) -> str:
        """The text as it fits the label's width now."""
        return self._cut_to(self.shown_font())

    def _cut_to(self, font: QFont) -> str:
        metrics, width = QFontMetrics(font), self.contentsRect().width()
        return "\n".join(elided(metrics, line, width) for line in self.text().split("\n"))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        font = self.shown_font()  # (once: with the labels it is drawn with, it fits each of them)
        painter.setFont(font)
        painter.drawText(self.contentsRect(), int(self.alignment()), self._cut_to(font))


def set_styled(widget: QWidget, **properties: object) -> None:
    """Set the properties the style sheet selects on (`QLabel#x[compact="true"]`), the widget
    styled again where one changed: the style applies such rules only as it polishes it."""
    if all(widget.property(name) == value for name, value in properties.items()):
        return
    for name, value in properties.items():
        widget.setProperty(name, value)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
