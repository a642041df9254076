"""Confirming a round: the frozen captures, each player's Dutch and Blitz count in spin boxes
(keyboard-correctable), who called Blitz, and the round score as the core computes it.

The dialog returns values: `countsConfirmed` carries the Round; the caller commits it through the
core and either closes the dialog or shows the rule that refused it (`show_error`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.plausibility import post_piles_note, short_of_post_piles
from blitzcam.game.rules import Player, Round, Tally, Variant, round_score, tally_problem
from blitzcam.game.text import isolated, left_to_right, listed, unmarked
from blitzcam.ui.announce import announce
from blitzcam.ui.capture_view import CaptureThumbnail
from blitzcam.ui.deck_colours import back_pixmap, deck_label
from blitzcam.ui.dialog_parts import error_label
from blitzcam.ui.labels import ElidedLabel, as_plain, plain_label, set_styled
from blitzcam.ui.number_box import NumberBox, refuse_empty
from blitzcam.ui.scrolling import SCREEN_ALLOWANCE, fit_to_screen, scrolling_widget
from blitzcam.ui.text_size import text_scale

# wider than the rules allow: the core, not the widget, explains a bad count. Shots of one step
# are summed: a pile shot three times summed past 99, shown and confirmed as 99, the sum lost
SPIN_MAX: Final = 999
NOBODY: Final = "— nobody / play-out —"
NAME_WIDTH: Final = 160  # pixels a player's name may take before it ends in "…"


class RoundEditor(QWidget):
    """Dutch and Blitz spin boxes per player. value()/setValue() carry a Round."""

    valueChanged = Signal(object)

    def __init__(self, players: Sequence[Player], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._players = tuple(players)
        self.dutch: dict[str, NumberBox] = {}
        self.blitz: dict[str, NumberBox] = {}
        self._scores: dict[str, QLabel] = {}
        self.names: dict[str, QLabel] = {}
        grid = QGridLayout(self)
        for col, title in enumerate(("", "Player", "Dutch", "Blitz", "Round score")):
            grid.addWidget(QLabel(f"<b>{title}</b>"), 0, col)
        for row, player in enumerate(self._players, start=1):
            icon = QLabel()
            icon.setPixmap(back_pixmap(player.deck, 28))
            icon.setToolTip(deck_label(player.deck))
            grid.addWidget(icon, row, 0)
            name = ElidedLabel(player.name)  # a 40-letter name must not widen the dialog
            # (as wide as the text is large: at 150 % "Bartholomew" was cut at 160 px)
            most = round(NAME_WIDTH * text_scale())
            wanted = min(name.fontMetrics().horizontalAdvance(player.name) + 8, most)
            name.setMinimumWidth(wanted)
            # (the label's width is Ignored by the layout: the column is held open for it, or
            # the Dutch boxes were laid over the names)
            grid.setColumnMinimumWidth(1, max(grid.columnMinimumWidth(1), wanted))
            self.names[player.name] = name
            grid.addWidget(name, row, 1)
            for col, boxes, cards in ((2, self.dutch, "Dutch"), (3, self.blitz, "Blitz")):
                spin = NumberBox()
                # what a screen reader says of it ("spin box 8": whose, which pile?)
                spin.setAccessibleName(f"{player.name}, {cards} cards")
                spin.setRange(0, SPIN_MAX)
                spin.setMinimumWidth(80)
                spin.valueChanged.connect(self._on_changed)
                boxes[player.name] = spin
                grid.addWidget(spin, row, col)
            score = QLabel()
            score.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._scores[player.name] = score
            grid.addWidget(score, row, 4)
        # what the rules refuse in the counts, in words under the rows: a score's tooltip alone
        # was for the mouse, and a keyboard or touch user saw only "⚠ -74"
        self.problems = QLabel()
        self.problems.setTextFormat(Qt.TextFormat.PlainText)
        self.problems.setWordWrap(True)
        set_styled(self.problems, refused=True)
        grid.addWidget(self.problems, len(self._players) + 1, 0, 1, 5)
        self._refused: tuple[str, ...] = ()  # whose counts the rules refuse, as last told
        # (the rows' spare height under them: given to the header, it stood 160 px over them)
        grid.setRowStretch(len(self._players) + 2, 1)
        self._on_changed()

    def mark(self, name: str, why: str) -> None:
        """Flag a player's row, saying `why` on hover."""
        self.names[name].setText(f"⚠ {name}")
        self.names[name].setToolTip(as_plain(f"{name}: {why}"))

    def value(self) -> Round:
        return Round(
            {
                p.name: Tally(dutch=self.dutch[p.name].value(), blitz=self.blitz[p.name].value())
                for p in self._players
            }
        )

    def setValue(self, round_: Round) -> None:
        for p in self._players:
            tally = round_.tallies.get(p.name, Tally(0, 0))
            for spin, v in ((self.dutch[p.name], tally.dutch), (self.blitz[p.name], tally.blitz)):
                spin.blockSignals(True)
                spin.setValue(min(max(v, 0), SPIN_MAX))
                spin.blockSignals(False)
        self._on_changed()

    def _on_changed(self, *_: object) -> None:
        value = self.value()
        problems, refused = [], []
        for name, tally in value.tallies.items():
            # a count the rules refuse marked as it is typed or counted (the demo's full table
            # shot as Blitz piles: 21 Blitz cards, said only once Confirm refused it)
            problem = tally_problem(tally)
            score = self._scores[name]
            marked = "" if problem is None else "⚠ "
            score.setText(f"{marked}{round_score(tally):+d}")
            # (in the scan's warning colour: in the text's own, "⚠ -45" was missed among eight)
            set_styled(score, refused=problem is not None)
            # (as typed: the tooltip's markup of a name like "<b>Ann</b>" showed as "&lt;b&gt;"
            # in the label under the boxes and in what a screen reader said)
            reason = "" if problem is None else f"{name}: {problem}"
            score.setToolTip(as_plain(reason))
            score.setAccessibleDescription(reason)
            if problem is not None:
                problems.append((name, problem))
                refused.append(name)
            # (the reason on the box the focus is in, where a reader looks for it: on the
            # score alone, which takes no focus, it was said only when Enter was refused)
            for box in (self.dutch[name], self.blitz[name]):
                box.setAccessibleDescription(reason)
        # (each name isolated, the line left to right: one starting with an Arabic name was
        # laid out right to left, "Dutch cards: a deck holds 40 45 :محمد")
        said = "\n".join(left_to_right(f"⚠ {isolated(who)}: {why}") for who, why in problems)
        self.problems.setText(said)
        self.problems.setAccessibleName(unmarked(said))  # (the names' marks: nothing to a reader)
        self.problems.setVisible(bool(problems))
        # told as whose counts are refused changes, not at every key (11 to 15 Blitz was told
        # four times), and not before the dialog is shown (its opening tells them)
        if tuple(refused) != self._refused:
            self._refused = tuple(refused)
            if self.isVisible():
                announce(self.problems, said)
        self.valueChanged.emit(value)


