"""A player's (or a team's) total on the scoreboard: name, deck back, total and the lines under
them, drawn large, compact or beside the total as the board's room allows; the leader or winner
highlighted. It shows what the core computes and holds no rule.
"""

from __future__ import annotations

from typing import Final, Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.text import cut_to_width, shown_width, unmarked
from blitzcam.ui.deck_colours import back_pixmap, deck_label, deck_rgb
from blitzcam.ui.labels import KEEP_END, ElidedLabel, set_styled, shown_plain
from blitzcam.ui.text_size import text_scale

NAME_SMALLEST_PT: Final = 14  # a total card's name is drawn down to this before it is cut
# ... and drawn "tight", beside its total, down to this ("Player 6" beside "-10" at 150 %)
NAME_TIGHT_PT: Final = 12
# a board shorter than this (pixels at the base text size) draws its totals smaller
SHORT_BOARD: Final = 480
# ... and two rows of cards take the large totals from this tall (a 1920 x 1080 window's board
# is about 990 px; 1366 x 768's 680)
TALL_BOARD: Final = 900
# how a card draws its total: large under the name, smaller under it, or beside it where the
# page would not fit the window else (at 150 % on a 1366 x 768 laptop five players' cards took
# the page, no round of the table or the chart in view, and at 1024 x 640 eight players' newest
# round lay below its edge), if every card's name and lines keep their room beside it
CardLook = Literal["large", "compact", "tight"]
BARE_MARGIN: Final = 3  # px above and below a card drawn without its line under the name
HEAD_GAP: Final = 14  # px between a card's back, its name and (drawn beside it) its total
# beside its total, a name must keep its first this many characters whole at its least size,
# and each line under it this many (three-digit totals cut "Alexander" to "…", a team's lines
# to "… -5"; the deck's name may be cut where its back and colour say it: "Green buck…")
NAME_KEPT: Final = 8
DETAIL_KEPT: Final = 10
# ... drawn this much smaller at the least (a deck at 9 pt beside one at 18 pt read broken)
DETAIL_SHRUNK: Final = 0.85
DETAIL_SMALLEST_PT: Final = 9  # ... and its deck and seat note ("joined after round 1 with 8 p…")


