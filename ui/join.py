"""The dialogs for a match under way: a player joins the table (name, deck, team and the total
they start from), or one leaves it. The core (`rules.join`, `rules.leave`) says what may not be
done; these only ask.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game import rules
from blitzcam.game.match_model import new_team
from blitzcam.game.rules import Match, Player
from blitzcam.ui.dialog_parts import Refusal, error_label, ok_cancel
from blitzcam.ui.labels import plain_label
from blitzcam.ui.new_match import PlayerRow, seat_at_fault
from blitzcam.ui.number_box import NumberBox


class JoinDialog(QDialog):
    """OK hands the new player and their start to `apply` (the caller's, through the store;
    it returns why they were refused, or None); a refusal is shown and the dialog stays open."""

    def __init__(
        self,
        match: Match,
        parent: QWidget | None = None,
        *,
        apply: Callable[[Player, int], Refusal | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._apply = apply
        self._teams = match.uses_teams
        self._team_names = tuple(
            dict.fromkeys(player.team for player in match.players if player.team is not None)
        )
        self._new_team_asked: str | None = None  # a new team's name, said once: OK again takes it
        self.setWindowTitle("A player joins")
        self.row = PlayerRow(0)
        self.row.name.setText("")
        self.row.name.setPlaceholderText("name")
        # (a screen reader heard "Player 1: name", the first seat's, for a new one)
        for box, what in (
            (self.row.name, "name"),
            (self.row.deck, "deck"),
            (self.row.team, "team"),
        ):
            box.setAccessibleName(f"The player joining: {what}")
        # (the seat's number label, hidden here, still named the deck box "Player 1: deck" to a
        # reader that names a combo box by its label)
        self.row.number.setBuddy(None)
        free = rules.free_decks(match)
        if free:
            self.row.deck.setCurrentIndex(self.row.deck.findData(free[0]))
        # the decks at the table are shown as whose they are, and cannot be chosen (offered,
        # they were refused on OK in the rules' words)
        decks = self.row.deck
        for player in rules.at_table(match):
            index = decks.findData(player.deck)
            if index >= 0:
                decks.setItemText(index, f"{decks.itemText(index)} — {player.name}'s")
                decks.model().item(index).setEnabled(False)  # type: ignore[attr-defined]
        self.start = NumberBox()  # the first keystroke replaces: '-8' typed is -8, not 08
        # wider than the rules allow: `rules.join` explains a start at the target (a narrower
        # box dropped the keystroke that went over it, 80 typed became 8)
        self.start.setRange(-rules.MAX_TARGET, rules.MAX_TARGET)
        self.start.setValue(0)
        self.start.setAccessibleName("Starting total")
        lowest = rules.lowest_total(match)
        self.lowest_button = QPushButton(f"Lowest total ({lowest})")
        # (auto-default: Enter on it takes the lowest total; not auto-default, Enter was OK's and
        # the player joined from 0, as said over the button: "Lowest total (-2)". Reached by
        # Tab only: clicked, it kept the focus, and the Enter that meant OK pressed it again)
        self.lowest_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.lowest_button.clicked.connect(lambda: self.start.setValue(lowest))
        starting = QHBoxLayout()
        starting.addWidget(self.start, 1)
        starting.addWidget(self.lowest_button)
        form = QFormLayout()
        form.addRow("Name", self.row.name)
        form.addRow("Deck", self.row.deck)
        if self._teams:  # a latecomer adds to their team's total: from 0 (`rules.join`)
            completer = QCompleter(list(self._team_names), self)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            self.row.team.setCompleter(completer)
            self.row.team.setPlaceholderText(" or ".join(self._team_names))
            form.addRow("Team", self.row.team)
        else:
            form.addRow("Starts with", starting)
        self.start.setEnabled(not self._teams)
        self.lowest_button.setEnabled(not self._teams)
        # the boxes this match does not use are the dialog's all the same, hidden: left in no
        # layout they had no parent, windows of their own freed by whichever thread collected
        for unused in (self.start, self.lowest_button) if self._teams else (self.row.team,):
            unused.setParent(self)
            unused.hide()
        when = f"Plays from round {len(match.rounds) + 1} on"
        note = plain_label(
            f"{when}, adding to their team's total from 0."
            if self._teams
            else f"{when}. Tables often start a latecomer from 0 or from the lowest total."
        )
        note.setWordWrap(True)
        self.error = error_label()
        self.buttons = ok_cancel(self, self._on_ok)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def player(self) -> Player:
        return self.row.player(teams=self._teams)

    def _on_ok(self) -> None:
        if not self._teams and not self.start.hasAcceptableInput():  # '-' alone, or nothing
            self.error.refuse("Starts with: type a whole number, or press Lowest total", self.start)
            return
        player = self.player()
        if self._is_new_team_unasked(player.team):
            return
        refused = None if self._apply is None else self._apply(player, self.start.value())
        if refused is not None:
            at = seat_at_fault([self.row], [player], refused.broken)
            self.error.refuse(refused.text, at=at)
            return
        self.accept()

    def _is_new_team_unasked(self, team: str | None) -> bool:
        """A team the match does not have yet is said first, and taken on OK again: a typo
        ('Nrth') would make a team of one that plays against its own side."""
        news = new_team(self._team_names, team)
        if news is None or team == self._new_team_asked:
            return False
        if news.meant is not None:  # ('n' for N: "OK again to start it" led to the rules' refusal)
            self.error.refuse(f"{team}: did you mean {news.meant}?", at=self.row.team)
            return True
        self._new_team_asked = team
        self.error.refuse(
            f"{team} is a new team (this match has {', '.join(self._team_names)}): OK again "
            "to start it",
            at=self.row.team,
        )
        return True
