"""The new-match dialog: 2–8 players with names and decks (shown by their back), optional teams,
target and variant. It builds the match through the core (`rules.new_match`), which explains any
broken rule; the caller stores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game import rules
from blitzcam.game.decks import DECK_NAMES
from blitzcam.game.rules import Match, MatchError, Player, Settings
from blitzcam.ui.deck_colours import back_icon, deck_label
from blitzcam.ui.dialog_parts import TargetNote, error_label, variant_box
from blitzcam.ui.number_box import NumberBox, refuse_empty
from blitzcam.ui.scrolling import SCREEN_ALLOWANCE, keep_on_screen, scrolling_rows

DEFAULT_NAMES: Final = tuple(f"Player {i}" for i in range(1, rules.MAX_PLAYERS + 1))
ICON_SIZE: Final = QSize(18, 28)  # eight rows of players fit a 768 px screen
NO_MODIFIER: Final = Qt.KeyboardModifier.NoModifier
MIN_SEATS_HEIGHT: Final = 120  # the seats' scroll area shows two rows at least


class NameField(QLineEdit):
    """A name's box. Reached by the keyboard, its text is chosen whole, as any box's, but shown
    from its start: Qt shows a chosen text's end, and a long name's first words (what tells
    "Bartholomew the Younger" from "… the Elder") went out of view."""

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        by_keys = (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason)
        if event.reason() in by_keys and self.hasSelectedText():
            self.setSelection(len(self.text()), -len(self.text()))

    def setText(self, text: str) -> None:
        """`text`, shown from its start (Qt leaves the cursor at a text's end: a long name set
        by the program showed "erald-Montgomery III")."""
        super().setText(text)
        self.setCursorPosition(0)


class PlayerRow:
    """The widgets of one seat: name, deck (with its back as icon), team."""

    def __init__(self, seat: int) -> None:
        # (a match under way can have had more seats than eight: some left, others joined)
        self.name = NameField(DEFAULT_NAMES[seat] if seat < len(DEFAULT_NAMES) else "")
        self.deck = QComboBox()
        self.deck.setIconSize(ICON_SIZE)
        for deck in DECK_NAMES:
            self.deck.addItem(back_icon(deck, 80), deck_label(deck), deck)
        self.deck.setCurrentIndex(seat % len(DECK_NAMES))
        self.team = NameField()
        self.team.setPlaceholderText("team")
        # (the grid's headers name the columns for the eye only: "edit text" said nothing)
        for box, what in ((self.name, "name"), (self.deck, "deck"), (self.team, "team")):
            box.setAccessibleName(f"Player {seat + 1}: {what}")
        # On Linux a screen reader names a combo box by its item, whatever its accessible
        # name ("Green pump" eight times): a label whose buddy it is names it there.
        self.number = QLabel(f"{seat + 1}")
        self.number.setBuddy(self.deck)
        self.number.setAccessibleName(self.deck.accessibleName())

    def player(self, *, teams: bool) -> Player:
        team = (self.team.text().strip() or None) if teams else None
        return Player(name=self.name.text().strip(), deck=self.deck.currentData(), team=team)


def seat_at_fault(
    rows: Sequence[PlayerRow], players: Sequence[Player], broken: MatchError | None
) -> QWidget | None:
    """The box of the seat whose field broke `broken`'s rule (`rows` and `players` side by
    side): its player's seat (of seats of one name, the second: the rule is broken there), or
    else the first whose field holds the text the rule names (a name that is no name); None
    where it names none."""
    if broken is None or broken.field not in ("name", "deck", "team"):
        return None
    if broken.player is not None:
        found = [row for row, p in zip(rows, players, strict=False) if p.name == broken.player]
        row = found[1] if len(found) > 1 else (found[0] if found else None)
    else:
        written = broken.written

        def holds(p: Player) -> bool:
            return (p.team if broken.field == "team" else p.name) == written

        row = next((row for row, p in zip(rows, players, strict=False) if holds(p)), None)
    return None if row is None else getattr(row, broken.field)


def seat_grid(rows: list[PlayerRow]) -> tuple[QGridLayout, QLabel]:
    """The seats under Name, Deck and Team headers, one numbered row each; and the Team
    header. Columns from `SEAT_GRID_NOTES` on are free for the caller."""
    grid = QGridLayout()
    headers = [QLabel(f"<b>{title}</b>") for title in ("Name", "Deck", "Team")]
    for col, header in enumerate(headers, start=1):
        grid.addWidget(header, 0, col)
    for seat, row in enumerate(rows, start=1):
        grid.addWidget(row.number, seat, 0)
        grid.addWidget(row.name, seat, 1)
        grid.addWidget(row.deck, seat, 2)
        grid.addWidget(row.team, seat, 3)
    return grid, headers[2]


SEAT_GRID_NOTES: Final = 4  # the seat grid's first column free for a caller's notes


def missing_teams(players: tuple[Player, ...], *, teams: bool) -> str | None:
    """Why the players cannot be taken as typed, when 'Play in teams' is ticked and every team
    field left blank: that would be a match without teams, the box ticked (some blank: the
    rules say who has none)."""
    if teams and all(player.team is None for player in players):
        return "no team given: name every player's team, or untick 'Play in teams'"
    return None


class NewMatchDialog(QDialog):
    """OK builds the match through the core; a broken rule is shown and the dialog stays open."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New match")
        self._match: Match | None = None
        self.count = NumberBox()
        self.count.setRange(rules.MIN_PLAYERS, rules.MAX_PLAYERS)
        self.count.setValue(rules.MIN_PLAYERS)
        self.teams = QCheckBox("Play in teams (partners share one total)")
        self.rows = [PlayerRow(seat) for seat in range(rules.MAX_PLAYERS)]
        grid, self._team_header = seat_grid(self.rows)
        players_box = QGroupBox("Players")
        players_layout = QVBoxLayout(players_box)
        top = QFormLayout()
        top.addRow("Number of players", self.count)
        top.addRow(self.teams)
        players_layout.addLayout(top)
        # the seats scroll when eight of them are more than the screen holds
        self._seats = scrolling_rows(grid)
        players_layout.addWidget(self._seats, 1)

        self.target_buttons = QButtonGroup(self)
        target_row = QHBoxLayout()
        for target in rules.COMMON_TARGETS:
            button = QRadioButton(str(target))
            button.setAccessibleName(f"Target {target}")  # ("75", said alone, said nothing)
            self.target_buttons.addButton(button, target)
            target_row.addWidget(button)
        self.custom = QRadioButton("custom")
        self.target_buttons.addButton(self.custom, 0)
        self.custom_target = NumberBox()
        self.custom.setAccessibleName("Target: custom")
        self.custom_target.setAccessibleName("Custom target")
        self.custom_target.setRange(1, rules.MAX_TARGET)
        self.custom_target.setValue(200)
        target_row.addWidget(self.custom)
        target_row.addWidget(self.custom_target)
        target_row.addStretch(1)
        # Tab lands on the target chosen, as on any group of radio buttons (it landed on 75
        # whichever was chosen), and the arrows go on from there
        self.target_buttons.idToggled.connect(self._tab_to_the_chosen_target)
        self.target_buttons.button(rules.DEFAULT_TARGET).setChecked(True)
        self.variant = variant_box()
        game_box = QGroupBox("Game")
        game_form = QFormLayout(game_box)
        game_form.addRow("Target", target_row)
        self.target_note = TargetNote()
        game_form.addRow(self.target_note)
        game_form.addRow("Variant", self.variant)

        self.error = error_label()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start match")
        layout = QVBoxLayout(self)
        layout.addWidget(players_box)
        layout.addWidget(game_box)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

        self.count.valueChanged.connect(self._on_layout_changed)
        self.teams.toggled.connect(self._on_layout_changed)
        self.custom.toggled.connect(self._on_layout_changed)
        self.custom.toggled.connect(self._say_target)
        self.custom_target.valueChanged.connect(self.target_note.say_later)
        self.buttons.accepted.connect(self._on_accept)
        self.buttons.rejected.connect(self.reject)
        self._on_layout_changed()

    def target(self) -> int:
        checked = self.target_buttons.checkedId()
        return self.custom_target.value() if checked == 0 else checked

    def players(self) -> tuple[Player, ...]:
        teams = self.teams.isChecked()
        return tuple(row.player(teams=teams) for row in self.rows[: self.count.value()])

    def settings(self) -> Settings:
        return Settings(target=self.target(), variant=self.variant.currentData())

    def match(self) -> Match | None:
        """The match built on OK (None before, or when the rules refused it)."""
        return self._match

    def _tab_to_the_chosen_target(self, *_: object) -> None:
        for button in self.target_buttons.buttons():
            chosen = button.isChecked()
            button.setFocusPolicy(
                Qt.FocusPolicy.StrongFocus if chosen else Qt.FocusPolicy.ClickFocus
            )

    def _say_target(self, *_: object) -> None:
        self.target_note.say_of(self.target())

    def _on_layout_changed(self, *_: object) -> None:
        shown, teams = self.count.value(), self.teams.isChecked()
        for seat, row in enumerate(self.rows):
            row.number.setVisible(seat < shown)
            row.name.setVisible(seat < shown)
            row.deck.setVisible(seat < shown)
            row.team.setVisible(seat < shown and teams)
        self._team_header.setVisible(teams)  # (over no boxes it said "Team" for nothing)
        self.custom_target.setEnabled(self.custom.isChecked())
        seats = self._seats.widget()
        seats.layout().activate()  # the rows just shown or hidden count in its size now
        scrollbar = self._seats.verticalScrollBar().sizeHint().width()
        self._seats.setMinimumWidth(seats.sizeHint().width() + scrollbar)
        # as tall as every seat needs, unless the screen is shorter: the seats scroll then
        room = self.screen().availableGeometry().height() - SCREEN_ALLOWANCE - self._around_seats()
        self._seats.setMinimumHeight(min(seats.sizeHint().height(), max(MIN_SEATS_HEIGHT, room)))
        self._fit()
        # (and once Qt has laid out the rows just hidden: a dialog with fewer seats shrinks)
        QTimer.singleShot(0, self, self._fit)

    def _fit(self) -> None:
        self.adjustSize()
        if self.isVisible():
            keep_on_screen(self)

    def _around_seats(self) -> int:
        """The dialog's height outside the seats' scroll area."""
        # (else sizes are read before the last change is laid out: 8 seats and teams ticked at
        # once make the dialog 592 px tall on a 600-px screen)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        seats = max(self._seats.sizeHint().height(), self._seats.minimumHeight())
        return max(0, self.sizeHint().height() - seats)

    def _typed_fields(self) -> list[QLineEdit]:
        """The names (and teams) shown, in the order people fill them in."""
        teams = self.teams.isChecked()
        fields = []
        for row in self.rows[: self.count.value()]:
            fields += [row.name, row.team] if teams else [row.name]
        return fields

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Enter in a name goes on to the next name: every name starts filled in ("Player 2"),
        # and the dialog's default button would start the match with them (renaming later
        # takes Match > Players…). Enter in the last one starts it.
        fields = self._typed_fields()
        focused = self.focusWidget()
        # Enter in the number of players goes on to the first name, as in a name: it started
        # the match with every seat's placeholder name
        in_count = focused is not None and self.count in (focused, focused.parentWidget())
        if (
            event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() in (NO_MODIFIER, Qt.KeyboardModifier.KeypadModifier)
            and (in_count or focused in fields[:-1])
        ):
            following = fields[0] if in_count else fields[fields.index(focused) + 1]
            following.setFocus(Qt.FocusReason.TabFocusReason)
            self._seats.ensureWidgetVisible(following)
            following.selectAll()
            event.accept()
            return
        super().keyPressEvent(event)

    def _on_accept(self) -> None:
        custom = self.target_buttons.checkedId() == 0  # (the other targets are buttons)
        boxes = [self.count, *([self.custom_target] if custom else [])]
        if refuse_empty(self.error, boxes):
            self._match = None
            return
        players = self.players()
        refused = missing_teams(players, teams=self.teams.isChecked())
        if refused is not None:
            self._match = None
            self.error.refuse(refused, at=self.rows[0].team)
            return
        try:
            self._match = rules.new_match(players, self.settings())
        except MatchError as exc:
            self._match = None
            self.error.refuse(str(exc), at=seat_at_fault(self.rows, players, exc))
            return
        self.accept()
