from __future__ import annotations

from dataclasses import replace

import pytest

from blitzcam.game import rules
from blitzcam.game.rules import (
    Match,
    MatchError,
    Player,
    Round,
    Settings,
    Tally,
    add_round,
    change_settings,
    delete_round,
    replace_round,
    score_match,
)
from tests.game.factories import match_of, players, round_of


@pytest.mark.parametrize(
    ("dutch", "blitz", "score"),
    [
        (12, 0, 12),   # the Blitz caller: every Dutch card counts
        (9, 4, 1),     # four left in the Blitz pile cost 8
        (0, 10, -20),  # nothing played: the worst round there is
        (40, 0, 40),   # the whole deck in the Dutch piles
        (0, 0, 0),
    ],
)
def test_round_score_is_dutch_minus_twice_blitz(dutch: int, blitz: int, score: int) -> None:
    assert rules.round_score(Tally(dutch, blitz)) == score


def test_totals_and_running_totals_add_round_scores() -> None:
    match = match_of(round_of(Ann=(12, 0), Bob=(9, 4)), round_of(Ann=(3, 5), Bob=(20, 0)))
    standings = score_match(match)
    assert [dict(s) for s in standings.round_scores] == [{"Ann": 12, "Bob": 1}, {"Ann": -7, "Bob": 20}]
    assert dict(standings.totals) == {"Ann": 5, "Bob": 21}
    assert standings.running_totals == ({"Ann": 12, "Bob": 1}, {"Ann": 5, "Bob": 21})
    assert standings.status == "in-progress"
    assert standings.winners == ()
    assert standings.leaders == ("Bob",)


def test_totals_can_go_negative() -> None:
    standings = score_match(match_of(round_of(Ann=(0, 10), Bob=(5, 0))))
    assert standings.totals["Ann"] == -20


# --- refusals: each names the round, the player and the rule ------------------------------

@pytest.mark.parametrize(
    ("tallies", "variant", "message"),
    [
        # counts out of range
        ({"Ann": (41, 0), "Bob": (0, 0)}, "standard", "round 1, player Ann: Dutch cards must be between 0 and 40, got 41"),
        ({"Ann": (-1, 0), "Bob": (0, 0)}, "standard", "round 1, player Ann: Dutch cards must be between 0 and 40, got -1"),
        ({"Ann": (0, 0), "Bob": (0, 11)}, "standard", "round 1, player Bob: Blitz cards must be between 0 and 10, got 11"),
        ({"Ann": (0, 0), "Bob": (0, -2)}, "standard", "round 1, player Bob: Blitz cards must be between 0 and 10, got -2"),
        # not whole numbers (JSON can bring floats, strings, booleans)
        ({"Ann": (1.5, 0), "Bob": (0, 0)}, "standard", "round 1, player Ann: Dutch cards must be a whole number, got 1.5"),
        ({"Ann": ("3", 0), "Bob": (0, 0)}, "standard", "round 1, player Ann: Dutch cards must be a whole number, got '3'"),
        ({"Ann": (True, 0), "Bob": (0, 0)}, "standard", "round 1, player Ann: Dutch cards must be a whole number, got true"),
        ({"Ann": (3, None), "Bob": (0, 0)}, "standard", "round 1, player Ann: Blitz cards must be a whole number, got null"),
        # more cards than a deck holds
        ({"Ann": (35, 6), "Bob": (0, 0)}, "standard", "round 1, player Ann: 35 Dutch + 6 Blitz cards is more than the 40 cards in a deck"),
        # players missing or unknown
        ({"Ann": (3, 0)}, "standard", "round 1, player Bob: missing from the round"),
        ({"Ann": (3, 0), "Bob": (1, 1), "Zed": (1, 0)}, "standard", "round 1, player Zed: not a player in this match"),
        # a standard round ends on a Blitz call
        ({"Ann": (3, 1), "Bob": (1, 1)}, "standard", "round 1: nobody has 0 Blitz cards left"),
    ],
)
def test_invalid_rounds_are_refused(tallies: dict, variant: str, message: str) -> None:
    match = Match(
        players=players(2),
        settings=Settings(75, variant),  # type: ignore[arg-type]
        rounds=(Round({n: Tally(d, b) for n, (d, b) in tallies.items()}),),
    )
    with pytest.raises(MatchError) as caught:
        score_match(match)
    assert str(caught.value).startswith(message)


