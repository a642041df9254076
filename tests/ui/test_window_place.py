"""ui/window_place.py: the main window opens as it was left, on a screen it fits."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QMainWindow

from blitzcam.ui.window_place import first_size, keep, place
from tests.ui.fakes import ScriptedFeed, match_of, round_of, synthetic_frame


def _started(qtbot, store, tmp_path: Path, *, shown: bool = False):
    """The app's window on `store` as `blitzcam app` starts it (placed as it was left)."""
    from blitzcam.ui.main_window import MainWindow

    feed = ScriptedFeed([synthetic_frame(0, [])])
    window = MainWindow(store, open_source=lambda spec: feed, counter=feed.counter,
                        settings_path=tmp_path / "app-settings.json", interval_ms=1)  # fmt: skip
    qtbot.addWidget(window)
    window.place_on_screen()
    if shown:
        window.show()
    return window


def test_a_first_start_fits_the_screen() -> None:
    # (it opened at 1280 x 800 on every screen: past a 1024 x 600 one's edges)
    assert first_size(QRect(0, 0, 1920, 1050)) == QSize(1280, 800)
    small = first_size(QRect(0, 0, 1024, 576))
    assert small.width() <= 1024 - 16 and small.height() <= 576 - 48


def test_the_window_opens_as_it_was_left(qtbot, tmp_path: Path) -> None:
    saved = tmp_path / "window-geometry.bin"
    first = QMainWindow()
    qtbot.addWidget(first)
    place(first, saved)  # nothing kept yet: a first start's size, in the screen's middle
    room = first.screen().availableGeometry()
    assert first.size() == first_size(room)
    assert room.contains(first.frameGeometry().center())
    first.show()
    first.resize(700, 500)  # (inside the offscreen screen's 800 x 600: Qt keeps it on one)
    qtbot.waitUntil(lambda: first.size() == QSize(700, 500), timeout=2000)
    assert keep(first, saved) is None and saved.stat().st_size > 0
    second = QMainWindow()
    qtbot.addWidget(second)
    place(second, saved)
    assert second.size() == QSize(700, 500)


def test_a_damaged_or_unwritable_place_is_a_first_start(qtbot, tmp_path: Path) -> None:
    saved = tmp_path / "window-geometry.bin"
    saved.write_bytes(b"not Qt's geometry")
    window = QMainWindow()
    qtbot.addWidget(window)
    place(window, saved)
    assert window.size() == first_size(window.screen().availableGeometry())
    said = keep(window, tmp_path / "no" / "such" / "folder" / "window-geometry.bin")
    assert said is not None and said.startswith(str(tmp_path / "no" / "such"))


def test_the_main_window_keeps_its_place_when_it_closes(qtbot, store, tmp_path: Path) -> None:
    store.create_match(match_of(round_of(Ann=(1, 0), Bob=(2, 0), Cy=(0, 1))))
    first = _started(qtbot, store, tmp_path, shown=True)
    first.resize(760, 540)
    qtbot.waitUntil(lambda: first.size() == QSize(760, 540), timeout=2000)
    first.close()
    assert (tmp_path / "window-geometry.bin").is_file()
    assert _started(qtbot, store, tmp_path).size() == QSize(760, 540)


def test_the_match_shown_at_the_quit_opens_at_the_next_start(qtbot, store, tmp_path: Path) -> None:
    # the newest unfinished match opened: one given up on came back on every start, over the
    # match just played to its end
    abandoned = store.create_match(match_of(round_of(Ann=(1, 0), Bob=(2, 0), Cy=(0, 1))))
    won = store.create_match(match_of(round_of(Ann=(40, 0), Bob=(2, 0), Cy=(0, 1)), target=30))

    def started():
        return _started(qtbot, store, tmp_path)

    first = started()
    assert first.match_id == abandoned  # nothing kept yet: the newest unfinished, as before
    first.show_match(won)
    first.close()
    second = started()
    assert second.match_id == won
    assert second.statusBar().currentMessage() == f"Opened match {won}, shown at the last quit"
    store.delete_match(won)
    third = started()  # the one kept is gone: the newest unfinished
    assert third.match_id == abandoned and "Resumed" in third.statusBar().currentMessage()


def test_a_kept_match_is_only_its_own_store_s_and_nothing_else_is_one(tmp_path: Path) -> None:
    from blitzcam.ui.window_place import keep_open_match, last_open_match

    saved, store, other = tmp_path / "open-match.json", tmp_path / "m.sqlite3", tmp_path / "o.db"
    assert last_open_match(saved, store) is None
    assert keep_open_match(saved, store, 12) is None and last_open_match(saved, store) == 12
    # (the app started with --db another store: its match 12 is not this one's)
    assert last_open_match(saved, other) is None
    # ... and quitting that one with no match shown forgets nothing of this one's (review)
    assert keep_open_match(saved, other, None) is None and last_open_match(saved, store) == 12
    assert keep_open_match(saved, other, 3) is None
    assert (last_open_match(saved, store), last_open_match(saved, other)) == (12, 3)
    assert keep_open_match(saved, store, None) is None and last_open_match(saved, store) is None
    for text in (b"", b"x", b"12", b"\xff\xfe", b"[]", f'{{"{store}": "3"}}'.encode(),
                 f'{{"{store}": true}}'.encode(), f'{{"{store}": {10**40}}}'.encode()):  # fmt: skip
        saved.write_bytes(text)
        assert last_open_match(saved, store) is None, text


def test_a_match_kept_for_one_store_does_not_open_in_another(qtbot, store, tmp_path: Path) -> None:
    from blitzcam.game.store import MatchStore

    first = store.create_match(match_of(round_of(Ann=(40, 0), Bob=(2, 0), Cy=(0, 1)), target=30))
    window = _started(qtbot, store, tmp_path)
    window.show_match(first)
    window.close()
    with MatchStore(tmp_path / "other.sqlite3") as other:  # `blitzcam app --db other.sqlite3`
        other.create_match(match_of(target=30))  # its match 1, unfinished
        started = _started(qtbot, other, tmp_path)
        assert started.statusBar().currentMessage().startswith("Resumed the unfinished match")
        started.close()


def test_quitting_in_full_screen_keeps_the_window_as_it_was_before(qtbot, store, tmp_path: Path) -> None:
    # kept full screen, it came back full screen with its menus shown (review)
    def started():
        return _started(qtbot, store, tmp_path, shown=True)

    first = started()
    first.resize(700, 500)
    qtbot.waitUntil(lambda: first.size() == QSize(700, 500), timeout=2000)
    first.fullscreen_action.trigger()
    qtbot.waitUntil(first.isFullScreen, timeout=2000)
    first.close()
    second = started()
    assert not second.isFullScreen() and second.menuBar().isVisible()
    qtbot.waitUntil(lambda: second.size() == QSize(700, 500), timeout=2000)
