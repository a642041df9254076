"""The main window as it was left: its place (size, place, maximized, on a screen it fits)
and the match it showed.

The window opened at 1280 x 800 on every start: past a 1024 x 600 screen's edges, and a size
or a maximized window chosen by the user was never kept. Qt's own geometry blob is kept in a
file beside the app's settings (written whole or not at all); one that is damaged, or from a
screen no longer there, is ignored or moved onto a screen by Qt. The match shown at the quit
is kept too: the newest unfinished one opened instead, an old match given up on coming back
on every start.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtWidgets import QWidget

from blitzcam.files import write_bytes_atomic

GEOMETRY_FILE: Final = "window-geometry.bin"
OPEN_MATCH_FILE: Final = "open-match.json"  # the match shown at the last quit, and its store
FIRST_SIZE: Final = QSize(1280, 800)  # a first start's size, where the screen has room
# the window's frame and title bar, which the screen's free area must hold too
FRAME_ALLOWANCE: Final = QSize(16, 48)


def first_size(available: QRect) -> QSize:
    """A first start's window size on a screen whose free area is `available`."""
    room = available.size() - FRAME_ALLOWANCE
    return FIRST_SIZE.boundedTo(room).expandedTo(QSize(320, 240))


def place(window: QWidget, geometry_file: Path) -> None:
    """Open `window` as it was left (see the module), else at `first_size` in the middle of
    its screen."""
    try:
        saved = geometry_file.read_bytes()
    except OSError:  # none yet, or unreadable: a first start's place
        saved = b""
    if saved and window.restoreGeometry(QByteArray(saved)):
        return
    available = window.screen().availableGeometry()
    size = first_size(available)
    window.resize(size)
    top_left = available.center() - QRect(0, 0, size.width(), size.height()).center()
    window.move(top_left)


def keep(window: QWidget, geometry_file: Path) -> str | None:
    """Remember `window`'s place for the next start; why it could not be, or None."""
    try:
        write_bytes_atomic(geometry_file, bytes(window.saveGeometry().data()))
    except OSError as exc:
        return f"{geometry_file}: {exc.strerror or exc}"
    return None


def last_open_match(saved: Path, store: Path) -> int | None:
    """The match shown at the last quit, when it was one of `store`'s (None: none kept, nothing
    readable, or a match of another store: `--db` names one, and its match 3 is not this
    store's match 3)."""
    try:
        kept = json.loads(saved.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("store") != _said(store):
        return None
    match_id = kept.get("match")
    return match_id if type(match_id) is int and 0 < match_id < 2**63 else None


def keep_open_match(saved: Path, store: Path, match_id: int | None) -> str | None:
    """Remember the match of `store` shown now (None: none) for the next start; why not, or
    None."""
    try:
        if match_id is None:
            saved.unlink(missing_ok=True)
        else:
            text = json.dumps({"store": _said(store), "match": match_id}, ensure_ascii=False)
            write_bytes_atomic(saved, text.encode("utf-8", "surrogateescape") + b"\n")
    except (OSError, UnicodeEncodeError) as exc:
        return f"{saved}: {getattr(exc, 'strerror', None) or exc}"
    return None


def _said(store: Path) -> str:
    """A store as the kept file names it: its whole path, links followed where they can be."""
    try:
        return str(store.resolve())
    except OSError:  # a loop of links
        return str(store.absolute())
