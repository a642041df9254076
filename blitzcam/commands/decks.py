"""`blitzcam decks`: export the built-in card backs; enroll, list and forget your decks' backs."""

from __future__ import annotations

import argparse

from blitzcam.commands.path_option import folder_argument, path_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("decks", help="export built-in deck backs, enroll your own deck")
    actions = parser.add_subparsers(dest="decks_command", metavar="ACTION", required=True)

    export = actions.add_parser("export", help="write the eight built-in backs as DIR/<deck>.png")
    export.add_argument("out_dir", type=folder_argument, metavar="DIR")
    export.add_argument("--width", type=int, default=600, help="card width in pixels (500 to 2400)")
    export.set_defaults(func=_export)

    enroll = actions.add_parser("enroll", help="teach blitzcam how one of your decks' backs looks")
    enroll.add_argument("deck", metavar="DECK")
    source = enroll.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--image", type=path_argument, help="a photo of one back, flat and front-on"
    )
    source.add_argument(
        "--camera", help="a camera index, video file, folder of pictures or stream URL to grab from"
    )
    enroll.set_defaults(func=_enroll)

    listing = actions.add_parser(
        "list", help="what each deck is read against: built-in art or your enrolled back"
    )
    listing.add_argument("--json", action="store_true", help="one JSON document")
    listing.set_defaults(func=_list)

    forget = actions.add_parser(
        "forget", help="remove a deck's enrolled back (the built-in art is used again)"
    )
    forget.add_argument("deck", metavar="DECK")
    forget.set_defaults(func=_forget)


def _export(args: argparse.Namespace) -> int:
    from blitzcam.datasets.export import export_command  # owned by datasets/ (card art)

    return export_command(args)


def _enroll(args: argparse.Namespace) -> int:
    from blitzcam.vision.enrollment import enroll_command  # owned by vision/ (enrollment)

    return enroll_command(args)


def _list(args: argparse.Namespace) -> int:
    from blitzcam.vision.enrollment import list_command

    return list_command(args)


def _forget(args: argparse.Namespace) -> int:
    from blitzcam.vision.enrollment import forget_command

    return forget_command(args)
