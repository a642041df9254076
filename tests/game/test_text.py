"""Text views of a match: the terminal's words stay plain; a window's names are isolated."""

from __future__ import annotations

import unicodedata

import pytest

from blitzcam.game.rules import Match, Player, Round, Settings, Tally, score_match
from blitzcam.game.text import describe_status, isolated, left_to_right
from tests.game.factories import match_of, round_of


def _won_by(name: str) -> Match:
    players = (Player(name, "blue-pump"), Player("Ann", "red-buggy"))
    tallies = {name: Tally(dutch=40, blitz=0), "Ann": Tally(dutch=2, blitz=3)}
    return Match(players, Settings(target=30), (Round(tallies),))


def _first_strong_direction(text: str) -> str:
    """Unicode's rule P2: the first L, R or AL letter outside isolates sets the direction."""
    depth = 0
    for char in text:
        if char in "\u2066\u2067\u2068":
            depth += 1
        elif char == "\u2069":
            depth = max(0, depth - 1)
        elif depth == 0 and unicodedata.bidirectional(char) in ("L", "R", "AL"):
            return unicodedata.bidirectional(char)
    return "none"


def test_terminal_status_is_plain_text() -> None:
    assert describe_status(score_match(_won_by("محمد"))) == "won by محمد after round 1"


def test_window_status_isolates_the_name_and_reads_left_to_right() -> None:
    text = left_to_right(describe_status(score_match(_won_by("محمد")), name=isolated))
    assert "\u2068محمد\u2069" in text
    assert _first_strong_direction(text) == "L"
    # unmarked, the sentence would take the Arabic name's direction
    assert _first_strong_direction("محمد leads after round 1") == "AL"


def test_a_moment_local_time_cannot_hold_is_shown_as_stored(monkeypatch) -> None:
    # a hand-edited 9999-12-31T23:59:59+00:00, listed east of UTC: `match list` overflowed
    import time
    from datetime import datetime

    from blitzcam.game.text import local_time

    with monkeypatch.context() as zone:  # only the zone undone: not the suite's own patches
        zone.setenv("TZ", "Asia/Tokyo")
        time.tzset()
        try:
            assert local_time(datetime.fromisoformat("9999-12-31T23:59:59+00:00")) == (
                "9999-12-31 23:59 +0000"
            )
            assert local_time(datetime.fromisoformat("2026-12-03T10:00:00+00:00")) == (
                "2026-12-03 19:00"
            )
        finally:
            zone.undo()
            time.tzset()


def test_seat_changes_say_who_an_undo_put_back_or_a_redo_took_away() -> None:
    from blitzcam.game.rules import leave
    from blitzcam.game.text import seat_changes

    played = match_of(round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2)), n=3)
    gone = leave(played, "Cy")
    assert seat_changes(gone, played) == "; Cy back at the table"
    assert seat_changes(played, gone) == "; Cy off the table again"
    assert seat_changes(played, played) == ""


def test_a_shared_win_names_its_winners_as_the_board_does() -> None:
    # (the browser said "shared win: Ann, Bob", the scoreboard "Ann and Bob")
    from blitzcam.game.rules import add_round, new_match

    match = new_match((Player("Ann", "green-pump"), Player("Bob", "red-buggy"),
                       Player("Cy", "blue-plow")), Settings(target=10))
    match = add_round(match, round_of(Ann=(12, 0), Bob=(12, 0), Cy=(3, 2)))
    assert describe_status(score_match(match)) == "shared win: Ann and Bob after round 1"


def test_a_terminal_s_columns_count_wide_and_joined_characters_as_it_shows_them() -> None:
    from blitzcam.game.text import padded, shown_width

    assert shown_width("Ann") == 3
    assert shown_width("王小明") == 6  # each two columns wide
    assert shown_width("\U0001f469\u200d\U0001f4bb") == 2  # 👩‍💻: one emoji of two
    assert shown_width("Jose\u0301") == 4  # an accent on the e takes no column
    assert shown_width("A\u200bB") == 2
    assert shown_width("\u2764\ufe0f") == 2  # ❤️: an emoji by its selector (counted 1)
    assert shown_width("\U0001f44d\U0001f3fd") == 2  # 👍🏽: its skin tone is no more (4)
    assert shown_width("\u1112\u1161\u11ab") == 2  # 한 of its letters: one syllable (3)
    assert shown_width("\U0001f1f3\U0001f1f1") == 2  # 🇳🇱
    assert padded("王", 4) == "王  " and padded("Ann", 2) == "Ann"


