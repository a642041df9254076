"""What undo and redo may take back and bring back, kept per match, with no Qt.

Undo takes back the last change made in this window (a round edited or deleted, the players
or the settings changed, a player joining, leaving or coming back) while the match is as that
change left it, and else the match's last round (a round added is undone so, in this window or
after a restart). Each undo is kept in turn for redo. Both are one kind of record in one kind
of history (`MatchHistory`): a match before and as something left it, offered only while the
match is as it left it. A change comes back only onto the match as its undo left it: any
other change since (a round entered, a player renamed, a change made in another window) and
it is not offered, since it would be put back onto rounds it was never played after.
"""

from __future__ import annotations

from dataclasses import dataclass

from blitzcam.game.rules import Match


@dataclass(frozen=True, slots=True)
class Change:
    """A change of a match, or an undo of one: the match it was of, what it was in words
    ("round 2's edit", "Bob's leaving": said after "Undo "; None for an undo of the last
    round), the match before it, and the match as it left it."""

    match_id: int
    what: str | None
    before: Match
    after: Match


class MatchHistory:
    """Changes (or undos), the last on top; several matches' interleaved (each keeps its own
    order)."""

    def __init__(self) -> None:
        self._changes: list[Change] = []

    def __len__(self) -> int:
        return len(self._changes)

    def push(self, change: Change) -> None:
        if change.before != change.after:  # (one that changed nothing has nothing to undo)
            self._changes.append(change)

    def last(self, match_id: int, current: Match | None) -> Change | None:
        """The last change of `match_id`, if the match is `current` as it left it (another
        match's on top does not hide it; a round added since is undone first, as the last
        round, and then the change is the match's last again)."""
        for change in reversed(self._changes):
            if change.match_id == match_id:
                return change if change.after == current else None
        return None

    def take(self, change: Change) -> None:
        """`change` taken back (or brought back): no longer offered. Taken by identity: one
        equal to it made before (Bob left, came back, left again) is another change."""
        for at in range(len(self._changes) - 1, -1, -1):
            if self._changes[at] is change:
                del self._changes[at]
                return

    def forget(self, match_id: int) -> None:
        """Every change of `match_id` (a round of the user's own put on top of undone ones,
        or the match deleted)."""
        self._changes = [change for change in self._changes if change.match_id != match_id]
