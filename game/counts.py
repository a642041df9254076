"""What a table's cards come to: backs per deck, face-up cards, backs of no deck. The record
vision's counting returns and the app's live view shows; plain Python, so that the UI's worker
reads it without vision/."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

# what a round's cards are counted for, in the order the app scans them: the cards each player
# got into the Dutch piles, then those left in their Blitz pile
Step = Literal["dutch", "blitz"]
STEPS: Final[tuple[Step, ...]] = ("dutch", "blitz")


@dataclass(frozen=True, slots=True)
class Counts:
    """Backs per deck (every known deck, zeros included), face-up cards, unidentified backs."""

    per_deck: Mapping[str, int]
    face_up: int
    unknown: int

    def __post_init__(self) -> None:
        # read-only, and not the caller's dict: the live vote keeps the counts it showed
        object.__setattr__(self, "per_deck", MappingProxyType(dict(self.per_deck)))

    @property
    def total(self) -> int:
        return sum(self.per_deck.values())
