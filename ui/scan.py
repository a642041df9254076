"""Scanning a round: the live view with per-player counts, two steps (Dutch cards, then Blitz
cards left), several shots per step summed. Space captures, Enter moves on, Backspace drops the
last shot, Esc cancels. When both steps are done it asks the caller to confirm (reviewRequested).
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QAbstractSlider,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.rules import Player
from blitzcam.game.text import unmarked
from blitzcam.ui.announce import announce
from blitzcam.ui.counting_worker import (
    COUNTING_STOPPED,
    DEFAULT_INTERVAL_MS,
    CountedFrame,
    Counter,
    CountingThread,
    CountSnapshot,
    DecksInPlay,
    FrameSource,
)
from blitzcam.ui.deck_colours import back_pixmap, deck_label
from blitzcam.ui.labels import ElidedLabel, as_plain, plain_label, set_styled
from blitzcam.ui.live_view import LiveView
from blitzcam.ui.outline_fit import OutlineFit
from blitzcam.ui.scan_session import (
    STEP_HINTS,
    STEP_TITLES,
    ScanSession,
    Shot,
    in_brief,
    over_a_pile,
    player_counts,
    table_warnings,
)
from blitzcam.ui.scrolling import scrolling_rows
from blitzcam.ui.shot_decision import (
    FRAME_SHOT_ALREADY,
    HOLD_STILL,
    ShotAsked,
    decide_shot,
    waiting_for_view,
)
from blitzcam.ui.stall_watch import STALL_CHECK_MS, StallWatch, said_late
from blitzcam.ui.text_size import text_scale

PANEL_WIDTH: Final = 380  # the side panel at the base text size, in pixels
COLUMN_GAP: Final = 14  # between the players' columns at the base text size, in pixels
DEMO_WARNING: Final = (
    "⚠ Demo footage: blitzcam's own tables, not your camera's (Camera › Settings… chooses one)"
)
# the width of each player's back beside their row, laid out in full and compact (at 32 a row
# is 56 px high: five of eight players' rows in view in a 1024 x 640 window)
BACK_FULL: Final = 32
BACK_COMPACT: Final = 18
FEW_ROWS: Final = 5  # ... drawn small for more players than this only (all fit a laptop's scan)
# a scan shorter than this (pixels at the base text size) is laid out compact: the step's hint
# in its title's tooltip, the title and the counts smaller; on a 1024 x 600 screen at 150 %
# text the players' rows got 60 px, not one of eight shown
COMPACT_BELOW: Final = 640
# a warning told to a screen reader is told again only once it has been gone this long: a
# face-up card the counter sees in some frames and not others was "flip it" ten times over
WARNING_TOLD_AGAIN_S: Final = 10.0
SHOT_CALLED_OFF: Final = "Shot called off"
SHOT_CALLED_OFF_MORE: Final = " (Backspace again drops the last shot taken)"


def demo_warning(source: object) -> str:
    """What a scan of `source` says of the demo footage: "" where it is no demo; why it stands
    in for the first camera, where the source says."""
    if not getattr(source, "demo", False):
        return ""
    because = str(getattr(source, "demo_because", "") or "")
    return f"⚠ Demo footage: {because}" if because else DEMO_WARNING


class ScanView(QWidget):
    """Owns the counting thread while visible; emits the finished session for confirmation."""

    reviewRequested = Signal(object)
    cancelled = Signal()
    failed = Signal(str)

    def __init__(
        self,
        players: Sequence[Player],
        source: FrameSource,
        counter: Counter,
        *,
        interval_ms: int = DEFAULT_INTERVAL_MS,
        turn: threading.Lock | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """`turn`: the counter's, shared with the window's other camera views (CountingThread)."""
        super().__init__(parent)
        self.session = ScanSession(tuple(players))
        self._latest: CountedFrame | None = None
        self._failure: str | None = None  # why the camera or the counter stopped, once they have
        self.had_view = False  # a counted frame arrived (a camera that never opens gives none)
        self.counting_failed = False  # the counter broke (not the camera)
        self._ended = False  # a video file that came to its end (no newer view will come)
        # the newest frame with counts of its own view, with those counts (`as_its_view`)
        self._last_still: CountedFrame | None = None
        # Space or Enter pressed while the counts had not settled on the view: what to do once
        # they have ("shot", or "next": shoot, then go on), None when nothing waits
        self._waiting: str | None = None
        # the view (the live vote's scene number) a shot was refused on as shot already: a
        # second press on it shoots it (the same pile laid again looks the same)
        self._again: int | None = None
        self._asked = ""  # the question asked on it, shown until the view changes or it is shot
        # the newest of the camera's frames shown between counts (what the player sees, which
        # a shot of the latest count must still show), and whether the outlines fit it
        self._fit = OutlineFit()
        self._source = source
        self._views = StallWatch(source)
        self._in_play = DecksInPlay(counter, (player.deck for player in self.session.players))
        # the live vote is the window's counter's, kept between scans: the last round's counts
        # must not show (nor be shot) while this round's cards are still being spread
        self.live = LiveView()
        self._thread = CountingThread(
            source,
            self._in_play,
            interval_ms=interval_ms,
            turn=turn,
            on_start=self._in_play.reset,
            preview_while=self.live.is_seen,
            count_while=self.live.is_watched,  # (a method of its own: a cycle kept it alive)
            parent=self,
        )
        self._compact = False
        self._full_needed = 0  # the panel's height laid out in full, when last measured
        self.setAccessibleName(
            "Scan: Space shoots, Enter goes on, Backspace drops, Alt+Left goes back, Esc leaves"
        )
        self._stall_timer = QTimer(self)
        self._stall_timer.setInterval(STALL_CHECK_MS)
        self._stall_timer.timeout.connect(self._watch_stream)
        self.step_title = QLabel()
        self.step_title.setObjectName("stepTitle")
        self.step_title.setWordWrap(True)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.warnings = plain_label()  # (its warnings name players: a name is not markup)
        self.warnings.setObjectName("tableWarnings")
        self.warnings.setWordWrap(True)
        self.warnings.hide()  # (until there is something to say)
        self._warned = ""  # what the table warns of, in full, and `_end_note`
        self._table_warned = ""  # ... the table alone, as the latest count says
        # why the video ended before its end (cut short, or damaged), once it has
        self._end_note = ""
        self._progress_said = ""  # the step and its shots, as last told to a screen reader
        self._warned_kinds = ""  # the warnings last shown, their numbers left out
        self._kinds_seen_at: dict[str, float] = {}  # ... and when each was last shown
        self.clock = time.monotonic
        self.shots_label = QLabel()
        self.live_counts: dict[str, QLabel] = {}
        self._settling = False  # the counts shown are the last settled view's, not this one's
        self.summed_counts: dict[str, QLabel] = {}
        self._seats: list[tuple[QLabel, QLabel, QLabel, QLabel]] = []  # icon, name, live, shots
        grid = self._seats_grid = QGridLayout()
        grid.addWidget(QLabel("<b>Player</b>"), 0, 1)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        grid.addWidget(QLabel("<b>In view</b>"), 0, 2, right)  # (over its numbers, as they are)
        self._shots_header = QLabel("<b>Shots</b>")  # (compact: with the step's shots, below)
        grid.addWidget(self._shots_header, 0, 3, right)
        for row, player in enumerate(self.session.players, start=1):
            live = QLabel("0")
            live.setObjectName("liveCount")
            live.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            summed = QLabel("0")
            summed.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            # a long name is cut with "…" (whole in its tooltip): the panel is PANEL_WIDTH wide
            seat = (QLabel(), ElidedLabel(player.name), live, summed)
            self._seats.append(seat)
            for column, widget in enumerate(seat):
                grid.addWidget(widget, row, column)
        grid.setColumnStretch(1, 1)  # the name takes what the counts leave
        self._show_seats()
        self.capture_button = QPushButton("Capture shot  (Space)")
        self.capture_button.setObjectName("primary")
        self.drop_button = QPushButton("Drop last shot  (Backspace)")
        self.next_button = QPushButton()
        # (short: beside Cancel, "Back to Dutch cards" was cut to "k to Dutch cards (Alt·")
        self.back_button = QPushButton("← Dutch  (Alt+←)")
        self.back_button.setToolTip("Back to the Dutch cards step (Alt+←)")
        self.cancel_button = QPushButton("Cancel  (Esc)")
        for button in (
            self.capture_button,
            self.drop_button,
            self.next_button,
            self.back_button,
            self.cancel_button,
        ):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        side = QVBoxLayout()
        side.addWidget(self.step_title)
        side.addWidget(self.hint)
        # the players' rows scroll: five or more pushed the buttons below a laptop's screen
        # (and grew a full-screen window out of full screen). The warnings scroll with them,
        # above them, where they are seen first (what must be fixed before a shot): under
        # them, at 150 % text three warnings were cut and squeezed the rows to their header
        middle = QVBoxLayout()
        middle.setContentsMargins(0, 0, 0, 0)
        middle.addWidget(self.warnings)
        middle.addWidget(self.shots_label)
        middle.addLayout(grid)
        middle.addStretch(1)  # (the rows stay at the top)
        self.player_rows = scrolling_rows(middle)
        self.player_rows.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the scan's keys stay its own
        side.addWidget(self.player_rows, 1)
        # the buttons one a row, or two (compact: see resizeEvent); placed by _place_buttons
        self._buttons = QGridLayout()
        self._buttons.setColumnStretch(0, 1)
        self._buttons.setColumnStretch(1, 1)
        side.addLayout(self._buttons)
        panel = self._panel = QWidget()
        panel.setLayout(side)
        self.fit_text_size()
        layout = QHBoxLayout(self)
        layout.addWidget(self.live, 1)
        layout.addWidget(panel)

        self._thread.counted.connect(self._on_counted)
        self._thread.previewed.connect(self._on_previewed)
        self._thread.failed.connect(self._on_failed)
        self._thread.counting_failed.connect(lambda message: self._on_failed(message, True))
        self._thread.finished.connect(self._on_source_finished)
        self.capture_button.clicked.connect(self._on_capture_pressed)
        self.drop_button.clicked.connect(self._on_drop)
        self.next_button.clicked.connect(self._on_next_pressed)
        self.back_button.clicked.connect(self._on_back)
        self.cancel_button.clicked.connect(self._on_cancel)
        for key, slot in (
            (QKeySequence(Qt.Key.Key_Space), self._on_capture_pressed),
            (QKeySequence(Qt.Key.Key_Return), self._on_next_pressed),
            (QKeySequence(Qt.Key.Key_Enter), self._on_next_pressed),
            (QKeySequence(Qt.Key.Key_Backspace), self._on_drop),
            (QKeySequence(Qt.Key.Key_Escape), self._on_cancel),
            (QKeySequence("Alt+Left"), self._on_back),
        ):
            shortcut = QShortcut(key, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.setAutoRepeat(False)  # a held key is one press: one shot, one step
            shortcut.activated.connect(slot)
        # the players' rows scroll by key too: on a short screen only a few show, and the list
        # takes no focus (the scan's keys stay its own)
        bar = self.player_rows.verticalScrollBar()
        for key, action in (
            (Qt.Key.Key_Up, QAbstractSlider.SliderAction.SliderSingleStepSub),
            (Qt.Key.Key_Down, QAbstractSlider.SliderAction.SliderSingleStepAdd),
            (Qt.Key.Key_PageUp, QAbstractSlider.SliderAction.SliderPageStepSub),
            (Qt.Key.Key_PageDown, QAbstractSlider.SliderAction.SliderPageStepAdd),
        ):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda action=action: bar.triggerAction(action))
        self._refresh()

    def set_players(self, players: Sequence[Player]) -> None:
        """The match's players as they are now (renamed, or given other decks, elsewhere while
        the scan was open): its rows show them, and the live count decides among their decks.
        The seats stay; the shots keep what they counted, per deck (a scan whose decks
        changed after a shot is ended instead: `why_a_scan_ends`)."""
        seated = tuple(players)
        if seated == self.session.players:
            return
        if len(seated) != len(self.session.players):
            raise ValueError(f"a scan of {len(self.session.players)} seats got {len(seated)}")
        decks = frozenset(player.deck for player in seated)
        if decks != self._in_play.decks:
            # the view in hand was counted among the old decks: the next one is shot instead
            self._latest, self._waiting, self._last_still = None, None, None
            # one frozenset swapped whole: the counting thread reads the old or the new one
            self._in_play.decks = decks
        self.session = dataclasses.replace(self.session, players=seated)
        self._show_seats()
        self._refresh()

    def _show_seats(self) -> None:
        self.live_counts.clear()
        self.summed_counts.clear()
        for player, (icon, name, live, summed) in zip(
            self.session.players, self._seats, strict=True
        ):
            icon.setPixmap(back_pixmap(player.deck, self._back_width()))
            icon.setToolTip(deck_label(player.deck))
            name.setText(player.name)
            self.live_counts[player.name] = live
            self.summed_counts[player.name] = summed

    def _back_width(self) -> int:
        """Each player's back beside their row: small where a compact scan has many rows (a
        few players' rows fit with large backs, and read better so)."""
        many = len(self.session.players) > FEW_ROWS
        return BACK_COMPACT if self._compact and many else BACK_FULL

    @property
    def clock(self) -> Callable[[], float]:
        """The clock stalls are judged by (tests set their own). The watch's own: a lambda
        reading it off the scan is a reference cycle, and each scan left keeps its frames,
        10-24 MB at 1080p, until a full garbage collection."""
        return self._views.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self._views.clock = clock

    # --- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()
        self._views.begin()
        self._stall_timer.start()
        self.setFocus()

    def stop(self) -> None:
        self._stall_timer.stop()
        self._thread.stop()

    def latest(self) -> CountedFrame | None:
        return self._latest

    # --- handlers ------------------------------------------------------------------------

    def _on_counted(self, item: CountedFrame) -> None:
        if item.snapshot.in_play not in (None, self._in_play.decks):
            # counted among the decks before the players' changed (in flight as they did):
            # neither shown nor shot, or a player's new deck was shot as 0; the next count is
            # among the new ones
            return
        self._latest = item
        self._views.saw_view()
        if item.snapshot.scene != self._again:  # another view: a second press is a first again
            self._again = None
        own = item.snapshot.as_its_view()
        if own is not None:
            self._last_still = dataclasses.replace(item, snapshot=own)
        self.had_view = True
        takes, moved_on = self._fit.counted(item)
        # (counted after newer frames were shown: its outlines left off a table moved on)
        if takes:
            self.live.show_frame(item.frame, item.snapshot, item.source_index, moved_on=moved_on)
            # a count kept out (a hand's frame, counted after the hand had gone) says nothing
            # of the table in view: its numbers stay those of the outlines shown
            self._show_counts(item.snapshot)
        if self._again is not None and self._waiting is None:
            # (the next frame took it away: at a count a second or more, a press that did
            # nothing, and the question why never read)
            self.live.show_message(self._asked)
        if self._waiting is not None:
            if item.snapshot.settled:
                self._shoot_waiting()
            else:
                self.live.show_message(HOLD_STILL)

    def _show_counts(self, snapshot: CountSnapshot) -> None:
        """Each player's cards in view, and what the table warns of, as `snapshot` counts; the
        counts greyed while the view is changing, when they are still the last settled view's
        (a new table's counts settle 2-8 s after it is laid, and until then its picture stood
        beside the old table's numbers as sure as any). The warnings keep their colour: what
        to fix on the table is no less urgent while the cards are moved."""
        self._settling = not snapshot.settled
        for name, n in player_counts(self.session.players, snapshot.counts).items():
            self.live_counts[name].setText(str(n))
            set_styled(self.live_counts[name], settling=self._settling)
        # (else the demo's tables are counted for the players unsaid: no camera was found, or
        # none chosen)
        demo = demo_warning(self._source)
        self._table_warned = "\n".join(
            line
            for line in (
                demo,
                over_a_pile(self.session.players, snapshot.counts, self.session.step),
                table_warnings(snapshot),
            )
            if line
        )
        self._show_warned()
        self._say_in_words()  # (the counts and the warnings, once they are both shown)

    def _show_warned(self) -> None:
        """What the table warns of, and why the video ended early, shown and told as new."""
        said = "\n".join(line for line in (self._table_warned, self._end_note) if line)
        if said != self._warned:
            self._warned = said
            self._show_warnings()
            self._lay_out()  # (two warnings more may hide a player's row)
            # (else a face-up card to flip is there for the eye only); told as its kind changes,
            # not each count in it: else "(Ann 14)", "(Ann 15)" is news at every frame
            kinds = re.sub(r"\d+", "#", said)
            if kinds != self._warned_kinds:
                self._warned_kinds = kinds
                seen_at = self._kinds_seen_at.get(kinds)
                if seen_at is None or self.clock() - seen_at >= WARNING_TOLD_AGAIN_S:
                    announce(self, said)
        if said:  # (shown now: told again only once gone WARNING_TOLD_AGAIN_S from here)
            self._kinds_seen_at[self._warned_kinds] = self.clock()

    def _show_warnings(self) -> None:
        """The table's warnings in full, or compact each in brief, the whole in its tooltip:
        at 150 % text in a short window they would take the panel, and only one player's count
        show under them."""
        said = self._warned
        self.warnings.setText(in_brief(said) if self._compact else said)
        self.warnings.setToolTip(as_plain(said) if self._compact else "")
        self.warnings.setAccessibleDescription(unmarked(said))  # (marks: nothing to a reader)
        self.warnings.setVisible(bool(said))  # (empty, it left a gap over the rows)

    def _on_previewed(self, frame: np.ndarray, index: int, thumb: np.ndarray | None = None) -> None:
        self.live.show_preview(frame, index, moved_on=self._fit.saw(frame, index, thumb))

    def _on_capture_pressed(self) -> None:
        # the answer to this press is told though it was said before (else the shoot-again question
        # asked a second time goes unsaid, and a pile is shot twice); a frame's own news, as a
        # waiting shot's "hold still", is told once
        self.live.expect_news()
        self._on_capture()

    def _on_next_pressed(self) -> None:
        self.live.expect_news()
        self._on_next()

    def _on_capture(self) -> None:
        self._capture()

    def _capture(self) -> bool:
        """Shoot the view (or wait for it to settle, or say why not); True when it asked for a
        second press instead (a view shot already): nothing may go on past that question."""
        latest = self._latest
        stale = self._is_stale()
        decision = decide_shot(
            ShotAsked(
                session=self.session,
                latest=latest,
                last_still=self._last_still,
                failure=self._failure,
                previewed=self._fit.newest is not None,
                ended=self._ended,
                no_frames=self._no_frames() if latest is None and self._ended else "",
                stale=stale,
                tries=self._views.tries() if stale else 0,
                moved_on=latest is not None
                and not stale
                and (self._fit.off or self._fit.moved_on(latest)),
                asked_about=self._again,
            )
        )
        if decision.action == "wait":
            self._waiting = self._waiting or "shot"
        elif decision.action == "ask":
            self._again = decision.scene
            self._asked = decision.message
        elif decision.action == "shoot":
            assert decision.shot is not None
            self._again = None
            shot = decision.shot
            self.session = self.session.with_shot(Shot(shot.frame, shot.snapshot, shot.index))
            self._refresh()
        if decision.message:
            self.live.show_message(decision.message)
        return decision.action == "ask"

    def _is_live(self) -> bool:
        """A camera or live stream, not a file. Asked when it matters: an address opened by
        the worker turns out to be a live stream or a clip served over HTTP only once open."""
        return bool(getattr(self._source, "live", False))

    def _is_stale(self) -> bool:
        if not self._is_live() or self._ended or self._latest is None:
            return False
        return self._views.stalled()

    def _watch_stream(self) -> None:
        """Say on the live view that a live source has stalled, and its tries to come back;
        a shot waiting for a new view says so in its own words (`waiting_for_view`)."""
        if not self._is_stale():  # (a failure let go of the last view: nothing is stale)
            self._watch_first_picture()
            return
        # (over any other news of the last view: a question of it, "hold still", are moot
        # until a new one comes, and that frame clears this)
        if self._waiting is not None:  # (until a count: the shot waits for one)
            said, until_picture = waiting_for_view(self._views.tries()), False
        else:  # (until the camera's next picture, shown between counts or counted)
            said, until_picture = self._views.said(), True
        if self.live.message() != said:
            self.live.show_message(said, until_picture=until_picture)

    def _watch_first_picture(self) -> None:
        """Say on an empty live view what may hold its camera or stream, once it is late."""
        if self._failure is None and not self._ended:
            said_late(self.live, self._source, self._views)

    def _shoot_waiting(self) -> None:
        action, self._waiting = self._waiting, None
        # Enter pressed while the view moved goes on once it is shot, not past a question
        # (its own next step would have taken the view asked about as the second press)
        if not self._capture() and action == "next":
            self._on_next()

    def _on_drop(self) -> None:
        if self._waiting is not None:  # a shot waiting: Backspace calls that one off, not the
            self._waiting = None  # last one taken too (one press would drop both, unsaid)
            shot = bool(self.session.shots())
            self.live.show_message(SHOT_CALLED_OFF + (SHOT_CALLED_OFF_MORE if shot else ""))
            return
        self._again = None
        self.session = self.session.without_last_shot()
        self._refresh()

    def _on_next(self) -> None:
        if self._waiting is not None:  # Enter while a shot waits: go on once it is taken
            self._waiting = "next"
            return
        if not self.session.shots() and (
            # (before the first count too: it waits for it as Space does; else Enter does
            # nothing and says nothing)
            self._latest is None or not self.session.holds_view(self._latest.index)
        ):
            self._on_capture()  # Enter with no shot yet: the current view is the shot
            if self._waiting is not None:
                self._waiting = "next"
                return
        if not self.session.shots():
            if self._failure is not None or self._ended:
                # no new view will come (the camera is gone, the video over): what was shot
                # goes to review, the counts not shot typed in there (from either step)
                self.reviewRequested.emit(self.session)
            elif self._latest is not None and self.session.holds_view(self._latest.index):
                self.live.show_message(FRAME_SHOT_ALREADY)
            return
        if self.session.step == "dutch":
            self.session = self.session.next_step()
            self._again = None
            self._refresh()
            if self._failure is None and not self._ended:
                return
            # no Blitz view will come: to review at once (it took a second Enter, though the
            # status line said Enter reviews)
        self.reviewRequested.emit(self.session)

    def _on_back(self) -> None:
        self._waiting = self._again = None
        self.session = self.session.previous_step()
        self._refresh()

    def _on_cancel(self) -> None:
        self.cancelled.emit()

    def _on_failed(self, message: str, counting: bool = False) -> None:
        """The camera failed (or the counter, `counting`: a broken model was said as no view
        from the camera, over the camera's picture); no frame will be counted any more."""
        self.counting_failed = counting
        if counting:
            self._failure = f"{COUNTING_STOPPED}{message}"
        elif self.had_view:
            self._failure = f"The camera or the counter stopped: {message}"
        else:
            self._failure = f"No view from the camera: {message}"
        self._latest = None  # no shot of a frame that is no longer live
        self._waiting = None
        self.live.show_message(self._failure)
        self.failed.emit(message)

    def _on_source_finished(self, note: str = "") -> None:
        """`note`: why a video ended before the end its file states, "" where it did not."""
        if self._is_live():  # a camera or stream that stops giving frames has stopped
            self._on_failed("it gave no more frames" if self._latest else "it gave no frames")
            return
        if note:  # (it ended as if that were all: its last view shot, unsaid)
            self._end_note = note
            self._show_warned()
            self._say_in_words()
        if self._latest is None:
            self._ended = True  # nothing to shoot, ever: Enter goes to review, typed in
            self.live.show_message(self._no_frames())
        else:  # a video file that ends: its last view stays, to be shot once
            self._ended = True
            if self._waiting is not None:  # no steadier view will come: shoot the last one
                self._shoot_waiting()

    def _no_frames(self) -> str:
        """What a video that ended before any frame was counted says."""
        no_frames = f"{self._end_note}." if self._end_note else "The video has no frames:"
        return f"{no_frames} Enter to type the counts in"

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._lay_out(resized=True)

    def _full_height(self) -> int:
        """The height the panel takes laid out in full (not compact), every player's row and
        the warnings said now in view, as far as its layouts tell."""
        rows, side, width = self.player_rows, self._panel.layout(), self._panel.width()
        content = rows.widget()
        inside = 0 if content is None else content.sizeHint().height()
        if content is not None and content.hasHeightForWidth():  # (warnings wrap at its width)
            inside = content.heightForWidth(rows.viewport().width())
        total = side.sizeHint().height()
        if side.hasHeightForWidth():
            total = side.totalHeightForWidth(width)
        margins = self.layout().contentsMargins()
        return total - rows.sizeHint().height() + inside + margins.top() + margins.bottom()

    def fit_text_size(self) -> None:
        """The side panel and its columns as wide as the text is large, now: at the start,
        and when the size is changed during the scan (at 150 % the buttons' names were cut at
        380 px; raised with Ctrl+= from 100 %, they were cut in the panel the scan began with)."""
        self._panel.setFixedWidth(round(PANEL_WIDTH * text_scale()))
        # (at 150 % the count columns' headings, each as wide as its column, read "In viewShots")
        self._seats_grid.setHorizontalSpacing(round(COLUMN_GAP * text_scale()))
        if self.isVisible():  # (shown: compact or not, judged again at the new size)
            self._lay_out(resized=True)

    def _lay_out(self, *, resized: bool = False) -> None:
        """Compact where the scan is short, or where laid out in full it would hide a player's
        row (at 1366 x 768 a fourth player's count was below the fold under two warnings). A
        full layout's height is measured while it is shown, and kept while compact (compact
        until resized taller than it): laid out again at each warning, it went back and forth."""
        if not self._compact:
            self._full_needed = self._full_height()
        elif not resized:
            return
        short = self.height() < COMPACT_BELOW * text_scale()
        compact = short or self.height() < self._full_needed
        if compact != self._compact:
            self._compact = compact
            self.hint.setVisible(not compact)
            # the step's shots said over their column: a line the rows need at 150 % in a
            # 1024 x 640 window (its last row was cut by 9 px under the warnings)
            self.shots_label.setVisible(not compact)
            self._show_warnings()
            for label in (self.step_title, self.warnings, *(seat[2] for seat in self._seats)):
                set_styled(label, compact=compact)
            self._show_seats()  # (their backs smaller: five of eight rows were in view)
            self._refresh()

    def _place_buttons(self) -> None:
        """The buttons one a row, Back beside Cancel in the Blitz step; compact, two a row
        with shorter names (their keys the same)."""
        blitz = self.session.step == "blitz"
        compact = self._compact
        texts = {
            self.capture_button: ("Capture  (Space)", "Capture shot  (Space)"),
            self.drop_button: ("Drop  (Backspace)", "Drop last shot  (Backspace)"),
            self.next_button: (
                "Review  (Enter)" if blitz else "Next  (Enter)",
                "Review counts  (Enter)" if blitz else "Next: Blitz cards  (Enter)",
            ),
        }
        for button, (short, full) in texts.items():
            button.setText(short if compact else full)
            button.setToolTip(full if compact else "")
        buttons = (
            self.capture_button,
            self.drop_button,
            self.next_button,
            self.back_button,
            self.cancel_button,
        )
        for button in buttons:
            self._buttons.removeWidget(button)
        # (every button in a cell, Back hidden in the Dutch step: one in none had no parent, a
        # window of its own freed when Python collected it, maybe while Qt walked its widgets)
        if compact:
            cells = [(self.capture_button, 0, 0, 1), (self.drop_button, 0, 1, 1),
                     (self.next_button, 1, 0, 1), (self.cancel_button, 1, 1, 1),
                     (self.back_button, 2, 0, 2)]  # fmt: skip
        else:
            cells = [(self.capture_button, 0, 0, 2), (self.drop_button, 1, 0, 2),
                     (self.next_button, 2, 0, 2)]  # fmt: skip
            cells += (
                [(self.back_button, 3, 0, 1), (self.cancel_button, 3, 1, 1)]
                if blitz
                else [(self.cancel_button, 3, 0, 2), (self.back_button, 4, 0, 2)]
            )
        for button, row, column, span in cells:
            self._buttons.addWidget(button, row, column, 1, span)
        self.back_button.setVisible(blitz)

    def _say_in_words(self) -> None:
        """The scan as a screen reader reads it (the page takes the focus, and its buttons and
        rows take none, so that its keys stay its own: it said nothing): the step, its shots,
        each player's cards in view and shot."""
        rows = "; ".join(
            f"{player.name}: {self.live_counts[player.name].text()} in view, "
            f"{self.summed_counts[player.name].text()} shot"
            for player in self.session.players
        )
        warned = f" {unmarked(self._warned)}" if self._warned else ""
        changing = (
            " The view is changing: its counts are the last view's." if self._settling else ""
        )
        said = f"{self.step_title.text()}. {self.shots_label.text()}. {rows}.{changing}{warned}"
        if self.accessibleDescription() != said:  # (each frame: set when it changes)
            self.setAccessibleDescription(said)

    def _refresh(self) -> None:
        step = self.session.step
        title = STEP_TITLES[step]
        self.step_title.setText(title.replace("\n", " ") if self._compact else title)
        self.hint.setText(STEP_HINTS[step])
        self.step_title.setToolTip(STEP_HINTS[step] if self._compact else "")  # (hint hidden)
        shots = len(self.session.shots())
        self.shots_label.setText(
            f"{shots} shot{'s' if shots != 1 else ''} in this step"
            + (" (summed)" if shots > 1 else "")
        )
        self._shots_header.setText(f"<b>Shots ({shots})</b>" if self._compact else "<b>Shots</b>")
        self._shots_header.setToolTip(self.shots_label.text() if self._compact else "")
        for name, n in self.session.totals().items():
            self.summed_counts[name].setText(str(n))
        self._place_buttons()
        self.drop_button.setEnabled(shots > 0)
        self._say_in_words()
        # a shot taken or dropped, a step on or back: told as it happens (Space, Enter,
        # Backspace and Alt+Left said nothing to a screen reader)
        progress = f"{STEP_TITLES[step].replace(chr(10), ' ')}. {self.shots_label.text()}"
        if progress != self._progress_said:
            self._progress_said = progress
            announce(self, progress)
