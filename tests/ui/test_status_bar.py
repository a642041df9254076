"""The status bar's news wraps onto the lines it needs, whole, not cut at the window's edge."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow

from blitzcam.ui.status_bar import MAX_LINES, WrappingStatusBar, shown_lines

LONG = (
    "The camera gave no view: http://192.168.1.20:8080/vidoe: no stream at this path (HTTP "
    "404): check the address in the phone camera app; Press Enter to type the counts in, or "
    "Esc to leave the scan (Settings chooses the camera)."
)


def _window(qtbot, width: int) -> tuple[QMainWindow, WrappingStatusBar]:
    window = QMainWindow()
    window.setCentralWidget(QLabel("table"))
    bar = WrappingStatusBar()
    window.setStatusBar(bar)
    qtbot.addWidget(window)
    window.resize(width, 400)
    window.show()
    return window, bar


def test_a_long_message_makes_the_bar_as_tall_as_its_lines(qtbot) -> None:
    # (Qt's own bar drew it on one line: at 1024 px the reason and the advice were cut off)
    _, bar = _window(qtbot, 500)
    one_line = bar.sizeHint().height()
    bar.showMessage(LONG, 5000)
    qtbot.waitUntil(lambda: bar.height() > 2 * one_line, timeout=2000)
    spacing = bar.fontMetrics().lineSpacing()
    assert bar.minimumHeight() >= 3 * spacing  # 500 px: three lines at least
    assert bar.minimumHeight() <= MAX_LINES * spacing + 4
    assert bar.toolTip() == LONG and bar.accessibleDescription() == LONG
    assert bar.currentMessage() == LONG  # (Qt's message, its timeout, as before)
    bar.clearMessage()
    qtbot.waitUntil(lambda: bar.height() <= one_line + 2, timeout=2000)
    assert bar.minimumHeight() == 0 and bar.toolTip() == ""


def test_the_bar_grows_or_shrinks_with_the_window_s_width(qtbot) -> None:
    window, bar = _window(qtbot, 1600)
    bar.showMessage(LONG)
    qtbot.waitUntil(lambda: bar.minimumHeight() > 0, timeout=2000)
    wide = bar.minimumHeight()
    window.resize(400, 400)
    qtbot.waitUntil(lambda: bar.minimumHeight() > wide, timeout=2000)



def test_the_bar_fits_its_message_again_when_the_text_size_changes(qtbot) -> None:
    # (from 150 % back to 100 % the bar kept its height until its message cleared)
    from PySide6.QtWidgets import QApplication

    from blitzcam.ui.app import set_text_size

    app = QApplication.instance()
    _, bar = _window(qtbot, 900)
    bar.showMessage(LONG)
    try:
        set_text_size(app, 150)
        qtbot.waitUntil(lambda: bar.minimumHeight() > 0, timeout=2000)
        large = bar.minimumHeight()
        set_text_size(app, 100)
        spacing = bar.fontMetrics().lineSpacing()
        qtbot.waitUntil(lambda: bar.minimumHeight() < large, timeout=2000)
        lines = shown_lines(LONG, bar.font(), bar._text_rect().width())
        assert bar.minimumHeight() == max(bar.fontMetrics().height() + 4, len(lines) * spacing + 4)
    finally:
        set_text_size(app, 100)


def test_a_message_longer_than_the_bar_keeps_its_start_and_says_it_goes_on(qtbot) -> None:
    # (centred in a bar stopped at six lines, a longer one lost its first line: what failed)
    from blitzcam.ui.status_bar import shown_lines

    _, bar = _window(qtbot, 300)
    words = " ".join(f"WORD{n:03d}" for n in range(160))
    lines = shown_lines(words, bar.font(), 280)
    assert len(lines) == MAX_LINES
    assert lines[0].startswith("WORD000") and lines[-1].endswith("…")
    assert shown_lines("Round saved", bar.font(), 280) == ["Round saved"]
    bar.showMessage(words)
    qtbot.waitUntil(lambda: bar.minimumHeight() > 0, timeout=2000)
    assert bar.minimumHeight() == MAX_LINES * bar.fontMetrics().lineSpacing() + 4
