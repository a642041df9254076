"""News said to a screen reader as it happens: a status bar's message, a dialog's refusal, a
scan's question. Painted or put in a label, it was there for the eye only (a reader finds a
status bar's text when asked, but is never told it changed).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible

from blitzcam.game.text import unmarked

try:  # (Qt 6.8 and later, which pyproject.toml asks for: with 6.7 nothing was announced)
    from PySide6.QtGui import QAccessibleAnnouncementEvent
except ImportError:  # pragma: no cover - the PySide6 pyproject.toml asks for has it
    QAccessibleAnnouncementEvent = None


def announce(source: QObject, text: str, *, assertive: bool = False) -> None:
    """Have a screen reader say `text` (nothing for an empty one), on behalf of `source`;
    `assertive`: at once, over what it is saying (a refusal), else when it is done."""
    if not text or QAccessibleAnnouncementEvent is None:
        return
    # (heard, not drawn: the marks that keep a name's letters in order on screen are nothing
    # to a reader, and some say them)
    event = QAccessibleAnnouncementEvent(source, unmarked(text))
    if assertive:
        event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive)
    QAccessible.updateAccessibility(event)
