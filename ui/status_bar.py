"""The window's status bar, whose news wraps onto as many lines as it needs.

Qt's own draws a message on one line, cut at the window's edge: a scan's failure (the address,
the server's answer, then what to press) is 2,000 px of text at the base size, and on a laptop's
1024 px window the reason and the advice at its end were never seen. The message and its
timeout are Qt's as before (`showMessage`, `currentMessage`); only the drawing and the bar's
height change.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QStatusBar, QWidget

from blitzcam.ui.announce import announce

MARGIN: Final = 6  # pixels round the text, as Qt's own bar leaves
MAX_LINES: Final = 6  # past this the bar stops growing (the rest is in its tooltip)


class WrappingStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messageChanged.connect(self._on_message)

    def _text_rect(self) -> QRect:
        grip = self.style().pixelMetric(self.style().PixelMetric.PM_SizeGripSize)
        right = grip if self.isSizeGripEnabled() else 0
        return self.rect().adjusted(MARGIN, 2, -MARGIN - right, -2)

    def _on_message(self, message: str) -> None:
        # (hovered, the whole of it; a screen reader is given it as the bar's description,
        # and told it as it comes)
        self.setToolTip(message)
        self.setAccessibleDescription(message)
        announce(self, message)
        self._fit()
        self.update()

    def _fit(self) -> None:
        """As tall as the message needs at this width (one line's height when there is none)."""
        message = self.currentMessage()
        metrics = self.fontMetrics()
        one_line = metrics.height() + 4
        if not message:
            self.setMinimumHeight(0)
            return
        width = max(50, self._text_rect().width())
        needed = metrics.boundingRect(
            0, 0, width, 100_000, Qt.TextFlag.TextWordWrap, message
        ).height()
        lines = min(MAX_LINES, max(1, round(needed / max(1, metrics.lineSpacing()))))
        self.setMinimumHeight(max(one_line, lines * metrics.lineSpacing() + 4))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.currentMessage():
            self._fit()

    def paintEvent(self, event: QPaintEvent) -> None:
        message = self.currentMessage()
        if not message:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        flags = (
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap
        )
        painter.drawText(self._text_rect(), int(flags), message)
        painter.end()
