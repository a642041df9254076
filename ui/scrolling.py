"""Rows that scroll up and down when there are more than the screen holds (eight players)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLayout, QScrollArea, QWidget


def scrolling_rows(layout: QLayout) -> QScrollArea:
    """`layout` in an area that scrolls down, never across, and draws no frame of its own."""
    rows = QWidget()
    rows.setLayout(layout)
    area = QScrollArea()
    area.setWidget(rows)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    # Tab goes from row to row, not to the area around them (it stopped there, unseen, and
    # Space then scrolled it instead of pressing the button that had the focus before)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return area
