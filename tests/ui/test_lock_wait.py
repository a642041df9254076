from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from blitzcam.ui.lock_wait import SHOW_AFTER_S, LockWaitBox


def test_a_short_wait_shows_nothing_a_longer_one_a_box_that_esc_stops(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    waiter = LockWaitBox(window)
    assert waiter.waiting(0.1) and waiter.box is None  # a change that is only slow
    assert waiter.waiting(SHOW_AFTER_S)
    box = waiter.box
    assert box is not None and box.isVisible() and box.isModal()
    assert waiter.waiting(SHOW_AFTER_S + 0.1)  # still waiting, the box the same
    assert waiter.box is box
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    assert not waiter.waiting(SHOW_AFTER_S + 0.2)
    waiter.done()
    assert waiter.box is None and not box.isVisible()
    # the next wait starts afresh: not stopped, no box until it lasts
    assert waiter.waiting(0.1) and waiter.box is None
    waiter.done()