def test_a_round_with_no_blitz_call_says_where_play_out_is_chosen() -> None:
    # (it named the variant only: where it is chosen, in the app or at the terminal, was the
    # reader's to find; review)
    match = match_of(round_of(Ann=(3, 1), Bob=(1, 1)))
    with pytest.raises(MatchError) as caught:
        score_match(match)
    assert str(caught.value).endswith(
        "(rounds played out are scored in the play-out variant: Match › Match settings… in the "
        "app, `blitzcam match settings --variant play-out` at the terminal)"
    )


def test_play_out_rounds_need_no_blitz_call() -> None:
    match = match_of(round_of(Ann=(3, 1), Bob=(1, 1)), variant="play-out")
    assert dict(score_match(match).totals) == {"Ann": 1, "Bob": -1}


def test_the_round_number_counts_from_one() -> None:
    match = match_of(round_of(Ann=(3, 0), Bob=(1, 1)), round_of(Ann=(3, 2), Bob=(1, 1)))
    with pytest.raises(MatchError, match=r"^round 2: nobody has 0 Blitz"):
        score_match(match)


@pytest.mark.parametrize(
    ("match_players", "message"),
    [
        (players(1), "a match needs 2 to 8 players, got 1"),
        ((*players(8), Player("Ivy", "green-pump")), "a match needs 2 to 8 players, got 9"),
        ((Player("Ann", "green-pump"), Player("Bob", "green-pump")),
         "player Bob: deck green-pump is already played by Ann"),
        ((Player("Ann", "green-pump"), Player("Ann", "red-buggy")), "player Ann: two players have this name"),
        ((Player("Ann", "purple-cow"), Player("Bob", "red-buggy")), "player Ann: unknown deck 'purple-cow'"),
        ((Player("", "green-pump"), Player("Bob", "red-buggy")), "player name '' must be non-empty"),
        ((Player(" Ann", "green-pump"), Player("Bob", "red-buggy")), "player name ' Ann' must be non-empty"),
        ((Player("A\nn", "green-pump"), Player("Bob", "red-buggy")), "player name 'A\\nn' must be text that shows: it holds a control character (U+000A)"),
        ((Player("Ann", "green-pump", "N"), Player("Bob", "red-buggy")),
         "player Bob: has no team, but others do"),
        ((Player("Ann", "green-pump", "N"), Player("Bob", "red-buggy", "N")),
         "a team match needs at least two teams"),
        ((Player("Ann", "green-pump", " "), Player("Bob", "red-buggy", "S")),
         "player Ann: team name ' ' must be non-empty"),
        # 'North' and 'North ' would be two teams with one name on the scoreboard
        ((Player("Ann", "green-pump", "North "), Player("Bob", "red-buggy", "South")),
         "player Ann: team name 'North ' must be non-empty text without outer spaces"),
        ((Player("Ann", "green-pump", "N\tS"), Player("Bob", "red-buggy", "South")),
         "player Ann: team name 'N\\tS' must be text that shows: it holds a control character (U+0009)"),
        ((Player("Ann", "green-pump", "x" * 41), Player("Bob", "red-buggy", "South")),
         "player Ann: team name 'xxxxxxxxxx"),
    ],
)
def test_invalid_players_are_refused(match_players: tuple[Player, ...], message: str) -> None:
    with pytest.raises(MatchError) as caught:
        score_match(Match(players=match_players))
    assert str(caught.value).startswith(message)


def test_eight_players_with_the_expansion_decks_are_fine() -> None:
    assert score_match(Match(players=players(8))).status == "in-progress"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (Settings(0), "target must be a whole number from 1 to 1,000,000, got 0"),
        (Settings(-75), "target must be a whole number from 1 to 1,000,000, got -75"),
        (Settings(7.5), "target must be a whole number from 1 to 1,000,000, got 7.5"),  # type: ignore[arg-type]
        (Settings(75, "speed"), "variant must be one of standard, play-out, got 'speed'"),  # type: ignore[arg-type]
        # beyond any game, and beyond what the match store's integers hold at 2**63
        (Settings(1_000_001), "target must be a whole number from 1 to 1,000,000, got 1000001"),
        (Settings(2**63), "target must be a whole number from 1 to 1,000,000, got 9223372036854775808"),
    ],
)
def test_invalid_settings_are_refused(settings: Settings, message: str) -> None:
    with pytest.raises(MatchError, match=f"^{message}"):
        score_match(Match(players=players(2), settings=settings))


