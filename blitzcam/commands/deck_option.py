"""The `--in-play DECK,...` option's value, read alike by every command that takes it."""

from __future__ import annotations

import argparse


def deck_list(text: str) -> tuple[str, ...]:
    """The deck names of `green-pump,red-buggy` (argparse's type: one named twice, or an empty
    name, is a bad argument)."""
    decks = tuple(name.strip() for name in text.split(","))
    if not all(decks):
        raise argparse.ArgumentTypeError(f"{text!r}: expected deck names separated by commas")
    twice = sorted({name for name in decks if decks.count(name) > 1})
    if twice:  # a slip for another deck, most likely: that one would go uncounted
        raise argparse.ArgumentTypeError(f"{text!r}: {', '.join(twice)} named twice")
    return decks
