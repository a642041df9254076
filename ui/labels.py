"""Labels for text that people type (player and team names, and messages quoting them)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


def plain_label(text: str = "") -> QLabel:
    """A QLabel that shows `text` as typed: Qt would read a name like '<u>Ann</u>' as markup."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


class ElidedLabel(QLabel):
    """A one-line plain-text label that may be narrower than its text: the end is cut short
    with "…" and the whole text is its tooltip. Eight players' names in a row of totals must
    not push the window wider than the screen. With `shrink_to` (points), a text too wide is
    first drawn smaller, down to that size ("North Side Sharks" on a card read "North …")."""

    def __init__(
        self, text: str = "", parent: QWidget | None = None, *, shrink_to: float | None = None
    ) -> None:
        super().__init__(parent)
        self._shrink_to = shrink_to
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        height = super().minimumSizeHint().height()
        return QSize(self.fontMetrics().horizontalAdvance("…") * 3, height)

    def shown_font(self) -> QFont:
        """The font the text is drawn in now: the label's, or smaller (`shrink_to`)."""
        font = QFont(self.font())
        size, width = font.pointSizeF(), self.contentsRect().width()
        if self._shrink_to is None or size <= 0:
            return font
        while size > self._shrink_to and QFontMetrics(font).horizontalAdvance(self.text()) > width:
            size = max(self._shrink_to, size - 1)
            font.setPointSizeF(size)
        return font

    def shown_text(self) -> str:
        """The text as it fits the label's width now."""
        width = self.contentsRect().width()
        metrics = QFontMetrics(self.shown_font())
        return metrics.elidedText(self.text(), Qt.TextElideMode.ElideRight, width)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.setFont(self.shown_font())
        painter.drawText(self.contentsRect(), int(self.alignment()), self.shown_text())
