"""A round's capture as large as the screen holds: the review's pictures are thumbnails beside
the counts (225 px wide on a 1024-px screen at 150 % text), too small to check a count card by
card against the outlines. Clicked (or Space on it), a thumbnail opens its capture here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QIcon, QImage, QKeyEvent, QMouseEvent, QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QToolButton, QVBoxLayout, QWidget

from blitzcam.ui.labels import plain_label
from blitzcam.ui.scrolling import SCREEN_ALLOWANCE

CAPTION_ROOM: Final = 60  # pixels kept under the picture for its caption
_MODIFIER_KEYS: Final = frozenset(
    {Qt.Key.Key_Shift, Qt.Key.Key_Control, Qt.Key.Key_Alt, Qt.Key.Key_Meta, Qt.Key.Key_AltGr}
)


def fitted_size(image: QSize, room: QSize, *, enlarge: bool = False) -> QSize:
    """`image`'s size scaled to fit `room` keeping its shape; never enlarged unless `enlarge`
    (a picture shown past its own pixels only blurs; one drawn anew at the size is sharp)."""
    if image.isEmpty() or room.isEmpty():
        return QSize(0, 0)
    scale = min(room.width() / image.width(), room.height() / image.height())
    scale = scale if enlarge else min(1.0, scale)
    return QSize(max(1, round(image.width() * scale)), max(1, round(image.height() * scale)))


def picture_room(screen: QRect) -> QSize:
    """How large a capture is shown on a screen of `screen`'s free area: all of it but the
    window's frame and the caption under the picture."""
    return QSize(
        max(1, screen.width() - SCREEN_ALLOWANCE),
        max(1, screen.height() - SCREEN_ALLOWANCE - CAPTION_ROOM),
    )


def scaled_pixmap(image: QImage, size: QSize, ratio: float) -> QPixmap:
    """`image` drawn at `size` on a screen of device pixel ratio `ratio` (sharp on 2x)."""
    pixmap = QPixmap.fromImage(image).scaled(
        round(size.width() * ratio),
        round(size.height() * ratio),
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


class CaptureView(QDialog):
    """One capture, as large as the screen holds; any key or a click closes it."""

    def __init__(self, image: QImage, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(caption or "Capture")
        room = picture_room(self.screen().availableGeometry())
        # (`image` may carry a device pixel ratio: its size in the layout's pixels is this)
        shown = image.deviceIndependentSize().toSize()
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setPixmap(
            scaled_pixmap(image, fitted_size(shown, room), self.devicePixelRatioF())
        )
        self.picture.setAccessibleName(caption or "Capture")
        # the keys on the picture: opened with the focus on nothing, a screen reader says only
        # the window's title, not what the picture shows
        self.picture.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.caption = plain_label(f"{caption}  ·  any key or a click closes it".lstrip(" ·"))
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.addWidget(self.picture, 1)
        layout.addWidget(self.caption)
        self.picture.setFocus(Qt.FocusReason.OtherFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _MODIFIER_KEYS:
            return  # (Shift or Ctrl alone, on its way to a key)
        self.accept()  # (Enter too: it closed the picture, never confirmed the round unseen)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self.accept()


class CaptureThumbnail(QToolButton):
    """A capture drawn small, `height` pixels tall; clicked (or Space on it) it opens large,
    drawn anew by `large` (the capture drawn a given number of pixels wide) where given, else
    `image` as it is."""

    def __init__(
        self,
        image: QImage,
        caption: str,
        height: int,
        large: Callable[[int], QImage] | None = None,
    ) -> None:
        super().__init__()
        self._image = image
        self._caption = caption
        self._large = large
        shown = image.deviceIndependentSize().toSize()
        size = fitted_size(shown, QSize(round(height * 16 / 9), height), enlarge=True)
        self.setIcon(QIcon(scaled_pixmap(image, size, self.devicePixelRatioF())))
        self.setIconSize(size)
        self.setAutoRaise(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Show this capture larger (click, or Space)")
        self.setAccessibleName(f"{caption or 'Capture'}: show it larger")
        # (Enter stays the dialog's: it confirms the round, wherever the focus is)
        self.clicked.connect(self.show_large)
        self.view: CaptureView | None = None

    def show_large(self) -> None:
        image = self._image
        if self._large is not None:
            room = picture_room(self.screen().availableGeometry())
            shown = image.deviceIndependentSize().toSize()
            image = self._large(fitted_size(shown, room, enlarge=True).width())
        self.view = CaptureView(image, self._caption, self.window())
        self.view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.view.open()