def test_the_standings_table_stays_in_line_with_wide_names() -> None:
    # (padded by length, a Chinese name's column pushed the next one two columns right)
    from blitzcam.game.text import shown_width, standings_table

    players = (Player("王小明" * 3, "green-pump"), Player("\U0001f469\u200d\U0001f4bb", "red-buggy"),
               Player("Bob", "blue-plow"))  # fmt: skip
    tallies = {"王小明" * 3: Tally(5, 0), "\U0001f469\u200d\U0001f4bb": Tally(3, 1), "Bob": Tally(2, 2)}
    match = Match(players, Settings(), (Round(tallies),))
    lines = standings_table(1, match, score_match(match)).splitlines()
    header, first_round, totals = lines[1], lines[2], lines[3]
    # every column padded to its header's width as the terminal shows it: the lines as wide
    assert shown_width(header) == shown_width(first_round) == shown_width(totals)
    # ... and Bob's cell under Bob's header
    assert shown_width(header[: header.index("Bob")]) == shown_width(
        first_round[: first_round.rindex(" 2 D")]
    )


def test_the_match_list_keeps_its_players_column_in_line_with_a_wide_winner() -> None:
    # (the status, with the winner's name in it, was padded by length)
    from datetime import UTC, datetime

    from blitzcam.game.store import MatchSummary
    from blitzcam.game.text import match_list, shown_width

    def summary(winner: str, match_id: int) -> MatchSummary:
        players = (Player(winner, "green-pump"), Player("Bob", "blue-plow"))
        match = Match(players, Settings(target=10), (Round({winner: Tally(12, 0), "Bob": Tally(2, 2)}),))
        when = datetime(2026, 12, 6, tzinfo=UTC)
        return MatchSummary(match_id, when, when, players, 1, score_match(match))

    for winner in ("王小明", "王小明" * 10, "Bartholomew-Maximilian Oppenheimer"):
        # (a status wider than the column's 36 pushed its line's players out of line; review)
        wide, plain = match_list([summary(winner, 1), summary("Ann", 2)]).splitlines()
        assert f"won by {winner}" in wide and "won by Ann" in plain
        # the players' column starts at one terminal column on both lines
        assert shown_width(wide[: wide.index(f"{winner}, Bob")]) == shown_width(
            plain[: plain.index("Ann, Bob")]
        )


def test_unmarked_takes_away_the_marks_of_direction_and_keeps_joiners() -> None:
    from blitzcam.game.text import isolated, left_to_right, unmarked

    family = "👨\u200d👩\u200d👧"  # (one emoji, joined)
    assert unmarked(left_to_right(isolated("محمد") + " and " + isolated(family))) == (
        "محمد and " + family
    )


def test_the_leaders_are_listed_so_a_name_with_a_comma_reads_as_one() -> None:
    # ("leading: Ann, Bob, Ann, Jr" for three level; review)
    from blitzcam.game.text import standings_table

    match = Match(
        (Player("Ann", "green-pump"), Player("Bob", "red-buggy"), Player("Ann, Jr", "blue-plow")),
        Settings(),
        (Round({"Ann": Tally(1, 0), "Bob": Tally(3, 1), "Ann, Jr": Tally(1, 0)}),),
    )
    assert standings_table(1, match, score_match(match)).endswith("leading: Ann, Bob and Ann, Jr")


