"""Labels for text that people type (player and team names, and messages quoting them)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
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
    not push the window wider than the screen."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        height = super().minimumSizeHint().height()
        return QSize(self.fontMetrics().horizontalAdvance("…") * 3, height)

    def shown_text(self) -> str:
        """The text as it fits the label's width now."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, width)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(self.alignment()), self.shown_text())
