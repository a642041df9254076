"""While a change waits for another program to finish writing the match database: the window
stays drawn, and after a moment a box says why nothing happens yet and offers to stop waiting.
SQLite's own wait froze the window, undrawn and unexplained, for up to 10 s (a `blitzcam match`
command in a terminal, a database browser in the middle of a change). The store tells it
(`MatchStore.lock_waiter`); the change's own handler says what came of it.

The window's events are handled during the wait, so a quit asked meanwhile (Ctrl+C in the
terminal, whose handler may run as the change begins) is held until the change has gone on or
given up: else it closes the box, which reads as Stop waiting, and the round being confirmed is
lost.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.store_file import BUSY_TIMEOUT_MS
from blitzcam.ui.announce import announce
from blitzcam.ui.text_size import text_scale

# a wait shorter than this is a change that is just slow: no box comes and goes
SHOW_AFTER_S: Final = 0.4
WAITING_TEXT: Final = (
    "Another program is writing the match database (a `blitzcam match` command, or a database "
    f"tool): waiting for it to finish, up to {BUSY_TIMEOUT_MS / 1000:g} s…"
)
STOP_TEXT: Final = "Stop waiting"
BOX_WIDTH: Final = 420  # px at the base text size: the text wraps (one line was 1,633 px at 150 %)


class _WaitBox(QDialog):
    """The box: why, a busy bar, and Stop waiting (its button, Esc, or closing it)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Waiting for the match database")
        # every window's keys and clicks wait with the change: a second press of OK would
        # begin the change again inside this one
        self.setWindowModality(Qt.WindowModality.ApplicationModal)
        self.setAccessibleDescription(WAITING_TEXT)
        self.text = QLabel(WAITING_TEXT)
        self.text.setWordWrap(True)
        bar = QProgressBar()
        bar.setRange(0, 0)  # (busy: how long is not known)
        bar.setTextVisible(False)
        bar.setAccessibleName("Waiting for the match database")
        buttons = QDialogButtonBox()
        buttons.addButton(STOP_TEXT, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for part in (self.text, bar, buttons):
            layout.addWidget(part)
        screen = parent.screen().availableGeometry()
        self.setFixedWidth(min(round(BOX_WIDTH * text_scale()), screen.width() - 40))
        self.stopped = False
        self.rejected.connect(self._stop)

    def _stop(self) -> None:
        self.stopped = True


class _QuitHeld(QObject):
    """Holds the application's quit while installed (`held`: one was asked)."""

    def __init__(self) -> None:
        super().__init__()
        self.held = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Quit:
            self.held = True
            return True
        return False


class LockWaitBox:
    """A `blitzcam.game.store_file.LockWaiter` for the window `parent`."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent
        self._box: _WaitBox | None = None
        # changes begun and not done: one may begin inside another's wait (a timer's)
        self._depth = 0
        self._quits = _QuitHeld()

    @property
    def box(self) -> QDialog | None:
        """The box on screen, None before SHOW_AFTER_S of waiting."""
        return self._box

    @property
    def busy(self) -> bool:
        """Whether a change is taking the lock now (`starting`, not yet `done`)."""
        return self._depth > 0

    def starting(self) -> None:
        self._depth += 1
        if self._depth == 1:
            QApplication.instance().installEventFilter(self._quits)

    def waiting(self, waited_s: float) -> bool:
        if self._box is None and waited_s >= SHOW_AFTER_S:
            self._box = _WaitBox(self._parent)
            self._box.show()
            announce(self._box, WAITING_TEXT)
        # drawn meanwhile; until the box is up (and holds every window's input), no key or
        # click is taken either
        QApplication.processEvents(
            QEventLoop.ProcessEventsFlag.AllEvents
            if self._box is not None
            else QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents
        )
        return self._box is None or not self._box.stopped

    def done(self) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth:  # (a change begun inside another's wait: that one still waits)
            return
        box, self._box = self._box, None
        if box is not None:
            box.rejected.disconnect(box._stop)
            box.close()
            box.deleteLater()
        QApplication.instance().removeEventFilter(self._quits)
        if self._quits.held:  # (asked again once the change's handler has returned)
            self._quits.held = False
            QTimer.singleShot(0, QApplication.quit)