# --- deciding the match -------------------------------------------------------------------

def test_reaching_the_target_decides_the_match_for_the_highest_total() -> None:
    match = match_of(round_of(Ann=(30, 0), Bob=(35, 1)), target=30)
    standings = score_match(match)
    # Ann 30, Bob 33: both reached 30, the highest total wins
    assert (standings.status, standings.winners, standings.decided_after) == ("won", ("Bob",), 1)


def test_an_exact_tie_at_the_top_is_a_shared_win() -> None:
    standings = score_match(match_of(round_of(Ann=(30, 0), Bob=(32, 1)), target=30))
    assert standings.status == "shared"
    assert standings.winners == ("Ann", "Bob")


def test_no_round_may_follow_the_deciding_round() -> None:
    decided = match_of(round_of(Ann=(30, 0), Bob=(2, 1)), target=30)
    with pytest.raises(MatchError, match=r"^round 2: the match was already decided after round 1"):
        add_round(decided, round_of(Ann=(1, 0), Bob=(1, 0)))


def test_raising_the_target_reopens_a_decided_match() -> None:
    decided = match_of(round_of(Ann=(30, 0), Bob=(2, 1)), target=30)
    reopened = change_settings(decided, Settings(100))
    assert score_match(reopened).status == "in-progress"
    assert score_match(add_round(reopened, round_of(Ann=(1, 0), Bob=(1, 0)))).totals["Ann"] == 31


def test_lowering_the_target_can_decide_the_match_at_once() -> None:
    match = match_of(round_of(Ann=(20, 0), Bob=(2, 1)), target=75)
    assert score_match(change_settings(match, Settings(20))).winners == ("Ann",)


def test_lowering_the_target_below_an_earlier_round_is_refused() -> None:
    match = match_of(round_of(Ann=(20, 0), Bob=(2, 1)), round_of(Ann=(0, 10), Bob=(2, 0)))
    # (said of the target, not of round 2: "round 2: the match was already decided after round 1")
    with pytest.raises(
        MatchError,
        match=r"^with a target of 20, the match is decided after round 1, but round 2 was played after it",
    ):
        change_settings(match, Settings(20))
    three = replace(match, rounds=(*match.rounds, round_of(Ann=(1, 0), Bob=(1, 0))))
    with pytest.raises(MatchError) as caught:  # what to do, said: the rounds after it named
        change_settings(three, Settings(20))
    assert str(caught.value).endswith(
        "(if the match ended there, delete rounds 2-3 first; if not, its target must be higher)"
    )


def test_editing_an_earlier_round_recomputes_and_may_reopen() -> None:
    decided = match_of(round_of(Ann=(10, 0), Bob=(2, 1)), round_of(Ann=(25, 0), Bob=(2, 1)), target=30)
    assert score_match(decided).status == "won"
    edited = replace_round(decided, 1, round_of(Ann=(1, 0), Bob=(2, 1)))
    assert score_match(edited).status == "in-progress"
    assert score_match(edited).totals["Ann"] == 26


def test_deleting_a_round_recomputes() -> None:
    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)), round_of(Ann=(5, 0), Bob=(2, 1)))
    assert dict(score_match(delete_round(match, 1)).totals) == {"Ann": 5, "Bob": 0}


def test_a_delete_that_would_decide_the_match_earlier_names_the_rounds_as_they_stand() -> None:
    # round 2 entered by mistake: without it round 3 decides the match, and round 4 must go
    # first. The rounds were named as if round 2 were gone ("delete round 3 first"), and
    # following that deleted the deciding round (rules review)
    match = match_of(
        round_of(Ann=(30, 0), Bob=(3, 1)),
        round_of(Ann=(0, 10), Bob=(3, 0)),
        round_of(Ann=(25, 0), Bob=(3, 1)),
        round_of(Ann=(1, 0), Bob=(3, 1)),
        target=50,
    )
    with pytest.raises(MatchError) as caught:
        delete_round(match, 2)
    assert str(caught.value) == (
        "without round 2, the match is decided after round 3, but round 4 was played after it "
        "(if the match ended there, delete round 4 first; if not, its target must be higher)"
    )
    five = replace(match, rounds=(*match.rounds, round_of(Ann=(1, 0), Bob=(1, 0))))
    with pytest.raises(MatchError, match=r"but round 4 was played .* delete rounds 4-5 first;"):
        delete_round(five, 2)
    # ... and the hint, followed, leaves the match won where round 3 won it
    won = delete_round(delete_round(match, 4), 2)
    assert score_match(won).status == "won" and score_match(won).decided_after == 2


