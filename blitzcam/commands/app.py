"""`blitzcam app`: the PySide6 scoreboard and card scanner."""

from __future__ import annotations

import argparse

from blitzcam.commands.path_option import path_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "app",
        help="open the scoreboard and card scanner (PySide6)",
        description="Open the scoreboard and card scanner: start a match, scan each round's "
        "Dutch and Blitz cards under the camera, confirm the counts, keep the score. The "
        "matches are the ones `blitzcam match` lists (the same database).",
    )
    parser.add_argument(
        "--camera",
        default=None,
        metavar="SOURCE",
        help="camera index, video or image file, image folder, stream URL or 'demo' "
        "(default: the one chosen in the app's settings)",
    )
    parser.add_argument(
        "--db",
        type=path_argument,
        default=None,
        help="match database (default: in the user's data dir)",
    )
    parser.add_argument(
        "--decks",
        type=path_argument,
        default=None,
        metavar="DIR",
        help="count against the reference backs DIR/<deck>.png, as `count --decks` does, not "
        "your enrolled ones (enrolling from the app is off then)",
    )
    parser.set_defaults(func=_app)


def _app(args: argparse.Namespace) -> int:
    from blitzcam.errors import UserError
    from blitzcam.game.store import StoreError

    try:
        from blitzcam.ui.app import run  # PySide6 is loaded only here
    except ImportError as exc:
        raise UserError(f"the app needs PySide6, which failed to load: {exc}") from None
    try:
        return run(camera=args.camera, db=args.db, decks=args.decks)
    except StoreError as exc:
        raise UserError(str(exc)) from None
