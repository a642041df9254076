"""A deck as typed and the `--in-play DECK,...` option's value, read alike by every command
that takes them, and the counting pipeline those commands load with it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (imported where used: the pipeline loads numpy and OpenCV)
    from blitzcam.vision.pipeline import CountingPipeline


def deck_list(text: str) -> tuple[str, ...]:
    """The deck names of `green-pump,red-buggy` (argparse's type: one named twice, or an empty
    name, is a bad argument), each as a person may type it (`Blue Plow`), as labels and a
    counts file's columns take them."""
    from blitzcam.game.decks import typed_deck_name

    decks = tuple(typed_deck_name(name) for name in text.split(","))
    if not all(decks):
        raise argparse.ArgumentTypeError(f"{text!r}: expected deck names separated by commas")
    twice = sorted({name for name in decks if decks.count(name) > 1})
    if twice:  # a slip for another deck, most likely: that one would go uncounted
        raise argparse.ArgumentTypeError(f"{text!r}: {', '.join(twice)} named twice")
    return decks


def typed_deck(text: str) -> str:
    """One of the eight decks as typed, in any case or spacing ("Green-Pump", "green_pump"),
    as that deck; anything else as it is, for the command to refuse (with a deck it may mean)
    or take as a deck of the person's own."""
    from blitzcam.game.decks import DECK_NAMES, typed_deck_name

    typed = typed_deck_name(text)
    return typed if typed in DECK_NAMES else text


def counting_pipeline(args: argparse.Namespace) -> CountingPipeline:
    """The counting pipeline of a command's `--model`, `--decks` and `--engine`, its
    `--in-play` decks checked against the profile (UserError naming one it does not know)."""
    from blitzcam.errors import UserError
    from blitzcam.vision.pipeline import CountingPipeline, decks_in_play

    pipeline = CountingPipeline.from_defaults(
        model_path=args.model, decks_dir=args.decks, engine=args.engine
    )
    if args.in_play is not None:
        try:
            decks_in_play(pipeline.profile, args.in_play)
        except ValueError as exc:
            raise UserError(f"--in-play: {exc}") from None
    return pipeline