@pytest.mark.parametrize("number", [0, 3, -1])
def test_editing_a_round_that_does_not_exist_is_refused(number: int) -> None:
    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)), round_of(Ann=(5, 0), Bob=(2, 1)))
    with pytest.raises(MatchError, match=f"^no round {number}: the match has 2 round"):
        replace_round(match, number, round_of(Ann=(1, 0), Bob=(1, 0)))


# --- teams --------------------------------------------------------------------------------

def test_partners_share_one_total_and_the_team_wins() -> None:
    match = match_of(
        round_of(Ann=(20, 0), Bob=(15, 2), Cy=(16, 1), Di=(3, 6)),
        n=4, teams=("North", "South", "North", "South"), target=30,
    )
    standings = score_match(match)
    assert dict(standings.team_totals or {}) == {"North": 34, "South": 2}
    assert standings.winners == ("North",)
    # Ann alone (20) is below the target; her team (20 + 14) is above it
    assert standings.status == "won"


def test_team_totals_tie_is_shared() -> None:
    match = match_of(
        round_of(Ann=(20, 0), Bob=(15, 0), Cy=(10, 0), Di=(15, 0)),
        n=4, teams=("N", "S", "N", "S"), target=30,
    )
    assert score_match(match).winners == ("N", "S")


def test_editing_some_players_keeps_the_others() -> None:
    from blitzcam.game.rules import edit_round

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))
    edited = edit_round(match, 1, {"Bob": Tally(5, 0)})
    assert dict(edited.rounds[0].tallies) == {"Ann": Tally(10, 0), "Bob": Tally(5, 0)}
    with pytest.raises(MatchError, match=r"^round 1, player Zed: not a player"):
        edit_round(match, 1, {"Zed": Tally(1, 0)})


def test_editing_a_middle_round_keeps_that_round_s_other_counts() -> None:
    # (with one round, "the round edited" and "the round before it" were one: taking Ann's
    # count from round 1 when round 2 was edited passed every test; review)
    from blitzcam.game.rules import edit_round

    match = match_of(round_of(Ann=(10, 1), Bob=(1, 0)), round_of(Ann=(20, 2), Bob=(2, 0)),
                     round_of(Ann=(5, 3), Bob=(3, 0)))  # fmt: skip
    edited = edit_round(match, 2, {"Bob": Tally(9, 0)})
    assert [dict(r.tallies) for r in edited.rounds] == [
        {"Ann": Tally(10, 1), "Bob": Tally(1, 0)},
        {"Ann": Tally(20, 2), "Bob": Tally(9, 0)},
        {"Ann": Tally(5, 3), "Bob": Tally(3, 0)},
    ]


# --- changing players ---------------------------------------------------------------------

def test_a_renamed_player_keeps_their_tallies_in_every_round() -> None:
    from blitzcam.game.rules import change_players

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)), round_of(Ann=(3, 4), Bob=(12, 0)))
    ann, bob = match.players
    changed = change_players(match, (Player("Anna", ann.deck), bob))
    assert [p.name for p in changed.players] == ["Anna", "Bob"]
    assert [dict(r.tallies) for r in changed.rounds] == [
        {"Anna": Tally(10, 0), "Bob": Tally(2, 1)},
        {"Anna": Tally(3, 4), "Bob": Tally(12, 0)},
    ]
    assert dict(score_match(changed).totals) == {"Anna": 5, "Bob": 12}
    assert match.players[0].name == "Ann"  # the match given is left as it was


def test_players_can_swap_names_and_decks_each_keeping_their_seat() -> None:
    from blitzcam.game.rules import change_players

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))
    ann, bob = match.players
    swapped = change_players(match, (Player("Bob", bob.deck), Player("Ann", ann.deck)))
    # the first seat scored 10: under its new name, Bob, whatever the deck
    assert dict(swapped.rounds[0].tallies) == {"Bob": Tally(10, 0), "Ann": Tally(2, 1)}
    assert [p.deck for p in swapped.players] == [bob.deck, ann.deck]


