"""The main window: scoreboard between rounds, scan view during one; menus and keyboard.

It wires injected services (match store, frame-source factory, counter) to the widgets and commits
every change through the store, whose rules refuse a broken round before anything is written.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Final

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QInputDialog,
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
from blitzcam.game.names import looks_as
from blitzcam.game.rules import Match, MatchError, Round, Standings
from blitzcam.game.store import MatchStore, MissingMatchError, StaleMatchError, StoreError
from blitzcam.game.text import (
    listed,
    played_no_round,
    round_counts,
    seat_changes,
    taken_off_said,
)
from blitzcam.ui.action_states import PLAY_ON, ActionKind, action_states, why_not
from blitzcam.ui.announce import announce
from blitzcam.ui.app import set_text_size
from blitzcam.ui.capture_store import (
    CapturesPartlyKeptError,
    capture_folder_problem,
    keep_scanned_round,
)
from blitzcam.ui.confirm import ConfirmDialog
from blitzcam.ui.counting_worker import DEFAULT_INTERVAL_MS, Counter, Enroller, FrameSource
from blitzcam.ui.deck_colours import with_deck_labels
from blitzcam.ui.dialog_parts import Refusal
from blitzcam.ui.enroll import EnrollDialog
from blitzcam.ui.history import MatchBrowser, ask_export_target, export_match
from blitzcam.ui.join import JoinDialog
from blitzcam.ui.labels import as_plain
from blitzcam.ui.lock_wait import LockWaitBox
from blitzcam.ui.new_match import NewMatchDialog
from blitzcam.ui.players import PlayersDialog
from blitzcam.ui.review_pictures import ReviewPictures, review_pictures
from blitzcam.ui.scan import ScanView
from blitzcam.ui.scan_session import Corrections, Reviewed, ScanSession, why_a_scan_ends
from blitzcam.ui.scoreboard import ScoreboardView, spoken_standings
from blitzcam.ui.settings import (
    AppSettings,
    MatchSettingsDialog,
    SettingsDialog,
    capture_folder,
    load_settings,
    save_settings,
)
from blitzcam.ui.status_bar import WrappingStatusBar
from blitzcam.ui.text_size import text_percent
from blitzcam.ui.toolbar_more import fit_more_button
from blitzcam.ui.undo_history import Change, MatchHistory
from blitzcam.ui.window_place import (
    GEOMETRY_FILE,
    OPEN_MATCH_FILE,
    keep,
    keep_open_match,
    last_open_match,
    place,
)

SourceFactory = Callable[[str], FrameSource]


SCAN_FAILED: Final = "The camera stopped: "
NOBODY_CHOSEN: Final = "(choose a player)"  # what a leave or a return asks first
SCAN_NOT_STARTED: Final = "The camera gave no view: "
# the longest a quit waits for a frame being counted (a table read in tiles takes ~2.5 s on a
# 2-core laptop); past it the process exits all the same
EXIT_WAIT_S: Final = 10.0
# beside the news while the disk is full, or failing (its tooltip says the whole of
# `MatchStore.unfolded`, SQLite's reason with it)
UNFOLDED: Final = "The newest rounds are only in the database's -wal file: keep it beside it"


def scan_failed_text(message: str, *, had_view: bool = True) -> str:
    """The status line while a scan whose camera stopped (or never gave a view, `had_view`
    False: a camera index with no camera, a stream nobody answers) is still open."""
    if not had_view:
        return (
            f"{SCAN_NOT_STARTED}{message}. Press Enter to type the counts in, or Esc to leave "
            "the scan (Settings chooses the camera)."
        )
    return (
        f"{SCAN_FAILED}{message}. Shots taken so far can still be reviewed (Enter; counts not "
        "shot are typed in), or press Esc to leave the scan."
    )


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
        self._open_source = open_source
        self._counter = counter
        # taken by a camera view's worker to count a frame: one scan left finishes its frame in
        # hand while the next one starts, and the two never use the counter together
        self._counting_turn = threading.Lock()
        self._shutdown_by: float | None = None  # when a quit stops waiting for the models
        self._undo_refused: str | None = None  # why the rules refuse an undo now
        self._enroller = enroller
        self._interval_ms = interval_ms
        self._settings_path = settings_path
        problems: list[str] = []
        self.settings = load_settings(settings_path, problems=problems)
        self._camera_override = camera_override
        self.match_id: int | None = None
        self.match: Match | None = None
        self.standings: Standings | None = None  # the open match's, as drawn
        self._use_text_size(self.settings.text_size)  # (before any widget is made)
        self._undone = MatchHistory()  # rounds and changes undone, which redo may bring back
        self._changes = MatchHistory()  # changes made here other than rounds added: undoable
        self.scan: ScanView | None = None
        self.enrolling: EnrollDialog | None = None
        self.confirm: ConfirmDialog | None = None
        # the counts typed in the open scan's last review, left with Esc or Cancel: kept for
        # its next review (they were lost, the shots' counts shown again)
        self._corrections: Corrections | None = None
        # the counts typed by hand in a round entered or edited, left with Esc or Cancel: kept
        # for the next time that round is opened while the match is as it was (they were lost,
        # every box 0 again, unasked; review): by match and round edited (None: a new one)
        self._drafts: dict[tuple[int, int | None], tuple[Match, Corrections]] = {}
        self._ask_on_close = True  # about a scan's shots (not on Ctrl+C in the terminal)

        self.pages = QStackedWidget()
        self.welcome = self._build_welcome()
        self.scoreboard = ScoreboardView()
        self.pages.addWidget(self.welcome)
        self.pages.addWidget(self.scoreboard)
        self.setCentralWidget(self.pages)
        self._build_actions()
        self.scoreboard.roundActivated.connect(self._on_edit_round)
        self.scoreboard.playersActivated.connect(self._on_players)

        self._open_at_start()
        if problems:  # the rest of the settings are in use; saving them replaces the file
            self.statusBar().showMessage("; ".join(problems), 15000)
        self._update_actions()

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
                self.statusBar().showMessage(f"Opened match {last}, shown at the last quit", 5000)
                return
        resume = self.store.latest_unfinished()
        if resume is not None:
            self.show_match(resume)
            self.statusBar().showMessage(f"Resumed the unfinished match {resume}", 5000)

    # --- building ------------------------------------------------------------------------

    def _build_welcome(self) -> QWidget:
        page = QWidget()
        title = QLabel("blitzcam")
        title.setObjectName("matchStatus")
        text = QLabel("No match in progress.")
        new = QPushButton("Start a new match")
        new.setObjectName("primary")
        new.clicked.connect(self._on_new_match)
        past = QPushButton("Past matches…")
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
        self.scan_action = self._action("&Scan round", self._on_scan, "Space", short="Scan")
        self.manual_action = self._action("Enter by &hand", self._on_manual, "Ctrl+M")
        self.undo_action = self._action("&Undo round", self._on_undo, "Ctrl+Z", short="Undo")
        self.redo_action = self._action("&Redo round", self._on_redo, "Ctrl+Shift+Z", short="Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.delete_round_action = self._action(
            "&Delete round… (the one chosen in the table)", self._on_delete_round, "Delete"
        )
        # full screen hides the menus: every action keeps a key of its own
        self.match_settings_action = self._action(
            "Match se&ttings…", self._on_match_settings, "Ctrl+T"
        )
        self.players_action = self._action("&Players…", self._on_players, "Ctrl+P")
        self.join_action = self._action("A player &joins…", self._on_join, "Ctrl+J")
        self.leave_action = self._action("A player &leaves…", self._on_leave, "Ctrl+L")
        self.come_back_action = self._action(
            "A player comes &back…", self._on_come_back, "Ctrl+Shift+J"
        )
        self.browse_action = self._action("&Matches…", self._on_browse, "Ctrl+O")
        self.export_action = self._action("&Export…", self._on_export, "Ctrl+E")
        self.enroll_action = self._action("&Enroll decks…", self._on_enroll, "Ctrl+D")
        self.settings_action = self._action("&Settings…", self._on_settings, "Ctrl+,")
        self.fullscreen_action = self._action("&Full screen", self._on_fullscreen, "F11")
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
            "&View": (self.fullscreen_action,),
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

    def _update_actions(self) -> None:
        undone = self._redoable()  # (once: it compares the whole match)
        states = action_states(
            self.match, scanning=self.scan is not None, redoable=undone is not None
        )
        self.scan_action.setEnabled(states.enter_round)
        self.manual_action.setEnabled(states.enter_round)
        self.join_action.setEnabled(states.join)
        self.leave_action.setEnabled(states.leave)
        self.come_back_action.setEnabled(states.come_back)
        change = None
        if self.match_id is not None and self.scan is None:
            change = self._changes.last(self.match_id, self.match)
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
        redo = "round" if undone is None or undone.what is None else undone.what
        self.redo_action.setText(f"&Redo {redo.replace('&', '&&')}")
        self.redo_action.setToolTip(as_plain(f"Redo {redo} (Ctrl+Shift+Z)"))
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
                self.statusBar().showMessage(f"Match not opened: {exc}", 8000)
                return
        if match_id != self.match_id:  # (another match's news is not this one's)
            self.statusBar().clearMessage()
            # another match from its headline (it kept the last one's scroll, past it)
            self.scoreboard.page.verticalScrollBar().setValue(0)
        opened = match_id != self.match_id
        self.match_id = match_id
        self._redraw(match)
        if opened:  # (what a change then moves is news; a match opened is not a change)
            self._standings_told = self._spoken_standings()
            self._told_decided = self._decided()
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
        if self.scan is not None:  # reloaded during a scan: its rows name the players as now
            seated = rules.at_table(match)
            before = self.scan.session.players
            if (why := why_a_scan_ends(self.scan.session, seated)) is not None:
                self._end_scan()
                self.statusBar().showMessage(why, 10000)
            else:
                self.scan.set_players(seated)
                renamed = {old.name: new.name for old, new in zip(before, seated, strict=True)}
                if self._corrections is not None:
                    self._corrections = self._corrections.renamed(renamed)
        self._update_actions()

    def _refused(self, exc: MatchError | StoreError) -> str:
        """Why a change to the open match was not made. When another window or `blitzcam
        match` changed the match since it was shown, the scoreboard is redrawn as it is now
        (the page stays: a scan's round can be confirmed again, against the match as it is)."""
        if not isinstance(exc, StaleMatchError) or exc.match_id != self.match_id:
            return with_deck_labels(str(exc))
        self._redraw(exc.current)
        self._told_decided = self._decided()  # (said with the refusal: "Reloaded as ...")
        return f"{exc}. Reloaded as it is stored now."

    def _say_done(self, text: str, ms: int = 5000) -> None:
        """Say what a change did; with the match decided after it, how to play on too, until
        the next news (Space and Ctrl+M then do nothing, unsaid: the headline says who won, not
        what next; a redo, a lowered target or a deleted round decided it without a word)."""
        decided, was = self._decided(), self._told_decided
        self._told_decided = decided
        if decided:
            self.statusBar().showMessage(f"{text}: {PLAY_ON}", 0)
        elif was:  # (an edit that took the win back said only "Round 2 corrected"; review)
            self.statusBar().showMessage(f"{text}: {UNDECIDED}", ms)
        else:
            self.statusBar().showMessage(text, ms)
        self._tell_standings()

    def _tell_standings(self) -> None:
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

    def _decided(self) -> bool:
        return self.standings is not None and self.standings.status != "in-progress"

    def camera_spec(self) -> str:
        return self._camera_override if self._camera_override is not None else self.settings.camera

    # --- match handlers ------------------------------------------------------------------

    def _on_new_match(self) -> None:
        dialog = NewMatchDialog(self)
        dialog.accepted.connect(lambda: self._on_match_created(dialog.match()))
        _open_once(dialog)

    def _on_match_created(self, match: Match | None) -> None:
        if match is None:
            return
        try:
            match_id = self.store.create_match(match)
        except StoreError as exc:  # the database is locked by another writer, or failing
            self.statusBar().showMessage(f"The match was not started: {exc}", 10000)
            return
        self.show_match(match_id, match)

    def _on_undo(self) -> None:
        if self.match_id is None:
            return
        change = self._changes.last(self.match_id, self.match)
        if change is not None:  # (after an edit of round 1, Ctrl+Z deleted the last round)
            self._undo_change(change)
            return
        before = self.match
        try:
            match = self.store.undo_last_round(self.match_id, expect=self.match)
        except (MatchError, StoreError) as exc:
            self.statusBar().showMessage(self._refused(exc), 8000)
            return
        if before is not None:  # redo puts the match back whole: a leave after the round too
            self._undone.push(Change(self.match_id, None, before, match))
        self.show_match(self.match_id, match)
        seats = seat_changes(before, match) if before is not None else ""
        self.statusBar().showMessage(
            f"Round {len(match.rounds) + 1} undone{seats} (Ctrl+Shift+Z brings it back)", 8000
        )
        self._tell_standings()

    def _undo_change(self, change: Change) -> None:
        """Put the open match back as it was before `change`."""
        try:
            match = self.store.update(
                self.match_id, lambda _: rules.checked(change.before), expect=self.match
            )
        except (MatchError, StoreError) as exc:
            self.statusBar().showMessage(
                f"Could not undo {change.what}: {self._refused(exc)}", 8000
            )
            return
        self._changes.take(change)
        self._undone.push(Change(self.match_id, change.what, change.after, match))
        self.show_match(self.match_id, match)
        self._say_done(f"Undone: {change.what} (Ctrl+Shift+Z brings it back)", 8000)

    def _record(self, what: str, before: Match | None, after: Match) -> None:
        """A change made here to the open match, which undo may take back."""
        if before is not None and self.match_id is not None:
            self._changes.push(Change(self.match_id, what, before, after))

    def _redoable(self) -> Change | None:
        """The open match's last undo, if the match is still as that undo left it."""
        if self.match_id is None:
            return None
        return self._undone.last(self.match_id, self.match)

    def _on_redo(self) -> None:
        undone = self._redoable()
        if undone is None or self.scan is not None:
            return
        before = undone.before
        try:
            match = self.store.update(
                self.match_id, lambda _: rules.checked(before), expect=self.match
            )
        except (MatchError, StoreError) as exc:
            # kept: a passing failure ("database is locked") may be tried again
            not_done = (
                "Round not brought back" if undone.what is None else f"Could not redo {undone.what}"
            )
            self.statusBar().showMessage(f"{not_done}: {self._refused(exc)}", 8000)
            self._update_actions()
            return
        self._undone.take(undone)
        left = self.match
        if undone.what is not None:  # a change: undoable again
            self._record(undone.what, left, match)
        self.show_match(self.match_id, match)
        if undone.what is not None:
            self._say_done(f"Made again: {undone.what}", 8000)
            return
        seats = seat_changes(left, match) if left is not None else ""
        self._say_done(f"Round {len(match.rounds)} brought back{seats}", 8000)

    def _on_delete_round(self) -> None:
        """Delete the round chosen in the table, once the players say so (a round entered twice
        in the middle of a match: undo reaches only the last one)."""
        if self.match is None or self.scan is not None or self.confirm is not None:
            return
        number = self.scoreboard.table.current_round()
        if number is None:
            self.statusBar().showMessage("Choose the round to delete in the table first", 5000)
            return
        said = round_counts(self.match.rounds[number - 1])
        try:
            gone = rules.taken_off(self.match, rules.delete_round(self.match, number))
        except MatchError as exc:  # refused: said now, not after a question
            self.statusBar().showMessage(f"Round not deleted: {self._refused(exc)}", 8000)
            return
        with_them = (
            f" {listed(gone)} played only that round: taken off the match with it "
            "(seat, deck and start)."
            if gone
            else ""
        )
        asked_of = self.match  # (the match the question named round `number` of)
        if not self._asked(
            f"Delete round {number}",
            f"Delete round {number} ({said})? The rounds after it move up.{with_them} Undo "
            "(Ctrl+Z) brings it back while this window stays open.",
        ):
            return
        before = asked_of
        try:
            # as asked: a match drawn again meanwhile (the window activated during the question,
            # its match changed elsewhere) may have another round `number`
            match = self.store.delete_round(self.match_id, number, expect=asked_of)
        except (MatchError, StoreError) as exc:
            self.statusBar().showMessage(f"Round not deleted: {self._refused(exc)}", 8000)
            return
        gone = rules.taken_off(before, match)
        self._record(f"round {number}'s deletion", before, match)
        self.show_match(self.match_id, match)
        also = f"; {taken_off_said(gone)}" if gone else ""
        self._say_done(f"Round {number} deleted; the rounds after it moved up{also}", 8000)

    def _on_edit_round(self, number: int) -> None:
        if self.match is None or self.scan is not None:
            return
        opened = self.match.rounds[number - 1]

        def still_there() -> bool:
            # reloaded after a change elsewhere, round `number` may be another round now (one
            # before it deleted): replacing it would overwrite that one
            rounds = self.match.rounds if self.match is not None else ()
            return len(rounds) >= number and rounds[number - 1] == opened

        moved = (
            f"round {number} was changed or moved elsewhere since this edit was opened; cancel "
            "and edit it again"
        )

        def commit(round_: Round) -> Match:
            if not still_there():
                raise MatchError(moved)
            return self.store.replace_round(self.match_id, number, round_, expect=self.match)

        def when_stale() -> str:  # (confirming again would only be refused: said at once)
            return (
                "Confirm again to save it." if still_there() else moved[0].upper() + moved[1:] + "."
            )

        key = (self.match_id, number)
        again = self._draft(key, opened)  # (its caller shown: it was nobody, unlike a review's)
        dialog = self._open_confirm(
            again.round,
            title=f"Edit round {number}",
            commit=commit,
            caller=again.caller,
            caller_before=again.caller_before,
            kept=again.kept,
            when_stale=when_stale,
            edited=number,
        )
        self._keep_draft_of(dialog, key, opened)

    def _on_manual(self) -> None:
        if self.match is None:
            return
        empty = Round({p.name: rules.Tally(0, 0) for p in rules.at_table(self.match)})

        def title() -> str:  # (its number read again when the match changed elsewhere)
            return f"Round {len(self.match.rounds) + 1} — enter the counts"

        key = (self.match_id, None)
        again = self._draft(key, empty)
        dialog = self._open_confirm(
            again.round,
            title=title(),
            commit=lambda r: self.store.add_round(self.match_id, r, expect=self.match),
            caller=again.caller,
            caller_before=again.caller_before,
            kept=again.kept,
            retitle=title,
        )
        self._keep_draft_of(dialog, key, empty)

    def _draft(self, key: tuple[int, int | None], proposed: Round) -> Reviewed:
        """`proposed` with the counts typed in its dialog left before (`_drafts`), where the
        match is as it was then, or only its players renamed."""
        kept = self._drafts.get(key)
        if kept is not None and self.match is not None:
            # (players renamed since, here or elsewhere: theirs under their new names; every
            # count typed was lost to a rename elsewhere, the dialog closed; review)
            renamed = {} if kept[0] == self.match else rules.renamed_only(kept[0], self.match)
            if renamed is not None:  # (kept otherwise: the match may come back to it, an undo)
                del self._drafts[key]
                return kept[1].renamed(renamed).over(proposed)
        return Reviewed(proposed, rules.blitz_caller(proposed), None, 0)

    def _keep_draft_of(
        self, dialog: ConfirmDialog, key: tuple[int, int | None], proposed: Round
    ) -> None:
        """Keep what is typed in `dialog` if it is left (Esc, Cancel), for `_draft`."""
        match = self.match

        def left() -> None:
            corrections = Corrections(proposed, *dialog.typed())
            if corrections.any and match is not None:
                self._drafts[key] = (match, corrections)

        dialog.rejected.connect(left)

    def _on_match_settings(self) -> None:
        if self.match is None:
            return
        dialog = MatchSettingsDialog(
            self.match.settings, self, apply=lambda s: self._settings_refused(s, within=dialog)
        )
        _open_once(dialog)

    def apply_match_settings(self, settings: rules.Settings) -> bool:
        refused = self._settings_refused(settings)
        if refused is not None:
            self.statusBar().showMessage(refused, 8000)
        return refused is None

    def _settings_refused(
        self, settings: rules.Settings, *, within: QDialog | None = None
    ) -> str | None:
        """Apply `settings` to the open match through the store; why not, if refused."""
        if self.match is not None and settings == self.match.settings:  # (said "changed")
            self.statusBar().showMessage("Nothing changed: the settings are as they were", 5000)
            return None
        refused = self._change_refused(
            "Settings",
            lambda: self.store.change_settings(self.match_id, settings, expect=self.match),
            within=within,
        )
        return None if refused is None else refused.text

    def _change_refused(
        self,
        what: str,
        change: Callable[[], Match],
        *,
        within: QDialog | None = None,
        not_done: str | None = None,
        said_by_caller: bool = False,
        undone_as: str | None = None,
    ) -> Refusal | None:
        """Make a store change to the open match and show it; why not, if refused (with the
        rule it broke, when it was one: the dialog's box at fault takes the focus). A change
        refused because the match changed elsewhere closes the dialog it came from (`within`):
        what it shows was read from the match before, and OK again would have saved that over
        the other change (the version checked is the reloaded one). `not_done`: how a
        refusal begins (default "<what> not changed"); `said_by_caller`: what it did is said
        by the caller, not as "<what> changed" (a screen reader was told both); `undone_as`:
        the change in undo's words ("Bob's leaving"; default: "the change of <what>")."""
        before = self.match
        try:
            match = change()
        except (MatchError, StoreError) as exc:
            refused = f"{not_done or what + ' not changed'}: {self._refused(exc)}"
            if within is not None and isinstance(exc, StaleMatchError):
                within.reject()
                self.statusBar().showMessage(
                    f"{refused} Open it again to make the change on the match as it is now.",
                    10000,
                )
            return Refusal(refused, exc if isinstance(exc, MatchError) else None)
        self._record(undone_as or f"the change of {what.lower()}", before, match)
        self.show_match(self.match_id, match)
        if not said_by_caller:
            self._say_done(f"{what} changed")  # (the last message was stale)
        return None

    def _on_players(self) -> None:
        if self.match is None or self.scan is not None:
            return
        dialog = PlayersDialog(
            self.match.players, self, apply=lambda p: self._players_refused(p, within=dialog)
        )
        _open_once(dialog)

    def _on_join(self) -> None:
        if self.match is None or self.scan is not None:
            return
        dialog = JoinDialog(
            self.match, self, apply=lambda p, start: self._join_refused(p, start, within=dialog)
        )
        _open_once(dialog)

    def _join_refused(
        self, player: rules.Player, start: int, *, within: QDialog | None = None
    ) -> Refusal | None:
        """Seat `player` from the next round on through the store; why not, if refused."""
        refused = self._change_refused(
            "Players",
            lambda: self.store.join(self.match_id, player, start=start, expect=self.match),
            within=within,
            # (a blank name: " not seated: player name '' must be…", naming nobody)
            not_done=f"{player.name} not seated" if looks_as(player.name).strip() else "Not seated",
            said_by_caller=True,  # (below: "Players changed" too was told; review)
            undone_as=f"{player.name}'s joining",
        )
        if refused is None and self.match is not None:
            self.statusBar().showMessage(
                f"{player.name} plays from round {len(self.match.rounds) + 1} on", 8000
            )
        return refused

    def _on_leave(self) -> None:
        if self.match is None or self.scan is not None:
            return
        self._seat_change(
            [player.name for player in rules.may_leave(self.match)],
            "A player leaves",
            "Who leaves the table? Their total stays on the board, out of the running; the next "
            "rounds are played without them.",
            self.store.leave,
            "{} has left the table",
            "{}'s leaving",
        )

    def _on_come_back(self) -> None:
        if self.match is None or self.scan is not None:
            return
        self._seat_change(
            [player.name for player in rules.can_come_back(self.match)],
            "A player comes back",
            "Who comes back to the table? They take their seat, deck and total again from the "
            "next round; the rounds played without them are sat out.",
            self.store.come_back,
            "{} is back at the table",
            "{}'s coming back",
        )

    def _seat_change(
        self,
        names: list[str],
        title: str,
        question: str,
        change: Callable[..., Match],
        done: str,
        undone: str,
    ) -> None:
        """Ask which of `names` leaves or comes back, and have the store `change` their seat
        (`done`, `undone`: what it did, and undo's words for it, of the name)."""
        if not names:
            return
        ask = QInputDialog(self)
        ask.setWindowTitle(title)
        ask.setLabelText(question)
        for label in ask.findChildren(QLabel):  # (one line 1000 px wide)
            label.setWordWrap(True)
        # nobody chosen at first: with the first player chosen, Ctrl+L then Enter sent them away
        ask.setComboBoxItems([NOBODY_CHOSEN, *names])
        ask.setComboBoxEditable(False)
        for box in ask.findChildren(QComboBox):  # (a screen reader said its item, not what for)
            box.setAccessibleName(question.partition("?")[0] + "?")  # "Who leaves the table?"
        try:
            if self.exec_dialog(ask) != QDialog.DialogCode.Accepted:
                return
            # by its place in the list, not its text: a player may be named "(choose a player)"
            choice = ask.findChild(QComboBox)
            chosen = choice.currentIndex() if choice is not None else -1
        finally:
            # (a child of the window: each one asked stayed alive until the window went, 600
            # after 300 leaves and returns in a review's soak)
            ask.deleteLater()
        if chosen < 1:
            self.statusBar().showMessage(f"{title}: nobody was chosen, nothing changed", 8000)
            return
        name = names[chosen - 1]
        before = self.match
        refused = self._change_refused(
            "Players",
            lambda: change(self.match_id, name, expect=self.match),
            said_by_caller=True,
            undone_as=undone.format(name),
        )
        said = done.format(name)
        if (
            refused is None
            and before is not None
            and self.match is not None
            and rules.taken_off(before, self.match)
        ):
            said = played_no_round(name)  # not left with a total
        if refused is None:
            self._say_done(said, 10000)
        else:
            self.statusBar().showMessage(refused.text, 10000)

    def _players_refused(
        self, players: tuple[rules.Player, ...], *, within: QDialog | None = None
    ) -> Refusal | None:
        """Give the open match's seats these players through the store; why not, if refused."""
        if self.match is not None and _unchanged(
            lambda: rules.change_players(self.match, players), self.match
        ):
            # (OK on the dialog as it opened said "Players changed"; review)
            self.statusBar().showMessage("Nothing changed: the players are as they were", 5000)
            return None
        return self._change_refused(
            "Players",
            lambda: self.store.change_players(self.match_id, players, expect=self.match),
            within=within,
        )

    def _on_browse(self) -> None:
        browser = MatchBrowser(self.store, self, current=self.match_id)
        browser.openRequested.connect(self.show_match)
        browser.deleted.connect(self._on_match_deleted)
        _open_once(browser)

    def _on_match_deleted(self, match_id: int) -> None:
        """A match deleted in the browser: let it go, shown or undone."""
        self._undone.forget(match_id)
        self._changes.forget(match_id)
        if match_id == self.match_id:
            self.match_id, self.match, self.standings = None, None, None
            # (its news, some kept until another match opens, told the welcome page how to
            # play on in a match gone)
            self.statusBar().clearMessage()
            self.pages.setCurrentWidget(self.welcome)
        self._update_actions()

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
                self.statusBar().showMessage(f"Not saved: {target}: {exc.strerror or exc}", 8000)
                return
            self.statusBar().showMessage(f"Saved {target}", 5000)

    # --- confirming a round --------------------------------------------------------------

    def _open_confirm(
        self,
        proposed: Round,
        *,
        title: str,
        commit: Callable[[Round], Match],
        session: ScanSession | None = None,
        caller: str | None = None,
        caller_before: int | None = None,
        kept: int = 0,
        retitle: Callable[[], str] | None = None,
        when_stale: Callable[[], str] | None = None,
        edited: int | None = None,
    ) -> ConfirmDialog:
        """`caller`: who called Blitz, picked at the start (their Blitz count zeroed, unless
        `caller_before` is their count before an earlier review's pick zeroed it); `kept`:
        how many of `proposed`'s counts the players typed in a review they left; `retitle`:
        the title once the match was read again (a round saved elsewhere meanwhile);
        `when_stale`: what to do then, said once the match is read again (default: confirm
        again); `edited`: the number of the round corrected (None: a new round)."""
        pictures = (
            ReviewPictures()
            if session is None
            else review_pictures(session, self.devicePixelRatioF())
        )
        # the round's players: those at the table, or for an earlier round, those who played it
        of_round = tuple(p for p in self.match.players if p.name in proposed.tallies)
        dialog = ConfirmDialog(
            of_round, proposed, title=title, captures=pictures.captures,
            captions=pictures.captions, enlarged=pictures.enlarged, check=pictures.check,
            unshot=pictures.unshot, kept=kept, variant=self.match.settings.variant, parent=self,
        )  # fmt: skip
        if caller_before is not None:
            dialog.restore_caller(caller, caller_before)
        elif caller is not None:
            dialog.set_caller(caller)
        dialog.countsConfirmed.connect(
            lambda round_: self._on_round_confirmed(
                dialog, round_, commit, session, retitle, when_stale, edited
            )
        )
        dialog.rejected.connect(lambda: self._on_confirm_closed(dialog))
        if self.scan is not None:
            self.scan.setEnabled(False)  # its keys (Space, Enter) belong to the dialog now
        self.confirm = dialog
        dialog.open()
        return dialog

    def _on_round_confirmed(
        self,
        dialog: ConfirmDialog,
        round_: Round,
        commit: Callable[[Round], Match],
        session: ScanSession | None,
        retitle: Callable[[], str] | None = None,
        when_stale: Callable[[], str] | None = None,
        edited: int | None = None,
    ) -> None:
        try:
            match = commit(round_)
        except (MatchError, StoreError) as exc:
            why = self._refused(exc)  # explained, nothing saved
            if isinstance(exc, MissingMatchError) and self.match_id is not None:
                # deleted elsewhere: nothing left to save the round to (each Enter said "no
                # match" alone, the scan to be left by hand; review)
                gone = self.match_id
                dialog.reject()
                if session is not None:
                    self._end_scan()
                self._on_match_deleted(gone)
                self.statusBar().showMessage(
                    f"Match {gone} was deleted elsewhere: the round was not saved", 15000
                )
                return
            if isinstance(exc, StaleMatchError) and self._seats_changed(dialog, edited):
                # the dialog's seats are not the round's any more: its round cannot be saved
                dialog.reject()
                again = (
                    f"edit round {edited} again"
                    if edited is not None
                    else "enter the round again"
                    if session is None
                    else "Enter reviews the scan again"
                    if self.scan is not None
                    else "scan the round again"  # a player joined or left: the scan ended
                )
                self.statusBar().showMessage(
                    f"{why} Its players were changed elsewhere: {again}.", 15000
                )
                return
            if isinstance(exc, StaleMatchError) and edited is None and self._decided():
                # (confirming again could only be refused: no round follows the deciding one)
                why += (
                    " It is decided now, and no round may follow: to play on, cancel and raise "
                    "the target (Match › Match settings…, Ctrl+T)."
                )
            elif isinstance(exc, StaleMatchError):
                why += " " + (
                    when_stale() if when_stale else "Confirm again to save this round to it."
                )
                if retitle is not None:  # (it said "Round 1" of what is saved as round 2)
                    dialog.set_title(retitle())
            if isinstance(exc, MatchError):
                dialog.show_error(why, player=exc.player, pile=exc.pile)
            else:
                dialog.show_error(why)
            return
        dialog.accept()
        self._on_confirm_closed(dialog)
        if session is None and match == self.match:  # an edit that changed nothing
            self.statusBar().showMessage("Nothing changed: the round is as it was", 5000)
            return  # (what can be redone still can)
        # a round of the user's own makes the match's undone ones unreachable (it cannot come
        # back to the state an undo left while it stays on top): let them go
        self._undone.forget(self.match_id)
        # the round is saved: the window shows it before anything else can fail (a capture
        # that failed here used to leave the scan open on the match before, and confirming
        # "again" saved the round twice)
        if session is not None:
            self._end_scan()
        if edited is not None:
            self._record(f"round {edited}'s edit", self.match, match)
        self.show_match(self.match_id, match)
        said = (
            f"Round {edited} corrected" if edited else f"Round saved ({len(match.rounds)} played)"
        )
        self._say_done(said)
        if session is not None:
            self._keep_captures(session, round_)

    def _seats_changed(self, dialog: ConfirmDialog, edited: int | None) -> bool:
        """Whether the match read again seats other players in the dialog's round than the
        dialog shows: those at the table for a new round, those who played round `edited` for
        an edit (a latecomer seated elsewhere changes no earlier round: an edit was dropped, and
        its advice, "enter the round again", added round 1's counts as a new round)."""
        if self.match is None:
            return True
        if edited is None:
            now = rules.at_table(self.match)
        elif edited <= len(self.match.rounds):
            played = self.match.rounds[edited - 1].tallies
            now = tuple(p for p in self.match.players if p.name in played)
        else:  # (the round is gone: `when_stale` says so)
            return False
        return [(p.name, p.deck) for p in now] != [(p.name, p.deck) for p in dialog.players]

    def _on_confirm_closed(self, dialog: ConfirmDialog) -> None:
        if self.confirm is dialog:
            self.confirm = None
        if self.scan is not None:
            self.scan.setEnabled(True)  # cancelled: back to scanning
            self.scan.setFocus()
        dialog.deleteLater()

    def _keep_captures(self, session: ScanSession, round_: Round) -> None:
        if not self.settings.keep_captures:
            return
        from blitzcam.paths import data_dir

        try:
            folder = capture_folder(self.settings, data_dir())
            problem = capture_folder_problem(folder, data_dir())
        except (UserError, OSError) as exc:  # the data folder unusable: the round is saved
            problem = str(exc)
        if problem is not None:  # (its drive unplugged since it was chosen, say)
            self.statusBar().showMessage(
                f"Round saved, but its captures were not kept: {problem}", 15000
            )
            return

        try:
            keep_scanned_round(folder, session, round_, taken_at=datetime.now().astimezone())
        except CapturesPartlyKeptError as exc:  # the round is saved: said, and it stands
            self.statusBar().showMessage(f"Round saved, but {exc}", 8000)

    # --- scanning ------------------------------------------------------------------------

    def _on_scan(self) -> None:
        if self.match is None or self.scan is not None:
            return
        try:
            source = self._open_source(self.camera_spec())
        except Exception as exc:  # a camera that is not there, a bad file name
            self.statusBar().showMessage(camera_problem(self.camera_spec(), exc), 8000)
            return
        scan = ScanView(
            rules.at_table(self.match),
            source,
            self._counter,
            interval_ms=self._interval_ms,
            turn=self._counting_turn,
        )
        scan.reviewRequested.connect(self._on_review)
        scan.cancelled.connect(self._on_scan_cancelled)
        scan.failed.connect(self._on_scan_failed)
        self.scan = scan
        self.pages.addWidget(scan)
        self.pages.setCurrentWidget(scan)
        self._update_actions()
        scan.start()

    def _on_review(self, session: ScanSession) -> None:
        if self.confirm is not None:
            return
        # the shots hold counts per deck: read them for the players as they are now (renamed
        # elsewhere since the scan began, the round was proposed under the old names, and a
        # renamed player's cards became 0)
        session = dataclasses.replace(session, players=rules.at_table(self.match))
        proposed = session.proposed_round()
        if self._corrections is not None:
            again = self._corrections.over(proposed)
        else:
            again = Reviewed(proposed, rules.blitz_caller(proposed), None, 0)

        def title() -> str:  # (its number read again when the match changed elsewhere)
            return f"Round {len(self.match.rounds) + 1} — confirm the counts"

        dialog = self._open_confirm(
            again.round,
            title=title(),
            commit=lambda r: self.store.add_round(self.match_id, r, expect=self.match),
            session=session,
            caller=again.caller,
            caller_before=again.caller_before,
            kept=again.kept,
            retitle=title,
        )
        seated = session.players
        dialog.rejected.connect(lambda: self._keep_corrections(proposed, dialog, seated))

    def _keep_corrections(
        self, proposed: Round, dialog: ConfirmDialog, seated: tuple[rules.Player, ...]
    ) -> None:
        """A review of `seated` left (Esc, Cancel to shoot again, its round refused for
        players renamed elsewhere): what was typed in it, for the next (nothing, when nothing
        was changed), under the players' names as they are now."""
        if self.scan is not None:
            corrections = Corrections(proposed, *dialog.typed())
            now = self.scan.session.players
            corrections = corrections.renamed(
                {then.name: new.name for then, new in zip(seated, now, strict=True)}
            )
            self._corrections = corrections if corrections.any else None

    def _on_scan_cancelled(self) -> None:
        """Esc or Cancel on the scan: left at once with nothing shot; with shots (or counts
        typed in a review) asked first, No the default (a second Esc after leaving a review
        dropped every shot of both steps, unasked)."""
        scan = self.scan
        if scan is None:
            return
        if self._scan_may_go("Leave the scan", "Leave the scan?") and self.scan is scan:
            self._end_scan()

    def _scan_may_go(self, title: str, question: str, owner: str = "its") -> bool:
        """Whether the open scan may go: at once with nothing shot; with shots (or counts
        typed in a review) once the players say so, No the default. `owner`: how the question
        names the scan's ("its" after "Leave the scan?")."""
        shots = len(self.scan.session.all_shots) if self.scan is not None else 0
        if not shots and self._corrections is None:
            return True
        held = [f"{owner} shot" if shots == 1 else f"{owner} {shots} shots"] if shots else []
        if self._corrections is not None:
            held.append(f"the counts typed in {owner} review")
        verb = "is" if held == [f"{owner} shot"] else "are"
        dropped = " and ".join(held)
        return self._asked(
            title,
            f"{question} {dropped[0].upper()}{dropped[1:]} {verb} dropped, and no round is saved.",
        )

    def _asked(self, title: str, question: str) -> bool:
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

    def _on_scan_failed(self, message: str) -> None:
        had_view = self.scan is not None and self.scan.had_view
        self.statusBar().showMessage(scan_failed_text(message, had_view=had_view), 15000)

    def _end_scan(self) -> None:
        status = self.statusBar()
        if status.currentMessage().startswith((SCAN_FAILED, SCAN_NOT_STARTED)):  # its advice
            status.clearMessage()
        scan, self.scan = self.scan, None
        self._corrections = None
        if scan is not None:
            scan.stop()
            self.pages.removeWidget(scan)
            scan.deleteLater()
        self.pages.setCurrentWidget(self.scoreboard if self.match else self.welcome)
        self._update_actions()

    # --- app settings --------------------------------------------------------------------

    def _on_settings(self) -> None:
        from blitzcam.paths import data_dir

        # the camera in use is shown (a --camera given at start, not the saved one)
        in_use = self.camera_spec()
        try:
            data = data_dir()
        except UserError as exc:  # BLITZCAM_DATA_DIR unusable: said, not raised out of a slot
            self.statusBar().showMessage(f"Settings not opened: {exc}", 15000)
            return
        dialog = SettingsDialog(
            dataclasses.replace(self.settings, camera=in_use), data_dir=data, parent=self
        )
        dialog.accepted.connect(lambda: self._on_settings_chosen(dialog.value(), in_use))
        _open_once(dialog)

    def _on_settings_chosen(self, settings: AppSettings, camera_shown: str) -> None:
        if self._camera_override is not None and settings.camera == camera_shown:
            # the camera field left alone: --camera stays in use for this run, unsaved
            override = self._camera_override
            self.apply_settings(dataclasses.replace(settings, camera=self.settings.camera))
            self._camera_override = override
            return
        self.apply_settings(settings)

    def apply_settings(self, settings: AppSettings) -> None:
        """Use and save `settings`; their camera replaces any --camera given at start."""
        self.settings = settings
        self._camera_override = None
        self._use_text_size(settings.text_size)
        try:
            save_settings(self._settings_path, settings)
        except OSError as exc:  # in use now, and said: it will not be there next start
            self.statusBar().showMessage(
                f"Settings in use but not saved: {self._settings_path}: {exc.strerror or exc}",
                15000,
            )
            return
        # (the news before may be of them: a damaged file "kept as .bad when settings are
        # saved", said on after they were)
        self.statusBar().showMessage("Settings saved", 5000)

    def _on_enroll(self) -> None:
        if self.enrolling is not None:  # one camera, one enrollment at a time
            self.enrolling.raise_()
            return
        try:
            source = self._open_source(self.camera_spec())
        except Exception as exc:
            self.statusBar().showMessage(camera_problem(self.camera_spec(), exc), 8000)
            return
        dialog = EnrollDialog(
            source,
            self._counter,
            enroller=self._enroller,
            interval_ms=self._interval_ms,
            turn=self._counting_turn,
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

    def _on_fullscreen(self) -> None:
        # the menus hidden say full screen too: a window grown past the screen (the system
        # takes it out of full screen) had F11 go back in rather than bring the menus back
        if self.isFullScreen() or self.menuBar().isHidden():
            # back as it was before: showNormal() alone un-maximized a maximized window
            self.setWindowState(self._before_full_screen)
            self.toolbar.show()
            self.menuBar().show()
        else:
            self._before_full_screen = self.windowState() & ~Qt.WindowState.WindowFullScreen
            self.toolbar.hide()
            self.menuBar().hide()
            self.showFullScreen()
            # (with the menus gone nothing said how to leave it, nor that every key still acts)
            self.statusBar().showMessage(
                f"Full screen: {self.fullscreen_action.shortcut().toString()} leaves it; every "
                "key still works",
                8000,
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
        if self._counting_turn.acquire(timeout=max(0.0, self._shutdown_by - time.monotonic())):
            self._counting_turn.release()

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
            self.statusBar().showMessage(f"{self.store.path}: {elsewhere}", 30000)
            return False
        try:
            stored = self.store.load(self.match_id)
        except MissingMatchError:  # deleted meanwhile (`blitzcam match delete`): let go
            gone = self.match_id
            self._on_match_deleted(gone)
            self.statusBar().showMessage(f"Match {gone} was deleted elsewhere", 8000)
            return True
        except (MatchError, StoreError):
            return False  # damaged meanwhile: the next change says so in one line
        if stored == self.match:
            return False
        self.show_match(self.match_id, stored)
        self._told_decided = self._decided()  # (the news below: what a change here moves from)
        self.statusBar().showMessage(
            "The match was changed elsewhere (another blitzcam window, or `blitzcam match`): "
            "shown as it is now",
            8000,
        )
        return True

    def _use_text_size(self, percent: int) -> None:
        """The app's text at `percent` of its base size, unless it is so already; the open
        match drawn again with it (the round table's items carry fonts of their own)."""
        app = QApplication.instance()
        if isinstance(app, QApplication) and text_percent() != percent:
            set_text_size(app, percent)
            if self.match is not None:
                self._redraw(self.match)

    def place_on_screen(self) -> None:
        """Open where the window was left at the last quit (see ui/window_place.py)."""
        place(self, self._settings_path.with_name(GEOMETRY_FILE))

    def quit_unasked(self) -> None:
        """Quit without asking about a scan's shots (Ctrl+C in the terminal: a question would
        keep the app up until someone answered it)."""
        self._ask_on_close = False
        QApplication.quit()  # (inside a change's wait, held until it is done: ui/lock_wait.py)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The key of an action not allowed now says why: a disabled action's key did nothing,
        unsaid (Ctrl+Z with a latecomer seated after the last round, its reason only in the
        toolbar's tooltip; Space on a decided match opened from the list; review)."""
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
                self.statusBar().showMessage(self._why_not(refused), 8000)
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
        if self._ask_on_close and not self._scan_may_go("Quit", "Quit blitzcam?", "the scan's"):
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


def camera_problem(camera: str, problem: Exception) -> str:
    """Why a camera did not open, naming it once ("Camera '/x/t.jpg': /x/t.jpg: no such file"
    named it twice)."""
    said = _said(camera)
    if str(problem).startswith(said.strip()) and said.strip():
        return f"Camera: {problem}"
    return f"Camera {said!r}: {problem}"


def _said(camera: str) -> str:
    """The camera setting as the status line says it: no stream password in it."""
    from blitzcam.vision.source_address import shown_address

    return shown_address(camera)


def _unchanged(change: Callable[[], Match], match: Match) -> bool:
    """Whether `change` leaves `match` as it is (False where the rules refuse it: the store
    then says why)."""
    try:
        return change() == match
    except MatchError:
        return False


def _open_once(dialog: QDialog) -> None:
    """Open a dialog made for one use, deleted once closed (a child of the window, each one
    used to stay alive until the window went: 20 after five uses of five dialogs)."""
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
