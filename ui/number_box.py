"""A spin box for counts and targets that the first keystroke replaces.

Qt selects a spin box's text only when Tab brings the focus; a dialog's first box, or one
clicked, keeps the old value with the cursor before it, and typing "3" over "0" gives 30.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QSpinBox

from blitzcam.ui.dialog_parts import ErrorLabel

NOT_A_NUMBER = "a box is empty: type a number in it"


class NumberBox(QSpinBox):
    """QSpinBox whose whole value is selected whenever it takes the focus."""

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        # after the event: a mouse press that brought the focus places the cursor afterwards
        QTimer.singleShot(0, self, self.selectAll)


def refuse_empty(error: ErrorLabel, boxes: Iterable[QSpinBox], label: str = "") -> bool:
    """Whether OK cannot take `boxes` as they are: one of them holds no number ('' after
    Backspace, or '-' alone), or one out of its range ("1" players, a target of "0"). `error`
    then says so at that box (it takes the focus and the reason as its description). Its
    value() is the last number it held, which OK would have saved: a target of 1 typed and
    erased decided the match, an erased count kept the old one. `label` names the box in the
    reason."""
    box = next((box for box in boxes if not box.hasAcceptableInput()), None)
    if box is None:
        return False
    why = _not_taken(box)
    error.refuse(f"{label}: {why}" if label else why[:1].upper() + why[1:], at=box)
    return True


def _not_taken(box: QSpinBox) -> str:
    """Why `box` holds no number it can take, in words (not "empty" of a box showing 1
    player, nor "0 for none" of a target that cannot be 0)."""
    low, high = box.minimum(), box.maximum()
    text = box.cleanText().strip()
    if text in ("", "-", "+"):
        return NOT_A_NUMBER + (" (0 for none)" if low <= 0 <= high else "")
    return f"{text} is not a number from {low} to {high}: type one of them"
