"""Rows that scroll up and down when there are more than the screen holds (eight players)."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QLayout, QScrollArea, QWidget

# what a window's own sizes leave of the screen's free area (which has the task bar taken out
# already), in pixels: its title bar and frame (30-40 px on common desktops; Qt's sizes are of
# the inside) with room to spare for a theme's larger ones
SCREEN_ALLOWANCE: Final = 80


def scrolling_rows(layout: QLayout) -> QScrollArea:
    """`layout` in an area that scrolls down, never across, and draws no frame of its own."""
    rows = QWidget()
    rows.setLayout(layout)
    return _scrolling(rows, QScrollArea())


def scrolling_widget(widget: QWidget) -> QScrollArea:
    """`widget` in an area as `scrolling_rows` makes that asks for the widget's whole height
    (a window holding it is sized by `fit_to_screen`) and shrinks to the width it can have: a
    dialog of eight players' rows ran off a 600-px screen."""
    area = _WholeHeight()
    _scrolling(widget, area)
    area.watch_focus()
    # (no room kept for the scroll bar: where one is needed, the rows' names are cut shorter)
    area.setMinimumWidth(widget.minimumSizeHint().width())
    return area


def fit_to_screen(window: QWidget) -> None:
    """`window` as large as its contents ask, but no larger than its screen (a window's own
    first size stops at two thirds of the screen: eight rows scrolled on a 768-px laptop)."""
    hint, screen = window.sizeHint(), window.screen().availableGeometry()
    window.resize(
        min(hint.width(), screen.width() - SCREEN_ALLOWANCE),
        min(hint.height(), screen.height() - SCREEN_ALLOWANCE),
    )


def keep_on_screen(window: QWidget) -> None:
    """`window` moved, where it must be, so that all of it is on its screen's free area: a
    dialog that grows downwards (more players) ran past a short screen's bottom, its buttons
    out of reach (placing it is the window manager's, which does not move it again)."""
    free, frame = window.screen().availableGeometry(), window.frameGeometry()
    left = max(free.left(), min(frame.left(), free.right() - frame.width() + 1))
    top = max(free.top(), min(frame.top(), free.bottom() - frame.height() + 1))
    if (left, top) != (frame.left(), frame.top()):
        window.move(window.x() + left - frame.left(), window.y() + top - frame.top())


class _WholeHeight(QScrollArea):
    def watch_focus(self) -> None:
        """Scroll to a box of the rows whenever it takes the focus: Tab does, but Shift+Tab
        from below the rows, or a check that puts the cursor in an empty box, leaves it out of
        view."""
        widget = self.widget()
        for child in widget.findChildren(QWidget) if widget is not None else ():
            child.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FocusIn and isinstance(watched, QWidget):
            self.ensureWidgetVisible(watched)
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # room for the scroll bar only while there is one: it covered the rows' last column
        widget, bar = self.widget(), self.verticalScrollBar()
        if widget is not None:
            scrolls = self.height() < widget.minimumSizeHint().height()
            needed = widget.minimumSizeHint().width() + (bar.sizeHint().width() if scrolls else 0)
            if self.minimumWidth() != needed:
                self.setMinimumWidth(needed)

    def sizeHint(self) -> QSize:  # QScrollArea's own stops at 24 lines of text
        widget = self.widget()
        if widget is None:
            return super().sizeHint()
        frame = 2 * self.frameWidth()
        return widget.sizeHint() + QSize(frame, frame)


def _scrolling(widget: QWidget, area: QScrollArea) -> QScrollArea:
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    # Tab goes from row to row, not to the area around them (it stopped there, unseen, and
    # Space then scrolled it instead of pressing the button that had the focus before)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return area