def test_a_match_in_progress_says_who_leads_with_how_many() -> None:
    # (the Matches window's result read "in progress" for each match of the same players,
    # nothing to tell them apart by; app-visual review)
    from blitzcam.game.text import describe_standing

    def said(match: Match) -> str:
        return describe_standing(score_match(match))

    assert said(match_of()) == "in progress"  # (no round yet: nobody leads)
    assert said(match_of(round_of(Ann=(12, 0), Bob=(9, 4)))) == "in progress: Ann leads with 12"
    assert said(match_of(round_of(Ann=(5, 0), Bob=(5, 0)))) == "in progress: Ann and Bob lead with 5"
    teams = match_of(round_of(Ann=(8, 0), Bob=(3, 1), Cy=(2, 0), Di=(9, 2)), n=4, teams=("N", "S", "N", "S"))
    assert said(teams) == "in progress: N leads with 10"
    assert said(_won_by("Bob")) == describe_status(score_match(_won_by("Bob")))  # (as before)
    level = match_of(round_of(Ann=(5, 0), Bob=(5, 0), Cy=(5, 0), Di=(5, 0)), n=4)
    assert said(level) == "in progress: 4 players share the lead with 5"  # (as the board counts)
    name = describe_standing(score_match(match_of(round_of(Ann=(12, 0), Bob=(9, 4)))), name=isolated)
    assert name == f"in progress: {isolated('Ann')} leads with 12"


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_the_standings_table_fits_a_terminal_in_blocks_of_players(columns: int) -> None:
    # (eight players made lines of 200-370 columns: every round wrapped over several lines of
    # an 80-column terminal; review)
    from blitzcam.game.decks import DECK_NAMES
    from blitzcam.game.text import shown_width, standings_table

    names = [f"Wilhelmina {i} van Oranje-Nassau" for i in range(8)]
    players = tuple(Player(name, deck) for name, deck in zip(names, DECK_NAMES, strict=True))
    rounds = tuple(Round({name: Tally(i, int(i > 0)) for i, name in enumerate(names)}) for _ in range(3))
    match = Match(players, Settings(), rounds)
    wide = standings_table(1, match, score_match(match))
    assert max(map(shown_width, wide.splitlines()[:6])) > 300  # to a pipe: whole
    fitted = standings_table(1, match, score_match(match), columns=columns).splitlines()
    assert all(shown_width(line) <= columns for line in fitted[1:])  # (the title runs on)
    headers = [line for line in fitted if line.startswith("round  ")]
    assert len(headers) > 1 and sum(line.count("Wilhelmina") for line in headers) == 8  # each once
    totals = [line for line in fitted if line.startswith("total  ")]
    assert len(totals) == len(headers)
    assert [int(v) for line in totals for v in line.split()[1:]] == [0] + [3 * (i - 2) for i in range(1, 8)]


def test_headers_cut_to_a_terminal_keep_each_player_s_deck_team_and_note() -> None:
    # (cut whole to 24 columns, half the players lost their team, and two Marias their decks,
    # their columns alike; review)
    from blitzcam.game.decks import DECK_NAMES
    from blitzcam.game.text import standings_table

    names = ["Maria Fernanda Gonzalez Lopez", "Maria Fernanda Gonzalez Perez", "Bob", "Cy"]
    players = tuple(Player(name, deck, team=("Team A", "Team B")[i % 2])
                    for i, (name, deck) in enumerate(zip(names, DECK_NAMES, strict=False)))  # fmt: skip
    rounds = (Round({name: Tally(i, int(i > 0)) for i, name in enumerate(names)}),)
    match = Match(players, Settings(), rounds)
    table = standings_table(1, match, score_match(match), columns=80)
    headers = " ".join(line for line in table.splitlines() if line.startswith("round  "))
    for player in players:
        assert f"({player.deck}, {player.team})" in headers
    assert "Maria Fernand… (green-pump, Team A)" in headers
    assert "Maria Fernand… (red-buggy, Team B)" in headers


@pytest.mark.parametrize(
    ("text", "columns", "cut"),
    [
        ("a\u263a\ufe0f", 2, "a"),  # not the smiley without its emoji selector (a plain symbol)
        ("a\U0001f44d\U0001f3fd", 2, "a"),  # not the thumb without its skin tone
        ("Jose\u0301x", 4, "Jose\u0301"),  # the accent stays with its letter
        ("\u0915\u093f\u0936\u094b\u0930", 3, "\u0915\u093f"),  # a vowel sign with its letter
        ("ab\U0001f468\u200d\U0001f469", 3, "ab"),  # not half of a joined emoji
        ("王小明王小明", 5, "王小"),  # two columns each
        ("Bartholomew", 8, "Bartholo"),
    ],
)
def test_a_name_is_cut_between_the_characters_it_shows(text: str, columns: int, cut: str) -> None:
    from blitzcam.game.text import cut_to_width, shown_width

    assert cut_to_width(text, columns) == cut and shown_width(cut) <= columns
