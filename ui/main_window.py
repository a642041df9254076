"""The main window: scoreboard between rounds, scan view during one; menus and keyboard.

It wires injected services (match store, frame-source factory, counter) to the widgets, shows the
open match and says what each change did. A round scanned, typed or edited goes to the store
through `RoundFlow` (ui/round_flow.py); the menus' changes to the match, and undo and redo,
through `MatchChanges` (ui/match_changes.py); the store's rules refuse a broken match before
anything is written.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from blitzcam.errors import UserError
from blitzcam.game import rules
from blitzcam.game.rules import Match, MatchError, Standings
from blitzcam.game.store import MatchStore, MissingMatchError, StaleMatchError, StoreError
from blitzcam.ui.action_states import PLAY_ON, ActionKind, action_states, why_not
from blitzcam.ui.announce import announce
from blitzcam.ui.app import set_text_size
from blitzcam.ui.confirm import ConfirmDialog
from blitzcam.ui.counting_worker import DEFAULT_INTERVAL_MS, Counter, Enroller, FrameSource
from blitzcam.ui.deck_colours import with_deck_labels
from blitzcam.ui.dialog_parts import open_once
from blitzcam.ui.enroll import EnrollDialog
from blitzcam.ui.frame_sources import camera_problem
from blitzcam.ui.history import MatchBrowser, ask_export_target, export_match
from blitzcam.ui.labels import as_plain
from blitzcam.ui.lock_wait import LockWaitBox
from blitzcam.ui.match_changes import MatchChanges
from blitzcam.ui.new_match import NewMatchDialog
from blitzcam.ui.round_flow import RoundFlow
from blitzcam.ui.scan import ScanView
from blitzcam.ui.scoreboard import ScoreboardView, spoken_standings
from blitzcam.ui.settings import (
    AppSettings,
    SettingsDialog,
    load_settings,
    save_settings,
)
from blitzcam.ui.status_bar import (
    ADVICE_MS,
    BRIEF_MS,
    LONGER_MS,
    NEWS_MS,
    WARNING_MS,
    WrappingStatusBar,
)
from blitzcam.ui.text_size import TEXT_SIZES, text_percent
from blitzcam.ui.toolbar_more import fit_more_button
from blitzcam.ui.window_place import (
    GEOMETRY_FILE,
    OPEN_MATCH_FILE,
    keep,
    keep_open_match,
    last_open_match,
    place,
)

SourceFactory = Callable[[str], FrameSource]


# the longest a quit waits for a frame being counted (a table read in tiles takes ~2.5 s on a
# 2-core laptop); past it the process exits all the same
EXIT_WAIT_S: Final = 10.0
# beside the news while the disk is full, or failing (its tooltip says the whole of
# `MatchStore.unfolded`, SQLite's reason with it)
UNFOLDED: Final = "The newest rounds are only in the database's -wal file: keep it beside it"


FULL_SCREEN_SAID: Final = "Full screen: "  # how entering it is said (and taken back on leaving)
UNDECIDED: Final = "the match is no longer decided: play on"


class MainWindow(QMainWindow):
    def __init__(
        self,
        store: MatchStore,
        *,
        open_source: SourceFactory,
        counter: Counter,
        settings_path: Path,
        camera_override: str | None = None,
        enroller: Enroller | None = None,
        interval_ms: int = DEFAULT_INTERVAL_MS,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("blitzcam — Dutch Blitz scoreboard")
        self.setStatusBar(WrappingStatusBar())  # (a long message wraps, not cut at the edge)
        self.store = store
        self._standings_told = ""  # the headline and totals a screen reader was told last
        # whether the match was decided as last shown by news of it (a change here, a match
        # opened or reloaded): a change that takes its win back says so
        self._told_decided = False
        if store.lock_waiter is None:  # (drawn, and said, while another program writes it)
            store.lock_waiter = LockWaitBox(self)
        # said while the newest rounds are only in the write-ahead log beside the database (a
        # full disk: a copy of the file alone lacks them), beside whatever news comes
        self.unfolded = QLabel(UNFOLDED)
        self.unfolded.setVisible(False)
        self.statusBar().addPermanentWidget(self.unfolded)
        self.open_source = open_source
        self.counter = counter
        # taken by a camera view's worker to count a frame: one scan left finishes its frame in
        # hand while the next one starts, and the two never use the counter together
        self.counting_turn = threading.Lock()
        self._shutdown_by: float | None = None  # when a quit stops waiting for the models
        self._undo_refused: str | None = None  # why the rules refuse an undo now
        self._enroller = enroller
        self.interval_ms = interval_ms
        self._settings_path = settings_path
        problems: list[str] = []
        self.settings = load_settings(settings_path, problems=problems)
        self._camera_override = camera_override
        self.match_id: int | None = None
        self.match: Match | None = None
        self.standings: Standings | None = None  # the open match's, as drawn
        # (before any widget is made; not `_use_text_size`, which redraws what is not made yet:
        # a saved 125 or 150 % stopped every start with an AttributeError)
        _set_app_text_size(self.settings.text_size)
        self.changes = MatchChanges(self)  # the menus' changes to the match, undo and redo
        self.rounds = RoundFlow(self)  # a round scanned or typed, reviewed and saved
        self.enrolling: EnrollDialog | None = None
        self._ask_on_close = True  # about a scan's shots (not on Ctrl+C in the terminal)
        self._quit_held = False  # a Ctrl+C's quit waiting for an enrollment's dialog to close

        self.pages = QStackedWidget()
        self.welcome = self._build_welcome()
        self.scoreboard = ScoreboardView()
        self.pages.addWidget(self.welcome)
        self.pages.addWidget(self.scoreboard)
        self.setCentralWidget(self.pages)
        self._build_actions()
        self.scoreboard.roundActivated.connect(self.rounds.edit_round)
        self.scoreboard.playersActivated.connect(self.changes.open_players)

        self._open_at_start()
        if problems:  # the rest of the settings are in use; saving them replaces the file
            self.statusBar().showMessage("; ".join(problems), ADVICE_MS)
        self.update_actions()

    def _open_at_start(self) -> None:
        """The match shown at the last quit (see ui/window_place.py); where none was, or it
        is gone, the newest unfinished one."""
        last = last_open_match(self._settings_path.with_name(OPEN_MATCH_FILE), self.store.path)
        if last is not None:
            try:
                match = self.store.load(last)
            except (MatchError, StoreError):  # deleted since, or damaged: as if none was kept
                match = None
            if match is not None:
                self.show_match(last, match)
                self.statusBar().showMessage(
                    f"Opened match {last}, shown at the last quit", BRIEF_MS
                )
                return
        resume = self.store.latest_unfinished()
        if resume is not None:
            self.show_match(resume)
            self.statusBar().showMessage(f"Resumed the unfinished match {resume}", BRIEF_MS)

    # --- building ------------------------------------------------------------------------

    def _build_welcome(self) -> QWidget:
        page = QWidget()
        title = QLabel("blitzcam")
        title.setObjectName("matchStatus")
        text = QLabel("No match in progress.")
        new = QPushButton("Start a new match")
        new.setObjectName("primary")
        new.clicked.connect(self._on_new_match)
        past = QPushButton("Matches…")  # (the menu's and the window's name for it)
        past.clicked.connect(self._on_browse)
        layout = QVBoxLayout(page)
        layout.addStretch(1)
        for widget in (title, text, new, past):
            layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(2)
        return page

    def _action(
        self,
        text: str,
        slot: Callable[[], None],
        shortcut: str | None = None,
        *,
        short: str | None = None,
    ) -> QAction:
        """An action named `text` in the menus (which show its key beside it) and `short` on
        the toolbar, its key said in the toolbar button's tip: with the keys in the names,
        the toolbar's last buttons went into its overflow on a 1024-px screen."""
        action = QAction(text, self)
        if short is not None:
            action.setIconText(short)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            key = QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)
            # (the menus' letters, & in the name, are no part of what a tip says)
            action.setToolTip(f"{text.replace('&', '').removesuffix('…')} ({key})")
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.new_action = self._action("&New match", self._on_new_match, "Ctrl+N")
        self.scan_action = self._action(
            "&Scan round", self.rounds.start_scan, "Space", short="Scan"
        )
        self.manual_action = self._action("Enter by &hand", self.rounds.enter_by_hand, "Ctrl+M")
        self.undo_action = self._action("&Undo round", self.changes.undo, "Ctrl+Z", short="Undo")
        self.redo_action = self._action("&Redo", self.changes.redo, "Ctrl+Shift+Z", short="Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.delete_round_action = self._action(
            "&Delete round… (the one chosen in the table)", self.changes.delete_round, "Delete"
        )
        # full screen hides the menus: every action keeps a key of its own
        self.match_settings_action = self._action(
            "Match se&ttings…", self.changes.open_match_settings, "Ctrl+T"
        )
        self.players_action = self._action("&Players…", self.changes.open_players, "Ctrl+P")
        self.join_action = self._action("A player &joins…", self.changes.open_join, "Ctrl+J")
        self.leave_action = self._action("A player &leaves…", self.changes.leave, "Ctrl+L")
        self.come_back_action = self._action(
            "A player comes &back…", self.changes.come_back, "Ctrl+Shift+J"
        )
        self.browse_action = self._action("&Matches…", self._on_browse, "Ctrl+O")
        self.export_action = self._action("&Export…", self._on_export, "Ctrl+E")
        self.enroll_action = self._action("&Enroll decks…", self._on_enroll, "Ctrl+D")
        self.settings_action = self._action("&Settings…", self._on_settings, "Ctrl+,")
        self.fullscreen_action = self._action("&Full screen", self._on_fullscreen, "F11")
        # the text size at hand where the board is read, not only in Camera › Settings…
        self.larger_text_action = self._action(
            "&Larger text", lambda: self._step_text_size(+1), "Ctrl+="
        )
        self.larger_text_action.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.smaller_text_action = self._action(
            "S&maller text", lambda: self._step_text_size(-1), "Ctrl+-"
        )
        self.quit_action = self._action("&Quit", self.close, "Ctrl+Q")  # (Alt+F4 alone did)
        menus = {
            "&Match": (
                self.new_action,
                self.browse_action,
                self.export_action,
                self.match_settings_action,
                self.players_action,
                self.join_action,
                self.leave_action,
                self.come_back_action,
                self.quit_action,
            ),
            "&Round": (
                self.scan_action,
                self.manual_action,
                self.undo_action,
                self.redo_action,
                self.delete_round_action,
            ),
            "&Camera": (self.enroll_action, self.settings_action),
            "&View": (self.fullscreen_action, self.larger_text_action, self.smaller_text_action),
        }
        for title, actions in menus.items():
            menu = self.menuBar().addMenu(title)
            for action in actions:
                menu.addAction(action)
        self.toolbar = self.addToolBar("Match")
        self.toolbar.setMovable(False)
        # the window's state before full screen, which leaving it gives back (maximized, say)
        self._before_full_screen = Qt.WindowState.WindowNoState
        for action in (
            self.new_action,
            self.scan_action,
            self.manual_action,
            self.undo_action,
            self.redo_action,
            self.browse_action,
            self.settings_action,
            self.fullscreen_action,
        ):
            self.toolbar.addAction(action)
        fit_more_button(self.toolbar)

    def update_actions(self) -> None:
        undone = self.changes.redoable()  # (once: it compares the whole match)
        states = action_states(
            self.match, scanning=self.scan is not None, redoable=undone is not None
        )
        self.scan_action.setEnabled(states.enter_round)
        self.manual_action.setEnabled(states.enter_round)
        self.join_action.setEnabled(states.join)
        self.leave_action.setEnabled(states.leave)
        self.come_back_action.setEnabled(states.come_back)
        change = self.changes.last_change() if self.scan is None else None
        self.undo_action.setEnabled(states.undo or change is not None)
        refused = states.undo_refused if self.match is not None and change is None else None
        self._undo_refused = refused
        # the menus say what undo and redo take back and bring back: a change, or a round
        undo = "round" if change is None else change.what
        self.undo_action.setText(f"&Undo {undo.replace('&', '&&')}")  # (a name's & as itself)
        self.undo_action.setToolTip(  # (the reason may name a player)
            as_plain(
                f"Undo {undo} ({self.undo_action.shortcut().toString()})"
                + (f": not now, {refused}" if refused is not None else "")
            )
        )
        self.delete_round_action.setEnabled(states.delete_round)
        self.redo_action.setEnabled(states.redo)
        # (with nothing undone, no "round": a leave undone and then dropped by a change since
        # left "Redo round" and "no round undone", of what was never a round)
        redo = "" if undone is None else " round" if undone.what is None else f" {undone.what}"
        self.redo_action.setText(f"&Redo{redo.replace('&', '&&')}")
        self.redo_action.setToolTip(as_plain(f"Redo{redo} (Ctrl+Shift+Z)"))
        for action in (self.match_settings_action, self.players_action, self.export_action):
            action.setEnabled(states.of_the_match)
        for action in (
            self.new_action,
            self.browse_action,
            self.enroll_action,
            self.settings_action,
        ):
            action.setEnabled(states.elsewhere)

    # --- showing -------------------------------------------------------------------------

    def show_match(self, match_id: int, match: Match | None = None) -> None:
        if match is None:
            try:
                match = self.store.load(match_id)
            except (MatchError, StoreError) as exc:  # deleted since the browser listed it
                self.statusBar().showMessage(f"Match not opened: {exc}", NEWS_MS)
                return
        if match_id != self.match_id:  # (another match's news is not this one's)
            self.statusBar().clearMessage()
            # another match from its headline (it kept the last one's scroll, past it)
            self.scoreboard.page.verticalScrollBar().setValue(0)
        opened = match_id != self.match_id
        self.match_id = match_id
        self._redraw(match)
        if opened:  # (what a change then moves is news; a match opened is news of its own)
            self._standings_told = self._spoken_standings()
            self._told_decided = self.decided()
            # (opened from Matches or started, it said nothing of the scores on screen)
            if self._standings_told:
                announce(self, f"Match {match_id}: {self._standings_told}")
        self.pages.setCurrentWidget(self.scoreboard)
        self.scoreboard.table.setFocus()

    def _redraw(self, match: Match) -> None:
        """Make `match` the open match's version and draw it (the page shown stays)."""
        self.match, self.standings = match, rules.score_match(match)
        said = self.store.unfolded  # (every change is redrawn: what it left unfolded, said)
        self.unfolded.setVisible(said is not None)
        self.unfolded.setToolTip(as_plain(said[:1].upper() + said[1:]) if said else "")
        self.unfolded.setAccessibleDescription(said or "")
        self.scoreboard.show_match(match, self.standings)
        # (the focus lands on the rounds' table: the standings read with it)
        self.scoreboard.table.setAccessibleDescription(self._spoken_standings())
        self.rounds.follow_players(match)
        self.update_actions()

    def why_refused(self, exc: MatchError | StoreError) -> str:
        """Why a change to the open match was not made. When another window or `blitzcam
        match` changed the match since it was shown, the scoreboard is redrawn as it is now
        (the page stays: a scan's round can be confirmed again, against the match as it is)."""
        if not isinstance(exc, StaleMatchError) or exc.match_id != self.match_id:
            return with_deck_labels(str(exc))
        self._redraw(exc.current)
        self._told_decided = self.decided()  # (said with the refusal: "Reloaded as ...")
        return f"{exc}. Reloaded as it is stored now."

    def say_done(self, text: str, ms: int = BRIEF_MS) -> None:
        """Say what a change did; with the match decided after it, how to play on too, until
        the next news (Space and Ctrl+M then do nothing, unsaid: the headline says who won, not
        what next; a redo, a lowered target or a deleted round decided it without a word)."""
        decided, was = self.decided(), self._told_decided
        self._told_decided = decided
        if decided:
            self.statusBar().showMessage(f"{text}: {PLAY_ON}", 0)
        elif was:  # (an edit that takes the win back: more than "Round 2 corrected")
            self.statusBar().showMessage(f"{text}: {UNDECIDED}", ms)
        else:
            self.statusBar().showMessage(text, ms)
        self.tell_standings()

    def tell_standings(self) -> None:
        """A screen reader told the headline and the totals after a change that changed them
        (the cards and the headline take no focus: who won was never said)."""
        said = self._spoken_standings()
        if said and said != self._standings_told:
            self._standings_told = said
            announce(self, said)

    def _spoken_standings(self) -> str:
        if self.match is None or self.standings is None:
            return ""
        return as_plain(spoken_standings(self.match, self.standings))

    def decided(self) -> bool:
        return self.standings is not None and self.standings.status != "in-progress"

    @property
    def scan(self) -> ScanView | None:
        """The scan open, if any (the page shown while a round is shot)."""
        return self.rounds.scan

    @property
    def confirm(self) -> ConfirmDialog | None:
        """The confirm dialog open, if any: a round reviewed, entered or edited."""
        return self.rounds.confirm

    def apply_match_settings(self, settings: rules.Settings) -> bool:
        """Give the open match `settings` through the store; whether they were taken."""
        return self.changes.apply_match_settings(settings)

    def camera_spec(self) -> str:
        return self._camera_override if self._camera_override is not None else self.settings.camera

    # --- match handlers ------------------------------------------------------------------

    def _on_new_match(self) -> None:
        dialog = NewMatchDialog(self)
        dialog.accepted.connect(lambda: self._on_match_created(dialog.match()))
        open_once(dialog)

    def _on_match_created(self, match: Match | None) -> None:
        if match is None:
            return
        try:
            match_id = self.store.create_match(match)
        except StoreError as exc:  # the database is locked by another writer, or failing
            self.statusBar().showMessage(f"The match was not started: {exc}", LONGER_MS)
            return
        self.show_match(match_id, match)

    def _on_browse(self) -> None:
        browser = MatchBrowser(self.store, self, current=self.match_id)
        browser.openRequested.connect(self.show_match)
        browser.deleted.connect(self.on_match_deleted)
        open_once(browser)

    def on_match_deleted(self, match_id: int) -> None:
        """A match deleted in the browser: let it go, shown or undone."""
        self.changes.forget(match_id)
        if match_id == self.match_id:
            self.match_id, self.match, self.standings = None, None, None
            # (its news, some kept until another match opens, told the welcome page how to
            # play on in a match gone)
            self.statusBar().clearMessage()
            self.pages.setCurrentWidget(self.welcome)
        self.update_actions()

    def _on_export(self) -> None:
        if self.match is None:
            return
        target = ask_export_target(
            self, "Export match", f"match-{self.match_id}.json", "Match JSON (*.json);;CSV (*.csv)"
        )
        if target is not None:
            try:
                export_match(self.match, target, store=self.store.path)
            except OSError as exc:
                self.statusBar().showMessage(f"Not saved: {target}: {exc.strerror or exc}", NEWS_MS)
                return
            self.statusBar().showMessage(f"Saved {target}", BRIEF_MS)

    def asked(self, title: str, question: str) -> bool:
        """Yes to a question, No the default: Enter or Esc keeps things as they are (the
        round, the scan). Its text as typed: names in it are not markup (`as_plain`)."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            title,
            as_plain(question),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        try:
            return self.exec_dialog(box) == QMessageBox.StandardButton.Yes
        finally:
            box.deleteLater()  # (as the seat question: kept as the window's child for good)

    # --- app settings --------------------------------------------------------------------

    def _on_settings(self) -> None:
        from blitzcam.paths import data_dir

        # the camera in use is shown (a --camera given at start, not the saved one)
        in_use = self.camera_spec()
        try:
            data = data_dir()
        except UserError as exc:  # BLITZCAM_DATA_DIR unusable: said, not raised out of a slot
            self.statusBar().showMessage(f"Settings not opened: {exc}", ADVICE_MS)
            return
        dialog = SettingsDialog(
            dataclasses.replace(self.settings, camera=in_use), data_dir=data, parent=self
        )
        dialog.accepted.connect(lambda: self._on_settings_chosen(dialog.value(), in_use))
        open_once(dialog)

    def _on_settings_chosen(self, settings: AppSettings, camera_shown: str) -> None:
        if self._camera_override is not None and settings.camera == camera_shown:
            # the camera field left alone: --camera stays in use for this run, unsaved
            self._apply_keeping_camera(dataclasses.replace(settings, camera=self.settings.camera))
            return
        self.apply_settings(settings)

    def _apply_keeping_camera(self, settings: AppSettings, *, news: str = "Settings saved") -> None:
        """`apply_settings` for a change that leaves the camera alone: the --camera of this
        run stays in use, unsaved."""
        override = self._camera_override
        self.apply_settings(settings, news=news)
        self._camera_override = override

    def apply_settings(self, settings: AppSettings, *, news: str = "Settings saved") -> bool:
        """Use and save `settings`; their camera replaces any --camera given at start. Whether
        they were saved (if not, the status line says why; if so, `news`)."""
        self.settings = settings
        self._camera_override = None
        self._use_text_size(settings.text_size)
        try:
            save_settings(self._settings_path, settings)
        except OSError as exc:  # in use now, and said: it will not be there next start
            self.statusBar().showMessage(
                f"Settings in use but not saved: {self._settings_path}: {exc.strerror or exc}",
                ADVICE_MS,
            )
            return False
        # (the news before may be of them: a damaged file "kept as .bad when settings are
        # saved", said on after they were)
        self.statusBar().showMessage(news, BRIEF_MS)
        return True

    def _on_enroll(self) -> None:
        if self.enrolling is not None:  # one camera, one enrollment at a time
            self.enrolling.raise_()
            return
        try:
            source = self.open_source(self.camera_spec())
        except Exception as exc:
            self.statusBar().showMessage(camera_problem(self.camera_spec(), exc), NEWS_MS)
            return
        dialog = EnrollDialog(
            source,
            self.counter,
            enroller=self._enroller,
            interval_ms=self.interval_ms,
            turn=self.counting_turn,
            parent=self,
        )
        self.enrolling = dialog
        dialog.finished.connect(lambda _result: self._on_enroll_closed(dialog))
        dialog.open()
        dialog.start()

    def _on_enroll_closed(self, dialog: EnrollDialog) -> None:
        if self.enrolling is dialog:
            self.enrolling = None
        dialog.deleteLater()  # its thread has stopped (on finished); nothing else holds it
        if self._quit_held:  # (Ctrl+C while it enrolled: the quit it refused, once more)
            self._quit_held = False
            QApplication.quit()

    def _on_fullscreen(self) -> None:
        # the menus hidden say full screen too: a window grown past the screen (the system
        # takes it out of full screen) had F11 go back in rather than bring the menus back
        if self.isFullScreen() or self.menuBar().isHidden():
            # back as it was before: showNormal() alone un-maximized a maximized window
            self.setWindowState(self._before_full_screen)
            self.toolbar.show()
            self.menuBar().show()
            if self.statusBar().currentMessage().startswith(FULL_SCREEN_SAID):  # (not now)
                self.statusBar().clearMessage()
        else:
            self._before_full_screen = self.windowState() & ~Qt.WindowState.WindowFullScreen
            self.toolbar.hide()
            self.menuBar().hide()
            self.showFullScreen()
            # (with the menus gone nothing said how to leave it, nor that every key still acts)
            self.statusBar().showMessage(
                f"{FULL_SCREEN_SAID}{self.fullscreen_action.shortcut().toString()} leaves it; "
                "every key still works",
                NEWS_MS,
            )

    def shutdown(self) -> None:
        """Stop the camera threads (on quit), and let a frame still being counted (or an
        enrollment) finish: the models must not be torn down under it as the process exits.
        Waited for once, EXIT_WAIT_S at most however often it is called (the window's close
        and the app's end each call it: a long count held the quit for twice that)."""
        if self.scan is not None:
            self.scan.stop()
        if self.enrolling is not None:
            self.enrolling.stop()
        if self._shutdown_by is None:
            self._shutdown_by = time.monotonic() + EXIT_WAIT_S
        if self.counting_turn.acquire(timeout=max(0.0, self._shutdown_by - time.monotonic())):
            self.counting_turn.release()

    def changeEvent(self, event: QEvent) -> None:
        # back to this window from another (one more blitzcam window, or a terminal running
        # `blitzcam match`): show the open match as it is stored now
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.refresh_from_store()
        super().changeEvent(event)

    def refresh_from_store(self) -> bool:
        """Redraw the open match if the store holds another version of it (changed elsewhere);
        whether it did. Not while a scan or a dialog is open: each checks when it saves."""
        if self.match_id is None or self.scan is not None or self.confirm is not None:
            return False
        if (elsewhere := self.store.not_the_file_opened()) is not None:
            # (its reads are of the file opened, and the next change is refused: said now)
            self.statusBar().showMessage(f"{self.store.path}: {elsewhere}", WARNING_MS)
            return False
        try:
            stored = self.store.load(self.match_id)
        except MissingMatchError:  # deleted meanwhile (`blitzcam match delete`): let go
            gone = self.match_id
            self.on_match_deleted(gone)
            self.statusBar().showMessage(f"Match {gone} was deleted elsewhere", NEWS_MS)
            return True
        except (MatchError, StoreError):
            return False  # damaged meanwhile: the next change says so in one line
        if stored == self.match:
            return False
        self.show_match(self.match_id, stored)
        self._told_decided = self.decided()  # (the news below: what a change here moves from)
        self.statusBar().showMessage(
            "The match was changed elsewhere (another blitzcam window, or `blitzcam match`): "
            "shown as it is now",
            NEWS_MS,
        )
        return True

    def _step_text_size(self, step: int) -> None:
        """The next text size Settings offers up (`step` 1) or down (-1), used and saved as if
        chosen there; at the largest or smallest, said so."""
        at = TEXT_SIZES.index(self.settings.text_size)
        if not 0 <= at + step < len(TEXT_SIZES):
            self.statusBar().showMessage(
                f"The text is at its {'largest' if step > 0 else 'smallest'} size already "
                f"({self.settings.text_size} %)",
                BRIEF_MS,
            )
            return
        size = TEXT_SIZES[at + step]
        # (one news: "Settings saved" then "Text size 125 %" were both read out)
        self._apply_keeping_camera(
            dataclasses.replace(self.settings, text_size=size), news=f"Text size {size} %"
        )

    def _use_text_size(self, percent: int) -> None:
        """The app's text at `percent` of its base size, unless it is so already; the open
        match drawn again with it (the round table's items carry fonts of their own)."""
        if _set_app_text_size(percent):
            if self.match is not None:
                self._redraw(self.match)
            if self.scan is not None:  # (its panel's width was the old size's)
                self.scan.fit_text_size()

    def place_on_screen(self) -> None:
        """Open where the window was left at the last quit (see ui/window_place.py)."""
        place(self, self._settings_path.with_name(GEOMETRY_FILE))

    def quit_unasked(self) -> None:
        """Quit without asking about a scan's shots (Ctrl+C in the terminal: a question would
        keep the app up until someone answered it). An enrollment at work holds its dialog
        open, and Qt drops a quit a window refuses: the quit is asked again once the dialog
        closes, after its enrollment (the app stayed up). A second Ctrl+C meanwhile ends the
        app without closing its windows (`shutdown` still waits for the enrollment)."""
        if self._quit_held:
            QApplication.exit(0)
            return
        self._ask_on_close = False
        self._quit_held = self.enrolling is not None
        QApplication.quit()  # (inside a change's wait, held until it is done: ui/lock_wait.py)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The key of an action not allowed now says why: a disabled action's key does nothing,
        unsaid (Ctrl+Z with a latecomer seated after the last round, its reason only in the
        toolbar's tooltip; Space on a decided match opened from the list)."""
        pressed = QKeySequence(event.keyCombination())
        refused = next(
            (
                action
                for action in self.actions()
                if not action.isEnabled()
                and any(
                    key.matches(pressed) == QKeySequence.SequenceMatch.ExactMatch
                    for key in action.shortcuts()
                )
            ),
            None,
        )
        if refused is not None:
            if not event.isAutoRepeat():  # (a key held: said once, not at each repeat)
                self.statusBar().showMessage(self._why_not(refused), NEWS_MS)
            event.accept()
            return
        super().keyPressEvent(event)

    def _why_not(self, action: QAction) -> str:
        """Why `action` may not be taken now, in words."""
        # (the menu's letter marks out, a name's && as its &; "Delete round… (the one …)")
        name = re.sub("&(.)", r"\1", action.text()).split("…")[0]
        kinds: dict[QAction, ActionKind] = {
            self.scan_action: "enter_round",
            self.manual_action: "enter_round",
            self.undo_action: "undo",
            self.redo_action: "redo",
            self.delete_round_action: "delete_round",
            self.join_action: "join",
            self.leave_action: "leave",
            self.come_back_action: "come_back",
        }
        why = why_not(
            kinds.get(action, "other"),
            self.match,
            scanning=self.scan is not None,
            undo_refused=self._undo_refused,
        )
        return f"{name}: {with_deck_labels(why)}"

    def closeEvent(self, event: QCloseEvent) -> None:
        # a scan's shots are asked about, as Esc asks (Ctrl+Q dropped them unasked)
        if self._ask_on_close and not self.rounds.scan_may_go(
            "Quit", "Quit blitzcam?", "the scan's"
        ):
            event.ignore()
            return
        self.shutdown()
        if self.isFullScreen() or self.menuBar().isHidden():
            # kept as it was before F11 (maximized, say): kept full screen, it came back with
            # its menus shown, and F11 then left it for a window of no size of the user's
            self._on_fullscreen()
        # (not said when it cannot be kept: the window is going; the next start is as the first)
        keep(self, self._settings_path.with_name(GEOMETRY_FILE))
        keep_open_match(
            self._settings_path.with_name(OPEN_MATCH_FILE), self.store.path, self.match_id
        )
        super().closeEvent(event)

    def exec_dialog(self, dialog: QDialog) -> int:
        return dialog.exec()


def _set_app_text_size(percent: int) -> bool:
    """The app's text at `percent` of its base size; whether it was another size before."""
    app = QApplication.instance()
    if not isinstance(app, QApplication) or text_percent() == percent:
        return False
    set_text_size(app, percent)
    return True
