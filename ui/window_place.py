"""Where the main window opens: as it was left (size, place, maximized), on a screen it fits.

The window opened at 1280 x 800 on every start: past a 1024 x 600 screen's edges, and a size
or a maximized window chosen by the user was never kept. Qt's own geometry blob is kept in a
file beside the app's settings (written whole or not at all); one that is damaged, or from a
screen no longer there, is ignored or moved onto a screen by Qt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtWidgets import QWidget

from blitzcam.files import write_bytes_atomic

GEOMETRY_FILE: Final = "window-geometry.bin"
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
