"""While a change waits for another program to finish writing the match database: the window
stays drawn, and after a moment a box says why nothing happens yet and offers to stop waiting.
SQLite's own wait froze the window, undrawn and unexplained, for up to 10 s (a `blitzcam match`
command in a terminal, a database browser in the middle of a change). The store tells it
(`MatchStore.lock_waiter`); the change's own handler says what came of it."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget

# a wait shorter than this is a change that is just slow: no box comes and goes
SHOW_AFTER_S: Final = 0.4
WAITING_TEXT: Final = (
    "Another program is writing the match database (a `blitzcam match` command, or a database "
    "tool): waiting for it to finish…"
)
STOP_TEXT: Final = "Stop waiting"


class LockWaitBox:
    """A `blitzcam.game.store.LockWaiter` for the window `parent`."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent
        self._box: QProgressDialog | None = None

    @property
    def box(self) -> QProgressDialog | None:
        """The box on screen, None before SHOW_AFTER_S of waiting."""
        return self._box

    def waiting(self, waited_s: float) -> bool:
        if self._box is None and waited_s >= SHOW_AFTER_S:
            self._box = box = QProgressDialog(WAITING_TEXT, STOP_TEXT, 0, 0, self._parent)
            box.setWindowTitle("Waiting for the match database")
            # every window's keys and clicks wait with the change: a second press of OK would
            # begin the change again inside this one
            box.setWindowModality(Qt.WindowModality.ApplicationModal)
            box.setAutoClose(False)
            box.setAutoReset(False)
            box.show()
        # drawn meanwhile; until the box is up (and holds every window's input), no key or
        # click is taken either
        QApplication.processEvents(
            QEventLoop.ProcessEventsFlag.AllEvents
            if self._box is not None
            else QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents
        )
        # (its button, Esc and closing it all cancel it)
        return self._box is None or not self._box.wasCanceled()

    def done(self) -> None:
        box, self._box = self._box, None
        if box is not None:
            box.close()
            box.deleteLater()
