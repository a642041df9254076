"""ui/capture_view.py: a review's capture looked at large, to check a count card by card."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QImage

from blitzcam.ui.capture_view import (
    CaptureThumbnail,
    CaptureView,
    fitted_size,
    picture_room,
)
from blitzcam.ui.confirm import ConfirmDialog
from blitzcam.ui.counting_worker import CountSnapshot
from blitzcam.ui.live_view import render_capture
from tests.ui.fakes import match_of, round_of


def test_a_picture_is_fitted_to_the_room_keeping_its_shape() -> None:
    assert fitted_size(QSize(1920, 1080), QSize(1000, 1000)) == QSize(1000, 562)
    assert fitted_size(QSize(1920, 1080), QSize(3000, 500)) == QSize(889, 500)
    # never past its own pixels (it only blurs), unless it is drawn anew at that size
    assert fitted_size(QSize(480, 270), QSize(1000, 1000)) == QSize(480, 270)
    assert fitted_size(QSize(480, 270), QSize(1000, 1000), enlarge=True) == QSize(1000, 562)
    assert fitted_size(QSize(0, 0), QSize(100, 100)) == QSize(0, 0)
    assert fitted_size(QSize(100, 100), QSize(0, 100)) == QSize(0, 0)


def test_the_room_leaves_the_window_s_frame_and_the_caption() -> None:
    room = picture_room(QRect(0, 0, 1024, 600))
    assert room.width() < 1024 and room.height() < 600 - 40
    assert picture_room(QRect(0, 0, 10, 10)) == QSize(1, 1)  # (never empty or negative)


def _image(width: int, height: int, colour: str = "green") -> QImage:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    return image


def test_a_thumbnail_clicked_opens_its_capture_drawn_anew_as_large_as_the_screen_holds(
    qtbot,
) -> None:
    drawn: list[int] = []

    def large(width: int) -> QImage:
        drawn.append(width)
        return _image(width, round(width * 9 / 16), "red")

    thumbnail = CaptureThumbnail(_image(480, 270), "Dutch piles", 135, large)
    qtbot.addWidget(thumbnail)
    assert thumbnail.iconSize() == QSize(240, 135)
    thumbnail.show()
    qtbot.mouseClick(thumbnail, Qt.MouseButton.LeftButton)
    view = thumbnail.view
    assert isinstance(view, CaptureView) and view.isVisible()
    room = picture_room(thumbnail.screen().availableGeometry())
    assert drawn == [fitted_size(QSize(16, 9), room, enlarge=True).width()]
    shown = view.picture.pixmap().deviceIndependentSize().toSize()
    assert shown.width() == drawn[0] and shown.width() > 240 * 2  # larger than the thumbnail
    assert view.windowTitle() == "Dutch piles"
    qtbot.keyClick(view, Qt.Key.Key_Shift)  # a modifier alone closes nothing
    assert view.isVisible()
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert not view.isVisible()


def test_without_a_way_to_draw_it_anew_the_capture_is_shown_as_it_is(qtbot) -> None:
    thumbnail = CaptureThumbnail(_image(480, 270), "Blitz piles", 90)
    qtbot.addWidget(thumbnail)
    thumbnail.show()
    qtbot.keyClick(thumbnail, Qt.Key.Key_Space)  # the keyboard opens it too
    view = thumbnail.view
    assert view is not None and view.isVisible()
    assert view.picture.pixmap().deviceIndependentSize().toSize() == QSize(480, 270)
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton)  # a click closes it
    assert not view.isVisible()


def test_enter_on_the_large_capture_closes_it_and_never_confirms_the_round(qtbot) -> None:
    frame = np.full((720, 1280, 3), 60, np.uint8)
    thumb = render_capture(frame, CountSnapshot(), width=480)
    dialog = ConfirmDialog(match_of().players, round_of(Ann=(9, 0), Bob=(5, 2), Cy=(7, 1)),
                           title="Round 1", captures=[thumb], captions=["Dutch piles"],
                           enlarged=[lambda width: render_capture(frame, CountSnapshot(),
                                                                  width=width)])  # fmt: skip
    qtbot.addWidget(dialog)
    confirmed: list[object] = []
    dialog.countsConfirmed.connect(confirmed.append)
    dialog.show()
    thumbnail = dialog.findChild(CaptureThumbnail)
    assert thumbnail is not None and thumbnail.accessibleName() == "Dutch piles: show it larger"
    thumbnail.click()
    view = thumbnail.view
    assert view is not None and view.isVisible()
    assert view.picture.pixmap().width() > thumb.width()
    # the keys on the picture, named by what it shows (on nothing, a screen reader said only
    # the window's title; review)
    assert view.focusWidget() is view.picture and view.picture.accessibleName() == "Dutch piles"
    qtbot.keyClick(view.picture, Qt.Key.Key_Space)  # any key on it closes it
    assert not view.isVisible()
    thumbnail.click()
    view = thumbnail.view
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert not view.isVisible() and dialog.isVisible() and confirmed == []


def test_beside_two_pictures_who_called_blitz_is_asked_under_the_counts(qtbot) -> None:
    # (the counts' area took the room the pictures left: "Called Blitz" stood at the foot, a
    # hand's width of nothing above it; visual review)
    from PySide6.QtWidgets import QScrollArea

    dialog = ConfirmDialog(match_of().players, round_of(Ann=(9, 0), Bob=(5, 2), Cy=(7, 1)),
                           title="Round 1", captures=[_image(480, 270), _image(480, 270)],
                           captions=["Dutch piles", "Blitz piles"])  # fmt: skip
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    counts = next(area for area in dialog.findChildren(QScrollArea) if area.isAncestorOf(dialog.editor))
    caller = dialog.caller.mapTo(dialog, dialog.caller.rect().topLeft()).y()
    below_counts = counts.mapTo(dialog, counts.rect().bottomLeft()).y()
    assert counts.verticalScrollBar().maximum() == 0  # (every count in view)
    assert caller - below_counts < 40
    buttons = dialog.buttons.mapTo(dialog, dialog.buttons.rect().topLeft()).y()
    assert buttons - caller > 100  # the room left is under them all, over the buttons