def test_changing_partners_changes_the_team_totals_and_may_decide_the_match() -> None:
    from blitzcam.game.rules import change_players

    match = match_of(
        round_of(Ann=(20, 0), Bob=(15, 2), Cy=(16, 1), Di=(3, 6)),
        n=4, teams=("North", "South", "North", "South"), target=40,
    )
    assert score_match(match).status == "in-progress"  # North 34, South 2
    new_teams = [replace_team(p, t) for p, t in zip(match.players, "ABBA", strict=True)]
    changed = change_players(match, new_teams)
    standings = score_match(changed)
    assert dict(standings.team_totals or {}) == {"A": 20 + 3 - 12, "B": 11 + 14}
    without = change_players(match, [replace_team(p, None) for p in match.players])
    assert not without.uses_teams and score_match(without).status == "in-progress"


def test_one_seat_changed_is_the_seat_a_refusal_names() -> None:
    from blitzcam.game.rules import change_player

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1), Cy=(4, 4)), n=3)
    ann, bob, cy = match.players
    # the whole table's check finds the clash at the later seat: Bob, who changed nothing
    with pytest.raises(MatchError, match=rf"^player Ann: deck {bob.deck} is already played by "
                       "Bob; each player plays their own deck$"):  # fmt: skip
        change_player(match, "Ann", deck=bob.deck)
    with pytest.raises(MatchError, match=rf"^player Cy: deck {ann.deck} is already played by Ann"):
        change_player(match, "Cy", deck=ann.deck)
    with pytest.raises(MatchError, match=r"^player Bob: this match has no teams"):
        change_player(match, "Bob", team="North")
    # (worded as every command words it, a slip of case said: "no player 'ann' ... Ann, Bob, Cy")
    with pytest.raises(MatchError, match=r"^player Zed: not a player in this match \(its players: Ann, Bob, Cy\)$"):
        change_player(match, "Zed", new_name="Zoe")
    with pytest.raises(MatchError, match=r"^player ann: not a player in this match: did you mean Ann\?$"):
        change_player(match, "ann", new_name="Zoe")
    # a new name refused is said of the seat renamed (it was "player bob: looks like 'Bob'")
    with pytest.raises(MatchError, match=r"^player Ann: renamed 'bob': looks like 'Bob' \(they "
                       r"differ only in case\)"):  # fmt: skip
        change_player(match, "Ann", new_name="bob")
    with pytest.raises(MatchError, match=r"^player Ann: renamed 'Cy': two players have this name$"):
        change_player(match, "Ann", new_name="Cy")
    changed = change_player(match, "Bob", new_name="Rob", deck="red-plow")
    assert [(p.name, p.deck) for p in changed.players] == [
        ("Ann", ann.deck), ("Rob", "red-plow"), ("Cy", cy.deck)]
    assert dict(changed.rounds[0].tallies)["Rob"] == Tally(2, 1)


def test_one_seat_changes_team_in_a_team_match_and_is_found_however_its_name_is_typed() -> None:
    from blitzcam.game.rules import change_player

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1), Cy=(4, 4), Di=(1, 0)),
                     n=4, teams=("North", "South", "North", "South"))  # fmt: skip
    match = change_player(match, "Ann", new_name="Jos\u00e9")
    decomposed = "Jose\u0301"  # the accent typed as a letter of its own
    swapped = change_player(match, decomposed, team="South")
    assert [p.team for p in swapped.players] == ["South", "South", "North", "South"]
    with pytest.raises(MatchError, match=r"^player Cy: a team match needs at least two teams at the table$"):
        change_player(swapped, "Cy", team="South")  # one team left: no match (said of the seat)


def replace_team(player: Player, team: str | None) -> Player:
    return Player(player.name, player.deck, team)


