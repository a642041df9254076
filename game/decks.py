"""The eight deck identities of Dutch Blitz, named as everywhere in blitzcam (CLI, JSON, files)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final, Literal

Pack = Literal["base", "expansion"]
Symbol = Literal["pump", "buggy", "bucket", "plow"]
Ink = Literal["green", "red", "yellow", "blue"]


@dataclass(frozen=True, slots=True)
class Deck:
    """One deck's identity: the drawing on its back and the ink it is printed in."""

    name: str
    symbol: Symbol
    ink: Ink
    pack: Pack


DECKS: Final[tuple[Deck, ...]] = (
    Deck("green-pump", "pump", "green", "base"),
    Deck("red-buggy", "buggy", "red", "base"),
    Deck("yellow-bucket", "bucket", "yellow", "base"),
    Deck("blue-plow", "plow", "blue", "base"),
    Deck("blue-pump", "pump", "blue", "expansion"),
    Deck("yellow-buggy", "buggy", "yellow", "expansion"),
    Deck("green-bucket", "bucket", "green", "expansion"),
    Deck("red-plow", "plow", "red", "expansion"),
)
DECK_NAMES: Final[tuple[str, ...]] = tuple(deck.name for deck in DECKS)
DECKS_BY_NAME: Final[dict[str, Deck]] = {deck.name: deck for deck in DECKS}

CARDS_PER_DECK: Final = 40
BLITZ_PILE_SIZE: Final = 10
# Height / width of a card. Assumption, not measured: Dutch Blitz cards are taken to be 57 x 89 mm
# (2.25 x 3.5 in, "bridge" size), as retail listings suggest. Measure a real deck and correct this
# (the generator draws cards of this shape, and enrollment looks for one).
CARD_ASPECT: Final[float] = 89.0 / 57.0
# the longest name an enrolled deck may have (its reference's file name, less .png)
DECK_NAME_MAX: Final = 40


def deck_by_name(name: str) -> Deck:
    """Look a deck up by its name; the error lists the names that exist."""
    try:
        return DECKS_BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"unknown deck {name!r}: expected one of {', '.join(DECK_NAMES)}"
        ) from None


def typed_deck_name(text: str) -> str:
    """A deck's name as a person types it in a label or a column ("Green Pump", "green_pump",
    " RED-PLOW ") in the form decks are named ("green-pump"): any case, spaces or underscores
    for dashes. A name that is no deck's stays one that is no deck's."""
    return re.sub(r"[\s_]+", "-", text.strip().lower())


def folded_deck_name(text: str) -> str:
    """`typed_deck_name` of `text` in plain letters: compatibility forms made plain ("ｍｙ"
    typed full-width: "my") and accents dropped ("café": "cafe"), as a deck may be named; the
    name to suggest for one that cannot be."""
    plain = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    return typed_deck_name("".join(ch for ch in plain if not unicodedata.combining(ch)))


def meant_deck(deck: str) -> str | None:
    """The one of the eight decks `deck` is a slip of the keyboard for (a letter left out,
    added, changed or two swapped), or None."""
    if deck in DECK_NAMES:
        return None
    near = [name for name in DECK_NAMES if _one_slip_apart(deck, name)]
    return near[0] if len(near) == 1 else None


def _one_slip_apart(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = (
            len(differ) == 2
            and differ[1] == differ[0] + 1
            and (a[differ[0]] == b[differ[1]] and a[differ[1]] == b[differ[0]])
        )
        return len(differ) == 1 or swapped
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))
