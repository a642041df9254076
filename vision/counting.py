"""Detections -> numbers: backs per deck and face-up cards. Counts, never draws. Pure."""

from __future__ import annotations

import numpy as np

from blitzcam.game.counts import Counts
from blitzcam.vision.detections import UNKNOWN_DECK, Detections

__all__ = ["Counts", "count"]


def count(detections: Detections, known_decks: tuple[str, ...]) -> Counts:
    """Count identified backs per deck; face-up cards are reported, never counted to a deck.

    Only the rows identification marked `counted` are counted.
    """
    backs = detections.of_class("back") & detections.counted
    per_deck = dict.fromkeys(known_decks, 0)
    decks = detections.deck[backs]
    for index, n in zip(*np.unique(decks[decks != UNKNOWN_DECK], return_counts=True), strict=True):
        name = detections.deck_names[int(index)]
        per_deck[name] = per_deck.get(name, 0) + int(n)
    return Counts(
        per_deck=per_deck,
        face_up=int((detections.of_class("face") & detections.counted).sum()),
        unknown=int((decks == UNKNOWN_DECK).sum()),
    )
