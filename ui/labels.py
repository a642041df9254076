"""Labels for text that people type (player and team names, and messages quoting them)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def plain_label(text: str = "") -> QLabel:
    """A QLabel that shows `text` as typed: Qt would read a name like '<u>Ann</u>' as markup."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label
