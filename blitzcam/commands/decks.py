"""`blitzcam decks`: export the built-in card backs; enroll, list and forget your decks' backs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from blitzcam.commands.deck_option import typed_deck
from blitzcam.commands.path_option import (
    STANDARD_INPUT,
    check_piped,
    folder_argument,
    is_stream,
    path_or_stream,
)

if TYPE_CHECKING:  # (annotations only: the commands import vision/ when they run)
    from blitzcam.vision.enrollment import Enrolled


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("decks", help="export built-in deck backs, enroll your own deck")
    actions = parser.add_subparsers(dest="decks_command", metavar="ACTION", required=True)

    export = actions.add_parser("export", help="write the eight built-in backs as DIR/<deck>.png")
    export.add_argument(
        "out_dir", type=folder_argument, metavar="DIR", help="the folder to write them in (made)"
    )
    export.add_argument(
        "--width", type=int, default=600, help="card width in pixels (500 to 2400; default 600)"
    )
    export.add_argument(
        "--overwrite",
        action="store_true",
        help="replace backs already in DIR (refused without it: a --decks folder's own "
        "photographed backs have these names)",
    )
    # (a kill unwinds as Ctrl+C does: the backs being staged are taken away, not left hidden)
    export.set_defaults(func=_export, interrupt_on_sigterm=True)

    enroll = actions.add_parser("enroll", help="teach blitzcam how one of your decks' backs looks")
    enroll.add_argument(
        "deck",
        type=typed_deck,  # ("Green Pump", as `count --in-play` and `match` take it)
        metavar="DECK",
        help="one of the eight (e.g. green-pump) or a deck of your own: a-z, 0-9 and dashes",
    )
    source = enroll.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--image",
        type=path_or_stream,
        help="a photo of one back, flat and front-on (- reads it from standard input)",
    )
    source.add_argument(
        "--camera", help="a camera index, video file, folder of pictures or stream URL to grab from"
    )
    enroll.add_argument(
        "--own",
        action="store_true",
        help="DECK is a deck of your own, though its name is one slip from one of the eight "
        "(without it, such a name is refused as a typo)",
    )
    enroll.set_defaults(func=enroll_command)

    listing = actions.add_parser(
        "list", help="what each deck is read against: built-in art or your enrolled back"
    )
    listing.add_argument("--json", action="store_true", help="one JSON document")
    listing.set_defaults(func=list_command)

    forget = actions.add_parser(
        "forget", help="remove a deck's enrolled back (the built-in art is used again)"
    )
    forget.add_argument(
        "deck", type=typed_deck, metavar="DECK", help="the deck, as `decks list` names it"
    )
    forget.set_defaults(func=forget_command)


def _export(args: argparse.Namespace) -> int:
    from blitzcam.datasets.export import export_command  # owned by datasets/ (card art)

    return export_command(args)


def enroll_command(args: argparse.Namespace) -> int:
    """`blitzcam decks enroll DECK --image FILE | --camera SOURCE`."""
    from blitzcam.errors import SavedThenInterrupted, UserError
    from blitzcam.game.decks import meant_deck
    from blitzcam.vision.enrollment import (
        check_deck_name,
        enroll_image,
        enrolled_files,
        grab_card_frame,
        picture_to_enroll,
    )
    from blitzcam.vision.images import ImageError, read_file_bytes, read_stream_bytes
    from blitzcam.vision.references import user_decks_dir

    deck = check_deck_name(args.deck)
    # a typo stored as a deck of its own took that deck's cards from the one meant (counted
    # under the typo), and the deck meant stayed read against the built-in drawing
    if (meant := meant_deck(deck)) is not None and not args.own:
        raise UserError(
            f"{deck} is not one of the eight decks: did you mean {meant}? (a deck of your own "
            "under this name: add --own)"
        )
    if args.image is not None:
        source = STANDARD_INPUT if is_stream(args.image) else str(args.image)
        try:
            if is_stream(args.image):
                check_piped("--image", f"blitzcam decks enroll {deck} --image - < photo.jpg")
                data = read_stream_bytes(sys.stdin.buffer, name=source)
            else:
                data = read_file_bytes(Path(args.image))
            image, pixel_scale = picture_to_enroll(data, name=source)
        except ImageError as exc:  # (a phone app's /shot.jpg address: its password hidden,
            # the address alone: the message whole lost "no such file" to ?pwd=***)
            from blitzcam.vision.source_address import shown_address

            said = str(exc)
            if said.startswith(source):
                said = shown_address(source) + said[len(source) :]
            raise UserError(said) from None
    else:
        passed: list[str] = []
        (image, source), pixel_scale = grab_card_frame(str(args.camera), passed), 1.0
        for why in passed:  # (a folder's first card was taken: those before it, said)
            print(f"note: passed over {why}", file=sys.stderr)
    replaced = bool(enrolled_files(user_decks_dir(), deck))
    enrolled = enroll_image(deck, image, source=source, pixel_scale=pixel_scale)
    try:
        return _said_enrolled(deck, meant, enrolled, source, replaced=replaced)
    except KeyboardInterrupt:  # (said as "interrupted" alone, it read as if nothing was stored)
        raise SavedThenInterrupted() from None


def _said_enrolled(
    deck: str, meant: str | None, enrolled: Enrolled, source: str, *, replaced: bool
) -> int:
    """What `decks enroll` says once the back is stored: where, and which decks it looks like."""
    from blitzcam.errors import UserError
    from blitzcam.game.decks import DECK_NAMES
    from blitzcam.vision.enrollment import identity_network, profile_look_alikes, reads_as_another
    from blitzcam.vision.lookalike import involving

    target = enrolled.path
    note = "" if deck in DECK_NAMES else " (a deck of your own: counted under this name)"
    note += ", replacing the back enrolled before" if replaced else ""
    print(f"enrolled {deck} from {source}: stored {target}{note}")
    photo_notes = enrolled.photo_notes()
    for light in photo_notes:
        print(f"note: {light}", file=sys.stderr)
    if meant is not None:  # (--own: said again, beside what was stored)
        print(
            f"note: {deck} is not one of the eight decks, and looks like {meant}: counted under "
            f"its own name (`blitzcam decks forget {deck}` takes it back)",
            file=sys.stderr,
        )
    try:
        embedder = identity_network()  # (loaded once for both checks)
        pairs = involving(profile_look_alikes(embedder), deck)
        unlike = reads_as_another(deck, target, embedder, poorly_lit=bool(photo_notes))
    except UserError as exc:  # the back is stored: only the advice is missing
        print(f"note: could not check which decks {deck} looks like: {exc}", file=sys.stderr)
        return 0
    for pair in pairs:
        print(f"note: {pair.note()}", file=sys.stderr)
    if unlike is not None:
        print(f"note: {unlike.note()}", file=sys.stderr)
    if deck not in DECK_NAMES:  # (a deck of one's own may be drawn in parts: vision/drawing_parts)
        try:
            split = _split_note(target)
        except UserError as exc:
            print(f"note: could not check how {deck}'s cards are boxed: {exc}", file=sys.stderr)
            return 0
        if split is not None:
            print(f"note: {split}", file=sys.stderr)
    return 0


def _split_note(stored: Path) -> str | None:
    """Whether the detector boxes each card of the back stored at `stored` more than once
    (`vision.drawing_parts`), with the shipped detector."""
    from blitzcam.vision.drawing_parts import split_note
    from blitzcam.vision.images import read_image
    from blitzcam.vision.pipeline import COUNT_CONF, counting_detector

    # (set as counting sets it: ultralytics' own suppression left a third box on a title that
    # touches its figure, where counting leaves two)
    return split_note(read_image(stored), counting_detector(), COUNT_CONF)


def list_command(args: argparse.Namespace) -> int:
    """`blitzcam decks list [--json]`: exit 1 when an enrolled file cannot be used. Decks that
    read nearly alike are named too (a note, not a failure)."""
    from blitzcam.errors import UserError
    from blitzcam.game.decks import DECK_NAMES
    from blitzcam.vision.enrollment import enrolled_decks, profile_checks, unusable_decks
    from blitzcam.vision.lookalike import LookAlike, OtherDeck

    rows, problems = enrolled_decks()
    enrolled = {deck for deck, origin in rows if origin != "built-in"}
    unusable = unusable_decks(enrolled) if problems else set()
    pairs: list[LookAlike] | None
    # a back stored under the wrong deck, said once as it was enrolled, said here again: its
    # deck's cards go to a third one, which no look-alike pair names
    unlike: list[OtherDeck] = []
    try:
        pairs, unlike = profile_checks()
        unchecked = ""
    except UserError as exc:
        pairs, unchecked = None, str(exc)
    # a deck of one's own whose back cannot be used is not counted: a row of its own (in the
    # JSON too: it was in the table alone, `unusable_back` never true of it)
    not_counted = sorted(unusable - {deck for deck, _ in rows})
    if problems:  # (exit 1 alone told a script whose log keeps stderr nothing; as `count` says)
        many = len(problems) > 1
        why = "" if many else f": {problems[0]}"
        told = '"unusable" in the JSON' if args.json else "the table"
        where = f": see {told}" if many else ""
        print(
            f"blitzcam decks list: {len(problems)} enrolled back{'s' if many else ''} cannot be "
            f"used{why}{where}",
            file=sys.stderr,
        )
    if args.json:
        import json

        document = {
            "decks": [
                {
                    "deck": deck,
                    "enrolled": origin != "built-in",
                    "reference": origin,
                    "unusable_back": deck in unusable,
                }
                for deck, origin in rows
            ]
            + [
                {"deck": deck, "enrolled": True, "reference": None, "unusable_back": True}
                for deck in not_counted
            ],
            "unusable": problems,
            # null when the identity network could not be loaded to check
            "look_alike": None
            if pairs is None
            else [
                {"decks": [pair.deck, pair.other], "likeness": round(pair.likeness, 3)}
                for pair in pairs
            ],
            "reads_as_another": None
            if pairs is None
            else [
                {
                    "deck": other.deck,
                    "reads_as": other.other,
                    "likeness": round(other.likeness, 3),
                    "own_likeness": round(other.own, 3),
                }
                for other in unlike
            ],
        }
        # ASCII escapes: a file name whose bytes are not UTF-8 stays valid JSON
        print(json.dumps(document, indent=2))
    else:
        rows = rows + [(deck, "not counted") for deck in not_counted]
        width = max(len(deck) for deck, _ in rows)
        for deck, origin in rows:
            own = "  (a deck of your own)" if deck not in DECK_NAMES else ""
            # (its row said "built-in" while a count refused to start on its file)
            bad = "  (its enrolled back cannot be used: below)" if deck in unusable else ""
            print(f"{deck:<{width}}  {origin}{own}{bad}")
        for problem in problems:
            print(f"cannot be used: {problem}")
        for pair in pairs or ():
            print(pair.warning())
        for other in unlike:
            print(other.note())
        if pairs is None:
            print(f"look-alikes not checked: {unchecked}")
    return 1 if problems else 0


def forget_command(args: argparse.Namespace) -> int:
    """`blitzcam decks forget DECK`."""
    from blitzcam.game.decks import DECK_NAMES
    from blitzcam.vision.detections import UNKNOWN_NAME
    from blitzcam.vision.enrollment import forget_deck

    paths = forget_deck(args.deck)
    if args.deck in DECK_NAMES:
        after = "its built-in art is used again"
    elif args.deck == UNKNOWN_NAME:  # (no deck: a back stored under the name kept for none)
        after = "no back is stored under the name kept for backs of no deck, which counts refused"
    else:
        after = "the deck is no longer counted"
    print(f"forgot {args.deck}: removed {', '.join(map(str, paths))}; {after}")
    return 0
