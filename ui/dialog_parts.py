"""What every dialog that asks for something has: OK and Cancel, and a place that says why
what was asked was refused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QWidget

from blitzcam.game.plausibility import target_note
from blitzcam.game.rules import MatchError
from blitzcam.game.text import unmarked
from blitzcam.ui.announce import announce
from blitzcam.ui.deck_colours import with_deck_labels

TYPING_PAUSE_MS: Final = 600  # a target's note waits this long after a key (`TargetNote`)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a change asked for in a dialog was not made; `broken`: the rule it broke, when it
    was one (its player and field say which box is at fault: `ErrorLabel.refuse`)."""

    text: str
    broken: MatchError | None = None


class NewsLabel(QLabel):
    """Where a dialog says what came of what was asked ("Saved x.json", "Deleted the match of
    …", "Enrolling Blue plow…"), as plain text, told to a screen reader each time it is said
    (shown on a label, it is there for the eye only)."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        # (unwrapped, a long reason widens the matches' browser past a 1280-px screen, or is
        # cut at "cannot change the" where the screen holds it)
        self.setWordWrap(True)
        super().setText(text)  # (what it says at first is read with the dialog)

    def setText(self, text: str) -> None:
        super().setText(text)
        announce(self, text)


class TargetNote(NewsLabel):
    """Where a dialog that asks for a target says that one is far from the usual
    (`plausibility.target_note`: 750 typed for 75): taken as it is, but said, and hidden
    while there is nothing to say. Said to a screen reader as it comes and goes; of a target
    being typed, once the typing pauses (`say_later`)."""

    def __init__(self) -> None:
        super().__init__()
        self.hide()
        self._typed: int | None = None
        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(TYPING_PAUSE_MS)
        self._pause.timeout.connect(lambda: self.say_of(self._typed))

    def say_later(self, target: int) -> None:
        """`say_of(target)` once no other key comes for TYPING_PAUSE_MS: typing 150 said "a
        target of 1 is far under the usual", then of 15, each shown and read out."""
        self._typed = target
        self._pause.start()

    def say_of(self, target: int | None) -> None:
        self._pause.stop()  # (a typed target's note still to come is of a target gone since)
        note = None if target is None else target_note(target)
        text = "" if note is None else note[0].upper() + note[1:] + "."
        if text != self.text():
            self.setText(text)
        self.setVisible(bool(text))


class ErrorLabel(QLabel):
    """Where a dialog says why what was asked was refused (its rule quotes typed names, so as
    plain text). A reason longer than the room the dialog opened with grows the dialog: it was
    cut off, the part that said why hidden, and the form above it squashed."""

    def __init__(self) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setObjectName("error")  # the style sheet's red
        self.setWordWrap(True)
        self._at: QWidget | None = None  # the box the last refusal was said at

    def setText(self, text: str) -> None:
        at, self._at = self._at, None
        if at is not None and shiboken6.isValid(at):  # (not deleted meanwhile)
            at.setAccessibleDescription("")  # (an earlier refusal's, answered since)
        super().setText(text)
        announce(self, text, assertive=True)  # (the focus goes to the box at fault, unsaid)
        QTimer.singleShot(0, self, self._make_room)  # once the layout has the new text

    def refuse(self, text: str, at: QWidget | None = None) -> None:
        """Say `text`; the box at fault (`at`), where one is known, takes the focus, its text
        chosen to be typed over, and carries the reason as its description: the reason is a
        label the focus cannot reach, which a screen reader reads only as it changes. The
        eight decks are named as the app names them (a rule's words name them as typed)."""
        text = with_deck_labels(text)
        self.setText(text)
        if at is None:
            return
        at.setAccessibleDescription(unmarked(text))  # (the names' marks: nothing to a reader)
        at.setFocus(Qt.FocusReason.OtherFocusReason)
        select = getattr(at, "selectAll", None)
        if callable(select):
            select()
        self._at = at

    def _make_room(self) -> None:
        window = self.window()
        layout = window.layout() if window is not self else None
        if layout is None or not window.isVisible():
            return
        layout.activate()
        width = window.width()
        needed = (
            layout.totalHeightForWidth(width)
            if layout.hasHeightForWidth()
            else layout.totalSizeHint().height()
        )
        if needed <= window.height():
            return
        screen = window.screen().availableGeometry()  # (never past the screen: OK stays there)
        frame = window.frameGeometry().height() - window.height()
        window.resize(width, min(needed, screen.height() - frame))
        overhang = window.frameGeometry().bottom() - screen.bottom()
        if overhang > 0:
            window.move(window.x(), max(screen.top(), window.y() - overhang))


def error_label() -> ErrorLabel:
    """Where a dialog says why what was asked was refused (`ErrorLabel`)."""
    return ErrorLabel()


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


def open_once(dialog: QDialog) -> None:
    """Open a dialog made for one use, deleted once closed (a child of the window, each one
    used to stay alive until the window went: 20 after five uses of five dialogs)."""
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
