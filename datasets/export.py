"""`blitzcam decks export DIR [--width W]`: write the eight built-in backs as PNGs.

Players print these or compare them with their own decks; the identification step can enroll them
as reference backs. The CLI's command module imports this lazily (it pulls in numpy and OpenCV).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path

from blitzcam.datasets.art import MAX_EXPORT_WIDTH, MIN_EXPORT_WIDTH, export_backs, save_png_rgba
from blitzcam.errors import UserError, first_and_more
from blitzcam.files import why_unwritable
from blitzcam.game.decks import DECK_NAMES
from blitzcam.paths import why_no_folder

__all__ = ["export_backs", "export_command", "save_png_rgba"]


def export_command(args: argparse.Namespace) -> int:
    """Validate DIR and --width, write DIR/<deck>.png for the eight decks (those already there
    only with --overwrite), print each path."""
    out_dir = Path(args.out_dir)
    width = int(args.width)
    if not MIN_EXPORT_WIDTH <= width <= MAX_EXPORT_WIDTH:
        raise UserError(
            f"--width must be {MIN_EXPORT_WIDTH} to {MAX_EXPORT_WIDTH} pixels, got {width}"
        )
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"{out_dir}: exists and is not a folder")
    made = _first_missing(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"{out_dir}: cannot create the folder ({why_no_folder(out_dir, exc)})"
        ) from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise UserError(f"{out_dir}: folder is not writable")
    for deck in DECK_NAMES:  # what is in the way is said before any back is written
        _check_target(out_dir / f"{deck}.png")
    there = [deck for deck in DECK_NAMES if (out_dir / f"{deck}.png").exists()]
    if there and not getattr(args, "overwrite", False):
        # (else a --decks folder of one's own photographed backs is replaced by the drawings,
        # unasked)
        raise UserError(
            f"{first_and_more([str(out_dir / f'{deck}.png') for deck in there])}: already there "
            "(your own backs?): nothing was written; --overwrite replaces them"
        )
    try:
        paths = export_backs(out_dir, width=width)
    except OSError as exc:  # (named by the back it could not write)
        _unmade(out_dir, made)
        raise UserError(
            f"{exc.filename or out_dir}: could not write the back ({exc.strerror or exc}): "
            "nothing was written"
        ) from None
    except KeyboardInterrupt:  # (Ctrl+C, or a kill: nothing written, no empty folder either)
        _unmade(out_dir, made)
        raise
    for path in paths:
        print(path)
    return 0


def _check_target(target: Path) -> None:
    """UserError unless a back can be written at `target` (see `why_unwritable`)."""
    why = why_unwritable(target)
    if why is not None:
        raise UserError(f"{target}: {why}; nothing was written")


def _first_missing(out_dir: Path) -> Path | None:
    """The first folder on the way to `out_dir` that is not there (the export makes it and
    those in it), or None when `out_dir` is."""
    if out_dir.exists():
        return None
    first = out_dir
    while not first.parent.exists() and first.parent != first:
        first = first.parent
    return first


def _unmade(out_dir: Path, made: Path | None) -> None:
    """The folders this export made, from `out_dir` up to `made`, taken away again where
    nothing is in them."""
    if made is None:
        return
    folder = out_dir
    with contextlib.suppress(OSError):  # (refused where anything is in it: left as it is)
        while True:
            folder.rmdir()
            if folder == made:
                return
            folder = folder.parent
