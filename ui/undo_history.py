"""What undo and redo may take back and bring back, kept per match, with no Qt.

Undo takes back the last change made in this window (a round edited or deleted, the players
or the settings changed, a player joining, leaving or coming back: `ChangeHistory`) while the
match is as that change left it, and else the match's last round (a round added is undone so,
in this window or after a restart). Each undo is recorded (`UndoHistory`) for redo. A change
comes back only onto the match as its undo left it: any other change since (a round entered,
a player renamed, a change made in another window) and it is not offered, since it would be
put back onto rounds it was never played after.
"""

from __future__ import annotations

from dataclasses import dataclass

from blitzcam.game.rules import Match


@dataclass(frozen=True, slots=True)
class Undone:
    """One undo: the match it was of, the match as it left it, and the match before it; `what`:
    the change it took back, in words ("round 2's edit"), None for the last round."""

    match_id: int
    left: Match
    before: Match
    what: str | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """A change made in this window: the match it was of, what it was in words ("round 2's
    edit", "Bob's leaving": said after "Undo "), the match before it and as it left it."""

    match_id: int
    what: str
    before: Match
    after: Match


class ChangeHistory:
    """Changes made in this window, the last on top; several matches' interleaved."""

    def __init__(self) -> None:
        self._changes: list[Change] = []

    def push(self, change: Change) -> None:
        if change.before != change.after:  # (one that changed nothing has nothing to undo)
            self._changes.append(change)

    def undoable(self, match_id: int, current: Match | None) -> Change | None:
        """The last change of `match_id`, if the match is `current` as it left it (a round added
        since is undone first, as the last round; then the change is the match's last again)."""
        for change in reversed(self._changes):
            if change.match_id == match_id:
                return change if change.after == current else None
        return None

    def take(self, change: Change) -> None:
        """`change` undone: no longer offered (redo gives it back). Taken by identity: one
        equal to it made before (Bob left, came back, left again) is another change."""
        for at in range(len(self._changes) - 1, -1, -1):
            if self._changes[at] is change:
                del self._changes[at]
                return

    def forget(self, match_id: int) -> None:
        """Every change of `match_id` (the match deleted)."""
        self._changes = [change for change in self._changes if change.match_id != match_id]


class UndoHistory:
    """Undos, the last on top; several matches' interleaved (each keeps its own order)."""

    def __init__(self) -> None:
        self._undone: list[Undone] = []

    def __len__(self) -> int:
        return len(self._undone)

    def push(self, match_id: int, *, left: Match, before: Match, what: str | None = None) -> None:
        """An undo of `match_id`'s last round, or of the change `what`: `before` is the match
        it undid, `left` what it left (redo puts `before` back whole: a player who left after
        the round too)."""
        self._undone.append(Undone(match_id, left, before, what))

    def redoable(self, match_id: int, current: Match | None) -> Undone | None:
        """The last undo of `match_id`, if the match is `current` as that undo left it
        (another match's undo on top does not hide it)."""
        at = self._last(match_id, current)
        return None if at is None else self._undone[at]

    def take(self, match_id: int, current: Match | None) -> None:
        """The last undo of `match_id` brought back: no longer offered."""
        at = self._last(match_id, current)
        if at is not None:
            del self._undone[at]

    def forget(self, match_id: int) -> None:
        """Every undo of `match_id` (a round of the user's own put on top, or the match
        deleted): none of them can come back."""
        self._undone = [entry for entry in self._undone if entry.match_id != match_id]

    def _last(self, match_id: int, current: Match | None) -> int | None:
        for at in range(len(self._undone) - 1, -1, -1):
            if self._undone[at].match_id == match_id:
                return at if self._undone[at].left == current else None
        return None
