"""Changes to the open match made from the window's menus (its settings, its players and seats,
a round deleted) and undo and redo of them and of rounds: each made through the store, whose
rules refuse a broken match before anything is written, and said in the status line.

The window owns the match shown and its news; this keeps what may be undone and redone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from PySide6.QtWidgets import QComboBox, QDialog, QInputDialog, QLabel

from blitzcam.game import rules
from blitzcam.game.names import looks_as
from blitzcam.game.rules import Match, MatchError
from blitzcam.game.store import StaleMatchError, StoreError
from blitzcam.game.text import (
    isolated,
    listed,
    played_no_round,
    round_counts,
    seat_changes,
    taken_off_said,
)
from blitzcam.ui.dialog_parts import Refusal, open_once
from blitzcam.ui.join import JoinDialog
from blitzcam.ui.players import PlayersDialog
from blitzcam.ui.settings import MatchSettingsDialog
from blitzcam.ui.status_bar import BRIEF_MS, LONGER_MS, NEWS_MS
from blitzcam.ui.undo_history import Change, MatchHistory
from blitzcam.ui.window_part import WindowPart

if TYPE_CHECKING:
    from blitzcam.ui.main_window import MainWindow

NOBODY_CHOSEN: Final = "(choose a player)"  # what a leave or a return asks first


class MatchChanges(WindowPart):
    """The open match's changes from the menus, and its undo and redo."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._undone = MatchHistory()  # rounds and changes undone, which redo may bring back
        self._changes = MatchHistory()  # changes made here other than rounds added: undoable

    def last_change(self) -> Change | None:
        """The open match's last change made here, if the match is still as it left it."""
        if self._match_id is None:
            return None
        return self._changes.last(self._match_id, self._match)

    def forget(self, match_id: int) -> None:
        """A match deleted: nothing of it to undo or redo."""
        self._undone.forget(match_id)
        self._changes.forget(match_id)

    def forget_undone(self, match_id: int) -> None:
        """A round of the user's own added: the match cannot come back to the state an undo
        left while it stays on top, so its undone rounds and changes go."""
        self._undone.forget(match_id)

    @property
    def undone_count(self) -> int:
        return len(self._undone)

    def undo(self) -> None:
        if self._match_id is None:
            return
        change = self._changes.last(self._match_id, self._match)
        if change is not None:  # (after an edit of round 1, Ctrl+Z deleted the last round)
            self._undo_change(change)
            return
        before = self._match
        try:
            match = self._store.undo_last_round(self._match_id, expect=self._match)
        except (MatchError, StoreError) as exc:
            self._say(self._window.why_refused(exc), NEWS_MS)
            return
        if before is not None:  # redo puts the match back whole: a leave after the round too
            self._undone.push(Change(self._match_id, None, before, match))
        self._window.show_match(self._match_id, match)
        seats = seat_changes(before, match) if before is not None else ""
        # (through the window's news: undoing the round that decided the match says it is no
        # longer decided, and the next round saved says nothing of it)
        self._window.say_done(
            f"Round {len(match.rounds) + 1} undone{seats} (Ctrl+Shift+Z brings it back)", NEWS_MS
        )

    def _undo_change(self, change: Change) -> None:
        """Put the open match back as it was before `change`."""
        try:
            match = self._store.update(
                self._match_id, lambda _: rules.checked(change.before), expect=self._match
            )
        except (MatchError, StoreError) as exc:
            self._say(f"Could not undo {change.what}: {self._window.why_refused(exc)}", NEWS_MS)
            return
        self._changes.take(change)
        self._undone.push(Change(self._match_id, change.what, change.after, match))
        self._window.show_match(self._match_id, match)
        self._window.say_done(f"Undone: {change.what} (Ctrl+Shift+Z brings it back)", NEWS_MS)

    def record(self, what: str, before: Match | None, after: Match) -> None:
        """A change made here to the open match, which undo may take back."""
        if before is not None and self._match_id is not None:
            self._changes.push(Change(self._match_id, what, before, after))

    def redoable(self) -> Change | None:
        """The open match's last undo, if the match is still as that undo left it."""
        if self._match_id is None:
            return None
        return self._undone.last(self._match_id, self._match)

    def redo(self) -> None:
        undone = self.redoable()
        if undone is None or self._window.scan is not None:
            return
        before = undone.before
        try:
            match = self._store.update(
                self._match_id, lambda _: rules.checked(before), expect=self._match
            )
        except (MatchError, StoreError) as exc:
            # kept: a passing failure ("database is locked") may be tried again
            not_done = (
                "Round not brought back" if undone.what is None else f"Could not redo {undone.what}"
            )
            self._say(f"{not_done}: {self._window.why_refused(exc)}", NEWS_MS)
            self._window.update_actions()
            return
        self._undone.take(undone)
        left = self._match
        if undone.what is not None:  # a change: undoable again
            self.record(undone.what, left, match)
        self._window.show_match(self._match_id, match)
        if undone.what is not None:
            self._window.say_done(f"Made again: {undone.what}", NEWS_MS)
            return
        seats = seat_changes(left, match) if left is not None else ""
        self._window.say_done(f"Round {len(match.rounds)} brought back{seats}", NEWS_MS)

    def delete_round(self) -> None:
        """Delete the round chosen in the table, once the players say so (a round entered twice
        in the middle of a match: undo reaches only the last one)."""
        if self._match is None or self._window.scan is not None or self._window.confirm is not None:
            return
        number = self._window.scoreboard.table.current_round()
        if number is None:
            self._say("Choose the round to delete in the table first", BRIEF_MS)
            return
        # (each name isolated: a right-to-left name drew its neighbour's counts beside it)
        said = round_counts(self._match.rounds[number - 1], name=isolated)
        try:
            without = rules.delete_round(self._match, number)
        except MatchError as exc:  # refused: said now, not after a question
            self._say(f"Round not deleted: {self._window.why_refused(exc)}", NEWS_MS)
            return
        gone = rules.taken_off(self._match, without)
        last = number == len(self._match.rounds)
        with_them = (
            f" {listed([isolated(name) for name in gone])} played only that round: taken off the "
            "match with it "
            "(seat, deck and start)."
            if gone
            else ""
        )
        # (the last round deleted puts back at the table whoever left after it, as its undo)
        if seats := seat_changes(self._match, without).removeprefix("; ").replace("; ", ", "):
            with_them += f" With it: {seats}."
        asked_of = self._match  # (the match the question named round `number` of)
        move_up = "" if last else " The rounds after it move up."
        if not self._window.asked(
            f"Delete round {number}",
            f"Delete round {number} ({said})?{move_up}{with_them} Undo (Ctrl+Z) brings it back "
            "while this window stays open.",
        ):
            return
        before = asked_of
        try:
            # as asked: a match drawn again meanwhile (the window activated during the question,
            # its match changed elsewhere) may have another round `number`
            match = self._store.delete_round(self._match_id, number, expect=asked_of)
        except (MatchError, StoreError) as exc:
            self._say(f"Round not deleted: {self._window.why_refused(exc)}", NEWS_MS)
            return
        gone = rules.taken_off(before, match)
        self.record(f"round {number}'s deletion", before, match)
        self._window.show_match(self._match_id, match)
        moved = "" if number > len(match.rounds) else "; the rounds after it moved up"
        also = seat_changes(before, match) + (f"; {taken_off_said(gone)}" if gone else "")
        self._window.say_done(f"Round {number} deleted{moved}{also}", NEWS_MS)

    def open_match_settings(self) -> None:
        if self._match is None:
            return
        dialog = MatchSettingsDialog(
            self._match.settings,
            self._window,
            apply=lambda s: self.settings_refused(s, within=dialog),
        )
        open_once(dialog)

    def apply_match_settings(self, settings: rules.Settings) -> bool:
        refused = self.settings_refused(settings)
        if refused is not None:
            self._say(refused, NEWS_MS)
        return refused is None

    def settings_refused(
        self, settings: rules.Settings, *, within: QDialog | None = None
    ) -> str | None:
        """Apply `settings` to the open match through the store; why not, if refused."""
        if self._match is not None and settings == self._match.settings:  # (said "changed")
            self._say("Nothing changed: the settings are as they were", BRIEF_MS)
            return None
        refused = self._change_refused(
            "Settings",
            lambda: self._store.change_settings(self._match_id, settings, expect=self._match),
            within=within,
        )
        return None if refused is None else refused.text

    def _change_refused(
        self,
        what: str,
        change: Callable[[], Match],
        *,
        within: QDialog | None = None,
        not_done: str | None = None,
        said_by_caller: bool = False,
        undone_as: str | None = None,
    ) -> Refusal | None:
        """Make a store change to the open match and show it; why not, if refused (with the
        rule it broke, when it was one: the dialog's box at fault takes the focus). A change
        refused because the match changed elsewhere closes the dialog it came from (`within`):
        what it shows was read from the match before, and OK again would have saved that over
        the other change (the version checked is the reloaded one). `not_done`: how a
        refusal begins (default "<what> not changed"); `said_by_caller`: what it did is said
        by the caller, not as "<what> changed" (a screen reader was told both); `undone_as`:
        the change in undo's words ("Bob's leaving"; default: "the change of <what>")."""
        before = self._match
        try:
            match = change()
        except (MatchError, StoreError) as exc:
            refused = f"{not_done or what + ' not changed'}: {self._window.why_refused(exc)}"
            if within is not None and isinstance(exc, StaleMatchError):
                within.reject()
                self._say(
                    f"{refused} Open it again to make the change on the match as it is now.",
                    LONGER_MS,
                )
            return Refusal(refused, exc if isinstance(exc, MatchError) else None)
        self.record(undone_as or f"the change of {what.lower()}", before, match)
        self._window.show_match(self._match_id, match)
        if not said_by_caller:
            self._window.say_done(f"{what} changed")  # (the last message was stale)
        return None

    def open_players(self) -> None:
        if self._match is None or self._window.scan is not None:
            return
        dialog = PlayersDialog(
            self._match.players,
            self._window,
            apply=lambda p: self.players_refused(p, within=dialog),
        )
        open_once(dialog)

    def open_join(self) -> None:
        if self._match is None or self._window.scan is not None:
            return
        dialog = JoinDialog(
            self._match,
            self._window,
            apply=lambda p, start: self.join_refused(p, start, within=dialog),
        )
        open_once(dialog)

    def join_refused(
        self, player: rules.Player, start: int, *, within: QDialog | None = None
    ) -> Refusal | None:
        """Seat `player` from the next round on through the store; why not, if refused."""
        refused = self._change_refused(
            "Players",
            lambda: self._store.join(self._match_id, player, start=start, expect=self._match),
            within=within,
            # (a blank name: " not seated: player name '' must be…", naming nobody)
            not_done=f"{player.name} not seated" if looks_as(player.name).strip() else "Not seated",
            said_by_caller=True,  # (said below: else "Players changed" too)
            undone_as=f"{player.name}'s joining",
        )
        if refused is None and self._match is not None:
            self._say(f"{player.name} plays from round {len(self._match.rounds) + 1} on", NEWS_MS)
        return refused

    def leave(self) -> None:
        if self._match is None or self._window.scan is not None:
            return
        self._seat_change(
            [player.name for player in rules.may_leave(self._match)],
            "A player leaves",
            "Who leaves the table? Their total stays on the board, out of the running; the next "
            "rounds are played without them.",
            self._store.leave,
            "{} has left the table",
            "{}'s leaving",
        )

    def come_back(self) -> None:
        if self._match is None or self._window.scan is not None:
            return
        self._seat_change(
            [player.name for player in rules.can_come_back(self._match)],
            "A player comes back",
            "Who comes back to the table? They take their seat, deck and total again from the "
            "next round; the rounds played without them are sat out.",
            self._store.come_back,
            "{} is back at the table",
            "{}'s coming back",
        )

    def _seat_change(
        self,
        names: list[str],
        title: str,
        question: str,
        change: Callable[..., Match],
        done: str,
        undone: str,
    ) -> None:
        """Ask which of `names` leaves or comes back, and have the store `change` their seat
        (`done`, `undone`: what it did, and undo's words for it, of the name)."""
        if not names:
            return
        ask = QInputDialog(self._window)
        ask.setWindowTitle(title)
        ask.setLabelText(question)
        for label in ask.findChildren(QLabel):  # (one line 1000 px wide)
            label.setWordWrap(True)
        # nobody chosen at first: with the first player chosen, Ctrl+L then Enter sent them away
        ask.setComboBoxItems([NOBODY_CHOSEN, *names])
        ask.setComboBoxEditable(False)
        for box in ask.findChildren(QComboBox):  # (a screen reader said its item, not what for)
            box.setAccessibleName(question.partition("?")[0] + "?")  # "Who leaves the table?"
        try:
            if self._window.exec_dialog(ask) != QDialog.DialogCode.Accepted:
                return
            # by its place in the list, not its text: a player may be named "(choose a player)"
            choice = ask.findChild(QComboBox)
            chosen = choice.currentIndex() if choice is not None else -1
        finally:
            # (a child of the window: else each one asked stays alive until the window goes)
            ask.deleteLater()
        if chosen < 1:
            self._say(f"{title}: nobody was chosen, nothing changed", NEWS_MS)
            return
        name = names[chosen - 1]
        before = self._match
        refused = self._change_refused(
            "Players",
            lambda: change(self._match_id, name, expect=self._match),
            said_by_caller=True,
            undone_as=undone.format(name),
        )
        said = done.format(name)
        if (
            refused is None
            and before is not None
            and self._match is not None
            and rules.taken_off(before, self._match)
        ):
            said = played_no_round(name)  # not left with a total
        if refused is None:
            self._window.say_done(said, LONGER_MS)
        else:
            self._say(refused.text, LONGER_MS)

    def players_refused(
        self, players: tuple[rules.Player, ...], *, within: QDialog | None = None
    ) -> Refusal | None:
        """Give the open match's seats these players through the store; why not, if refused."""
        if self._match is not None and _unchanged(
            lambda: rules.change_players(self._match, players), self._match
        ):
            # (OK on the dialog as it opened: not "Players changed")
            self._say("Nothing changed: the players are as they were", BRIEF_MS)
            return None
        return self._change_refused(
            "Players",
            lambda: self._store.change_players(self._match_id, players, expect=self._match),
            within=within,
        )


def _unchanged(change: Callable[[], Match], match: Match) -> bool:
    """Whether `change` leaves `match` as it is (False where the rules refuse it: the store
    then says why)."""
    try:
        return change() == match
    except MatchError:
        return False
