"""Players who join or leave a match under way: who plays which round, totals, the running."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from blitzcam.game import rules
from blitzcam.game.match_file import match_from_json, match_to_json, score_sheet_csv
from blitzcam.game.rules import (
    Match,
    MatchError,
    Player,
    add_round,
    at_table,
    delete_round,
    join,
    leave,
    score_match,
)
from blitzcam.game.text import standings_table
from tests.game.factories import match_of, round_of

CY = Player("Cy", "blue-plow")


def _two_rounds() -> Match:
    return match_of(round_of(Ann=(12, 0), Bob=(5, 2)), round_of(Ann=(3, 4), Bob=(9, 0)))


def test_the_lowest_total_is_of_the_players_still_at_the_table() -> None:
    # (a latecomer offered -10, the total of one who had left; review)
    match = match_of(round_of(Ann=(12, 0), Bob=(5, 0), Cy=(0, 5)), n=3)  # Cy at -10
    assert rules.lowest_total(match) == -10
    assert rules.lowest_total(leave(match, "Cy")) == 5


def test_a_player_who_joins_plays_from_the_next_round_from_their_start() -> None:
    match = _two_rounds()  # Ann 7, Bob 10
    assert rules.lowest_total(match) == 7
    joined = join(match, CY, start=rules.lowest_total(match))
    assert [p.name for p in at_table(joined)] == ["Ann", "Bob", "Cy"]
    assert joined.players[2] == Player("Cy", "blue-plow", joined=2, start=7)
    with pytest.raises(MatchError, match="round 3, player Cy: missing from the round"):
        add_round(joined, round_of(Ann=(1, 0), Bob=(1, 1)))
    played = add_round(joined, round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    standings = score_match(played)
    assert dict(standings.totals) == {"Ann": 8, "Bob": 9, "Cy": 13}
    assert [dict(t) for t in standings.running_totals] == [
        {"Ann": 12, "Bob": 1}, {"Ann": 7, "Bob": 10}, {"Ann": 8, "Bob": 9, "Cy": 13},
    ]  # fmt: skip
    assert dict(standings.round_scores[2]) == {"Ann": 1, "Bob": -1, "Cy": 6}
    assert standings.leaders == ("Cy",)


def test_a_round_before_a_player_joined_holds_no_tally_of_theirs() -> None:
    joined = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    with pytest.raises(MatchError, match=r"round 1, player Cy: not playing in this round "
                                         r"\(joined after round 2\)"):  # fmt: skip
        rules.edit_round(joined, 1, {"Cy": rules.Tally(3, 0)})


def test_a_player_who_leaves_keeps_their_total_out_of_the_running() -> None:
    three = leave(join(_two_rounds(), CY), "Bob")  # Bob leads with 10
    assert three.players[1].left == 2 and [p.name for p in at_table(three)] == ["Ann", "Cy"]
    assert score_match(three).leaders == ("Ann",)  # Bob's 10 is out of the running
    with pytest.raises(MatchError, match=r"round 3, player Bob: not playing in this round "
                                         r"\(left after round 2\)"):  # fmt: skip
        add_round(three, round_of(Ann=(1, 0), Bob=(2, 0), Cy=(3, 1)))
    # Ann reaches the target and wins; Bob, gone, no longer counts for it
    won = add_round(
        rules.change_settings(three, rules.Settings(target=13)), round_of(Ann=(6, 0), Cy=(3, 1))
    )
    standings = score_match(won)
    assert standings.status == "won" and standings.winners == ("Ann",)
    assert dict(standings.totals) == {"Ann": 13, "Bob": 10, "Cy": 1}


def test_the_table_keeps_two_players() -> None:
    match = _two_rounds()
    with pytest.raises(MatchError, match="cannot leave: 2 must stay at the table, and 1 would"):
        leave(match, "Bob")


def test_a_player_who_played_no_round_is_taken_off_when_they_leave() -> None:
    match = join(_two_rounds(), CY)
    assert leave(match, "Cy") == _two_rounds()


def test_a_leaver_s_deck_can_go_to_one_who_joins_but_not_a_deck_at_the_table() -> None:
    three = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    with pytest.raises(MatchError, match="deck red-buggy is already played by Bob"):
        join(three, Player("Di", "red-buggy"))
    handed = join(leave(three, "Bob"), Player("Di", "red-buggy"))
    assert [p.name for p in at_table(handed)] == ["Ann", "Cy", "Di"]
    # and Bob's rounds keep their deck: the earlier rounds' tallies are his, not Di's
    assert score_match(handed).totals["Bob"] == 9 and score_match(handed).totals["Di"] == 0


def test_a_leaver_s_deck_refused_to_one_who_played_beside_them_says_why() -> None:
    # (it said Bob "is already played by" a deck after Bob had left, its reason unsaid)
    three = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    left = leave(three, "Bob")
    with pytest.raises(MatchError) as refused:
        rules.change_player(left, "Cy", deck="red-buggy")
    assert str(refused.value) == (
        "player Cy: deck red-buggy was Bob's in rounds Cy played too (Bob has left; a player's "
        "deck is theirs in every round they play)"
    )
    assert (refused.value.player, refused.value.field) == ("Cy", "deck")


@pytest.mark.parametrize("change", [lambda m: join(m, CY), lambda m: leave(m, "Bob")])
def test_nobody_joins_or_leaves_a_decided_match(change) -> None:
    decided = match_of(round_of(Ann=(40, 0), Bob=(5, 2)), target=30)
    with pytest.raises(MatchError, match="the match is decided"):
        change(decided)


def test_leaving_twice_or_a_stranger_leaving_is_refused() -> None:
    match = join(leave(join(_two_rounds(), CY), "Bob"), Player("Di", "red-buggy"))
    with pytest.raises(MatchError, match="player Bob: already left, after round 2"):
        leave(match, "Bob")
    with pytest.raises(MatchError, match="player Zed: not a player in this match"):
        leave(match, "Zed")


def test_deleting_a_round_moves_who_joined_or_left_after_it() -> None:
    match = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    match = add_round(leave(match, "Bob"), round_of(Ann=(2, 0), Cy=(0, 3)))
    after = delete_round(match, 1)
    assert [(p.name, p.joined, p.left) for p in after.players] == [
        ("Ann", 0, None), ("Bob", 0, 2), ("Cy", 1, None),
    ]  # fmt: skip
    assert score_match(after).totals["Cy"] == 0  # 6 - 6
    assert delete_round(match, 3).players[1].left == 2  # Bob's last round gone: he left after 2
    # a player whose only round is deleted has played none: off the match
    once = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    later = add_round(leave(once, "Cy"), round_of(Ann=(2, 0), Bob=(0, 1)))
    assert [p.name for p in delete_round(later, 3).players] == ["Ann", "Bob"]


def test_the_last_round_taken_back_can_be_entered_again_as_it_was_played() -> None:
    # (an undo) a player who left after it is back at the table: they played it
    once = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    undone = delete_round(leave(once, "Cy"), 3)
    assert undone.players[2] == Player("Cy", "blue-plow", joined=2)
    assert add_round(undone, once.rounds[2]) == once
    # one who joined after it would have to play it: taken back only once they have left
    joined = join(once, Player("Di", "yellow-bucket"))
    with pytest.raises(MatchError, match="player Di: joined after round 3, the last"):
        delete_round(joined, 3)
    assert delete_round(leave(joined, "Di"), 3) == delete_round(once, 3)


def test_team_totals_count_every_member_and_a_team_at_the_table_contends() -> None:
    match = match_of(
        round_of(Ann=(10, 0), Bob=(2, 1), Cy=(4, 0), Di=(1, 2)), n=4, teams=("N", "S", "N", "S")
    )  # N 14, S -3
    joined = join(match, Player("Ed", "blue-pump", "S"))
    standings = score_match(joined)
    assert dict(standings.team_totals or {}) == {"N": 14, "S": -3}
    assert standings.team_running_totals is not None
    assert [dict(t) for t in standings.team_running_totals] == [{"N": 14, "S": -3}]
    assert standings.contenders == ("N", "S")
    # a start would be a gift to the team: a latecomer to a team starts from 0
    with pytest.raises(MatchError, match="player Ed: starts from 0 in a team match"):
        join(match, Player("Ed", "blue-pump", "S"), start=-3)
    with pytest.raises(MatchError, match="player Ed: a team match: give their team"):
        join(match, Player("Ed", "blue-pump"))
    with pytest.raises(MatchError, match="player Cy: this match has no teams"):
        join(_two_rounds(), Player("Cy", "blue-plow", "N"))


def test_a_start_at_the_target_is_refused() -> None:
    with pytest.raises(MatchError, match=r"player Cy: a start of 75 reaches the target \(75\)"):
        join(_two_rounds(), CY, start=75)


def test_a_target_lowered_to_a_start_not_played_yet_is_refused() -> None:
    # (a review's case: target 40 under Cy's start of 60 left Cy "leading" an undecided match,
    # then winning on any round; join refuses that very start)
    joined = join(_two_rounds(), CY, start=60)  # Ann 7, Bob 10
    with pytest.raises(MatchError, match=r"^player Cy: a start of 60 reaches the target \(40\) "
                                         r"before their first round"):  # fmt: skip
        rules.change_settings(joined, rules.Settings(target=40))
    assert score_match(rules.change_settings(joined, rules.Settings(target=61))).status == (
        "in-progress"
    )
    # once Cy has played, their total is weighed against the target like anyone's: decided
    played = add_round(joined, round_of(Ann=(1, 0), Bob=(1, 0), Cy=(0, 0)))
    decided = score_match(rules.change_settings(played, rules.Settings(target=40)))
    assert (decided.status, decided.winners, decided.decided_after) == ("won", ("Cy",), 3)


def test_a_start_from_before_round_1_has_its_own_row_on_the_score_sheet() -> None:
    # the round Cy joined after, deleted: Cy's start stands from before round 1, and the sheet's
    # first total for Cy (start + score) had no row that said where the start came from
    match = add_round(join(_two_rounds(), CY, start=10), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(5, 0)))
    match = rules.delete_round(rules.delete_round(match, 1), 1)
    assert match.players[2].joined == 0 and match.players[2].start == 10
    sheet = score_sheet_csv(match).splitlines()
    assert sheet[1] == "start,,,,,,,,,,,,10"
    assert sheet[2].endswith(",5,0,5,15")
    assert score_sheet_csv(_two_rounds()).splitlines()[1].startswith("1,")  # no start: no row


def test_a_seat_that_left_before_playing_with_a_start_past_the_target_is_refused_from_a_file() -> None:
    # (review, stop 63: imported, Dee's 500 stood on the board "in progress", and `rejoin`
    # refused that very start; only seats still to play their first round were checked)
    ghost = replace(CY, joined=1, left=1, start=500)
    match = replace(_two_rounds(), players=(*_two_rounds().players, ghost))
    with pytest.raises(MatchError, match=r"^player Cy: a start of 500 reaches the target \(75\) "
                                         r"before their first round"):  # fmt: skip
        rules.check_seats_as_given(match)
    rules.check_seats_as_given(replace(match, players=(*match.players[:2], replace(ghost, start=74))))


def test_teams_given_to_a_table_with_a_latecomers_start_are_refused() -> None:
    joined = join(_two_rounds(), CY, start=-4)
    teams = [replace(p, team=t) for p, t in zip(joined.players, ("N", "S", "N"), strict=True)]
    with pytest.raises(MatchError, match=r"^player Cy: started from -4, and a team match takes "
                                         r"latecomers from 0"):  # fmt: skip
        rules.change_players(joined, teams)
    level = join(_two_rounds(), CY)  # from 0: teams may be given
    teams = [replace(p, team=t) for p, t in zip(level.players, ("N", "S", "N"), strict=True)]
    # (Ann 7 and Cy, from 0, share N)
    assert dict(score_match(rules.change_players(level, teams)).team_totals) == {"N": 7, "S": 10}


def test_a_lower_target_does_not_decide_a_match_before_a_seat_changed() -> None:
    # the match would have ended there: a latecomer sat in a decided match (undo refused while
    # they were seated, leave refused with two players left)
    played = match_of(round_of(Ann=(5, 0), Bob=(3, 0)), round_of(Ann=(10, 0), Bob=(3, 0)))
    with_cy = join(played, CY)
    with pytest.raises(
        MatchError,
        match=r"^player Cy: with a target of 12, the match is decided after round 2, but they joined "
        "after it",
    ):
        rules.change_settings(with_cy, rules.Settings(target=12))  # Ann's 15
    decided = rules.change_settings(leave(with_cy, "Cy"), rules.Settings(target=12))
    assert score_match(decided).winners == ("Ann",)
    three = match_of(round_of(Ann=(30, 0), Bob=(10, 0), Cy=(10, 0)), n=3)
    handed_on = join(leave(three, "Ann"), Player("Di", "green-pump"))  # Ann's deck
    with pytest.raises(MatchError, match=r"^player Di: with a target of 25, the match is decided after "
                       r"round 1, but they joined after it \(nobody joins"):  # fmt: skip
        rules.change_settings(handed_on, rules.Settings(target=25))
    # one who left after the deciding round played it: the table may end the match as they go
    ended = rules.change_settings(leave(three, "Cy"), rules.Settings(target=25))
    assert score_match(ended).winners == ("Ann",)
    # and a target out of range is said as such, not as a latecomer's start
    with pytest.raises(MatchError, match=r"^target must be"):
        rules.change_settings(join(played, CY, start=5), rules.Settings(target=0))


def test_a_corrected_round_does_not_decide_the_match_before_later_rounds_or_seats() -> None:
    first, second = round_of(Ann=(5, 0), Bob=(3, 0)), round_of(Ann=(10, 0), Bob=(3, 0))
    played = match_of(first, second, target=30)
    big = {"Ann": rules.Tally(dutch=40, blitz=0)}
    with pytest.raises(MatchError, match=r"^with round 1 as corrected, the match is decided after round "
                       r"1, but round 2 was played after it \(if the match ended there, delete "
                       r"round 2 first; if not, its target must be higher\)$"):  # fmt: skip
        rules.edit_round(played, 1, big)
    with pytest.raises(MatchError, match=r"^player Cy: with round 2 as corrected, the match is decided "
                       "after round 2, but they joined after it"):  # fmt: skip
        rules.edit_round(join(played, CY), 2, {"Ann": rules.Tally(dutch=40, blitz=0)})
    assert score_match(rules.edit_round(played, 2, big)).winners == ("Ann",)


def test_an_undo_does_not_put_a_latecomer_back_before_a_start_past_the_target() -> None:
    # the target was lowered once they had played: taken back, they would sit at the table
    # yet to play with a start `join` refuses, and win on any round
    played = match_of(round_of(Ann=(10, 0), Bob=(5, 0)))
    with_cy = add_round(join(played, CY, start=70), round_of(Ann=(10, 0), Bob=(5, 0), Cy=(0, 10)))
    lowered = rules.change_settings(with_cy, rules.Settings(target=60))  # Cy 50
    with pytest.raises(MatchError, match=r"^player Cy: taking round 2 back would put them before "
                       r"their first round again: a start of 70 reaches the target \(60\)"):  # fmt: skip
        delete_round(lowered, 2)
    assert delete_round(with_cy, 2).players[2].start == 70  # under the target of 75: taken back


def test_one_seated_in_a_match_decided_since_may_still_leave_it() -> None:
    # (a match stored so by an earlier blitzcam, before a lower target was refused for it)
    played = match_of(round_of(Ann=(5, 0), Bob=(3, 0)), round_of(Ann=(10, 0), Bob=(3, 0)))
    decided = replace(join(played, CY), settings=rules.Settings(target=12))
    assert score_match(decided).status == "won"
    # (the app offered no Leave for it, then, once it did, offered Ann, who may not leave)
    assert rules.can_leave(decided) and [p.name for p in rules.may_leave(decided)] == ["Cy"]
    # other changes are taken as before: the match was decided so before them
    renamed = rules.change_player(decided, "Ann", new_name="Anne")
    assert renamed.players[0].name == "Anne"
    assert rules.change_settings(decided, rules.Settings(12, "play-out")).settings.variant == (
        "play-out"
    )
    assert leave(decided, "Cy").players == played.players
    with pytest.raises(MatchError, match="player Bob: the match is decided: nobody leaves it"):
        leave(decided, "Bob")


def test_join_leave_and_start_survive_the_match_file_and_the_score_sheets() -> None:
    match = add_round(join(_two_rounds(), CY, start=-4), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    match = leave(match, "Bob")
    data = match_to_json(match)
    assert data["players"][1] == {"name": "Bob", "deck": "red-buggy", "left": 3}
    assert data["players"][2] == {"name": "Cy", "deck": "blue-plow", "joined": 2, "start": -4}
    assert "Cy" not in data["rounds"][0]
    assert match_from_json(data) == match
    sheet = score_sheet_csv(match).splitlines()
    assert sheet[1].endswith(",,,,")  # round 1: Cy not at the table, no total yet
    assert sheet[2].endswith(",,,-4")  # round 2, after which Cy joined: their start
    assert sheet[3].endswith(",6,0,6,2")
    table = standings_table(1, match, score_match(match))
    assert "joined after round 2 with -4 points" in table and "left after round 3" in table


@pytest.mark.parametrize(
    ("seat", "message"),
    [
        (Player("Cy", "blue-plow", joined=3), "player Cy: joined or left after round 3, but the "
                                              "match has 2 rounds"),
        (Player("Cy", "blue-plow", joined=1, left=0), "player Cy: 'left' must be a whole number"),
        (Player("Cy", "blue-plow", joined=-1), "player Cy: 'joined' must be 0 or more"),
        (Player("Cy", "blue-plow", start=1.5), "player Cy: 'start' must be a whole number"),  # type: ignore[arg-type]
        (Player("Cy", "blue-plow", start=10**9), "player Cy: 'start' must be between"),
    ],
)  # fmt: skip
def test_impossible_seat_rounds_are_refused(seat: Player, message: str) -> None:
    match = _two_rounds()
    with pytest.raises(MatchError, match=f"^{re.escape(message)}"):
        score_match(Match(players=(*match.players, seat), rounds=match.rounds))


def test_the_match_list_marks_who_left(tmp_path) -> None:
    from blitzcam.game.store import MatchStore
    from blitzcam.game.text import match_list

    with MatchStore(tmp_path / "m.sqlite3") as store:
        match_id = store.create_match(join(_two_rounds(), CY))
        store.add_round(match_id, round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
        store.leave(match_id, "Bob")
        line = match_list(store.list_matches())
    assert line.endswith("Ann, Bob (left), Cy")


def test_one_who_left_comes_back_before_a_round_is_played_without_them() -> None:
    # a leave pressed by mistake, or a player back before the next deal: nothing undid a leave,
    # and the name was taken, so they could not join again either
    three = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    left = leave(three, "Bob")
    assert rules.can_come_back(left) == (left.players[1],)
    assert rules.come_back(left, "Bob") == three  # seat, deck and total as they were
    assert rules.can_come_back(three) == ()
    with pytest.raises(MatchError, match="left after round 3: they come back to their own "
                                         "seat and total instead"):  # fmt: skip
        join(left, Player("B\u200dob", "yellow-bucket"))  # a joiner shows nothing
    with pytest.raises(MatchError, match="player Bob: is at the table"):
        rules.come_back(three, "Bob")
    with pytest.raises(MatchError, match="player Zed: not a player in this match"):
        rules.come_back(left, "Zed")
    # rounds played without him: he still comes back to his seat and total, and sits them out
    later = add_round(left, round_of(Ann=(2, 0), Cy=(0, 3)))
    later = add_round(later, round_of(Ann=(2, 0), Cy=(0, 3)))
    assert rules.can_come_back(later) == (later.players[1],)
    back = rules.come_back(later, "Bob")
    assert back.players[1] == Player("Bob", "red-buggy", sat_out=(4, 5))
    with pytest.raises(MatchError) as refused:
        join(later, Player("Bob", "yellow-bucket"))
    assert str(refused.value) == (  # (with the way back: `rejoin` was named nowhere)
        "player Bob: left after round 3: they come back to their own seat and total instead "
        "(Match › A player comes back… in the app, `blitzcam match rejoin NAME` at the terminal)")
    # the rounds played without him taken back: back as he was
    assert rules.come_back(delete_round(delete_round(later, 5), 4), "Bob") == three


def test_one_who_left_comes_back_only_while_their_deck_is_free() -> None:
    # (eight decks for eight seats: a free deck also means a free seat)
    three = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    handed = join(leave(three, "Bob"), Player("Di", "red-buggy"))
    with pytest.raises(MatchError, match="player Bob: their deck, red-buggy, is Di's now"):
        rules.come_back(handed, "Bob")
    assert rules.can_come_back(handed) == ()
    with pytest.raises(MatchError, match="player Bob: left after round 3: their deck, red-buggy, "
                                         "is Di's now: they come back to their seat once it is "
                                         "free, or join under another name"):  # fmt: skip
        join(handed, Player("Bob", "yellow-bucket"))
    # Di leaves having played no round (taken off): the deck is Bob's again
    assert rules.come_back(leave(handed, "Di"), "Bob") == three


def test_why_nobody_comes_back_is_said_seat_by_seat() -> None:
    # ("nobody who left may come back now" said nothing of the deck a latecomer held; review)
    three = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    assert rules.why_nobody_comes_back(three) == "nobody has left"
    assert rules.why_nobody_comes_back(leave(three, "Bob")) == "nothing stands in the way"
    handed = join(leave(three, "Bob"), Player("Di", "red-buggy"))
    assert rules.why_nobody_comes_back(handed) == "Bob: their deck, red-buggy, is Di's now"
    target = rules.score_match(handed).totals["Ann"] + 40
    decided = add_round(rules.change_settings(handed, rules.Settings(target=target)),
                        round_of(Ann=(40, 0), Cy=(1, 1), Di=(0, 2)))  # fmt: skip
    assert rules.why_nobody_comes_back(decided) == "the match is decided: nobody comes back to it"


def test_nobody_comes_back_to_a_decided_match() -> None:
    match = match_of(round_of(Ann=(10, 0), Bob=(5, 2), Cy=(1, 0)), n=3, target=30)
    left = leave(match, "Cy")
    decided = rules.change_settings(left, rules.Settings(target=10))
    with pytest.raises(MatchError, match="player Cy: the match is decided"):
        rules.come_back(decided, "Cy")
    # said before the rounds played without them (joining again is no way back either)
    won = add_round(left, round_of(Ann=(30, 0), Bob=(1, 0)))
    with pytest.raises(MatchError, match="player Cy: the match is decided"):
        rules.come_back(won, "Cy")
    assert rules.can_come_back(decided) == rules.can_come_back(won) == ()


def test_no_change_decides_the_match_before_one_came_back_to_it() -> None:
    # an edit or a lower target deciding the round Cy sat out, Cy back at the table since: Cy
    # sat in a decided match, and could not leave it (review); as a latecomer is refused
    match = match_of(round_of(Ann=(10, 0), Bob=(5, 1), Cy=(6, 2)), n=3, target=30)
    back = rules.come_back(add_round(leave(match, "Cy"), round_of(Ann=(10, 0), Bob=(5, 1))), "Cy")
    assert back.players[2].sat_out == (2,)
    with pytest.raises(MatchError, match=r"^player Cy: with round 2 as corrected, the match is "
                       r"decided after round 2, but they came back after it \(nobody comes back"):  # fmt: skip
        rules.replace_round(back, 2, round_of(Ann=(25, 0), Bob=(5, 1)))
    with pytest.raises(MatchError, match=r"^player Cy: with a target of 20, the match is decided"):
        rules.change_settings(back, rules.Settings(target=20))
    # once they have gone again, the change is taken: they sat out the deciding round
    gone = leave(back, "Cy")
    assert score_match(rules.change_settings(gone, rules.Settings(target=20))).status == "won"
    # a match file holding the same seats is refused as `rejoin` would refuse them
    decided = replace(back, settings=rules.Settings(target=20))
    with pytest.raises(MatchError, match=r"^player Cy: came back after round 2, which decided"):
        rules.check_seats_as_given(decided)
    rules.check_seats_as_given(replace(gone, settings=rules.Settings(target=20)))


def test_one_who_left_a_team_comes_back_to_it() -> None:
    match = match_of(round_of(Ann=(10, 0), Bob=(5, 2), Cy=(1, 0), Di=(2, 0)), n=4,
                     teams=("North", "South", "North", "South"))  # fmt: skip
    gone = leave(match, "Bob")
    assert dict(score_match(gone).team_totals) == {"North": 11, "South": 3}  # Bob's 1 kept
    assert rules.come_back(gone, "Bob") == match


def _sat_out_two() -> Match:
    """Ann, Bob and Cy play rounds 1-3; Bob leaves, sits out rounds 4-5, and is back for 6."""
    three = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    away = leave(three, "Bob")
    for _ in range(2):
        away = add_round(away, round_of(Ann=(2, 0), Cy=(0, 3)))
    return add_round(rules.come_back(away, "Bob"), round_of(Ann=(1, 0), Bob=(4, 0), Cy=(0, 1)))


def test_one_who_sat_out_rounds_plays_on_from_their_total() -> None:
    match = _sat_out_two()
    bob = match.players[1]
    assert bob.sat_out == (4, 5) and bob.playing and [bob.plays_in(n) for n in range(1, 7)] == [
        True, True, True, False, False, True]  # fmt: skip
    standings = score_match(match)
    assert [t["Bob"] for t in standings.running_totals] == [1, 10, 9, 9, 9, 13]  # flat away
    assert [sorted(scores) for scores in standings.round_scores[3:]] == [
        ["Ann", "Cy"], ["Ann", "Cy"], ["Ann", "Bob", "Cy"]]  # fmt: skip
    assert dict(standings.totals)["Bob"] == 13 and "Bob" in standings.contenders
    sheet = score_sheet_rows(match)  # his rounds away blank, his total carried through them
    assert [row["Bob score"] for row in sheet] == ["1", "9", "-1", "", "", "4"]
    assert [row["Bob total"] for row in sheet] == ["1", "10", "9", "9", "9", "13"]
    with pytest.raises(MatchError, match=r"round 4, player Bob: not playing in this round "
                                         r"\(sat it out\)"):  # fmt: skip
        rules.edit_round(match, 4, {"Bob": rules.Tally(3, 0)})
    with pytest.raises(MatchError, match="round 7, player Bob: missing from the round"):
        add_round(match, round_of(Ann=(1, 0), Cy=(0, 1)))
    # he leaves again and comes back again: his rounds away add up
    again = leave(add_round(match, round_of(Ann=(1, 0), Bob=(0, 3), Cy=(0, 1))), "Bob")
    again = add_round(again, round_of(Ann=(1, 0), Cy=(0, 1)))
    assert rules.come_back(again, "Bob").players[1].sat_out == (4, 5, 8)
    assert match_from_json(match_to_json(match)) == match
    assert match_to_json(match)["players"][1] == {"name": "Bob", "deck": "red-buggy",
                                                  "sat_out": [4, 5]}  # fmt: skip
    assert "Bob (red-buggy; sat out rounds 4-5)" in standings_table(1, match, standings)


def score_sheet_rows(match: Match) -> list[dict[str, str]]:
    import csv
    import io

    rows = list(csv.reader(io.StringIO(score_sheet_csv(match))))
    header = rows[0]
    return [dict(zip(header, row, strict=False)) for row in rows[1:7]]


def test_an_undo_that_takes_a_player_away_again_says_so_when_refused() -> None:
    # (a review's case: partners changed after the round, so its players were one team)
    ann, bob, cy = (Player("Ann", "green-pump", "N"), Player("Bob", "red-buggy", "S"),
                    Player("Cy", "blue-plow", "S"))  # fmt: skip
    match = rules.new_match([ann, bob, cy], rules.Settings(1000, "play-out"))
    match = add_round(match, round_of(Ann=(1, 0), Bob=(1, 0), Cy=(1, 0)))
    match = add_round(leave(match, "Cy"), round_of(Ann=(1, 0), Bob=(1, 0)))
    match = rules.change_players(rules.come_back(match, "Cy"), [ann, replace(bob, team="N"), cy])
    said = ("taking round 2 back takes Cy away again (they sat it out), and then a team match "
            "needs at least two teams at the table")  # fmt: skip
    with pytest.raises(MatchError, match=f"^{re.escape(said)}$"):
        delete_round(match, 2)


def test_a_seat_of_no_round_comes_back_as_a_latecomer() -> None:
    # (leaving takes such a seat off the match; a match file may still hold one)
    match = replace(_two_rounds(), players=(*_two_rounds().players, Player("Cy", "blue-plow",
                                                                           joined=1, left=1)))
    assert rules.can_come_back(match) == (match.players[2],)
    assert rules.come_back(match, "Cy").players[2] == Player("Cy", "blue-plow", joined=2)


def test_leaving_again_before_a_round_is_as_before_coming_back() -> None:
    match = _sat_out_two()
    away = rules.delete_round(match, 6)  # (undo: he is back, no round played since)
    assert away.players[1].sat_out == (4, 5) and away.players[1].playing
    before = leave(away, "Bob")
    assert before.players[1] == Player("Bob", "red-buggy", left=3)
    assert rules.come_back(before, "Bob") == away


def test_undoing_a_round_he_sat_out_takes_him_away_again() -> None:
    # so that it can be entered again as it was played: without him
    match = rules.delete_round(rules.delete_round(_sat_out_two(), 6), 5)
    assert match.players[1] == Player("Bob", "red-buggy", left=3)
    assert len(match.rounds) == 4 and rules.can_come_back(match) == (match.players[1],)


@pytest.mark.parametrize(
    ("number", "bob"),
    [
        (4, Player("Bob", "red-buggy", sat_out=(4,))),  # a round he sat out: one fewer
        (2, Player("Bob", "red-buggy", sat_out=(3, 4))),  # a round before: they move up
        (6, Player("Bob", "red-buggy", left=3)),  # his only round since: as if never back
    ],
)
def test_deleting_a_round_moves_the_rounds_sat_out(number: int, bob: Player) -> None:
    match = _sat_out_two()
    if number == 6:  # not the last: one more round after it
        match = add_round(leave(match, "Bob"), round_of(Ann=(1, 0), Cy=(0, 1)))
        bob = replace(bob, left=3)
    deleted = rules.delete_round(match, number)
    assert deleted.players[1] == bob
    score_match(deleted)


def test_deleting_the_only_round_before_a_player_sat_out_makes_them_a_later_joiner() -> None:
    # (his rounds away then come first: he joined after them. Never tested; a rule that counted
    # them from the wrong round refused this undo; review)
    seats = (Player("Ann", "green-pump"), Player("Bob", "red-buggy"), Player("Cy", "blue-plow"))
    match = add_round(rules.new_match(seats), round_of(Ann=(1, 0), Bob=(1, 0), Cy=(1, 0)))
    match = leave(match, "Bob")
    match = add_round(add_round(match, round_of(Ann=(1, 0), Cy=(1, 0))), round_of(Ann=(1, 0), Cy=(1, 0)))
    match = add_round(rules.come_back(match, "Bob"), round_of(Ann=(1, 0), Bob=(1, 0), Cy=(1, 0)))
    assert match.players[1] == Player("Bob", "red-buggy", sat_out=(2, 3))
    deleted = rules.delete_round(match, 1)
    assert deleted.players[1] == Player("Bob", "red-buggy", joined=2)
    assert score_match(deleted).totals == {"Ann": 3, "Bob": 1, "Cy": 3}


def test_a_deck_lent_while_its_player_sat_out_comes_back_with_them() -> None:
    three = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    lent = join(leave(three, "Bob"), Player("Di", "red-buggy"))
    lent = add_round(lent, round_of(Ann=(2, 0), Cy=(0, 3), Di=(5, 0)))
    back = rules.come_back(leave(lent, "Di"), "Bob")  # Di played round 4 with Bob's deck
    assert back.players[1].sat_out == (4,) and score_match(back).totals["Di"] == 5
    # but the deck cannot be Bob's and Di's in one round
    both = (back.players[0], replace(back.players[1], sat_out=()), *back.players[2:])
    with pytest.raises(MatchError, match="player Di: deck red-buggy is already played by Bob"):
        score_match(replace(back, players=both))
    # nor in a round the match does not have (said as that, first)
    with pytest.raises(MatchError, match="player Di: joined or left after round 5, but the "):
        score_match(replace(back, players=(*back.players[:3], replace(back.players[3], left=5))))


@pytest.mark.parametrize(
    ("sat_out", "left", "message"),
    [
        ((4, 4), None, "player Bob: 'sat_out' must list rounds in order, each once"),
        ((4, 3), None, "player Bob: 'sat_out' must list rounds in order, each once"),
        ((1,), None, "player Bob: 'sat_out' must begin after round 1, the first of their seat"),
        ((2,), 2, "player Bob: 'sat_out' must end before round 2, the last they played"),
        ((2, "3"), None, "player Bob: 'sat_out' must be a list of round numbers"),
        ((9,), None, "player Bob: sat out round 9, but the match has 3 rounds"),
        ((2, 3), None, "round 2, player Bob: not playing in this round (sat it out)"),
    ],
)
def test_impossible_rounds_sat_out_are_refused(sat_out, left, message: str) -> None:
    match = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    bob = replace(match.players[1], sat_out=sat_out, left=left)
    with pytest.raises(MatchError, match=f"^{re.escape(message)}"):
        score_match(replace(match, players=(match.players[0], bob, match.players[2])))


@pytest.mark.parametrize(
    ("rounds", "said"),
    [((4,), "round 4"), ((4, 5), "rounds 4-5"), ((4, 5, 8), "rounds 4-5 and 8"),
     ((2, 4, 6, 7), "rounds 2, 4 and 6-7")],
)  # fmt: skip
def test_rounds_sat_out_are_said_in_runs(rounds: tuple[int, ...], said: str) -> None:
    from blitzcam.game.text import rounds_said

    assert rounds_said(rounds) == said


def test_the_terminal_marks_a_team_whose_players_all_left() -> None:
    first = round_of(Ann=(10, 0), Bob=(5, 0), Cy=(20, 0), Di=(20, 0))
    match = match_of(first, n=4, teams=("North", "South", "East", "East"))
    match = add_round(leave(leave(match, "Cy"), "Di"), round_of(Ann=(1, 0), Bob=(1, 0)))
    table = standings_table(1, match, score_match(match))
    assert "teams  North 11, South 6, East 40 (out of the running: all left)" in table


def test_a_team_that_won_and_left_is_not_said_out_of_the_running() -> None:
    # (a review's case: "won by X", and X "out of the running: all left" on the next line;
    # lowering the target as a player leaves ends the match there)
    first = round_of(Ann=(30, 0), Bob=(10, 2), Cy=(5, 3))
    match = match_of(first, first, n=3, teams=("X", "Y", "Z"))
    match = leave(match, "Ann")
    match = rules.change_settings(match, replace(match.settings, target=60))
    standings = score_match(match)
    assert standings.winners == ("X",) and "X" not in standings.contenders
    table = standings_table(1, match, standings)
    assert "teams  X 60, Y 12, Z -2" in table


def test_a_start_the_rules_would_refuse_now_holds_up_no_other_change() -> None:
    # (a review's case: a match file with a team latecomer's start loads and takes rounds; a
    # variant change or a rename was then refused, naming the latecomer)
    joined = join(_two_rounds(), CY, start=60)
    lowered = replace(joined, settings=rules.Settings(target=50))  # as a match file may hold it
    assert rules.change_settings(lowered, rules.Settings(50, "play-out")).settings.variant == "play-out"
    renamed = rules.change_player(lowered, "Ann", new_name="Anne")
    assert [p.name for p in renamed.players] == ["Anne", "Bob", "Cy"]


def test_taken_off_names_the_seats_a_change_removed() -> None:
    from blitzcam.game.text import round_counts

    joined = add_round(join(_two_rounds(), CY), round_of(Ann=(1, 0), Bob=(1, 1), Cy=(6, 0)))
    gone = add_round(leave(joined, "Cy"), round_of(Ann=(2, 0), Bob=(1, 0)))
    assert rules.taken_off(gone, rules.delete_round(gone, 3)) == ("Cy",)  # his only round
    assert rules.taken_off(gone, rules.delete_round(gone, 4)) == ()  # another round: kept
    assert rules.taken_off(joined, leave(joined, "Cy")) == ()  # left with a total: still seated
    assert round_counts(joined.rounds[2]) == "Ann 1/0, Bob 1/1, Cy 6/0"


def test_a_head_start_given_before_the_first_round_is_said_beside_the_name() -> None:
    # (joined with 60 before round 1, the player looked like any founder of the match)
    match = join(match_of(), Player("Cy", "blue-plow"), start=60)
    (seat,) = [p for p in match.players if p.name == "Cy"]
    assert seat.joined == 0 and seat.start == 60
    table = standings_table(1, match, score_match(match))
    assert "Cy (blue-plow; started with 60 points)" in table
    assert "started with" not in standings_table(1, match_of(), score_match(match_of()))


def test_a_seat_sat_out_only_the_rounds_it_lists() -> None:
    # looked up by halves in the ordered rounds; a seat read from a file and not yet refused
    # for holding something else there is asked all the same, without an error
    from blitzcam.game.rules import Player

    seat = Player("Bob", "red-buggy", joined=1, sat_out=(3, 4, 9))
    assert [n for n in range(1, 12) if seat.sat_out_of(n)] == [3, 4, 9]
    assert [n for n in range(1, 12) if seat.plays_in(n)] == [2, 5, 6, 7, 8, 10, 11]
    odd = Player("Cy", "blue-plow", sat_out=("3", 5))  # type: ignore[arg-type]
    assert odd.sat_out_of(5) and not odd.sat_out_of(3)


def test_who_may_join_leave_or_come_back_now() -> None:
    # (decided in the app's main window, from the player limits and the match's status)
    two = _two_rounds()
    assert rules.can_join(two) and not rules.can_leave(two)  # two stay at the table at least
    three = join(two, CY)
    assert rules.can_leave(three) and rules.can_join(three)
    full = match_of(n=8)
    assert not rules.can_join(full) and rules.can_leave(full)
    decided = match_of(round_of(Ann=(40, 0), Bob=(1, 1), Cy=(1, 1)), n=3, target=30)
    standings = score_match(decided)
    assert standings.status == "won"
    assert not rules.can_join(decided, standings) and not rules.can_leave(decided, standings)
    assert rules.can_come_back(leave(three, "Cy")) == ()  # Cy had played no round: gone


def test_the_blitz_caller_is_the_one_player_with_no_blitz_cards_left() -> None:
    assert rules.blitz_caller(round_of(Ann=(12, 0), Bob=(5, 2))) == "Ann"
    assert rules.blitz_caller(round_of(Ann=(12, 0), Bob=(5, 0))) is None  # two: not said
    assert rules.blitz_caller(round_of(Ann=(12, 1), Bob=(5, 2))) is None  # a play-out round


def test_the_last_of_a_team_is_not_offered_to_leave_where_two_teams_would_not_stay() -> None:
    # (offered, then refused: "a team match needs at least two teams at the table")
    seats = (Player("Ann", "green-pump", team="A"), Player("Bob", "red-buggy", team="A"),
             Player("Cy", "blue-plow", team="B"), Player("Di", "red-plow", team="B"))
    match = rules.add_round(rules.new_match(seats),
                            round_of(Ann=(5, 0), Bob=(3, 2), Cy=(4, 1), Di=(2, 3)))
    match = rules.leave(match, "Ann")
    offered = [p.name for p in rules.may_leave(match)]
    assert offered == ["Cy", "Di"]
    for name in offered:
        rules.leave(match, name)  # (each one offered, the rules take)
    with pytest.raises(rules.MatchError, match="two teams"):
        rules.leave(match, "Bob")


@pytest.mark.parametrize(("start", "back"), [(74, True), (75, False), (76, False)])
def test_a_seat_that_played_no_round_comes_back_only_with_a_start_short_of_the_target(
    start: int, back: bool
) -> None:
    # (as `join` refuses a start that reaches the target before a round; the start exactly at
    # the target was not tested; review)
    match = match_of(round_of(Ann=(5, 0), Bob=(3, 0)), target=75)
    seated = replace(match, players=(*match.players, Player("Cy", "blue-plow", joined=1, left=1, start=start)))
    if back:
        assert rules.come_back(seated, "Cy").players[2].playing
    else:
        with pytest.raises(MatchError, match=f"a start of {start} reaches the target \\(75\\) before a round"):
            rules.come_back(seated, "Cy")


def test_with_three_teams_at_the_table_the_last_of_one_may_leave() -> None:
    # (two teams still stay; only tested with two teams, a rule keeping the last of a team
    # with three at the table passed; review)
    played = round_of(Ann=(1, 0), Bob=(1, 0), Cy=(1, 0), Di=(1, 0), Ed=(1, 0))
    match = match_of(played, n=5, teams=("N", "N", "S", "S", "E"))
    assert [p.name for p in rules.may_leave(match)] == ["Ann", "Bob", "Cy", "Di", "Ed"]
    alone = rules.leave(match, "Ed")
    assert not alone.players[4].playing
    assert [p.name for p in rules.may_leave(alone)] == ["Ann", "Bob", "Cy", "Di"]


def test_a_name_no_seat_has_is_said_with_the_match_s_players() -> None:
    # (a command acts on the match changed last: the players say which one it was)
    from blitzcam.game.rules import MatchError, Player, leave, new_match

    match = new_match([Player("Ann", "green-pump"), Player("Bob, Jr", "red-buggy")])
    with pytest.raises(MatchError) as caught:
        leave(match, "Zed")
    assert str(caught.value) == (
        "player Zed: not a player in this match (its players: Ann, 'Bob, Jr')"
    )


def test_why_nobody_may_leave_is_said_as_the_rule_decides() -> None:
    # (the window said "2 must stay at the table" of a decided match with four at it; review)
    two = match_of(round_of(Ann=(10, 0), Bob=(5, 2)), n=2, target=30)
    assert not rules.can_leave(two) and rules.why_nobody_may_leave(two) == (
        f"{rules.MIN_PLAYERS} must stay at the table"
    )
    four = match_of(round_of(Ann=(10, 0), Bob=(5, 2), Cy=(1, 0), Di=(0, 0)), n=4, target=30)
    assert rules.can_leave(four) and rules.why_nobody_may_leave(four) == "nothing stands in the way"
    decided = rules.change_settings(four, rules.Settings(target=10))
    assert not rules.can_leave(decided)
    assert rules.why_nobody_may_leave(decided) == (
        "the match is decided: only a player yet to play may leave it"
    )


def test_a_team_the_match_lacks_is_asked_about_one_way_at_the_terminal_and_in_the_window() -> None:
    # (the CLI and the Join dialog each held this rule; review)
    from blitzcam.game.match_model import NewTeam, new_team

    teams = ("North", "South")
    assert new_team(teams, "North") is None and new_team(teams, None) is None
    assert new_team((), "North") is None  # (no teams: the rules say whether one is wanted)
    assert new_team(teams, "north") == NewTeam("north", "North")  # a slip of one
    assert new_team(teams, "Nrth") == NewTeam("Nrth", None)  # a new team, asked first
    assert new_team(("José",), "Jose\u0301") is None  # as the match keeps it


def test_a_joiner_may_take_the_decks_nobody_at_the_table_plays() -> None:
    from blitzcam.game.decks import DECK_NAMES

    match = leave(match_of(round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2)), n=3), "Bob")
    assert rules.free_decks(match) == tuple(d for d in DECK_NAMES if d not in ("green-pump", "yellow-bucket"))


def test_a_team_s_span_runs_from_its_first_seat_to_its_last_leave_with_the_rounds_it_was_away() -> None:
    # (worked out in the chart's code, a widget module, until it moved beside the rules)
    from blitzcam.game.rules import add_round, come_back, join, leave, score_match, team_span

    first = round_of(Ann=(4, 0), Bob=(3, 0), Cy=(2, 0), Di=(1, 0), Ed=(0, 0), Flo=(1, 0))
    match = match_of(first, n=6, teams=("N", "S", "E") * 2)
    others = round_of(Bob=(2, 0), Cy=(1, 0), Ed=(5, 0), Flo=(0, 1))
    match = add_round(leave(leave(match, "Ann"), "Di"), others)  # North away: rounds 2, 3
    match = add_round(match, others)
    match = come_back(match, "Ann")
    match = join(match, Player("Gus", "red-plow", "W"))  # a team from round 4 on
    match = add_round(match, round_of(Ann=(3, 0), Bob=(0, 1), Cy=(1, 0), Ed=(2, 0), Flo=(1, 0),
                                      Gus=(2, 0)))  # fmt: skip
    standings = score_match(match)
    north = team_span(match, standings, "N")
    assert (north.joined, north.start, north.away) == (0, 0, (2, 3))
    assert north.totals == tuple(t["N"] for t in standings.team_running_totals)
    west = team_span(match, standings, "W")
    assert (west.joined, west.start, west.away, west.totals) == (3, 0, (), (2,))
    gone = leave(match, "Gus")  # the last of a team leaves: its span ends there
    assert team_span(gone, score_match(gone), "W").totals == west.totals
    with pytest.raises(ValueError, match="without teams"):
        team_span(match_of(), score_match(match_of()), "N")
