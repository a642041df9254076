"""One piece of work off the window's thread, its outcome handed back to the window.

A Python thread, as the counting worker's (ui/counting_worker.py says why not a QThread's
slots); the outcome crosses to the GUI thread by a queued signal, so the slot that receives it
runs there and may touch widgets.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the work returned, or the exception it raised (then `value` is None)."""

    value: Any = None
    error: BaseException | None = None


class BackgroundJob(QObject):
    """Runs one callable at a time in a thread of its own; `done` carries its Outcome."""

    done = Signal(object)  # Outcome, on the GUI thread
    _finished = Signal(object)  # emitted from the worker thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._finished.connect(self._on_finished, Qt.ConnectionType.QueuedConnection)

    @property
    def busy(self) -> bool:
        """Work started and its outcome not yet handed back."""
        return self._thread is not None

    def start(self, work: Callable[[], object], *, name: str = "background") -> None:
        """Run `work` in a new thread; refused (RuntimeError) while the last one is busy."""
        if self._thread is not None:
            raise RuntimeError("a background job is already running")
        self._thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self._thread.start()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the thread ends (its outcome still comes by `done`); whether it did."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
            return not thread.is_alive()
        return True

    def _run(self, work: Callable[[], object]) -> None:
        try:
            outcome = Outcome(value=work())
        except Exception as exc:  # handed to the window, which says what went wrong
            outcome = Outcome(error=exc)
        # (its owner deleted meanwhile, the app quit: nobody to tell)
        with contextlib.suppress(RuntimeError):
            self._finished.emit(outcome)

    @Slot(object)
    def _on_finished(self, outcome: Outcome) -> None:
        self._thread = None
        self.done.emit(outcome)
