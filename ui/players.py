"""The players dialog: the open match's names, decks and teams, changed in place (a name
mistyped at the start, decks handed out differently, partners swapped). Each seat keeps its
counts in every round; the core (`rules.change_players`) says what a change may not do.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.rules import Player
from blitzcam.game.text import seat_note
from blitzcam.ui.dialog_parts import Refusal, error_label, ok_cancel
from blitzcam.ui.labels import plain_label
from blitzcam.ui.new_match import (
    SEAT_GRID_NOTES,
    PlayerRow,
    missing_teams,
    seat_at_fault,
    seat_grid,
)
from blitzcam.ui.scrolling import fit_to_screen, scrolling_widget


class PlayersDialog(QDialog):
    """OK hands the players to `apply` (the caller's, which goes through the store and returns
    why they were refused, or None); a refusal is shown here, the box at fault given the
    focus, and the dialog stays open with what was typed. Without `apply`, OK just
    accepts."""

    def __init__(
        self,
        players: tuple[Player, ...],
        parent: QWidget | None = None,
        *,
        apply: Callable[[tuple[Player, ...]], Refusal | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._apply = apply
        self.setWindowTitle("Players")
        self.teams = QCheckBox("Play in teams (partners share one total)")
        self.teams.setChecked(any(player.team is not None for player in players))
        self.rows = [PlayerRow(seat) for seat in range(len(players))]
        for row, player in zip(self.rows, players, strict=True):
            row.name.setText(player.name)
            row.deck.setCurrentIndex(row.deck.findData(player.deck))
            row.team.setText(player.team or "")
        grid, self._team_header = seat_grid(self.rows)
        # who left or joined under way: a deck shown twice (one who left and one who took
        # it) was said nowhere
        for seat, player in enumerate(players, start=1):
            if said := seat_note(player):
                grid.addWidget(plain_label(f"({said})"), seat, SEAT_GRID_NOTES)
        rows = QWidget()
        rows.setLayout(grid)
        # the seats scroll where the screen is short: fourteen seats (eight at the table, six
        # gone) made the dialog 808 px tall, OK and Cancel off a 768-px screen
        seats = scrolling_widget(rows)
        note = QLabel("Each seat keeps its counts in every round played.")
        note.setWordWrap(True)
        self.error = error_label()
        self.buttons = ok_cancel(self, self._on_ok)
        layout = QVBoxLayout(self)
        layout.addWidget(self.teams)
        layout.addWidget(seats, 1)
        layout.addWidget(note)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.teams.toggled.connect(self._on_teams_toggled)
        self._on_teams_toggled(self.teams.isChecked())
        # the first name takes the keys, not the teams box: a stray Space turned teams on
        self.rows[0].name.setFocus()
        fit_to_screen(self)

    def players(self) -> tuple[Player, ...]:
        teams = self.teams.isChecked()
        return tuple(row.player(teams=teams) for row in self.rows)

    def _on_teams_toggled(self, teams: bool) -> None:
        self._team_header.setVisible(teams)
        for row in self.rows:
            row.team.setVisible(teams)

    def _on_ok(self) -> None:
        players = self.players()
        if (missing := missing_teams(players, teams=self.teams.isChecked())) is not None:
            self.error.refuse(missing, at=self.rows[0].team)
            return
        refused = None if self._apply is None else self._apply(players)
        if refused is not None:
            self.error.refuse(refused.text, at=seat_at_fault(self.rows, players, refused.broken))
            return
        self.accept()