def check_line(names: Sequence[str]) -> str:
    """What the dialog says about players whose decks look alike ("" for none)."""
    if not names:
        return ""
    return left_to_right(
        f"⚠ Check {listed([isolated(name) for name in names])}: their decks look alike to "
        "blitzcam, and their cards may have been counted to each other."
    )


def unshot_line(piles: Sequence[str]) -> str:
    """What the dialog says when a scan took no shot of some piles ("" for none): their zeros
    are no count (after a camera failure, Enter saved a round where all had called Blitz)."""
    if not piles:
        return ""
    which = " and ".join(f"{pile} piles" for pile in piles)
    return f"⚠ No shot of the {which}: type in each player's count, the zeros counted nothing."


def kept_line(kept: int, *, shots: bool = True) -> str:
    """What the dialog says when counts typed in a review left before are kept ("" for none);
    `shots`: the round's counts came from a scan's shots (not typed by hand, or a round's own)."""
    if not kept:
        return ""
    counts = "count you typed before is" if kept == 1 else "counts you typed before are"
    how = " (where a new shot changed a count, it is the shot's)" if shots else ""
    return f"✎ {kept} {counts} kept{how}."


class ConfirmDialog(QDialog):
    """Check and correct the counts; Enter confirms. Not modal to the caller's logic: it emits."""

    countsConfirmed = Signal(object)

    def __init__(
        self,
        players: Sequence[Player],
        proposed: Round,
        *,
        title: str,
        captures: Sequence[QImage] = (),
        captions: Sequence[str] = (),
        enlarged: Sequence[Callable[[int], QImage]] = (),
        check: Sequence[str] = (),
        unshot: Sequence[str] = (),
        kept: int = 0,
        variant: Variant = "standard",
        parent: QWidget | None = None,
    ) -> None:
        """`variant`: the match's, which says what counts the game can leave. `check`: players
        whose counts the camera may have mixed up (their decks look alike to blitzcam); they
        are marked and named. `unshot`: the piles no shot was taken of ("Dutch", "Blitz"):
        their counts are 0 only because nothing counted them. `kept`: how many of
        `proposed`'s counts are the players' own, typed in a review they left. `captions`: a
        line under each capture (which piles it shows, and of how many shots); `enlarged`:
        each capture drawn a given number of pixels wide, for a look at it large (clicked;
        without, the capture itself is shown)."""
        super().__init__(parent)
        self.setWindowTitle(title)
        self._players = tuple(players)
        self._zeroed: tuple[str, int] | None = None  # the caller picked, and their count before
        self._empty_asked = False  # a round of zeros only said once: the next Enter saves it
        self._edited: object = None  # the round as the boxes last held it
        self._variant = variant
        self._unlikely_said: Round | None = None  # counts said to check: Enter again saves them
        self.captions: list[QLabel] = []
        self.heading = heading = QLabel(title)
        heading.setObjectName("stepTitle")
        self.editor = RoundEditor(self._players)
        self.editor.setValue(proposed)
        self.caller = QComboBox()
        self.caller.setAccessibleName("Called Blitz")  # (its label beside it is not linked)
        # as wide as a short name, not the longest one
        self.caller.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.caller.setMinimumContentsLength(16)
        self.caller.addItem(NOBODY, None)
        for p in self._players:
            self.caller.addItem(p.name, p.name)
        caller_row = QHBoxLayout()
        called = QLabel("Called Blitz:")
        # (its label as a relation too: on Linux a screen reader names a combo box by its item,
        # whatever name it is given, or by a label that is its buddy)
        called.setBuddy(self.caller)
        caller_row.addWidget(called)
        caller_row.addWidget(self.caller, 1)
        lines = (unshot_line(unshot), kept_line(kept, shots=bool(captures)), check_line(check))
        said = [line for line in lines if line]
        self.check = plain_label("\n".join(said))  # names are the players' own text
        self.check.setAccessibleName(unmarked(self.check.text()))  # (their marks: not read)
        self.check.setWordWrap(True)
        self.check.setVisible(bool(said))

        for name in check:
            self.editor.mark(
                name,
                "Check this count: this deck looks like another player's to "
                "blitzcam, and their cards may have been counted to each other",
            )
        self.error = error_label()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Confirm round (Enter)")
        side = QVBoxLayout()
        side.addWidget(heading)
        side.addWidget(scrolling_widget(self.editor))
        side.addLayout(caller_row)
        side.addWidget(self.check)
        side.addWidget(self.error)
        # (the room the pictures leave goes under them all: beside two pictures, "Called
        # Blitz" stood at the foot, a hand's width of nothing above it)
        side.addStretch(1)
        side.addWidget(self.buttons)
        layout = QHBoxLayout(self)
        layout.addLayout(side, 1)
        # made the default once it is the dialog's: set before, the dialog never knew it, and
        # once Tab had been on Cancel, Enter cancelled (the typed counts lost)
        ok.setDefault(True)
        if captures:
            shots = QVBoxLayout()
            # each picture 480 x 270 at most, smaller where the screen is short (two made the
            # dialog 568 px tall, more than a 600-px screen holds beside a title bar)
            screen = self.screen().availableGeometry()
            room = screen.height() - SCREEN_ALLOWANCE - 40
            height = max(120, min(270, room // len(captures) - (24 if captions else 0)))
            # ... and narrower where the counts need the width (at 150 % text the dialog was
            # 1111 px wide at least, past a 1024-px screen)
            across = screen.width() - SCREEN_ALLOWANCE - side.minimumSize().width() - 40
            height = max(90, min(height, across * 9 // 16))
            self.captions = [plain_label(caption) for caption in captions]
            for i, image in enumerate(captures):
                caption = captions[i] if i < len(captions) else ""
                large = enlarged[i] if i < len(enlarged) else None
                shots.addWidget(CaptureThumbnail(image, caption, height, large))
                if i < len(self.captions):
                    self.captions[i].setWordWrap(True)
                    self.captions[i].setMaximumWidth(height * 16 // 9)
                    shots.addWidget(self.captions[i])
            shots.addStretch(1)
            layout.insertLayout(0, shots)  # (the pictures left of the counts)
        self.caller.currentIndexChanged.connect(self._on_caller_changed)
        self.buttons.accepted.connect(self._on_confirm)
        self.buttons.rejected.connect(self.reject)
        self.editor.valueChanged.connect(self._on_edited)
        self._edited = self.editor.value()
        fit_to_screen(self)

    @property
    def players(self) -> tuple[Player, ...]:
        """The round's players, one row each, as the dialog was opened with them."""
        return self._players

    def value(self) -> Round:
        return self.editor.value()

    def setValue(self, round_: Round) -> None:
        self.editor.setValue(round_)

    def typed(self) -> tuple[Round, str | None, int | None]:
        """The counts as they stand, the Blitz caller picked, and that caller's own count from
        before the pick zeroed it (None when nobody is picked): `restore_caller` takes them
        back."""
        before = self._zeroed[1] if self._zeroed is not None else None
        return self.value(), self.caller.currentData(), before

    def restore_caller(self, name: str | None, before: int | None) -> None:
        """Pick `name` as the caller as `typed` left them: their count as it is shown (it may
        have been typed over the pick's 0), `before` given back if the pick is taken back."""
        self.caller.blockSignals(True)
        self.caller.setCurrentIndex(max(0, self.caller.findData(name)) if name else 0)
        self.caller.blockSignals(False)
        self._zeroed = (name, before) if name is not None and before is not None else None

    def set_title(self, title: str) -> None:
        """The round's name changed under the dialog (a round saved elsewhere meanwhile)."""
        self.setWindowTitle(title)
        self.heading.setText(title)

    def set_caller(self, name: str | None) -> None:
        """The player who called Blitz: their Blitz count becomes 0 (it can still be corrected)."""
        self.caller.setCurrentIndex(max(0, self.caller.findData(name)) if name else 0)

    def show_error(
        self, message: str, *, player: str | None = None, pile: str | None = None
    ) -> None:
        """Say why the round was not saved; the box of `player`'s `pile` ("Dutch" or "Blitz";
        None: their first) that broke the rule takes the focus, its number chosen to be typed
        over (a Blitz of 99 was said, and the focus stayed where Enter left it)."""
        box = None
        if player in self.editor.dutch:
            box = (self.editor.blitz if pile == "Blitz" else self.editor.dutch)[player]
        self.error.refuse(f"Not saved: {message}", at=box)

    def _on_caller_changed(self, _index: int) -> None:
        # a pick taken back gives the player it zeroed their count again (unless it was edited
        # since): one slip of the mouse wheel must not turn a real count into 0
        before, self._zeroed = self._zeroed, None
        if before is not None:
            previous, count = before
            if self.editor.blitz[previous].value() == 0:
                self.editor.blitz[previous].setValue(count)
        name = self.caller.currentData()
        if name is not None:
            self._zeroed = (name, self.editor.blitz[name].value())
            self.editor.blitz[name].setValue(0)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # read with the dialog, and told as it opens: a shot missing, decks that look alike
        # and counts the rules refuse were on the screen alone
        said = "\n".join(text for text in (self.check.text(), self.editor.problems.text()) if text)
        self.setAccessibleDescription(unmarked(said))  # (the names' marks: nothing to a reader)
        if said:
            announce(self, said)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # a held Enter repeats: the press that opened this dialog must not also confirm it
        if event.isAutoRepeat() and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()
            return
        super().keyPressEvent(event)

    def _on_edited(self, value: object) -> None:
        # (Enter in a count box emits a change of nothing: else it clears the "Enter again to
        # save" it has just asked, and Enter from a box asks it again for ever)
        if value == self._edited:
            return
        self._edited = value
        self.error.clear()
        self._empty_asked = False

    def _on_confirm(self) -> None:
        editor = self.editor
        boxes = [box for name in editor.dutch for box in (editor.dutch[name], editor.blitz[name])]
        if refuse_empty(self.error, boxes):
            return
        round_ = self.value()
        empty = all(t.dutch == 0 and t.blitz == 0 for t in round_.tallies.values())
        if empty and not self._empty_asked:  # Enter on a form not filled in yet
            self._empty_asked = True
            self.error.setText(
                "Every count is 0, as if nobody played a card: type the counts, or press Enter "
                "again to save the round as it is"
            )
            return
        unlikely = short_of_post_piles(round_, self._variant)
        if unlikely and self._unlikely_said != round_:  # said once; Enter again saves them
            self._unlikely_said = round_
            notes = "; ".join(post_piles_note(round_, name, shown=isolated) for name in unlikely)
            self.error.refuse(
                f"Check: {notes}. Correct them, or press Enter again to save them as they are",
                at=editor.dutch[unlikely[0]],
            )
            return
        self.countsConfirmed.emit(round_)
