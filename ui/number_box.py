"""A spin box for counts and targets that the first keystroke replaces.

Qt selects a spin box's text only when Tab brings the focus; a dialog's first box, or one
clicked, keeps the old value with the cursor before it, and typing "3" over "0" gives 30.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QSpinBox


class NumberBox(QSpinBox):
    """QSpinBox whose whole value is selected whenever it takes the focus."""

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        # after the event: a mouse press that brought the focus places the cursor afterwards
        QTimer.singleShot(0, self, self.selectAll)
