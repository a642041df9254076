"""What a part of the main window's work, kept in a module of its own (ui/round_flow.py,
ui/match_changes.py), reads through the window: the open match, its number, the store, and the
status line it speaks on."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from blitzcam.game.rules import Match
    from blitzcam.game.store import MatchStore
    from blitzcam.ui.main_window import MainWindow


class WindowPart:
    """A part of `MainWindow`'s work: the window owns the match shown and its news."""

    def __init__(self, window: MainWindow) -> None:
        self._window = window

    @property
    def _match(self) -> Match | None:
        return self._window.match

    @property
    def _match_id(self) -> int | None:
        return self._window.match_id

    @property
    def _store(self) -> MatchStore:
        return self._window.store

    def _say(self, text: str, ms: int) -> None:
        self._window.statusBar().showMessage(text, ms)
