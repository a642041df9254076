"""Rounds undone, which redo may bring back: a record of each undo, kept per match, with no Qt.

A round comes back only onto the match as its undo left it: any other change since (a round
entered, a player renamed, a change made in another window) and it is not offered, since it
would be put back onto rounds it was never played after.
"""

from __future__ import annotations

from dataclasses import dataclass

from blitzcam.game.rules import Match


@dataclass(frozen=True, slots=True)
class Undone:
    """One undo: the match it was of, the match as it left it, and the match before it."""

    match_id: int
    left: Match
    before: Match


class UndoHistory:
    """Undos, the last on top; several matches' interleaved (each keeps its own order)."""

    def __init__(self) -> None:
        self._undone: list[Undone] = []

    def __len__(self) -> int:
        return len(self._undone)

    def push(self, match_id: int, *, left: Match, before: Match) -> None:
        """An undo of `match_id`'s last round: `before` is the match it undid, `left` what it
        left (redo puts `before` back whole: a player who left after the round too)."""
        self._undone.append(Undone(match_id, left, before))

    def redoable(self, match_id: int, current: Match | None) -> Match | None:
        """The match `match_id` was before its last undo, if it is `current` as that undo left
        it (another match's undo on top does not hide it)."""
        at = self._last(match_id, current)
        return None if at is None else self._undone[at].before

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
