"""UI test fixtures: the app's theme and bundled font on pytest-qt's QApplication, a fresh
match store per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from blitzcam.game.store import MatchStore
from blitzcam.ui.app import clear_opencv_qt_env

clear_opencv_qt_env()  # before pytest-qt creates the QApplication


@pytest.fixture(autouse=True)
def _themed_app(qapp):
    from blitzcam.ui.app import configure

    configure(qapp)
    return qapp


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    with MatchStore(tmp_path / "matches.sqlite3") as s:
        yield s


@pytest.fixture(autouse=True)
def _no_unexpected_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A question the window asks (`exec_dialog`) that a test did not arrange for fails the
    test at once, answered No: offscreen, nobody could answer it, and the suite hung."""
    from blitzcam.ui.main_window import MainWindow

    def unexpected(_window: MainWindow, dialog) -> int:
        pytest.fail(f"the window asked {dialog.windowTitle()!r}, which this test did not expect")

    monkeypatch.setattr(MainWindow, "exec_dialog", unexpected)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """A test's windows are closed as it ends (pytest-qt's teardown, after this) without the
    question a user's close asks about an open scan's shots; its dialogs left open are put
    away."""
    from PySide6.QtWidgets import QApplication

    from blitzcam.ui.main_window import MainWindow

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow):
            widget._ask_on_close = False
    yield
    _dialogs_left_put_away()


def _dialogs_left_put_away() -> None:
    """Dialogs a test left open, hidden and deleted: a modal one left open covered every later
    test's scan (`covered_by_a_dialog`), which then counted nothing, a failure of whichever test
    ran next (order-dependent). Hidden, not closed: a close would answer it."""
    import shiboken6
    from PySide6.QtWidgets import QApplication, QDialog

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QDialog) and shiboken6.isValid(widget) and widget.isVisible():
            widget.hide()
            widget.deleteLater()
