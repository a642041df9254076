"""What every dialog that asks for something has: OK and Cancel, and a place that says why
what was asked was refused."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel

from blitzcam.ui.labels import plain_label


def error_label() -> QLabel:
    """Where a dialog says why what was asked was refused (its rule quotes typed names)."""
    label = plain_label()
    label.setObjectName("error")  # the style sheet's red
    label.setWordWrap(True)
    return label


def ok_cancel(dialog: QDialog, on_ok: Callable[[], None]) -> QDialogButtonBox:
    """OK runs `on_ok` (which accepts the dialog, or says why not); Cancel rejects it."""
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
    )
    buttons.accepted.connect(on_ok)
    buttons.rejected.connect(dialog.reject)
    return buttons


VARIANT_LABELS = {  # (the new-match and the match-settings dialogs say them alike)
    "standard": "Standard (a round ends on a Blitz call)",
    "play-out": "Play-out (rounds are played out)",
}


def variant_box() -> QComboBox:
    """The variants, explained; the chosen one's rules name is `currentData()`."""
    box = QComboBox()
    for variant, label in VARIANT_LABELS.items():
        box.addItem(label, variant)
    return box