class TotalCard(QFrame):
    """One large total: name, deck back(s), total; highlighted for the leader or winner."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("totalCard")
        self.name = ElidedLabel(shrink_to=NAME_SMALLEST_PT)
        self.name.setObjectName("totalName")
        self.detail = ElidedLabel(shrink_to=DETAIL_SMALLEST_PT)
        # never larger than the name over it ("Red buggy" at 18 pt under "Bartholomew Jr." at
        # 13, shrunk to its room, reads as the card's heading)
        self.detail.at_most = self.name
        self.detail.setObjectName("totalDetail")
        self.total = QLabel()
        self.total.setObjectName("totalValue")
        self.backs = QHBoxLayout()
        self.backs.setSpacing(4)
        self.strip = QFrame()
        self.strip.setFixedHeight(6)
        # the backs, and the name over the detail; drawn "tight", the total beside the name
        # with the detail under both (beside both, "Yellow bucket" was cut at 8 players, 150 %)
        self._head = QGridLayout()
        # (drawn beside its name, a total with the style's gap read as part of it: "Bob-11")
        self._head.setHorizontalSpacing(HEAD_GAP)
        self._head.addLayout(self.backs, 0, 0, 2, 1)
        self._head.addWidget(self.name, 0, 1)
        self._head.addWidget(self.detail, 1, 1)
        self._head.setColumnStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.strip)
        layout.addLayout(self._head)
        layout.addWidget(self.total, 0, Qt.AlignmentFlag.AlignRight)
        self.look: CardLook = "large"
        # (drawn tight, backs beside the lines under the name): how the parts were placed last
        self._arrangement = (False, False)
        # drawn without the deck's line under the name (`set_bare`), and the lines as given
        self._bare = False
        self._detail = ""
        self._decks: tuple[str, ...] = ()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def show_total(
        self,
        *,
        name: str,
        detail: str,
        total: int,
        decks: list[str],
        leader: bool,
        out: bool = False,
        colour: tuple[int, int, int] | None = None,
        highlighted_as: str = "leads",
    ) -> None:
        """`out`: a player (or every player of a team) who left: the card is dimmed, its total
        still on the board (it looked like one still playing but for a small note). `colour`:
        the strip's, a team's line on the chart (else its decks' colours). `highlighted_as`:
        what a highlighted card is said to do ("leads", "wins", "shares the win")."""
        self.name.setText(name)
        # (its least size grows with the text: at 150 % one long member's name drew every
        # team's lines at 12 pt, smaller than at 100 %)
        self.detail.set_shrink_to(DETAIL_SMALLEST_PT * text_scale())
        self._detail = detail
        self._decks = tuple(decks)
        self._place_parts()
        self._show_detail()
        self.total.setText(str(total))
        # the card read as one by a screen reader: its labels alone say "Ann", "14" apart
        points = "point" if abs(total) == 1 else "points"
        said = f"{name}, {shown_plain(detail).replace(chr(10), ', ')}: {total} {points}"
        said += f", {highlighted_as}" if leader else ""
        # (a team's members are isolated for the eye: their marks are nothing to a reader)
        self.setAccessibleName(unmarked(said + (", left the table" if out else "")))
        while self.backs.count():
            item = self.backs.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        for deck in decks:
            icon = QLabel()
            icon.setPixmap(back_pixmap(deck, 36))
            icon.setToolTip(deck_label(deck))
            self.backs.addWidget(icon)
        stops = ", ".join(
            f"stop:{i / max(1, len(decks) - 1):.2f} rgb{deck_rgb(d)}" for i, d in enumerate(decks)
        )
        if colour is not None:
            background = f"rgb{colour}"
        elif len(decks) > 1:
            background = f"qlineargradient(x1:0, y1:0, x2:1, y2:0, {stops})"
        else:
            background = f"rgb{deck_rgb(decks[0])}"
        self.strip.setStyleSheet(f"background: {background}; border-radius: 3px;")
        self.setProperty("leader", leader)
        self.setProperty("out", out)
        # (its labels too: a rule on `[out="true"] QLabel` is not applied again to children by
        # polishing the card, and a player back at the table kept a grey name)
        for widget in (self, self.name, self.detail, self.total):
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    def set_look(self, look: CardLook) -> None:
        """A smaller total for two rows of cards or a short board, beside the name for a
        shorter one (the table and chart keep their room)."""
        if look == self.look:
            return
        compact, tight = look != "large", look == "tight"
        set_styled(self.total, compact=compact, tight=tight)
        self.name.set_shrink_to(NAME_TIGHT_PT if tight else NAME_SMALLEST_PT)
        self.look = look
        self._place_parts()

    def _backs_under_name(self) -> bool:
        """Whether the backs stand beside the lines under the name, not beside the name: a
        team's, drawn tight (two backs and a total beside a team's name cut "Red Barn" to
        "…" at 150 %; beside its members' two lines they take no height of their own)."""
        return self.look == "tight" and len(self._decks) > 1

    def _place_parts(self) -> None:
        """The name, backs, total and lines where the look puts them (`set_look`)."""
        arrangement = (self.look == "tight", self._backs_under_name())
        if arrangement == self._arrangement:
            return
        self._arrangement = arrangement
        tight, backs_under = arrangement
        below, head = self.layout(), self._head
        for layout in (below, head):
            layout.removeWidget(self.total)
        for widget in (self.name, self.detail):
            head.removeWidget(widget)
        head.removeItem(self.backs)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        if backs_under:
            head.addWidget(self.name, 0, 0, 1, 2)
            head.addLayout(self.backs, 1, 0)
        else:
            head.addLayout(self.backs, 0, 0, 2, 1)
            head.addWidget(self.name, 0, 1)
        if tight:
            head.addWidget(self.total, 0, 2, right)
            head.addWidget(self.detail, 1, 1, 1, 2)
        else:
            below.addWidget(self.total, 0, right)
            head.addWidget(self.detail, 1, 1)

    def set_bare(self, bare: bool) -> None:
        """Without the deck's line under the name and with narrow margins (`bare`), or as it
        was: the back beside the name and the strip's colour still say the deck."""
        if bare == self._bare:
            return
        self._bare = bare
        layout = self.layout()
        if bare:
            margins = layout.contentsMargins()
            layout.setContentsMargins(margins.left(), BARE_MARGIN, margins.right(), BARE_MARGIN)
        else:
            # (the style's own again: margins read when the card was made, before the app's
            # style sheet reached it, were 2 px narrower than the style's, and a card drawn
            # bare once and back had other room than before, its name judged to fit or not)
            layout.unsetContentsMargins()
        self._show_detail()

    def _show_detail(self) -> None:
        """The lines under the name; drawn bare, without a player's deck line: what else they
        say stays ("left after round 2", the one word on why a card is dimmed; a team's
        members, who are no deck)."""
        lines = self._detail.split("\n")
        if self._bare and len(self._decks) == 1 and lines[0] == deck_label(self._decks[0]):
            lines = lines[1:]
        text = "\n".join(lines)
        self.detail.setText(text)
        self.detail.setVisible(bool(text))

    def fits_beside(self) -> bool:
        """Whether, drawn "tight", the name keeps its room (NAME_KEPT) with the total beside
        it, and the lines under both theirs (DETAIL_KEPT), in the card's width."""
        layout, head = self.layout(), self._head
        margins = layout.contentsMargins()
        room = self.contentsRect().width() - margins.left() - margins.right()
        backs = sum(self.backs.itemAt(i).sizeHint().width() for i in range(self.backs.count()))
        backs += self.backs.spacing() * max(0, self.backs.count() - 1) + head.horizontalSpacing()
        beside = room - self.total.sizeHint().width() - head.horizontalSpacing()
        room -= backs
        if len(self._decks) <= 1:  # (a team's backs stand under its name: _backs_under_name)
            beside -= backs
        name, detail = QFont(self.name.font()), QFont(self.detail.font())
        name.setPointSizeF(min(name.pointSizeF(), NAME_TIGHT_PT))
        detail.setPointSizeF(detail.pointSizeF() * DETAIL_SHRUNK)
        return _fits(name, self.name.text(), NAME_KEPT, beside) and _fits(
            detail, self.detail.text(), DETAIL_KEPT, room
        )


def _fits(font: QFont, text: str, kept: int, room: int) -> bool:
    """Whether each line of `text`, cut to `kept` letters' width (and "…") before its KEEP_END,
    its end after that kept whole as `elided` keeps it, is `room` wide or less in `font` (marks
    of direction, unseen, are no letters; a wide letter, Chinese or Japanese, is two: eight of
    them need twice the room, and one such name kept the whole board from its tight look)."""
    metrics = QFontMetrics(font)
    for line in text.split("\n"):
        head, _, end = line.partition(KEEP_END)
        letters = unmarked(head)
        shown = letters if shown_width(letters) <= kept else cut_to_width(letters, kept) + "…"
        if metrics.horizontalAdvance(shown + (" " + end if end else "")) > room:
            return False
    return True