@pytest.mark.parametrize(
    ("new", "message"),
    [
        (("Ann", "Ann"), "player Ann: two players have this name"),
        (("Ann", " Bob"), "player name ' Bob' must be non-empty text without outer spaces"),
        (("Ann", ""), "player name '' must be non-empty text"),
        (("Ann",), "the match has 2 players, got 1: a player joins or leaves a match under way through join"),
        (("Ann", "Bob", "Cy"), "the match has 2 players, got 3"),
    ],
)
def test_changes_that_break_a_rule_are_refused(new: tuple[str, ...], message: str) -> None:
    from blitzcam.game.decks import DECK_NAMES
    from blitzcam.game.rules import change_players

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))
    with pytest.raises(MatchError, match=f"^{message}"):
        change_players(match, [Player(n, DECK_NAMES[i]) for i, n in enumerate(new)])


def test_a_deck_played_twice_after_the_change_is_refused() -> None:
    from blitzcam.game.rules import change_players

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))
    ann = match.players[0]
    with pytest.raises(MatchError, match=r"^player Bob: deck .* is already played by Ann"):
        change_players(match, (ann, Player("Bob", ann.deck)))


def test_changing_teams_that_would_have_decided_the_match_earlier_is_refused() -> None:
    from blitzcam.game.rules import change_players

    # apart, nobody reaches 30 in round 1; as partners Ann and Bob do, and round 2 could not
    # have been played
    match = match_of(
        round_of(Ann=(20, 0), Bob=(15, 0), Cy=(1, 0), Di=(1, 0)),
        round_of(Ann=(1, 0), Bob=(1, 0), Cy=(1, 0), Di=(1, 0)),
        n=4, target=30,
    )
    with pytest.raises(MatchError, match=r"^with the teams as given, the match is decided after round 1, but round 2 was played "):
        change_players(match, [replace_team(p, t) for p, t in zip(match.players, "XXYY",
                                                                  strict=True)])


def test_seats_given_from_a_file_take_no_latecomer_after_the_deciding_round() -> None:
    # (an imported match won after round 1 with Cy seated after it: "nobody joins a decided
    # match", which join and every change keep, but import did not)
    seats = (Player("Ann", "green-pump"), Player("Bob", "red-buggy"),
             Player("Cy", "blue-plow", joined=1))
    match = Match(players=seats, rounds=(round_of(Ann=(30, 0), Bob=(4, 0)),),
                  settings=rules.Settings(target=20))
    with pytest.raises(MatchError, match="player Cy: joined after round 1, and the match was "
                       "decided after round 1: nobody joins a decided match"):
        rules.check_seats_as_given(match)


def test_refusals_say_which_change_and_whose_seat() -> None:
    # found by review: the refusals named nobody, or advised the variant already in use
    from blitzcam.game.rules import come_back, join, leave

    full = match_of(n=8)
    with pytest.raises(MatchError, match=r"^player Ivy: the table is full \(8 players\): someone leaves first$"):
        join(full, Player("Ivy", "red-plow"))
    teams = match_of(round_of(Ann=(12, 0), Bob=(9, 4), Cy=(1, 1)), n=3, teams=("N", "S", "S"))
    with pytest.raises(MatchError, match=r"^player Ann: a team match needs at least two teams at the table$"):
        leave(teams, "Ann")
    played_out = match_of(round_of(Ann=(12, 1), Bob=(9, 4)), variant="play-out")
    with pytest.raises(MatchError) as refused:
        change_settings(played_out, Settings(75, "standard"))
    assert str(refused.value) == (
        "with the standard variant, round 1: nobody has 0 Blitz cards left, but a standard "
        "round ends when someone calls Blitz"
    )
    # a seat that never played (as a match file may hold one) comes back as a latecomer joins:
    # not with a start at or over the target
    never = replace(players(3)[2], joined=0, left=0, start=500)
    match = Match(players=(*players(2), never), settings=Settings(75, "play-out"),
                  rounds=(round_of(Ann=(5, 1), Bob=(5, 1)),))  # fmt: skip
    score_match(match)  # (a stored match may hold it: they are not at the table)
    with pytest.raises(MatchError, match=r"^player Cy: a start of 500 reaches the target \(75\) before a round$"):
        come_back(match, "Cy")
    assert come_back(replace(match, players=(*players(2), replace(never, start=20))), "Cy")


