"""Application set-up: one QApplication, the bundled font, the dark table-side theme, and the
wiring of the main window to the real store, settings, camera and counter.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QSocketNotifier, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QApplication

from blitzcam.paths import REPO_ROOT
from blitzcam.ui.text_size import apply_text_size

if TYPE_CHECKING:
    import socket

T = TypeVar("T")

FONT_FILE: Final = REPO_ROOT / "blitzcam" / "fonts" / "DejaVuSans.ttf"
# the spin boxes' arrows (the style sheet's colours leave Fusion's own drawn in none)
ICONS: Final = REPO_ROOT / "blitzcam" / "icons"

# the keyboard's focus shown on every control that takes keys (a combo box showed none, a check
# box a fill 1.1:1 against its background); text 4.5:1 at least against what is behind it
# (WCAG; a selected row's white measured 3.7, a default button's 3.9, a left player's card 3.7)
_STYLE: Final = """
QWidget { background: #141923; color: #e8eaf0; }
QWidget:disabled { color: #5c6477; }
QToolButton:disabled, QPushButton:disabled { color: #5c6477; }
QMenu::item:disabled { color: #5c6477; }
QToolBar { background: #1c2230; border: none; spacing: 6px; padding: 4px; }
QMenuBar { background: #1c2230; }
QMenuBar::item:selected, QMenu::item:selected { background: #2259c4; }
QToolButton { padding: 6px 10px; border-radius: 6px; }
QToolButton:hover { background: #2a3244; }
QToolButton#qt_toolbar_ext_button { qproperty-icon: url("ICONS/more.svg"); background: #2a3244;
    min-width: 16tpx; padding: 6px; }
QPushButton { background: #2a3244; border: 1px solid #3a4560; border-radius: 6px;
    padding: 6px 14px; }
QPushButton:hover { background: #34405a; }
QPushButton:default, QPushButton#primary { background: #2259c4; border-color: #4d86ea; }
QPushButton:focus { border: 2px solid #ffffff; padding: 5px 13px; }
QLineEdit, QSpinBox, QComboBox { background: #1f2636; border: 1px solid #3a4560;
    border-radius: 4px; padding: 4px; }
QLineEdit:focus, QSpinBox:focus, QComboBox:focus { border: 2px solid #8fb4f5; padding: 3px; }
QSpinBox::up-button, QSpinBox::down-button { background: #2a3244; border: none; width: 16tpx; }
QSpinBox::up-button { border-top-right-radius: 4px; }
QSpinBox::down-button { border-bottom-right-radius: 4px; }
QSpinBox::up-button:hover, QSpinBox::down-button:hover { background: #34405a; }
QSpinBox::up-arrow { image: url("ICONS/up-on.svg"); width: 10tpx; height: 10tpx; }
QSpinBox::down-arrow { image: url("ICONS/down-on.svg"); width: 10tpx; height: 10tpx; }
QSpinBox::up-arrow:disabled, QSpinBox::up-arrow:off { image: url("ICONS/up-off.svg"); }
QSpinBox::down-arrow:disabled, QSpinBox::down-arrow:off { image: url("ICONS/down-off.svg"); }
QComboBox { padding-right: 20tpx; }
QComboBox::drop-down { background: #2a3244; border: none; width: 16tpx;
    border-top-right-radius: 4px; border-bottom-right-radius: 4px; }
QComboBox::drop-down:hover { background: #34405a; }
QComboBox::down-arrow { image: url("ICONS/down-on.svg"); width: 10tpx; height: 10tpx; }
QComboBox::down-arrow:disabled { image: url("ICONS/down-off.svg"); }
QScrollBar:vertical { background: #181e2a; width: 12tpx; margin: 0; }
QScrollBar:horizontal { background: #181e2a; height: 12tpx; margin: 0; }
QScrollBar::handle { background: #3a4560; border-radius: 4px; }
QScrollBar::handle:hover { background: #4d5a7a; }
QScrollBar::handle:vertical { min-height: 28px; margin: 2px; }
QScrollBar::handle:horizontal { min-width: 28px; margin: 2px; }
QScrollBar::add-line, QScrollBar::sub-line { width: 0; height: 0; border: none; }
QScrollBar::add-page, QScrollBar::sub-page { background: none; }
QRadioButton::indicator, QCheckBox::indicator { width: 12tpx; height: 12tpx;
    border: 2tpx solid #8a92a6; background: #1f2636; }
QRadioButton::indicator { border-radius: 8tpx; }
QCheckBox::indicator { border-radius: 3tpx; }
QRadioButton::indicator:checked, QCheckBox::indicator:checked { background: #2259c4;
    border-color: #8fb4f5; }
QRadioButton::indicator:focus, QCheckBox::indicator:focus { border-color: #ffffff; }
QCheckBox::indicator:checked { image: url("ICONS/check.svg"); }
QRadioButton::indicator:disabled, QCheckBox::indicator:disabled { border-color: #3a4152; }
QGroupBox { border: 1px solid #2e374b; border-radius: 8px; margin-top: 14px; padding-top: 8px; }
QGroupBox::title { subcontrol-origin: margin; left: 10px; padding: 0 4px; }
QTableView { background: #181e2a; gridline-color: #262e40; border: none;
    selection-background-color: #1f4fa8; selection-color: #ffffff; }
QHeaderView::section { background: #181e2a; color: #8a92a6; border: none; }
QProgressBar { background: #1f2636; border: 1px solid #3a4560; border-radius: 4px; }
QProgressBar::chunk { background: #4d86ea; border-radius: 3px; }
QLabel#matchTitle { color: #8a92a6; font-size: 15pt; }
QLabel#matchStatus { font-size: 26pt; font-weight: bold; }
QLabel#matchStatus[decided="true"] { color: #ffd34d; }
QLabel#matchStatus[compact="true"] { font-size: 19pt; }
QFrame#totalCard { background: #1c2230; border-radius: 10px; border: 2px solid transparent; }
QFrame#totalCard[leader="true"] { background: #3a3314; border: 2px solid #ffd34d; }
QFrame#totalCard[out="true"] { background: #141820; border: 2px solid #2e374b; }
QFrame#totalCard[out="true"] QLabel { color: #8a92a6; }
QFrame#totalCard QLabel { background: transparent; }
QLabel#totalName { font-size: 22pt; font-weight: bold; background: transparent; }
QLabel#totalDetail { color: #a0a8ba; font-size: 12pt; background: transparent; }
QLabel#totalValue { font-size: 56pt; font-weight: bold; background: transparent; }
QLabel#totalValue[compact="true"] { font-size: 36pt; }
QLabel#totalValue[tight="true"] { font-size: 24pt; }
QLabel#error { color: #ff7070; font-weight: bold; }
QLabel[refused="true"] { color: #ff40c8; font-weight: bold; }
QLabel#stepTitle { font-size: 20pt; font-weight: bold; }
QLabel#stepTitle[compact="true"] { font-size: 15pt; }
QLabel#tableWarnings { color: #ff40c8; font-weight: bold; font-size: 14pt; }
QLabel#tableWarnings[compact="true"] { font-size: 11pt; }
QLabel#liveCount { font-size: 30pt; font-weight: bold; }
QLabel#liveCount[compact="true"] { font-size: 18pt; }
QLabel#liveCount[settling="true"] { color: #8a92a6; }
"""
STYLE: Final = _STYLE.replace("ICONS/", ICONS.as_posix() + "/")


def clear_opencv_qt_env() -> None:
    """Undo what importing opencv-python (the non-headless wheel) does to the environment.

    cv2 points QT_QPA_PLATFORM_PLUGIN_PATH and QT_QPA_FONTDIR at its own Qt build; PySide6 would
    then load an incompatible platform plugin and cv2's fonts. Import cv2 first, then clear them.
    """
    import cv2  # noqa: F401 - imported for its side effect on the environment, undone below

    for key in ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR"):
        if "cv2" in os.environ.get(key, ""):
            del os.environ[key]


@functools.cache
def load_font() -> str:
    """Register the bundled DejaVu Sans and return its family name (stable rendering everywhere);
    once a process (the text size is set again while the app runs)."""
    font_id = QFontDatabase.addApplicationFont(str(FONT_FILE))
    families = QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
    return families[0] if families else "DejaVu Sans"


def configure(app: QApplication, *, text_size: int = 100) -> None:
    """Style, theme and font for an application (also used by the tests); `text_size`: percent
    of the base text size (ui/text_size.py)."""
    app.setStyle("Fusion")
    set_text_size(app, text_size)
    app.setApplicationName("blitzcam")


def set_text_size(app: QApplication, percent: int) -> None:
    """The app's text at `percent` of its base size, every open window with it."""
    apply_text_size(app, load_font(), STYLE, percent)


def _readable(path: Path) -> bool:
    """Whether the CLI would read a store that cannot be written here, as it is (not a new,
    empty one; nor one an older blitzcam wrote, which needs an upgrade first: the CLI
    refuses it)."""
    from blitzcam.game.store import MatchStore, StoreError

    try:
        if not path.is_file() or path.stat().st_size == 0:
            return False
        MatchStore(path, read_only=True).close()
    except (OSError, StoreError):
        return False
    return True


READ_ELSEWHERE: Final = (
    "\n\nIts matches can still be read: `blitzcam match list`, `match show` and `match export` "
    "read it as it is."
)


def no_desktop(
    environ: Mapping[str, str] | None = None, platform: str = sys.platform
) -> str | None:
    """Why the app has no screen to open on, or None: on Linux and the BSDs, no display named
    (DISPLAY, WAYLAND_DISPLAY) nor a Qt platform chosen. Over ssh, Qt aborted the process
    (exit 134) saying to reinstall it."""
    environ = os.environ if environ is None else environ
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    if any(environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
        return None
    return (
        "no desktop to open the app on (neither DISPLAY nor WAYLAND_DISPLAY is set): start it "
        "in a desktop session, or over ssh with -X; `blitzcam count` and `blitzcam match` work "
        "from here"
    )


def tell_at_start(text: str) -> None:
    """Why the app cannot start, in a message box (replaced in tests: a box waits for a click)."""
    from PySide6.QtWidgets import QMessageBox

    from blitzcam.ui.labels import as_plain

    _closed_by_ctrl_c(lambda: QMessageBox.critical(None, "blitzcam cannot start", as_plain(text)))


def ask_at_start(question: str) -> bool:
    """A yes/no question before the app starts, No the default (replaced in tests)."""
    from PySide6.QtWidgets import QMessageBox

    from blitzcam.ui.labels import as_plain

    buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    answer = _closed_by_ctrl_c(
        lambda: QMessageBox.question(
            None, "blitzcam", as_plain(question), buttons, QMessageBox.StandardButton.No
        )
    )
    return answer == QMessageBox.StandardButton.Yes


def _closed_by_ctrl_c(show: Callable[[], T]) -> T:
    """`show()` a box before the app's window, which Ctrl+C in the terminal closes, and then
    KeyboardInterrupt: the box's own loop kept Python from running its handler, and `app
    --camera /no/such.mp4` waited for a click for ever."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return show()
    interrupted: list[bool] = []

    def stop() -> None:
        interrupted.append(True)
        app.exit(0)  # (quit() asks the windows to close: a box's own loop went on)

    with quit_on_interrupt(app, stop):
        answer = show()
    if interrupted:
        raise KeyboardInterrupt
    return answer


def new_store_wanted(db: Path, path: Path) -> bool:
    """Whether a `--db` that names no file is meant: True when the file is there; UserError
    when its folder is not; else the user's answer to starting a new match database there. A
    typo is not an empty store (`blitzcam match` refuses it too): the app opened one with no
    matches, and made its folders."""
    from blitzcam.errors import UserError

    if path.exists() or path.is_symlink():
        return True
    if not path.parent.is_dir():
        raise UserError(f"--db {db}: no such folder {path.parent}")
    return ask_at_start(f"There is no match database at {path}.\n\nStart a new one there?")


SIGNAL_LOOK_MS: Final = 200  # where no wake-up socket can be had: how often Python looks


@contextlib.contextmanager
def quit_on_interrupt(
    app: QApplication, stop: Callable[[], None] | None = None
) -> Iterator[QObject]:
    """While in it, Ctrl+C in the terminal the app was started from ends it, as closing its
    window does after a change is saved (or calls `stop`): Qt's event loop keeps Python from
    running its signal handlers, so the app went on for ever. The signal's arrival wakes the
    loop through a socket (`signal.set_wakeup_fd`), whose reading runs Python, and its handler
    with it; where no socket can be had, a timer wakes Python to look 5 times a second (an idle
    scoreboard woke for nothing else). Python's own handler comes back after, so that a second
    Ctrl+C while the app shuts down ends it. Yields what wakes Python: the socket's notifier,
    or the timer."""
    before = signal.signal(signal.SIGINT, lambda *_: (stop or app.quit)())
    try:
        with _woken_by_signals() as waker:
            yield waker
    finally:
        signal.signal(signal.SIGINT, before)


@contextlib.contextmanager
def _woken_by_signals() -> Iterator[QObject]:
    """Qt's loop woken when a signal arrives, so that Python runs its handler: by a socket the
    signal's byte is written to, or by a timer where no socket can be had (no pair made, or
    one `set_wakeup_fd` refuses)."""
    import socket

    try:
        reader, writer = socket.socketpair()
    except OSError:
        reader = writer = None
    if reader is not None and writer is not None:
        with reader, writer:
            for end in (reader, writer):
                end.setblocking(False)  # (set_wakeup_fd wants it; a full socket drops bytes)
            try:
                earlier = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
            except ValueError:  # (refused; off the main thread, `quit_on_interrupt` is first)
                earlier = None
            if earlier is not None:
                notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)
                # (reading them is what lets Python run the handler, between Qt's events)
                notifier.activated.connect(lambda *_: _drained(reader))
                try:
                    yield notifier
                finally:
                    notifier.setEnabled(False)
                    signal.set_wakeup_fd(earlier)
                return
    timer = QTimer()  # (Python's own: it goes with this function's frame, not later in Qt's)
    timer.timeout.connect(lambda: None)  # (Python's own handlers run between Qt's events)
    timer.start(SIGNAL_LOOK_MS)
    try:
        yield timer
    finally:
        timer.stop()


def _drained(reader: socket.socket) -> None:
    """The signals' bytes read off, so that the notifier does not fire again for them."""
    with contextlib.suppress(OSError):
        while reader.recv(64):
            pass


def inside_a_camera() -> bool:
    """Whether a camera's or stream's thread is still at work after the app's end: inside
    OpenCV, opening an address nobody answers (up to STREAM_OPEN_TIMEOUT_MS), it is not waited
    for, and its return into an interpreter shutting down aborts the process (SIGABRT, a core
    dump). So is an enrollment still in the models past the quit's wait. The caller
    then ends the process without that shutdown."""
    import threading

    from blitzcam.ui.counting_worker import ENROLL_THREAD, WORKER_THREAD

    # (not imported here: an app whose OpenCV failed to load has no camera, and importing it
    # again printed a traceback under the one-line error)
    stream_source = sys.modules.get("blitzcam.vision.stream_source")
    if stream_source is None:
        return False
    READER_THREAD = stream_source.READER_THREAD  # noqa: N806 (the module's constant)
    return any(
        thread.is_alive()
        and (thread.name in (WORKER_THREAD, ENROLL_THREAD) or thread.name.startswith(READER_THREAD))
        for thread in threading.enumerate()
    )


def run(*, camera: str | None = None, db: Path | None = None, decks: Path | None = None) -> int:
    """Start the app on the user's match store; returns the exit code. A store that cannot be
    opened is said in a message box too (started from a menu, the app has no terminal) and
    raised as it is. `decks` (--decks): count against its <deck>.png backs, not the user's
    enrolled ones."""
    from blitzcam.errors import UserError
    from blitzcam.game.store import MatchStore, StoreError
    from blitzcam.paths import data_dir, data_dir_path, match_db_path
    from blitzcam.ui.frame_sources import camera_spec_problem, open_source
    from blitzcam.ui.main_window import MainWindow
    from blitzcam.ui.pipeline_adapters import make_counter, make_enroller
    from blitzcam.ui.settings import SETTINGS_FILE

    clear_opencv_qt_env()
    if (no_screen := no_desktop()) is not None:
        raise UserError(no_screen)
    app = QApplication.instance() or QApplication(sys.argv)
    configure(app)
    try:
        path = match_db_path(db)  # (the data directory's, unless --db names one)
        wanted = db is None or new_store_wanted(db, path)
    except UserError as exc:  # started from a menu: the app vanished without a word
        tell_at_start(str(exc))
        raise
    if not wanted:  # (answered in a box: not said in another)
        raise UserError(f"--db {db}: no such match database; none was started")
    try:
        store = MatchStore(path)
    except StoreError as exc:
        tell_at_start(str(exc) + (READ_ELSEWHERE if exc.unwritable and _readable(path) else ""))
        raise
    if camera is not None:  # a typo was said only at the first scan, the app up meanwhile
        problem = camera_spec_problem(camera)
        if problem is not None:
            tell_at_start(f"--camera: {problem}")
            raise UserError(f"--camera: {problem}")
    unusable = None
    try:
        settings_path = data_dir() / SETTINGS_FILE
    except UserError as exc:  # the matches are elsewhere (--db): the app starts all the same
        settings_path, unusable = data_dir_path() / SETTINGS_FILE, str(exc)
    try:
        counter = make_counter(decks)
    except UserError as exc:
        tell_at_start(str(exc))
        raise
    window = MainWindow(
        store,
        open_source=open_source,
        counter=counter,
        enroller=make_enroller(counter),
        settings_path=settings_path,
        camera_override=camera,
    )
    if unusable is not None:
        window.statusBar().showMessage(f"Settings will not be saved: {unusable}")
    window.place_on_screen()
    window.show()
    try:
        with quit_on_interrupt(app, window.quit_unasked):
            return app.exec()
    finally:
        try:
            try:
                window.shutdown()  # (waits for a frame being counted: a Ctrl+C may cut it short)
            finally:
                # now, while the QApplication is there: left to Python, the window went when
                # its reference cycles were collected, at exit in any order with the application
                shiboken6.delete(window)
        finally:
            store.close()
