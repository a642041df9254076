"""Decks whose backs the identity network reads nearly alike: their cards can go to each other.

The network tells drawings apart by what it learned, not by their names: two enrolled backs in
one ink with similar figures (a light-blue fish and a light-blue sheep), or a blurred or glared
photo of a back, can sit so close that a table holding both counts one deck's cards to the
other. Enrollment says so at once, while the photo can still be taken again; `decks list`,
`count` and the app's scan and confirm steps say so too. Counting uses the pairs as well: a pile
of one deck of a pair that holds the other's copies is parted again (`identify`'s look_alikes).

How alike two decks read is the cosine similarity of their nearest reference variants, in any
quarter turn (what a back on the table is compared with). The line was chosen on enrolled
unfamiliar art (`benchmarks/enrolled_eval.py`'s scenes, seed 77, 80 scenes, the choice set): of
the 779 pairs of decks sharing a table, the 20 at 0.75 or more had 7 pairs with backs counted
to each other (87 backs); the 759 under it had 7 (20 backs). The eight built-in decks' most
alike pair reads 0.60 with the four identity networks shipped at stop 55 (green pump and blue
pump; 0.61, blue plow and blue pump, with one), so they raise no note.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from blitzcam.vision.embedding import References

LOOK_ALIKE: Final = 0.75


@dataclass(frozen=True, slots=True)
class LookAlike:
    """Two decks whose backs read at least LOOK_ALIKE alike."""

    deck: str
    other: str
    likeness: float  # cosine similarity of their nearest reference variants

    def warning(self) -> str:
        """One line for the user: which decks, and what it means."""
        return (
            f"{self.deck} and {self.other} look alike to blitzcam ({self.likeness:.2f}): their "
            "cards may be counted to each other"
        )

    def note(self, name: Callable[[str], str] = str) -> str:
        """One line for the user who has just enrolled `deck`: what it means, and what to do;
        the decks said by `name` (the app's "Red buggy"; as they are by default)."""
        return (
            f"{name(self.deck)} looks like {name(self.other)} to blitzcam "
            f"({self.likeness:.2f} alike): "
            "when both are on the table, their cards may be counted to each other; if the "
            "photo was blurred, glared or slanted, enroll it again"
        )


def deck_likeness(references: References, n_decks: int) -> np.ndarray:
    """(n_decks, n_decks) cosine similarity of each two decks' nearest reference variants;
    NaN where a deck has no reference (and on the diagonal: a deck is not its own look-alike)."""
    likeness = np.full((n_decks, n_decks), np.nan, np.float32)
    if not len(references):
        return likeness
    sims = references.vectors @ references.vectors.T
    rows = [np.flatnonzero(references.owners == deck) for deck in range(n_decks)]
    for a in range(n_decks):
        for b in range(a + 1, n_decks):
            if len(rows[a]) and len(rows[b]):
                likeness[a, b] = likeness[b, a] = sims[np.ix_(rows[a], rows[b])].max()
    return likeness


def look_alikes(
    references: References, names: Sequence[str], *, line: float = LOOK_ALIKE
) -> list[LookAlike]:
    """The pairs of decks (`references.owners` index `names`) at least `line` alike, most alike
    first."""
    likeness = deck_likeness(references, len(names))
    pairs = [
        LookAlike(names[a], names[b], float(likeness[a, b]))
        for a, b in zip(*np.triu_indices(len(names), k=1), strict=True)
        if likeness[a, b] >= line  # NaN: a deck without references is no one's look-alike
    ]
    return sorted(pairs, key=lambda pair: -pair.likeness)


def involving(pairs: Sequence[LookAlike], deck: str) -> list[LookAlike]:
    """`deck`'s pairs, `deck` named first (in their order)."""
    return [
        pair if pair.deck == deck else LookAlike(deck, pair.deck, pair.likeness)
        for pair in pairs
        if deck in (pair.deck, pair.other)
    ]


def among(pairs: Sequence[LookAlike], decks: Collection[str] | None) -> list[LookAlike]:
    """The pairs both of whose decks are in `decks` (a match's decks; None: every deck)."""
    return [p for p in pairs if decks is None or (p.deck in decks and p.other in decks)]


def stand_ins_alike(
    references: References,
    names: Sequence[str],
    stand_ins: Collection[str],
    *,
    line: float = LOOK_ALIKE,
) -> set[str]:
    """The stand-ins (decks read only to tell their backs from the others, never counted) at
    least `line` alike to a deck that counts: most likely that deck under a name of the user's
    (a print of red plow as `house.png`), whose backs it would take."""
    if not stand_ins:  # (the user's profile never has any: no likeness worked out for it)
        return set()
    likeness = deck_likeness(references, len(names))
    counted = [i for i, name in enumerate(names) if name not in stand_ins]
    return {
        names[i]
        for i, name in enumerate(names)
        if name in stand_ins and np.any(likeness[i, counted] >= line)
    }


# A back enrolled as one of the eight, glare on its photo, that reads to its deck's drawing
# less than this above what that drawing reads to another deck's (green pump's to blue pump's,
# 0.60) is hardly its deck's any more: a photo whitened by glare reads 0.62 to green pump's
# drawing, and every green pump on the table is counted as blue pump, the glare note the one
# word said. Photos of the drawing that counted right read 0.70 and more (of 45,
# glare, blur and shadow among them; 0.99 most). Asked only where glare was found: a print
# drawn otherwise than blitzcam's drawing may read low to it, and its cards read to the print.
LOW_OWN_MARGIN: Final = 0.05


@dataclass(frozen=True, slots=True)
class OtherDeck:
    """A back enrolled as `deck` that reads more like `other`'s drawing than its own, or
    (`drawings`: what `deck`'s drawing reads to `other`'s) hardly more like its own than the
    two drawings read alike (LOW_OWN_MARGIN)."""

    deck: str
    other: str
    likeness: float  # to `other`'s drawing
    own: float  # to `deck`'s own
    drawings: float | None = None  # `deck`'s drawing to `other`'s, where that is the reason

    def note(self, name: Callable[[str], str] = str, *, take_back: str | None = None) -> str:
        """What it means and what to do; the decks said by `name` (as in `LookAlike.note`),
        `take_back` how the back is taken back (default: the command's)."""
        deck, other = name(self.deck), name(self.other)
        undo = take_back or f"`blitzcam decks forget {self.deck}` takes it back"
        if self.drawings is not None:
            return (
                f"the back enrolled as {deck} reads little like {deck}'s drawing "
                f"({self.own:.2f} alike), hardly more than {deck}'s drawing reads like "
                f"{other}'s ({self.drawings:.2f}): {deck}'s cards may be counted as {other}; is "
                f"it {deck}'s back, evenly lit, without glare? ({undo})"
            )
        return (
            f"the back enrolled as {deck} reads more like {other}'s drawing "
            f"({self.likeness:.2f} alike) than {deck}'s own ({self.own:.2f}): is it {deck}'s "
            f"back, face down, evenly lit? ({undo})"
        )


def nearer_another(
    deck: str,
    back: np.ndarray,
    drawings: References,
    names: Sequence[str],
    *,
    poorly_lit: bool = False,
) -> OtherDeck | None:
    """Whether a back enrolled as `deck` (its variants' vectors, `back`) reads more like
    another deck's drawing in `drawings` (blitzcam's own, `names` indexing their owners) than
    `deck`'s: the wrong deck picked up, a face-up card, a photo in deep shadow; and, where its
    photo was poorly lit (`poorly_lit`: glare, or too dark), whether it reads hardly more like
    its own than its drawing reads like another's (LOW_OWN_MARGIN). (Said as a question: a print
    drawn differently from blitzcam's own may read low to every drawing.)"""
    if deck not in names or not len(back) or not len(drawings):
        return None
    sims = back @ drawings.vectors.T
    likeness = {
        name: float(sims[:, drawings.owners == i].max())
        for i, name in enumerate(names)
        if (drawings.owners == i).any()
    }
    own = likeness.pop(deck, None)
    if own is None or not likeness:
        return None
    other = max(likeness, key=likeness.__getitem__)
    if likeness[other] > own:
        return OtherDeck(deck, other, likeness[other], own)
    if not poorly_lit:
        return None
    # (a back whitened by glare reads low to every drawing, and its deck's cards, which read
    # to its drawing as to their sister deck's, went to the sister)
    drawn = deck_likeness(drawings, len(names))[names.index(deck)]
    alike = {name: float(drawn[i]) for i, name in enumerate(names) if name in likeness}
    sister = max(alike, key=alike.__getitem__)
    if own < alike[sister] + LOW_OWN_MARGIN:
        return OtherDeck(deck, sister, likeness[sister], own, drawings=alike[sister])
    return None
