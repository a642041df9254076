"""Which of the window's actions the rules allow now, and why one does not: worked out from
the match alone, with no Qt (the window only applies them and says them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from blitzcam.game import rules
from blitzcam.game.rules import Match, MatchError

PLAY_ON: Final = (
    "the match is decided; to play on, raise the target (Match › Match settings…, Ctrl+T)"
)
# the actions whose refusal has reasons of its own ("other": "not now")
ActionKind = Literal[
    "enter_round", "undo", "redo", "delete_round", "join", "leave", "come_back", "other"
]


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


def why_not(
    kind: ActionKind, match: Match | None, *, scanning: bool, undo_refused: str | None = None
) -> str:
    """Why an action of `kind` may not be taken now, in words (said after its name):
    `undo_refused` as `ActionStates` has it. The rules' reasons, not the window's own ("2 must
    stay at the table" is wrong of a decided match with four at it)."""
    if scanning:
        return "not while a round is scanned (Esc leaves the scan)"
    if match is None:
        return "no match is open (Ctrl+N starts one, Ctrl+O opens one)"
    standings = rules.score_match(match)
    decided = standings.status != "in-progress"
    if kind == "undo" and undo_refused is not None:
        return f"not now, {undo_refused}"
    if kind == "enter_round" and decided:
        return PLAY_ON
    if kind == "redo":
        return "nothing undone to bring back"
    if kind == "delete_round" and not match.rounds:
        return "no round yet"
    if kind in ("join", "come_back") and decided:
        return "the match is decided"
    if kind == "join":
        return f"every seat is taken ({rules.MAX_PLAYERS} players at the table)"
    if kind == "leave":
        return f"nobody may leave now: {rules.why_nobody_may_leave(match, standings)}"
    if kind == "come_back":
        return rules.why_nobody_comes_back(match, standings)
    return "not now"
