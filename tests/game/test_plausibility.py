"""game/plausibility.py: counts the game hardly leaves, said for the players to check."""

from __future__ import annotations

import pytest

from blitzcam.game.plausibility import (
    POST_PILES,
    UNUSUAL_TARGET_ABOVE,
    UNUSUAL_TARGET_BELOW,
    post_piles_note,
    short_of_post_piles,
    target_note,
)
from tests.game.factories import round_of


@pytest.mark.parametrize(
    ("dutch", "blitz", "variant", "short"),
    [
        (30, 10, "standard", True),  # 30/1 typed as 30/10: 3 cards fewer than the Post piles
        (34, 3, "standard", False),  # 37 in all: the Post piles' 3 are the rest of the deck
        (35, 3, "standard", True),
        (38, 0, "standard", True),  # the caller too: the round ended with their Post piles full
        (37, 0, "standard", False),
        (38, 0, "play-out", False),  # played on past an empty Blitz pile: Post piles may be empty
        (36, 2, "play-out", True),  # a Blitz pile left: it kept the Post piles filled
        (41, 0, "standard", False),  # more than a deck, and 28/11: the rules refuse them
        (28, 11, "standard", False),
    ],
)
def test_counts_that_leave_fewer_cards_than_the_post_piles_are_found(
    dutch: int, blitz: int, variant: str, short: bool
) -> None:
    round_ = round_of(Ann=(dutch, blitz), Bob=(5, 0), Cy=(5, 0))
    assert short_of_post_piles(round_, variant) == (("Ann",) if short else ())


@pytest.mark.parametrize(("dutch", "blitz", "short"), [(33, 2, False), (34, 2, True), (30, 5, False), (36, 0, True)])  # fmt: skip
def test_two_players_keep_five_post_piles(dutch: int, blitz: int, short: bool) -> None:
    # the rules lay out five Post piles each at a table of two: 36 cards besides them is more
    # than a deck leaves (3 were taken as every table's; review)
    round_ = round_of(Ann=(dutch, blitz), Bob=(5, 0))
    assert short_of_post_piles(round_, "standard") == (("Ann",) if short else ())


def test_the_note_names_the_player_and_their_counts() -> None:
    round_ = round_of(Ann=(30, 10), Bob=(5, 0), Cy=(5, 0))
    assert post_piles_note(round_, "Ann") == (
        f"Ann: 30 Dutch + 10 Blitz cards leave fewer than the {POST_PILES} cards of their Post "
        "piles in a deck of 40"
    )
    of_two = round_of(Ann=(30, 10), Bob=(5, 0))
    assert post_piles_note(of_two, "Ann") == (
        "Ann: 30 Dutch + 10 Blitz cards leave fewer than the 5 cards of their Post piles (two "
        "players lay out five) in a deck of 40"
    )


@pytest.mark.parametrize("target", [UNUSUAL_TARGET_BELOW, 30, 75, 100, 150, 200, UNUSUAL_TARGET_ABOVE])
def test_a_target_near_the_usual_ones_gets_no_note(target: int) -> None:
    assert target_note(target) is None


def test_a_target_a_zero_too_long_or_short_is_said_with_what_it_means() -> None:
    # (750 typed for 75 was taken unsaid: a match ten times as long)
    assert target_note(750) == (
        "a target of 750 is far past the usual (75, 100, 150): a match to it lasts about 10 "
        "times as many rounds as one to 75"
    )
    assert "about 4 times" in target_note(UNUSUAL_TARGET_ABOVE + 1)
    assert target_note(15) == (
        "a target of 15 is far under the usual (75, 100, 150): the first round may decide the match"
    )
    assert target_note(1) is not None and target_note(UNUSUAL_TARGET_BELOW - 1) is not None
    # the lines themselves (a third of the least usual target, twice the most; review: the
    # tests above move with them)
    assert (UNUSUAL_TARGET_BELOW, UNUSUAL_TARGET_ABOVE) == (25, 300)
