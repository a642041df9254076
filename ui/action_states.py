"""Which of the window's actions the rules allow now, and why undo does not: worked out from
the match alone, with no Qt (the window only applies them)."""

from __future__ import annotations

from dataclasses import dataclass

from blitzcam.game import rules
from blitzcam.game.rules import Match, MatchError


@dataclass(frozen=True, slots=True)
class ActionStates:
    """What may be done now. `undo_refused`: why undo may not (None when it may)."""

    enter_round: bool  # scan a round, or enter one by hand
    join: bool
    leave: bool
    come_back: bool
    undo: bool
    undo_refused: str | None
    redo: bool
    delete_round: bool
    of_the_match: bool  # its settings, its players, its export
    elsewhere: bool  # a new match, the browser, enrolling, the settings


def action_states(match: Match | None, *, scanning: bool, redoable: bool) -> ActionStates:
    """The actions allowed on `match` (None: none open) while a scan is open or not;
    `redoable`: an undone round of it can come back."""
    standings = rules.score_match(match) if match is not None else None
    free = not scanning and match is not None and standings is not None
    refused = undo_refused(match) if match is not None and match.rounds else "no round to undo"
    return ActionStates(
        enter_round=standings is not None and standings.status == "in-progress" and not scanning,
        join=free and rules.can_join(match, standings),
        leave=free and rules.can_leave(match, standings),
        come_back=free and bool(rules.can_come_back(match, standings)),
        # (a latecomer seated after the last round: Ctrl+Z could only say no)
        undo=refused is None and not scanning,
        undo_refused=refused,
        redo=redoable and not scanning,
        delete_round=match is not None and bool(match.rounds) and not scanning,
        of_the_match=match is not None and not scanning,
        elsewhere=not scanning,
    )


def undo_refused(match: Match) -> str | None:
    """Why the rules would refuse to undo `match`'s last round now (None: they would not)."""
    try:
        rules.delete_round(match, rules.last_round(match))
    except MatchError as exc:  # (said whole: "player Di: joined after round 1, ...")
        return str(exc)
    return None
