"""Deck enrollment: show each deck's back to the camera and see it recognised. Each deck's back
is shown as blitzcam reads it: your enrolled print, or its own drawing; a deck turns "seen" when
the live counter finds it in view. With an enroller (vision/), "Enroll from view" teaches blitzcam
your own deck's back from the camera and "Use built-in" forgets it again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.decks import DECK_NAMES
from blitzcam.ui.background import BackgroundJob, Outcome
from blitzcam.ui.counting_worker import (
    COUNTING_STOPPED,
    DEFAULT_INTERVAL_MS,
    ENROLL_THREAD,
    CountedFrame,
    Counter,
    CountingThread,
    Enroller,
    FrameSource,
)
from blitzcam.ui.deck_colours import back_pixmap, deck_label
from blitzcam.ui.dialog_parts import NewsLabel
from blitzcam.ui.labels import as_plain
from blitzcam.ui.live_view import LiveView
from blitzcam.ui.outline_fit import OutlineFit
from blitzcam.ui.scrolling import fit_to_screen, scrolling_widget
from blitzcam.ui.stall_watch import STALL_CHECK_MS, StallWatch, said_late
from blitzcam.vision.decoder_log import LIBPNG_LINES, decoder_lines

LIVE_MIN_WIDTH: Final = 240  # the camera's view beside the decks, at the least
LIVE_AIM_WIDTH: Final = 400  # ... and the least four decks a row leave it
FRAME_WIDTH: Final = 16  # a window's frame across, in pixels
MESSAGE_LINES: Final = 5  # the most lines of its message the dialog shows at once (it scrolls)
CAMERA_STOPPED: Final = "The camera stopped giving pictures: nothing to enroll from"
DEMO_INTRO: Final = (
    # (not why it is the demo: `--camera demo` chose it as well as no camera found)
    "This is blitzcam's demo footage: whole tables, no card held up. "
    "Choose a camera in Camera › Settings… (Ctrl+,), or enroll a photo of one back at a "
    "terminal: blitzcam decks enroll DECK --image FILE."
)
NOTE: Final = "Note:"  # how an enrollment's result begins each note (ui/pipeline_adapters.py)


def decks_per_row(screen_width: int, four_wide: int) -> int:
    """Four decks a row where `four_wide` px of them leave the camera's view LIVE_AIM_WIDTH on
    a screen `screen_width` wide, else two."""
    room = screen_width - FRAME_WIDTH - LIVE_AIM_WIDTH
    return 4 if four_wide + 60 <= room else 2


def _message_box(message: QLabel) -> QScrollArea:
    """`message` in a box as wide as the decks above it and MESSAGE_LINES high at most,
    scrolling past them: else a result with its notes takes 300 of 560 px at 150 %, the decks
    squeezed to a row with no buttons in view, and a long refusal widens the side column,
    shrinking the live view from 396 to 240 px."""
    box = QScrollArea()
    box.setAccessibleName("Message")  # (a stop of the Tab order, named nothing)
    box.setWidget(message)
    box.setWidgetResizable(True)
    box.setFrameShape(QFrame.Shape.NoFrame)
    box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    box.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
    box.setMaximumHeight(MESSAGE_LINES * message.fontMetrics().lineSpacing() + 4)
    return box


class EnrollDialog(QDialog):
    def __init__(
        self,
        source: FrameSource,
        counter: Counter,
        *,
        enroller: Enroller | None = None,
        interval_ms: int = DEFAULT_INTERVAL_MS,
        turn: threading.Lock | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """`turn`: the counter's, shared with the window's other camera views (CountingThread);
        enrolling takes it too, so that no frame is counted while the profile is read again."""
        super().__init__(parent)
        self.setWindowTitle("Enroll decks")
        self._enroller = enroller
        # why nothing is enrolled or forgotten here (a --decks folder is read as it is), or ""
        self._read_only = str(getattr(enroller, "read_only", "") or "")
        self._latest: CountedFrame | None = None
        # the newest picture in view and its number in the camera (None: a file's), counted
        # or shown between counts: what is enrolled, the card as the player holds it now (the
        # latest count may be of a frame before it was held up)
        self._in_view: tuple[np.ndarray, int | None] | None = None
        self._fit = OutlineFit()  # whether the outlines fit the picture in view
        self._source = source
        # a stalled stream's last picture is no card held up now: not enrolled from, and said
        self._views = StallWatch(source)
        self._stall_timer = QTimer(self)
        self._stall_timer.setInterval(STALL_CHECK_MS)
        self._stall_timer.timeout.connect(self._watch_stream)
        self._turn = turn or threading.Lock()
        self.live = LiveView()
        self._thread = CountingThread(
            source,
            counter,
            interval_ms=interval_ms,
            turn=self._turn,
            preview_while=self.live.is_seen,
            count_while=self.live.is_watched,
            parent=self,
        )
        # enrolling takes a second or two (the card found and stored, the profile embedded
        # again): off the window's thread, so the view stays live meanwhile
        self._job = BackgroundJob(self)
        self._job.done.connect(self._on_job_done)
        self._working_on = ""  # what the job does, as the message says it ("" when idle)
        self._close_with: int | None = None  # Done or Esc while it worked: closed after
        self.seen: dict[str, QLabel] = {}
        self.images: dict[str, QLabel] = {}
        self.forget_buttons: dict[str, QPushButton] = {}
        self.enroll_buttons: dict[str, QPushButton] = {}
        self._enrolled: dict[str, Path] = {}
        self._damaged: set[str] = set()  # enrolled prints Qt cannot read (built-in shown)
        self._lost = ""  # why the camera gives no more views, once it does not
        self._refocus: QWidget | None = None  # the deck button to give the focus back to
        self._failed = ""  # heads the message when the job raised
        self._recognised: dict[str, int] = {}
        note = getattr(counter, "note", "")  # a NullCounter says why nothing is counted
        self.message = NewsLabel(  # it quotes what the enroller says: paths, deck names
            # (held close, a back is not seen by the counting, which reads backs at a table's
            # distance: "not seen" and "flip this card" over the very card being enrolled)
            f"Nothing is enrolled here: {self._read_only}. Recognition (under each deck) is of "
            "backs at the table's distance: lay a card among the others to see it counted."
            if self._read_only
            else "Hold one back of a deck flat under the camera, filling a good part of the view, "
            "and press Enroll from view under its deck. Recognition (under each deck) is of "
            "backs at the table's distance: lay the card among the others to see it counted."
            if enroller
            else f"Enrolling needs the card counter, and there is none: {note}"
            if note
            else "Enrolling needs the card counter, and there is none; recognition is shown."
        )
        self._intro = self.message.text()
        self._stall_refusal = ""  # what a press on a stalled view said (gone with the stall)
        grid = QGridLayout()
        cells = []
        for deck in DECK_NAMES:
            cell = QVBoxLayout()
            image = QLabel()
            image.setAlignment(Qt.AlignmentFlag.AlignCenter)
            image.setAccessibleName(f"{deck_label(deck)}: the back it is read by")
            status = QLabel()
            status.setAlignment(Qt.AlignmentFlag.AlignCenter)
            button = QPushButton("Enroll from view")
            button.setAccessibleName(f"Enroll {deck_label(deck)} from view")  # (eight alike)
            # (auto-default, as a dialog's buttons are: Enter on a deck's button enrolls that
            # deck, and is Done's elsewhere. Done has the focus at first: a deck's button
            # that had it once taught the view to green pump. Reached by Tab only: clicked, it
            # kept the focus, and the Enter that meant Done asked to enroll it again)
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            button.setEnabled(enroller is not None and not self._read_only)
            if self._read_only:  # (every button refused when pressed, the refusal said twice)
                button.setToolTip(as_plain(f"Not enrolled: {self._read_only}"))
            button.clicked.connect(lambda _=False, d=deck: self._on_enroll(d))
            forget = QPushButton("Use built-in")
            forget.setAccessibleName(f"{deck_label(deck)}: use the built-in drawing")
            forget.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            forget.setToolTip("Forget the enrolled back: read this deck against blitzcam's drawing")
            forget.clicked.connect(lambda _=False, d=deck: self._on_forget(d))
            if self._read_only:
                forget.setToolTip(as_plain(f"Not changed: {self._read_only}"))
            self.seen[deck], self.images[deck], self.forget_buttons[deck] = status, image, forget
            self.enroll_buttons[deck] = button
            cell.addWidget(image)
            cell.addWidget(status)
            cell.addWidget(button)
            cell.addWidget(forget)
            cells.append(cell)
        for i, cell in enumerate(cells):
            grid.addLayout(cell, i // 4, i % 4)
        self._show_enrolled()
        side = QVBoxLayout()
        # the eight decks scroll down, and the view gives up some width: the dialog was
        # 1038 x 668 at least, past a small screen's 1024 x 600
        # (asking for the decks' whole height, up to the screen: a plain scroll area's stops
        # short, and at 1920 x 1080 the dialog opened 118 px short of its decks)
        rows = QWidget()
        rows.setLayout(grid)
        decks = scrolling_widget(rows)
        # four decks a row, two where four do not fit the screen beside the view at a width a
        # card is aimed in (at 150 % text the dialog is 1282 px wide at least; four beside
        # the least view leave it 240 px wide on a 1024-px screen)
        four_wide = decks.widget().minimumSizeHint().width()
        if decks_per_row(self.screen().availableGeometry().width(), four_wide) == 2:
            for i, cell in enumerate(cells):
                grid.removeItem(cell)
                grid.addLayout(cell, i // 2, i % 2)
        decks.setMinimumWidth(
            decks.widget().minimumSizeHint().width()
            + decks.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        )
        self.live.setMinimumWidth(LIVE_MIN_WIDTH)
        side.addWidget(decks, 1)
        side.addWidget(_message_box(self.message))
        close = QPushButton("Done")
        close.clicked.connect(self.accept)
        side.addWidget(close)
        self.done_button = close
        layout = QHBoxLayout(self)
        layout.addWidget(self.live, 1)
        layout.addLayout(side)
        # Space too is the focused button's: never a deck's at first (given before Done was
        # the dialog's, the focus went to the first deck's button, and Space enrolled it)
        close.setFocus()
        close.setDefault(True)  # once the dialog's (see ConfirmDialog: set before, it was lost)
        self._thread.counted.connect(self._on_counted)
        self._thread.previewed.connect(self._on_previewed)
        self._thread.failed.connect(self._on_camera_lost)
        self._thread.counting_failed.connect(lambda why: self._on_camera_lost(why, True))
        self._thread.finished.connect(self._on_source_ended)
        self.finished.connect(self._on_finished)
        # as large as the view and the decks ask, up to the screen (it opened at 788 x 400 on
        # a 1024 x 600 screen at 150 %: two backs shown, their buttons below the fold)
        fit_to_screen(self)

    def start(self) -> None:
        self._thread.start()
        self._views.begin()
        self._stall_timer.start()

    def stop(self) -> None:
        """Stop the camera thread and release the camera (safe to call twice)."""
        self._stall_timer.stop()
        self._thread.stop()

    def _stalled(self) -> bool:
        """Whether the latest view is a live stream's, too old to be what the camera sees."""
        live = bool(getattr(self._source, "live", False))
        if not live or self._lost or self._latest is None:
            return False
        return self._views.stalled()

    def _watch_stream(self) -> None:
        if not self._lost:
            said_late(self.live, self._source, self._views)
        if self._stalled():
            said = self._views.said()
            if self.live.message() != said:  # (the camera's next picture answers it)
                self.live.show_message(said, until_picture=True)

    def _on_counted(self, item: CountedFrame) -> None:
        if not self._latest and getattr(self._source, "demo", False) and not self._read_only:
            # no camera: else the demo's whole tables stand under "hold one back under the camera",
            # and Enroll says "more than one card"
            because = str(getattr(self._source, "demo_because", "") or "")
            said = f"{because[:1].upper()}{because[1:]} " if because else ""
            shown, self._intro = self._intro, said + DEMO_INTRO
            if self.message.text() == shown:
                self.message.setText(self._intro)
        self._latest = item
        self._views.saw_view()
        if self._stall_refusal and self.message.text() == self._stall_refusal:
            self.message.setText(self._intro)  # (the picture is live again: press again)
        self._stall_refusal = ""
        takes, moved_on = self._fit.counted(item)
        if takes:  # (as the scan's: no outlines over a picture moved on from their frame)
            self.live.show_frame(item.frame, item.snapshot, item.source_index, moved_on=moved_on)
            # (a count kept out is of a frame the picture has moved on from: not what it shows)
            self._recognised = {deck: item.snapshot.counts.get(deck, 0) for deck in self.seen}
        self._keep_in_view(item.frame, item.source_index)
        self._show_status()

    def _on_previewed(self, frame: np.ndarray, index: int, thumb: np.ndarray | None = None) -> None:
        self.live.show_preview(frame, index, moved_on=self._fit.saw(frame, index, thumb))
        self._keep_in_view(frame, index)

    def _keep_in_view(self, frame: np.ndarray, index: int | None) -> None:
        newest = self._in_view
        if newest is None or index is None or newest[1] is None or index > newest[1]:
            self._in_view = (frame, index)

    def _on_source_ended(self, note: str) -> None:
        """A camera or stream that stops giving pictures is lost; a video file's end keeps its
        last view to enroll from, as a scan shoots it (not every button off, "the camera
        stopped", the card still in view). `note`: why a video ended before the
        end its file states (a copy cut short)."""
        if bool(getattr(self._source, "live", False)) or self._in_view is None:
            self._on_camera_lost(note or CAMERA_STOPPED)
            return
        ended = f"{note}." if note else "The video has ended."
        self.message.setText(f"{ended} Its last view stays: Enroll from view takes it.")
        self.live.show_message(f"{ended} Its last view stays to enroll from.", until_picture=True)

    def _on_camera_lost(self, why: str, counting: bool = False) -> None:
        """No new view will come: the last one is let go (enrolling from it taught the next deck
        held up an old picture), the decks are no longer shown as recognised, and the view and
        the deck buttons say why (the last frame stayed in view, outlined, and a click on
        Enroll said "no picture from the camera" over the reason). `counting`: the counter
        broke, not the camera (said as no view from it, over its picture)."""
        if self._lost:  # (the thread's end after its failure: the failure is the reason)
            return
        self._lost = why
        self._latest = self._in_view = None
        self._recognised = {}
        self.message.setText(why)
        said = f"{COUNTING_STOPPED}{why}" if counting else f"No view from the camera: {why}"
        self.live.show_message(said)
        for button in self.enroll_buttons.values():
            button.setEnabled(False)
            button.setToolTip(as_plain(said))
        self._show_status()

    def _show_status(self) -> None:
        for deck, label in self.seen.items():
            n = self._recognised.get(deck, 0)
            kind = (
                "your print: damaged,\nbuilt-in used"
                if deck in self._damaged
                else "your print"
                if deck in self._enrolled
                # (a --decks folder's missing deck is read by nothing: it said "built-in")
                else "no file in --decks:\nnot counted"
                if self._read_only
                else "built-in drawing"
            )
            label.setText(
                f"{deck_label(deck)}\n{kind}\n" + (f"✔ recognised ({n})" if n else "not seen")
            )

    def _show_enrolled(self, *, enable: bool = True) -> None:
        """Each deck's picture and buttons as the profile stands: its enrolled print or the
        built-in drawing (`enable`: the forget buttons too, else left as they are)."""
        self._enrolled = dict(self._enroller.enrolled()) if self._enroller else {}
        self._damaged = set()
        for deck, image in self.images.items():
            pixmap = QPixmap()
            if deck in self._enrolled:
                # (a damaged print's "libpng error: Read Error" reached the terminal, naming
                # no file: the dialog says it is damaged)
                with decoder_lines([], LIBPNG_LINES):
                    pixmap = QPixmap(str(self._enrolled[deck]))
            ratio = image.devicePixelRatioF()  # drawn at the screen's resolution: sharp on 2x
            if pixmap.isNull():  # built-in, or a print Qt cannot read (the profile said so)
                if deck in self._enrolled:
                    self._damaged.add(deck)
                pixmap = back_pixmap(deck, 90, ratio=ratio)
            else:
                pixmap = pixmap.scaledToWidth(
                    round(90 * ratio), Qt.TransformationMode.SmoothTransformation
                )
                pixmap.setDevicePixelRatio(ratio)
            image.setPixmap(pixmap)
            if enable:
                self.forget_buttons[deck].setEnabled(deck in self._enrolled and not self._read_only)
        self._show_status()

    def _on_enroll(self, deck: str) -> None:
        if self._enroller is None or self._job.busy:
            return
        if self._in_view is None:
            why = self._lost or "no picture from the camera yet"
            self.message.setText(f"{deck_label(deck)}: not enrolled: {why}")
            return
        if self._stalled():  # the card held up now is not in that picture
            said = self._views.said()
            self._stall_refusal = f"{deck_label(deck)}: not enrolled. {said}"
            self.message.setText(self._stall_refusal)
            self.live.show_message(said, until_picture=True)  # (the camera back answers it)
            return
        # (asked first, a Yes was then told the view holds two cards: the view is looked at
        # before the question)
        checked = getattr(self._enroller, "card_problem", None)
        if deck in self._enrolled and checked is not None:
            problem = checked(self._in_view[0])
            if problem is not None:
                self.message.setText(f"{deck_label(deck)}: not enrolled: {problem}")
                return
        # (a print enrolled before was replaced unasked, where Use built-in asks)
        if deck in self._enrolled and not self.ask(
            f"Replace your enrolled print of {deck_label(deck)} with the back in view? The "
            "stored picture is replaced by the new one.",
            title="Replace the enrolled print",
        ):
            return
        enroll, frame = self._enroller.enroll, self._in_view[0]
        self._start_job(
            f"Enrolling {deck_label(deck)}…",
            f"{deck_label(deck)}: not enrolled",
            lambda: enroll(deck, frame),
        )

    def _on_forget(self, deck: str) -> None:
        if self._enroller is None or self._job.busy:
            return
        # (asked: one click removes the stored print for good)
        if not self.ask(
            f"Forget your enrolled print of {deck_label(deck)}? Its backs are read against "
            "blitzcam's own drawing again, and the stored picture is removed (enroll it again "
            "to have it back)."
        ):
            return
        forget = self._enroller.forget
        # (a file that cannot be removed is said, and the dialog stays)
        self._start_job(
            f"Forgetting {deck_label(deck)}'s print…",
            f"{deck_label(deck)}: not forgotten",
            lambda: forget(deck),
        )

    def ask(self, question: str, *, title: str = "Use the built-in drawing") -> bool:
        """Yes to a question, No the default: Enter or Esc keeps the print."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            title,
            as_plain(question),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        try:
            return box.exec() == QMessageBox.StandardButton.Yes
        finally:
            box.deleteLater()

    def _start_job(self, doing: str, failed: str, work: Callable[[], object]) -> None:
        """Run `work` (an enroller's call) in its turn off this thread; meanwhile the deck
        buttons are off, so a second click enrolls nothing twice, and the message and the
        cursor say it works. `failed` heads what an exception says."""
        buttons = [*self.enroll_buttons.values(), *self.forget_buttons.values()]
        focused = QApplication.focusWidget()
        # (a disabled button hands the focus on, to Done at last: the next Space closed the
        # dialog; it goes back to the button once they are on again)
        self._refocus = focused if focused in buttons else None
        if self._refocus is not None:
            self.setFocus()
        for button in buttons:
            button.setEnabled(False)
        self._working_on, self._failed = doing, failed
        self.message.setText(doing)
        self.setCursor(Qt.CursorShape.BusyCursor)
        turn = self._turn

        def in_turn() -> object:
            with turn:
                return work()

        self._job.start(in_turn, name=ENROLL_THREAD)

    def _on_job_done(self, outcome: Outcome) -> None:
        self._working_on = ""
        self.unsetCursor()
        close_with, self._close_with = self._close_with, None
        if outcome.error is not None:  # the enroller explains what was wrong with the view
            failed = f"{self._failed}: {outcome.error}"
            # Done pressed meanwhile: the dialog stays, so the failure is read (it closed,
            # and the deck was thought enrolled)
            self.message.setText(
                failed + (" (not closed: Done again closes)" if close_with is not None else "")
            )
        else:
            said = str(outcome.value)
            # a note on what was stored (another deck's back, glare, a look-alike) keeps the
            # dialog open for Done pressed meanwhile: it closed, and the note was read nowhere
            noted = close_with is not None and NOTE in said
            self.message.setText(said + (" (not closed: Done again closes)" if noted else ""))
            if noted:
                close_with = None
        self._show_enrolled(enable=False)
        self._enable_buttons()
        if close_with is not None and outcome.error is None:
            super().done(close_with)

    def done(self, result: int) -> None:
        """Done, Esc or the window's close while an enrollment works: closed once it has
        ended (its file written, the profile read again), what it did said meanwhile."""
        if self._job.busy:
            self._close_with = result
            self.message.setText(f"{self._working_on} (closing when done)")
            return
        super().done(result)

    def _enable_buttons(self) -> None:
        for button in self.enroll_buttons.values():
            button.setEnabled(self._enroller is not None and not self._lost and not self._read_only)
        for deck, button in self.forget_buttons.items():  # (as `_show_enrolled` read it)
            button.setEnabled(deck in self._enrolled and not self._read_only)
        if self._refocus is not None and self._refocus.isEnabled():
            self._refocus.setFocus()
        self._refocus = None

    def _on_finished(self, _result: int) -> None:
        self.stop()