def test_a_tally_the_rules_refuse_is_said_in_words_as_the_round_check_says_it() -> None:
    from blitzcam.game.rules import tally_problem

    assert tally_problem(Tally(9, 21)) == "21 Blitz cards: a Blitz pile is dealt 10"
    assert tally_problem(Tally(41, 0)) == "41 Dutch cards: a deck holds 40"
    assert tally_problem(Tally(35, 6)) == "35 Dutch + 6 Blitz cards is more than the 40 cards in a deck"
    assert tally_problem(Tally(30, 10)) is None and tally_problem(Tally(0, 0)) is None


def test_a_match_renamed_and_nothing_else_is_told_with_its_new_names() -> None:
    before = match_of(round_of(Ann=(5, 0), Bob=(3, 2), Cy=(2, 3)), n=3)
    ann, bob, cy = before.players
    after = rules.change_players(before, (ann, replace(bob, name="Rob"), cy))
    assert rules.renamed_only(before, after) == {"Bob": "Rob"}
    assert rules.renamed_only(before, before) == {}
    # a deck changed, a round added, a player joined: more than names
    assert rules.renamed_only(before, rules.change_players(before, (ann, replace(bob, deck="blue-plow"), cy))) is None
    assert rules.renamed_only(before, rules.add_round(after, round_of(Ann=(1, 0), Rob=(1, 1), Cy=(1, 2)))) is None
    assert rules.renamed_only(before, rules.join(before, replace(bob, name="Di", deck="blue-plow"))) is None


def test_a_match_takes_no_round_past_the_most_it_holds() -> None:
    from blitzcam.game.rules import MAX_ROUNDS, Settings

    tie = round_of(Ann=(0, 0), Bob=(0, 0))
    full = replace(match_of(), settings=Settings(variant="play-out"), rounds=(tie,) * MAX_ROUNDS)
    assert len(score_match(full).round_scores) == MAX_ROUNDS
    with pytest.raises(MatchError, match=f"at most {MAX_ROUNDS:,} rounds, got {MAX_ROUNDS + 1:,}: start a new"):
        rules.add_round(full, tie)
    # one of more, stored before the limit, is still read, scored and undone (to be exported)
    over = replace(full, rounds=(tie,) * (MAX_ROUNDS + 1))
    assert len(score_match(over).round_scores) == MAX_ROUNDS + 1
    assert len(rules.delete_round(over, MAX_ROUNDS + 1).rounds) == MAX_ROUNDS


def test_a_round_number_the_match_lacks_is_said_in_words() -> None:
    # ("the match has 1 round(s)"; a round 0 was not told rounds start at 1; review)
    from blitzcam.game.validation import check_round_number

    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))
    with pytest.raises(MatchError, match=r"^no round 2: the match has 1 round$"):
        check_round_number(match, 2)
    with pytest.raises(MatchError, match=r"^no round 0: the match has 1 round \(rounds are numbered from 1\)$"):
        check_round_number(match, 0)


def test_a_match_scored_again_is_remembered_by_value_and_one_of_lists_is_scored_all_the_same(monkeypatch) -> None:
    # (saving a round scored the same match five times over: the store, the rule, the board
    # and the menus; review)
    from blitzcam.game import rules

    scored = []
    real = rules._score
    monkeypatch.setattr(rules, "_score", lambda match: scored.append(1) or real(match))
    rules._scored.cache_clear()
    match = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))
    again = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))  # another object, the same match
    assert score_match(match) is score_match(again) and scored == [1]
    changed = match_of(round_of(Ann=(10, 0), Bob=(3, 1)))
    assert score_match(changed).totals["Bob"] == 1 and scored == [1, 1]
    by_hand = Match(players=list(match.players), rounds=list(match.rounds))  # (unhashable)
    assert score_match(by_hand).totals == score_match(match).totals and scored == [1, 1, 1]
    # a number of another type, equal to Python (10.0, True), is not taken for its twin's
    # (refused on its own, it was accepted once the whole-numbered twin had been scored; review)
    twin = match_of(round_of(Ann=(10, 0), Bob=(2, 1)))
    score_match(twin)
    for odd in (replace(twin, settings=Settings(target=75.0)),
                replace(twin, rounds=(Round({"Ann": Tally(10.0, 0), "Bob": Tally(2, 1)}),)),
                replace(twin, rounds=(Round({"Ann": Tally(10, 0), "Bob": Tally(2, True)}),))):  # fmt: skip
        with pytest.raises(MatchError, match="must be a whole number"):
            score_match(odd)
