"""ui/action_states.py: what the window's actions may do now, from the match alone (no Qt)."""

from __future__ import annotations

import dataclasses

import pytest

from blitzcam.game import rules
from blitzcam.game.rules import Player
from blitzcam.ui.action_states import action_states, undo_refused
from tests.ui.fakes import match_of, round_of

R1 = round_of(Ann=(10, 0), Bob=(8, 1), Cy=(5, 3))


def test_with_no_match_open_only_what_needs_none() -> None:
    states = action_states(None, scanning=False, redoable=False)
    assert states.elsewhere and not any(
        getattr(states, f.name) for f in dataclasses.fields(states) if f.name not in ("elsewhere", "undo_refused")
    )
    assert states.undo_refused == "no round to undo"


@pytest.mark.parametrize(
    ("scanning", "expected"),
    [
        (False, {"enter_round", "join", "leave", "undo", "redo", "delete_round", "of_the_match", "elsewhere"}),
        (True, set()),  # a scan open: every action waits for it
    ],
)
def test_a_match_under_way(scanning: bool, expected: set[str]) -> None:
    states = action_states(match_of(R1), scanning=scanning, redoable=True)
    allowed = {f.name for f in dataclasses.fields(states) if getattr(states, f.name) is True}
    assert allowed == expected and states.undo_refused is None


def test_a_decided_match_takes_no_round_and_undo_says_why_not_when_it_cannot() -> None:
    decided = match_of(round_of(Ann=(40, 0), Bob=(8, 1), Cy=(5, 3)), target=30)
    states = action_states(decided, scanning=False, redoable=False)
    assert not states.enter_round and states.undo and states.delete_round
    # a latecomer seated after the last round: the round cannot be undone under them
    joined = rules.join(match_of(R1), Player("Di", "red-plow"))
    # (who blocks it said: "joined after round 1, the last" named nobody)
    assert undo_refused(joined).startswith("player Di: joined after round 1")
    states = action_states(joined, scanning=False, redoable=False)
    assert not states.undo and states.undo_refused == undo_refused(joined)
    assert undo_refused(match_of(R1)) is None


def test_why_an_action_is_refused_is_said_from_the_match_alone() -> None:
    from blitzcam.ui.action_states import PLAY_ON, why_not

    assert why_not("join", None, scanning=False).startswith("no match is open")
    four = match_of(round_of(Ann=(10, 0), Bob=(8, 1), Cy=(5, 3), Di=(1, 1)), n=4, target=30)
    assert why_not("leave", four, scanning=True).startswith("not while a round is scanned")
    decided = rules.change_settings(four, rules.Settings(target=10))
    assert why_not("enter_round", decided, scanning=False) == PLAY_ON
    assert why_not("join", decided, scanning=False) == "the match is decided"
    # (the window said "2 must stay at the table" here; review)
    assert why_not("leave", decided, scanning=False) == (
        "nobody may leave now: the match is decided: only a player yet to play may leave it"
    )
    assert why_not("undo", four, scanning=False, undo_refused="player Di: joined") == (
        "not now, player Di: joined"
    )
    assert why_not("delete_round", match_of(n=2), scanning=False) == "no round yet"
    # (a leave undone, then dropped by a change since, was "no round undone"; review)
    assert why_not("redo", four, scanning=False) == "nothing undone to bring back"
    assert why_not("other", four, scanning=False) == "not now"
