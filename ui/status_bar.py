"""The window's status bar, whose news wraps onto as many lines as it needs.

Qt's own draws a message on one line, cut at the window's edge: a scan's failure (the address,
the server's answer, then what to press) is 2,000 px of text at the base size, and on a laptop's
1024 px window the reason and the advice at its end were never seen. The message and its
timeout are Qt's as before (`showMessage`, `currentMessage`); only the drawing and the bar's
height change.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent, QResizeEvent, QTextLayout
from PySide6.QtWidgets import QStatusBar, QWidget

from blitzcam.ui.announce import announce
from blitzcam.ui.labels import as_plain

MARGIN: Final = 6  # pixels round the text, as Qt's own bar leaves
MAX_LINES: Final = 6  # past this the bar stops growing (the rest is in its tooltip)

# How long the window's news stays, by how much there is to read and act on
BRIEF_MS: Final = 5_000  # a change done, or nothing changed ("Settings saved")
NEWS_MS: Final = 8_000  # a refusal or an undo, with the key that goes on from it
LONGER_MS: Final = 10_000  # a seat change, or a scan ended by a change made elsewhere
ADVICE_MS: Final = 15_000  # a problem to act on: the camera stopped, captures not kept
WARNING_MS: Final = 30_000  # the database file moved or replaced while open


def shown_lines(message: str, font: QFont, width: int) -> list[str]:
    """`message` wrapped at `width` pixels in `font`, at most MAX_LINES of it, the last cut
    with "…" where there is more (drawn centred, a longer one lost its first line, where
    what failed is said)."""
    layout = QTextLayout(message, font)
    lines: list[str] = []
    layout.beginLayout()
    while (line := layout.createLine()).isValid():
        line.setLineWidth(max(1, width))
        lines.append(message[line.textStart() : line.textStart() + line.textLength()].strip())
    layout.endLayout()
    if len(lines) <= MAX_LINES:
        return lines
    rest = " ".join(lines[MAX_LINES - 1 :])
    last = QFontMetrics(font).elidedText(rest, Qt.TextElideMode.ElideRight, max(1, width))
    return [*lines[: MAX_LINES - 1], last]


class WrappingStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messageChanged.connect(self._on_message)

    def _text_rect(self) -> QRect:
        grip = self.style().pixelMetric(self.style().PixelMetric.PM_SizeGripSize)
        right = grip if self.isSizeGripEnabled() else 0
        return self.rect().adjusted(MARGIN, 2, -MARGIN - right, -2)

    def showMessage(self, message: str, timeout: int = 0) -> None:
        # the same message again is told again: Qt leaves it be, no change signalled, and a
        # key pressed twice ("Choose the round to delete first") said nothing the second time
        again = bool(message) and message == self.currentMessage()
        super().showMessage(message, timeout)
        if again:
            announce(self, message)

    def _on_message(self, message: str) -> None:
        # (hovered, the whole of it; a screen reader is given it as the bar's description,
        # and told it as it comes)
        self.setToolTip(as_plain(message))
        self.setAccessibleDescription(message)
        announce(self, message)
        self._fit()
        self.update()

    def _fit(self) -> None:
        """As tall as the message's lines at this width (none: as Qt's own bar)."""
        message = self.currentMessage()
        if not message:
            self.setMinimumHeight(0)
            return
        lines = shown_lines(message, self.font(), self._text_rect().width())
        spacing = self.fontMetrics().lineSpacing()
        self.setMinimumHeight(max(self.fontMetrics().height() + 4, len(lines) * spacing + 4))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        # (a text size changed: from 150 % back to 100 % the bar kept its height until its
        # message cleared)
        if event.type() == QEvent.Type.FontChange and self.currentMessage():
            self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.currentMessage():
            self._fit()

    def paintEvent(self, event: QPaintEvent) -> None:
        message = self.currentMessage()
        if not message:
            super().paintEvent(event)
            return
        rect = self._text_rect()
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        lines = shown_lines(message, self.font(), rect.width())
        painter.drawText(rect, int(flags), "\n".join(lines))
        painter.end()
