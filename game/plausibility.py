"""What in a round's counts the game hardly leaves, though the rules let it through: said for
the players to check, and saved as they confirm it. A typed slip (30/10 for 30/1) is the
likely cause; a table's own way of play (Post piles left empty a while) is a rarer one, and
refusing its round would leave it no way to save it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from blitzcam.game.decks import BLITZ_PILE_SIZE, CARDS_PER_DECK
from blitzcam.game.match_model import COMMON_TARGETS, DEFAULT_TARGET, Round, Variant

# each player's Post piles, filled from their Blitz pile whenever one is played out, so that
# they hold a card each while the Blitz pile lasts; two players lay out five each (the rules'
# setup: "if only two are playing, five Post piles")
POST_PILES: Final = 3
POST_PILES_OF_TWO: Final = 5
# targets past which, or under which, a target is likely a slip of one zero (750 for 75, 15
# for 150): taken, and said
UNUSUAL_TARGET_ABOVE: Final = 2 * max(COMMON_TARGETS)
UNUSUAL_TARGET_BELOW: Final = min(COMMON_TARGETS) // 3


def post_piles(round_: Round) -> int:
    """The Post piles each player of `round_` laid out: five at a table of two."""
    return POST_PILES_OF_TWO if len(round_.tallies) == 2 else POST_PILES


def short_of_post_piles(round_: Round, variant: Variant) -> tuple[str, ...]:
    """The players whose Dutch and Blitz cards leave fewer than their Post piles' cards of the
    deck. A round ends when a Blitz pile runs out, so every player still has their Post
    piles; only a round played out can go on after someone's Blitz pile has run out."""
    kept = post_piles(round_)
    return tuple(
        name
        for name, tally in round_.tallies.items()
        # (counts the rules refuse are theirs to say: more than a deck, a Blitz pile past 10)
        if CARDS_PER_DECK - kept < tally.dutch + tally.blitz <= CARDS_PER_DECK
        and tally.blitz <= BLITZ_PILE_SIZE
        and not (variant == "play-out" and tally.blitz == 0)
    )


def post_piles_note(round_: Round, name: str, *, shown: Callable[[str], str] = str) -> str:
    """What to say of `name`'s counts, one of `short_of_post_piles`; `shown` dresses the name
    (`isolated` for a window)."""
    tally, kept = round_.tallies[name], post_piles(round_)
    of_two = " (two players lay out five)" if kept == POST_PILES_OF_TWO else ""
    return (
        f"{shown(name)}: {tally.dutch} Dutch + {tally.blitz} Blitz cards leave fewer than the "
        f"{kept} cards of their Post piles{of_two} in a deck of {CARDS_PER_DECK}"
    )


def target_note(target: int) -> str | None:
    """What to say of a target far from the usual ones, None for one near them."""
    usual = ", ".join(map(str, COMMON_TARGETS))
    if target > UNUSUAL_TARGET_ABOVE:
        return (
            f"a target of {target} is far past the usual ({usual}): a match to it lasts about "
            f"{round(target / DEFAULT_TARGET)} times as many rounds as one to {DEFAULT_TARGET}"
        )
    if target < UNUSUAL_TARGET_BELOW:
        return (
            f"a target of {target} is far under the usual ({usual}): the first round may "
            "decide the match"
        )
    return None
