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
from blitzcam.paths import resolved

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
    """The match of `store` shown at its last quit (None: none kept, nothing readable). Each
    store has its own: `--db` names another, whose match 3 is not this store's match 3."""
    match_id = _kept_matches(saved).get(_said(store))
    return match_id if type(match_id) is int and 0 < match_id < 2**63 else None


def keep_open_match(saved: Path, store: Path, match_id: int | None) -> str | None:
    """Remember the match of `store` shown now (None: none) for its next start, the other
    stores' kept as they are; why not, or None."""
    this = _said(store)
    kept = {name: n for name, n in _kept_matches(saved).items() if name != this}
    if match_id is not None:
        kept[this] = match_id
    kept = dict(list(kept.items())[-KEPT_STORES:])  # (the stores used last)
    try:
        text = json.dumps(kept, ensure_ascii=False, indent=1)
        write_bytes_atomic(saved, text.encode("utf-8", "surrogateescape") + b"\n")
    except (OSError, UnicodeEncodeError) as exc:
        return f"{saved}: {getattr(exc, 'strerror', None) or exc}"
    return None


KEPT_STORES: Final = 20  # stores whose open match is kept


def _kept_matches(saved: Path) -> dict[str, object]:
    """The kept file's store -> match (empty when there is none, or it is not one)."""
    try:
        kept = json.loads(saved.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _said(store: Path) -> str:
    """A store as the kept file names it: its whole path, links followed where they can be."""
    try:
        return str(resolved(store))
    except OSError:  # a loop of links (Python 3.11's resolve raised RuntimeError for it)
        return str(store.absolute())
