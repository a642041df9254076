"""The scoreboard: large totals (leader highlighted), the result, a round-by-round table of Dutch,
Blitz and round score per player, and a chart of running totals. It shows what the core computes
(`rules.score_match`); it holds no rule. Double-clicking a round asks to edit it, a player's
name to change the players.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Final, Literal

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QColor, QFocusEvent, QFont, QFontMetrics, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from blitzcam.game.decks import DECKS_BY_NAME
from blitzcam.game.rules import Match, Round, Standings
from blitzcam.game.text import isolated, left_to_right, listed, seat_note, unmarked
from blitzcam.ui.chart import MARKERS, RunningTotalsChart, Series
from blitzcam.ui.deck_colours import back_pixmap, deck_label, deck_rgb
from blitzcam.ui.labels import (
    KEEP_END,
    ElidedLabel,
    as_plain,
    elided,
    plain_label,
    set_styled,
    shown_plain,
)
from blitzcam.ui.scrolling import scrolling_rows
from blitzcam.ui.text_size import text_scale

HEADER_ROWS: Final = 2  # player names, then each one's SUB_HEADERS
ROW_HEIGHT: Final = 34  # a round's row, in pixels
# the chart's least width beside a wide table, in pixels: not grown with the text, which
# grows the table's columns more (at 150 % five players' rounds need 1,136 px, and a least
# that grew with the text kept the table at three fifths of a 1366-px window)
CHART_LEAST: Final = 340
MIN_COLUMN: Final = 40  # a count's column at the least, in pixels (more where the text needs)
CARDS_PER_ROW: Final = 4  # total cards side by side; more players take two rows
# how the rounds table fits its width: each player's Dutch, Blitz and points headed in full,
# headed short ("D", "B"), or their points alone (the piles' counts in each one's tip)
TableLook = Literal["full", "short", "points"]
TABLE_LOOKS: Final[tuple[TableLook, ...]] = ("full", "short", "points")
# each player's columns: the header, its short form where the table is narrow, and its tip
SUB_HEADERS: Final = (
    ("Dutch", "D", "cards in the Dutch piles"),
    ("Blitz", "B", "cards left in the Blitz pile"),
    ("Pts", "Pts", "round score: Dutch − 2 × Blitz"),
)
COLUMNS_PER_PLAYER: Final = len(SUB_HEADERS)
# one line colour per team on the chart, as many as teams can be (eight players, one each)
TEAM_RGB: Final = (
    (240, 240, 240),
    (150, 200, 255),
    (255, 190, 120),
    (200, 160, 255),
    (140, 230, 160),
    (255, 140, 170),
    (250, 230, 110),
    (120, 225, 230),
)


# the bundled font's star: its trophy (U+1F3C6) showed as an empty box where no emoji font is
WIN_MARK: Final = "\u2605"


def status_text(match: Match, standings: Standings) -> str:
    """The headline: who won, who shares the win, or who leads."""
    if standings.status == "won":
        winner = isolated(standings.winners[0])
        return left_to_right(f"{WIN_MARK} {winner} wins after round {standings.decided_after}!")
    if standings.status == "shared":
        if len(standings.winners) > MOST_LEADERS_NAMED:  # (as the lead: the cards show who)
            sides = "teams" if standings.team_totals is not None else "players"
            return (
                f"{WIN_MARK} Shared win among {len(standings.winners)} {sides}, after round "
                f"{standings.decided_after}!"
            )
        sharing = said_together(standings.winners)
        return left_to_right(
            f"{WIN_MARK} Shared win: {sharing}, after round {standings.decided_after}!"
        )
    if not match.rounds:
        return "Ready for round 1 — press Space to scan it"
    leaders = standings.leaders
    played = len(match.rounds)
    if len(leaders) > MOST_LEADERS_NAMED:  # (the cards show who: each is highlighted)
        sides = "teams" if standings.team_totals is not None else "players"
        return f"{len(leaders)} {sides} share the lead after round {played}"
    verb = "leads" if len(leaders) == 1 else "lead"
    return left_to_right(f"{said_together(leaders)} {verb} after round {played}")


def spoken_standings(match: Match, standings: Standings) -> str:
    """The headline and every total, highest first (teams' with teams), as a screen reader is
    told them after a change: the cards and the headline take no focus, and the news says only
    "Round saved"."""
    headline = status_text(match, standings)
    if not match.rounds:  # (a new match: its headline says what to do, no total has moved)
        return unmarked(headline)
    board = standings.team_totals if standings.team_totals is not None else standings.totals
    ranked = sorted(board.items(), key=lambda item: -item[1])  # (a tie keeps the seats' order)
    totals = ", ".join(f"{name} {total}" for name, total in ranked)
    # (heard, not drawn: the marks that keep a name's letters in their order on screen are
    # nothing to a reader)
    return unmarked(f"{headline} — totals: {totals}")


# more level leaders (or winners) than this are counted, not named: "Ann and Bob and Cy and Di
# and Ed and Flo and Gus and Hal lead" took two lines of the headline, past a 600-px screen's
# bottom (eight sharing a win took four at 150 %, every total card pushed off the screen)
MOST_LEADERS_NAMED: Final = 3


def said_together(names: Sequence[str]) -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cy': each name isolated (see `isolated`)."""
    return listed([isolated(name) for name in names])


def deck_marker(deck: str) -> str:
    """A deck's dots on the chart by the drawing on its back, as its colour is its ink: the
    two blue decks (pump and plow) drew the same blue line."""
    symbol = DECKS_BY_NAME[deck].symbol if deck in DECKS_BY_NAME else ""
    return {"pump": "circle", "buggy": "square", "bucket": "triangle", "plow": "diamond"}.get(
        symbol, "circle"
    )


def chart_series(match: Match, standings: Standings) -> list[Series]:
    """Lines per player (from the round they joined to the one they left), or per team."""
    if standings.team_running_totals is None:
        return [
            Series(
                p.name,
                deck_rgb(p.deck),
                tuple(t[p.name] for t in standings.running_totals[p.joined : p.left]),
                joined=p.joined,
                start=p.start,
                sat_out=p.sat_out,
                marker=deck_marker(p.deck),
                # a latecomer on the deck of a player who left: hollow dots, the leaver's line
                # dimmed as their card is (the two lines were the same in every way)
                hollow=any(other.deck == p.deck for other in match.players[:seat]),
                # (a winner who left after the deciding round: their card is not dimmed)
                faded=p.left is not None and p.name not in standings.winners,
            )
            for seat, p in enumerate(match.players)
        ]
    series = []
    for i, team in enumerate(standings.team_totals or {}):
        members = [p for p in match.players if p.team == team]
        joined = min(p.joined for p in members)
        start = sum(p.start for p in members if p.joined == joined)
        # a team whose every player left: its line ends where the last of them left
        left = None if team in standings.contenders else max(p.left or 0 for p in members)
        totals = tuple(t[team] for t in standings.team_running_totals[joined:left])
        # rounds none of them played (each sat out, or between one leaving and one joining)
        away = tuple(
            number
            for number in range(joined + 1, joined + len(totals) + 1)
            if not any(p.plays_in(number) for p in members)
        )
        series.append(
            Series(
                team,
                TEAM_RGB[i % len(TEAM_RGB)],
                totals,
                joined,
                start,
                away,
                marker=MARKERS[i % len(MARKERS)],
            )
        )
    return series


def card_places(n: int, per_row: int = CARDS_PER_ROW) -> list[tuple[int, int]]:
    """(row, column) of each of `n` total cards: one row up to `per_row`, else rows as even
    as they go (seven players: four and three), so that eight fit a laptop's screen."""
    rows = max(1, math.ceil(n / per_row))
    columns = math.ceil(n / rows) if n else 1
    return [divmod(i, columns) for i in range(n)]


NAME_SMALLEST_PT: Final = 14  # a total card's name is drawn down to this before it is cut
NAME_SHRUNK: Final = 0.8  # a name over the rounds' columns, drawn this much smaller, then cut
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
        # drawn without the deck's line under the name (`set_bare`), and the lines as given
        self._bare = False
        self._detail = ""
        self._decks: tuple[str, ...] = ()
        self._margins = self.layout().contentsMargins()
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
        self._detail = detail
        self._decks = tuple(decks)
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
        if "tight" in (look, self.look):
            below, head = self.layout(), self._head
            for layout in (below, head):
                layout.removeWidget(self.total)
            head.removeWidget(self.detail)
            self.name.set_shrink_to(NAME_TIGHT_PT if look == "tight" else NAME_SMALLEST_PT)
            right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            if look == "tight":
                head.addWidget(self.total, 0, 2, right)
                head.addWidget(self.detail, 1, 1, 1, 2)
            else:
                below.addWidget(self.total, 0, right)
                head.addWidget(self.detail, 1, 1)
        self.look = look

    def set_bare(self, bare: bool) -> None:
        """Without the deck's line under the name and with narrow margins (`bare`), or as it
        was: the back beside the name and the strip's colour still say the deck."""
        if bare == self._bare:
            return
        self._bare = bare
        left, right = self._margins.left(), self._margins.right()
        top, bottom = (
            (BARE_MARGIN, BARE_MARGIN) if bare else (self._margins.top(), self._margins.bottom())
        )
        self.layout().setContentsMargins(left, top, right, bottom)
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
        room -= head.horizontalSpacing()
        room -= sum(self.backs.itemAt(i).sizeHint().width() for i in range(self.backs.count()))
        room -= self.backs.spacing() * max(0, self.backs.count() - 1)
        beside = room - self.total.sizeHint().width() - head.horizontalSpacing()
        name, detail = QFont(self.name.font()), QFont(self.detail.font())
        name.setPointSizeF(min(name.pointSizeF(), NAME_TIGHT_PT))
        detail.setPointSizeF(detail.pointSizeF() * DETAIL_SHRUNK)
        return _fits(name, self.name.text(), NAME_KEPT, beside) and _fits(
            detail, self.detail.text(), DETAIL_KEPT, room
        )


def _fits(font: QFont, text: str, kept: int, room: int) -> bool:
    """Whether each line of `text`, cut to `kept` letters (and "…") before its KEEP_END, its
    end after that kept whole as `elided` keeps it, is `room` wide or less in `font` (marks of
    direction, unseen, are no letters)."""
    metrics = QFontMetrics(font)
    for line in text.split("\n"):
        head, _, end = line.partition(KEEP_END)
        letters = unmarked(head)
        shown = letters if len(letters) <= kept else letters[:kept] + "…"
        if metrics.horizontalAdvance(shown + (" " + end if end else "")) > room:
            return False
    return True


# the keys that move about the rounds (Shift or Ctrl alone moves nothing)
MOVING_KEYS: Final = frozenset(
    {Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home,
     Qt.Key.Key_End, Qt.Key.Key_Left, Qt.Key.Key_Right}
)  # fmt: skip
# the focus reasons of a person moving about by keyboard (a window giving its table the focus
# is OtherFocusReason: the page stays where it is)
KEYBOARD_FOCUS: Final = (
    Qt.FocusReason.TabFocusReason,
    Qt.FocusReason.BacktabFocusReason,
    Qt.FocusReason.ShortcutFocusReason,
)


def put_back(before: tuple[Round, ...], after: tuple[Round, ...]) -> int | None:
    """The index of the one round `after` has that `before` lacks, inserted before its last
    (a deleted round brought back by undo); None for any other change, a round added at the
    end among them."""
    if len(after) != len(before) + 1:
        return None
    i = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), None)
    return i if i is not None and after[:i] + after[i + 1 :] == before else None


class RoundTable(QTableWidget):
    """Rounds as rows; per player three columns: Dutch, Blitz, round score."""

    roundActivated = Signal(int)
    playersActivated = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Rounds: each player's Dutch, Blitz and points")
        self.horizontalHeader().hide()
        # Tab leaves the table (cell to cell, it never did, and left the round picked)
        self.setTabKeyNavigation(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setMinimumSectionSize(MIN_COLUMN)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        self.cellDoubleClicked.connect(self._on_double_clicked)
        self.currentCellChanged.connect(self._off_hidden_columns)
        # the last round kept in view until the user scrolls: shown before the table had its
        # size (a match resumed at start), the scroll to it fell short of its real height
        self._follow_last = False
        self._rounds: tuple[Round, ...] = ()  # the rounds drawn last
        self.verticalScrollBar().actionTriggered.connect(self._on_scrolled_by_hand)
        # each player's name over their three columns, cut with "…" to the width they have:
        # wrapped, "Bartholomew Jr." showed "Bartholomew" running into the next name
        self._names: list[str] = []
        self._names_due = False  # a fitting of the names asked for (`_fit_names_soon`)
        # a column's least width in each look (TABLE_LOOKS): at 150 % in a 1024-px window
        # four players' columns did not fit beside the chart, the last player's out of view
        self._least: dict[TableLook, int] = dict.fromkeys(TABLE_LOOKS, MIN_COLUMN)
        self.look: TableLook = "full"
        self.setWordWrap(False)
        self.horizontalHeader().sectionResized.connect(self._on_section_resized)
        # the names and Dutch/Blitz/Pts rows stay at the top while the rounds scroll under
        # them (scrolled to the last round, they went out of view with the first rounds)
        self._frozen = _frozen_rows(self)
        self.horizontalScrollBar().valueChanged.connect(self._frozen.horizontalScrollBar().setValue)
        self.verticalHeader().sectionResized.connect(self._on_row_resized)

    def show_rounds(self, match: Match, standings: Standings) -> None:
        # a round edited (as many rounds as before): the keyboard stays on its row, where
        # Enter edits it again (not back before the first row after every change)
        # fewer rounds (an undo, a round deleted): on the same row, or the new last round (on no
        # row, the next Delete or F2 says "choose the round"); a deleted
        # round brought back: on it; more (a round saved): none, the table following its last.
        # The names' row stays chosen with as many rounds as before (Enter there opens the
        # players; else after them the keyboard is on no row)
        rows = HEADER_ROWS + len(match.rounds)
        fewer_or_same = self.rowCount() >= rows
        chosen = self.currentRow() >= HEADER_ROWS and fewer_or_same and bool(match.rounds)
        kept_row = min(self.currentRow(), rows - 1) if chosen else -1
        back = put_back(self._rounds, match.rounds) if self.currentRow() >= HEADER_ROWS else None
        if back is not None:  # (round 1 is 0: not to be taken for none)
            kept_row = HEADER_ROWS + back
        elif self.currentRow() == 0 and len(self._rounds) == len(match.rounds):
            kept_row = 0
        self._rounds = match.rounds
        self.clearSpans()
        self._frozen.clearSpans()
        players = match.players
        self.setColumnCount(COLUMNS_PER_PLAYER * len(players))
        # the hidden header's labels are what a screen reader says of a cell's column ("1",
        # "2", … before: the names and Dutch/Blitz/Pts are rows drawn over it)
        self.setHorizontalHeaderLabels(
            [f"{p.name} {what}" for p in players for what in ("Dutch", "Blitz", "points")]
        )
        self.setRowCount(HEADER_ROWS + len(match.rounds))
        bold = QFont(self.font())
        bold.setBold(True)
        small = QFont(self.font())
        small.setPointSizeF(self.font().pointSizeF() * 0.8)
        # a column as narrow as "Dutch" and "-88" allow at the text's size (a fixed 40 px cut
        # them at 150 %), the names over them held to the same (their own minimum grew with
        # the text, and the names drifted over another player's columns)
        for look in TABLE_LOOKS:
            shown = [label if look == "full" else short for label, short, _ in SUB_HEADERS]
            self._least[look] = max(
                MIN_COLUMN,
                *(QFontMetrics(small).horizontalAdvance(text) + 10 for text in shown),
                QFontMetrics(bold).horizontalAdvance("-88") + 10,
            )
        for i, player in enumerate(players):
            col = i * COLUMNS_PER_PLAYER
            self.setSpan(0, col, 1, COLUMNS_PER_PLAYER)
            self._frozen.setSpan(0, col, 1, COLUMNS_PER_PLAYER)
            head = self._item(player.name, bold)
            head.setForeground(QColor(*deck_rgb(player.deck)))
            # the whole name, which a narrow column cuts short
            head.setToolTip(
                as_plain(
                    f"{player.name}: double-click (or Enter) to rename the players or "
                    "change their decks"
                )
            )
            self.setItem(0, col, head)
            for j, (label, _short, tip) in enumerate(SUB_HEADERS):
                item = self._item(label, small, dim=True)
                item.setToolTip(f"{label}: {tip}")
                item.setData(Qt.ItemDataRole.AccessibleTextRole, label)  # (read whole, if short)
                self.setItem(1, col + j, item)
        self._show_headers()
        self._names = [player.name for player in players]
        self._fit_names()
        self.setVerticalHeaderLabels(["", "", *(str(n) for n in range(1, len(match.rounds) + 1))])
        for r, (round_, scores) in enumerate(
            zip(match.rounds, standings.round_scores, strict=True), start=HEADER_ROWS
        ):
            for i, player in enumerate(players):
                tally = round_.tallies.get(player.name)
                col = i * COLUMNS_PER_PLAYER
                if tally is None:  # not at the table that round
                    for j in range(3):
                        self.setItem(r, col + j, self._item("–", dim=True))
                    continue
                self.setItem(r, col, self._item(str(tally.dutch)))
                self.setItem(r, col + 1, self._item(str(tally.blitz)))
                points = self._item(f"{scores[player.name]:+d}", bold)
                # (the piles' counts, where the table shows the points alone)
                points.setToolTip(f"{player.name}: Dutch {tally.dutch}, Blitz {tally.blitz}")
                self.setItem(r, col + 2, points)
        self.setCurrentCell(kept_row, self.shown_column(0) if kept_row >= 0 else -1)
        self._follow_last = bool(match.rounds) and kept_row < 0
        if self._follow_last:
            self.scrollToBottom()

    def set_look(self, look: TableLook) -> None:
        """Show the players' columns in `look` (TABLE_LOOKS)."""
        if look != self.look:
            self.look = look
            self._show_headers()

    def _show_headers(self) -> None:
        for header in (self.horizontalHeader(), self._frozen.horizontalHeader()):
            header.setMinimumSectionSize(self._least[self.look])
        for column in range(self.columnCount()):
            label, short, _ = SUB_HEADERS[column % COLUMNS_PER_PLAYER]
            item = self.item(1, column)
            if item is not None:
                item.setText(label if self.look == "full" else short)
            pile = column % COLUMNS_PER_PLAYER < COLUMNS_PER_PLAYER - 1
            for view in (self, self._frozen):
                view.setColumnHidden(column, pile and self.look == "points")
        self._fit_names_soon()
        if self.currentRow() >= 0 and self.isColumnHidden(self.currentColumn()):
            # (the keyboard on a column hidden: its row out of reach of scrolling to it)
            self.setCurrentCell(self.currentRow(), self.shown_column(self.currentColumn()))

    @Slot(int, int, int, int)
    def _off_hidden_columns(self, row: int, column: int, _row: int, _column: int) -> None:
        # (the keyboard on a column hidden: its row could not be scrolled to)
        if row >= 0 and column >= 0 and self.isColumnHidden(column):
            self.setCurrentCell(row, self.shown_column(column))

    def shown_column(self, column: int) -> int:
        """`column`, or where the look hides it, its player's points' column."""
        if self.look != "points":
            return column
        return column - column % COLUMNS_PER_PLAYER + COLUMNS_PER_PLAYER - 1

    def least_width(self, look: TableLook | None = None) -> int:
        """The width that shows every column at its least, with no scrolling across, in `look`
        (None: as it is)."""
        look = self.look if look is None else look
        shown = self.columnCount() // (COLUMNS_PER_PLAYER if look == "points" else 1)
        columns = shown * self._least[look]
        bar = self.verticalScrollBar().sizeHint().width()  # (there once the rounds fill it)
        return 2 * self.frameWidth() + self.verticalHeader().width() + columns + bar

    def moveCursor(
        self,
        action: QAbstractItemView.CursorAction,
        modifiers: Qt.KeyboardModifier,
    ) -> QModelIndex:
        """From no row chosen, Down goes to the first round and Up to the last (the first Down
        landed on the names, and it took three presses to reach round 1); the piles' headers
        row is passed over (the names row stays reachable: Enter there asks for the players)."""
        index = super().moveCursor(action, modifiers)
        if self.rowCount() <= HEADER_ROWS:
            return index
        row = index.row()
        up = action == QAbstractItemView.CursorAction.MoveUp
        if self.currentRow() < 0:
            row = self.rowCount() - 1 if up else HEADER_ROWS
        elif row == HEADER_ROWS - 1:  # Dutch / Blitz / Pts: nothing to do there
            row = 0 if up else HEADER_ROWS
        return self.model().index(row, self.shown_column(max(0, index.column())))

    def resizeEvent(self, event: QResizeEvent) -> None:
        # the round the keyboard is on, in view before, stays in view: a board that made room
        # for its totals shrank the table under a round just saved, which went out of sight
        current = self.currentIndex()
        row = self.visualRect(current)
        shown_before = self.viewport().height() - (event.size() - event.oldSize()).height()
        seen = current.row() >= HEADER_ROWS and row.top() >= 0 and row.bottom() < shown_before
        super().resizeEvent(event)
        self._place_frozen()
        if self._follow_last and self.currentRow() < HEADER_ROWS:
            self.scrollToBottom()
        elif seen and event.oldSize().isValid():
            self.scrollTo(current)

    def updateGeometries(self) -> None:
        super().updateGeometries()
        self._place_frozen()

    def scrollTo(
        self,
        index: QModelIndex | QPersistentModelIndex,
        hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
    ) -> None:
        bar, row = self.verticalScrollBar(), index.row()
        if row < HEADER_ROWS:  # always in view, on the frozen rows: a click on a name there
            kept = bar.value()  # scrolled the rounds back to the first
            super().scrollTo(index, hint)
            bar.setValue(kept)
            return
        super().scrollTo(index, hint)
        # a round's row under the frozen rows is out of view: scrolled down to just under them
        if row >= HEADER_ROWS and row < bar.value() + HEADER_ROWS:
            bar.setValue(row - HEADER_ROWS)

    def _place_frozen(self) -> None:
        """The frozen rows over the top of the table, as wide as it is."""
        if not hasattr(self, "_frozen"):  # (PySide6 6.7-6.8 lay the table out in __init__,
            return  # before the frozen rows are made: the app did not start)
        height = sum(self.rowHeight(row) for row in range(min(HEADER_ROWS, self.rowCount())))
        self._frozen.setGeometry(
            self.frameWidth(),
            self.frameWidth(),
            self.verticalHeader().width() + self.viewport().width(),
            height,
        )
        self._frozen.verticalHeader().setFixedWidth(self.verticalHeader().width())
        for column in range(self.columnCount()):
            self._frozen.setColumnWidth(column, self.columnWidth(column))

    @Slot(int, int, int)
    def _on_row_resized(self, row: int, _old: int, new: int) -> None:
        if row < HEADER_ROWS:
            self._frozen.setRowHeight(row, new)
            self._place_frozen()

    def _on_scrolled_by_hand(self, _action: int) -> None:
        self._follow_last = False

    @Slot(int, int, int)
    def _on_section_resized(self, index: int, _old: int, new: int) -> None:
        self._frozen.setColumnWidth(index, new)
        self._fit_names()
        self._fit_names_soon()

    @Slot(QModelIndex)
    def _on_frozen_double_clicked(self, index: QModelIndex) -> None:
        self._on_double_clicked(index.row(), index.column())

    def _fit_names_soon(self) -> None:
        """`_fit_names` once the columns have their widths: measured as the first of them
        is resized (the columns stretched one by one, some hidden), the last name would keep the
        width before ("Diederik" left as "…" over a column with room for it)."""
        if not self._names_due:
            self._names_due = True
            QTimer.singleShot(0, self, self._fit_names_now)

    def _fit_names_now(self) -> None:
        self._names_due = False
        self._fit_names()

    def _fit_names(self) -> None:
        """The names over their three columns each, all drawn smaller (NAME_SHRUNK of the
        table's bold) where one would be cut, then each cut with "…" to its columns' width (the
        whole name is its tooltip): in columns of points alone at 150 %, "Ann" is "A…"
        otherwise."""
        bold = QFont(self.font())
        bold.setBold(True)
        rooms = {
            i: sum(self.columnWidth(i * COLUMNS_PER_PLAYER + j) for j in range(COLUMNS_PER_PLAYER))
            - 12
            for i in range(len(self._names))
            if self.item(0, i * COLUMNS_PER_PLAYER) is not None
        }
        font, metrics, names = QFont(bold), QFontMetrics(bold), self._names
        if any(elided(metrics, names[i], room) != names[i] for i, room in rooms.items()):
            font.setPointSizeF(bold.pointSizeF() * NAME_SHRUNK)
        for i, room in rooms.items():
            item = self.item(0, i * COLUMNS_PER_PLAYER)
            item.setFont(font)
            item.setText(elided(QFontMetrics(font), self._names[i], room))

    @staticmethod
    def _item(text: str, font: QFont | None = None, *, dim: bool = False) -> QTableWidgetItem:
        item = QTableWidgetItem(text)
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        if font is not None:
            item.setFont(font)
        if dim:
            item.setForeground(QColor(150, 156, 170))
        return item

    def current_round(self) -> int | None:
        """The round (from 1) of the row the keyboard or a click is on, if it is a round's."""
        row = self.currentRow()
        return row - HEADER_ROWS + 1 if row >= HEADER_ROWS else None

    def _on_double_clicked(self, row: int, _column: int) -> None:
        if row >= HEADER_ROWS:
            self.roundActivated.emit(row - HEADER_ROWS + 1)
        elif row == 0:
            self.playersActivated.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Enter (or F2, as in a file manager) on a round's row edits it, as a double-click does
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_F2)
        if event.key() in keys and (self.currentRow() >= HEADER_ROWS or self.currentRow() == 0):
            self._on_double_clicked(self.currentRow(), self.currentColumn())  # names: Players
            return
        if event.key() in keys and self.currentRow() < 0 and self.rowCount() > HEADER_ROWS:
            # on no row (a round just saved, a match just opened): the newest round, the one
            # most often mended, where the key did nothing, unsaid
            newest = self.rowCount() - 1
            self.setCurrentCell(newest, self.shown_column(0))
            self._on_double_clicked(newest, self.currentColumn())
            return
        if event.key() == Qt.Key.Key_Space and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            # the scan's key, passed on to the window where it is not allowed now (a decided
            # match): it said why nothing happened, where the table took Space to select
            event.ignore()
            return
        super().keyPressEvent(event)


def _frozen_rows(table: RoundTable) -> QTableView:
    """A view of `table`'s own items showing its header rows, laid over its top (Qt's frozen
    column, for rows): it never scrolls down, and across in step with the table."""
    frozen = QTableView(table)
    frozen.setModel(table.model())
    # the table's own selection: the names row chosen by keyboard shows chosen on the overlay
    # (with a selection of its own it never did), and a click on a name chooses that row
    frozen.setSelectionModel(table.selectionModel())
    frozen.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    frozen.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    frozen.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    frozen.pressed.connect(lambda _index: table.setFocus(Qt.FocusReason.MouseFocusReason))
    frozen.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    frozen.setAutoScroll(False)
    frozen.horizontalHeader().hide()
    frozen.verticalHeader().setDefaultSectionSize(table.verticalHeader().defaultSectionSize())
    frozen.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    frozen.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    frozen.setFrameShape(QFrame.Shape.NoFrame)
    frozen.setWordWrap(False)
    frozen.setTextElideMode(Qt.TextElideMode.ElideNone)
    frozen.setHorizontalScrollMode(table.horizontalScrollMode())
    frozen.doubleClicked.connect(table._on_frozen_double_clicked)
    # (a screen reader met it as a second, unnamed table)
    frozen.setAccessibleName("Rounds: the players' names, kept in view")
    frozen.show()
    return frozen


def split_widths(total: int, table_least: int, chart_least: int) -> tuple[int, int]:
    """The rounds table's and the chart's widths out of `total`: three fifths and two, or
    more for the table where its columns would not fit in three fifths, as long as the chart
    keeps `chart_least`."""
    table = total * 3 // 5
    if table < table_least:
        table = max(table, min(table_least, total - chart_least))
    return table, total - table


class ScoreboardView(QWidget):
    """Everything the table sees between rounds."""

    roundActivated = Signal(int)
    playersActivated = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = plain_label()
        self.title.setObjectName("matchTitle")
        self.status = plain_label()
        self.status.setObjectName("matchStatus")
        self.status.setWordWrap(True)
        self.cards_grid = QGridLayout()
        self.cards_grid.setSpacing(12)
        self.cards: list[TotalCard] = []
        self.table = RoundTable()
        self.chart = RunningTotalsChart()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.chart)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 400])
        # the table takes more than its three fifths where its columns need it (with five
        # players at 1366 px the last player's points scrolled out of view), until the user
        # moves the handle
        self._split = split
        self._split_by_hand = False
        split.splitterMoved.connect(self._on_split_moved)
        split.installEventFilter(self)
        layout = QVBoxLayout()
        layout.addWidget(self.title)
        layout.addWidget(self.status)
        layout.addLayout(self.cards_grid)
        layout.addWidget(split, 1)
        # the page scrolls down where the window is shorter than it: eight players' cards in
        # two rows made the window 666 px tall at least, its bottom past a 600-px screen's
        self.page = scrolling_rows(layout)
        # (and across where it is narrower: the table and the chart keep their least width)
        self.page.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.page)
        # ... and to the rounds when the keyboard is on them: scrolled past, the arrows moved
        # a row nobody saw, and Delete deleted it
        # (only as the keyboard moves there: a match opened, or a round saved, gave the table
        # the focus and its last round, and the page scrolled past the headline and the
        # cards on a short screen)
        self._redrawing = False
        self._two_rows = False  # the cards are laid in two rows (more players than one holds)
        # the keyboard brought the focus to the rounds, or moved it among them: the page keeps
        # its round in the window as the window is made smaller (it went below its edge)
        self._keyboard_on_table = False
        self.table.installEventFilter(self)
        self.table.currentCellChanged.connect(self._on_round_moved)
        self.table.cellPressed.connect(self._on_round_pressed)
        self.table.roundActivated.connect(self.roundActivated)
        self.table.playersActivated.connect(self.playersActivated)

    def _base_look(self) -> CardLook:
        """The totals drawn smaller for two rows of cards, or a board short for its text size
        (else at 150 % in a 1024 x 640 window the cards take the page, a round of the table and
        a sliver of the chart left under them)."""
        scale = text_scale()
        short = self.height() < SHORT_BOARD * scale
        # (two rows of large totals where the board has the height: in one, at 1920 x 1080 five
        # players' totals are drawn at 36 pt in cards mostly empty)
        cramped = self._two_rows and self.height() < TALL_BOARD * scale
        return "compact" if cramped or short else "large"

    def _fit_cards(self) -> None:
        """Each card's look: the base look, else beside the names where the page would not fit
        the window and every card keeps its name's room (`TotalCard.fits_beside`)."""
        cards = [card for card in self.cards if not card.isHidden()]
        set_styled(self.status, compact=False)
        for card in cards:
            card.set_bare(False)
        for look in (self._base_look(), "compact", "tight"):
            for card in cards:
                card.set_look(look)
            overflowing = bool(cards) and self._overflows()
            if not overflowing:
                break
        tight = look == "tight" and all(card.fits_beside() for card in cards)
        if look == "tight" and not tight:
            for card in cards:  # (compact, which overflowed)
                card.set_look("compact")
        # and a headline smaller where the page is still taller than the window (at 150 % a
        # long name's lead takes two lines: the newest round below the edge)
        if overflowing:
            set_styled(self.status, compact=True)
            overflowing = self._overflows()
        if tight and overflowing:
            # and each player's card without its deck's line (its back and strip say it): at
            # 150 % in a 1024 x 640 window five players' cards put the newest round below the
            # edge
            for card in cards:
                card.set_bare(True)

    def _overflows(self) -> bool:
        """Whether the page, laid out as it is now, is taller than the window shows (what the
        page's scroll area asks of it: the height its rows want at its width)."""
        content = self.page.widget()
        layout = content.layout()
        # (the cards' new sizes reach the page's layouts only by posted events: measured
        # without this, each resize read the look before, and the looks took turns)
        for card in self.cards:
            card.layout().activate()
        self.cards_grid.invalidate()
        layout.invalidate()
        layout.activate()
        width = self.page.viewport().width()
        need = content.minimumSizeHint().height()
        if layout.hasHeightForWidth():
            need = max(need, layout.totalHeightForWidth(width))
        return need > self.page.viewport().height()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_cards()
        # and again once the splitter has shared the new width itself (fitted before it, with
        # the chart's legend at its old width, eight players' cards stay compact over a page
        # too tall for the window); not on every change of the chart's width: the page's scroll
        # bar coming and going changes it, and each fit brings the bar back (243 shares in 200
        # idle passes)
        QTimer.singleShot(0, self, self._fit_cards)
        if self._keyboard_on_table and self.table.hasFocus():
            self._show_table_soon()

    def _on_round_moved(self) -> None:
        if not self._redrawing:
            self._show_table_soon()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._split and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self._share_width)  # (once the splitter has its own)
        if watched is self.table:
            kind = event.type()
            if kind == QEvent.Type.FocusOut:
                self._keyboard_on_table = False
            elif isinstance(event, QKeyEvent) and event.key() in MOVING_KEYS:
                self._keyboard_on_table = True
            elif (
                isinstance(event, QFocusEvent)
                and kind == QEvent.Type.FocusIn
                and event.reason() in KEYBOARD_FOCUS
            ):
                self._keyboard_on_table = True
                self._show_table_soon()
        return super().eventFilter(watched, event)

    def _on_round_pressed(self) -> None:
        # (a click on a round is no keyboard: else the page read by its totals, scrolled up, is
        # pulled down to the rounds at the next resize)
        self._keyboard_on_table = False

    def _on_split_moved(self, _position: int, _index: int) -> None:
        self._split_by_hand = True
        self._share_width()  # (only the headers: the share is the user's)

    def _share_width(self) -> None:
        """The splitter's width shared between the rounds and the chart (`split_widths`)."""
        total = sum(self._split.sizes())
        if total <= 0:
            return
        # the table's first look (TABLE_LOOKS) whose columns fit beside the chart's least (or
        # in the table's share the user gave it)
        room = self._split.sizes()[0] if self._split_by_hand else total - CHART_LEAST
        fits = [look for look in TABLE_LOOKS if self.table.least_width(look) <= room]
        self.table.set_look(fits[0] if fits else TABLE_LOOKS[-1])
        widths = split_widths(total, self.table.least_width(), CHART_LEAST)
        if not self._split_by_hand and list(widths) != self._split.sizes():
            self._split.setSizes(list(widths))
            self._fit_cards()  # (the chart's legend may want other rows at its new width)

    def _show_table_soon(self) -> None:
        # (once the table has scrolled to its row itself)
        QTimer.singleShot(0, self, self._show_table_row)

    def _show_table_row(self) -> None:
        """Scroll the page to the table's current row, or its first rows, where the window is
        too short to show the whole page."""
        table = self.table
        if not table.hasFocus():
            return
        viewport = table.viewport()
        row = table.visualRect(table.currentIndex())
        if not row.isValid() or not viewport.rect().intersects(row):
            row = QRect(0, 0, viewport.width(), min(viewport.height(), 3 * ROW_HEIGHT))
        centre = viewport.mapTo(self.page.widget(), row.center())
        # (a row more above and below in view: the ones around it, or the names over it)
        self.page.ensureVisible(centre.x(), centre.y(), 40, 2 * ROW_HEIGHT)

    def show_match(self, match: Match, standings: Standings) -> None:
        settings = match.settings
        self._keyboard_on_table = False  # (until the keyboard moves on the rounds drawn)
        self.title.setText(
            f"Target {settings.target} · {settings.variant} · "
            f"{len(match.rounds)} round{'s' if len(match.rounds) != 1 else ''} played"
        )
        # "round 20" kept on one line: a headline that wraps left "20" alone on the next
        self.status.setText(re.sub(r"round (\d+)", "round\u00a0\\1", status_text(match, standings)))
        set_styled(self.status, decided=standings.status != "in-progress")
        entries = self._entries(match, standings)
        while len(self.cards) < len(entries):
            self.cards.append(TotalCard())
        places = card_places(len(entries))
        self._two_rows = places[-1][0] > 0  # (a match has two players or more)
        for card, entry, (row, column) in zip(self.cards, entries, places, strict=False):
            card.show_total(**entry)
            self.cards_grid.addWidget(card, row, column)  # (moves a card placed before)
            card.show()
        for card in self.cards[len(entries) :]:
            card.hide()
        # each card's deck and seat lines at one size, the smallest any needs: a deck cut short
        # at 9 pt beside one at 18 pt reads broken. (Not the names: drawn at the
        # smallest any needs, one long name makes every name at the table small.)
        shown = self.cards[: len(entries)]
        for card in shown:
            card.detail.drawn_with = [other.detail for other in shown if other is not card]
        self._redrawing = True
        try:
            self.table.show_rounds(match, standings)
        finally:
            self._redrawing = False
        self.chart.set_data(chart_series(match, standings), settings.target)
        self._fit_cards()
        QTimer.singleShot(0, self, self._share_width)  # (the columns it needs may have changed)

    @staticmethod
    def _entries(match: Match, standings: Standings) -> list[dict]:
        highlighted = set(standings.winners or (standings.leaders if match.rounds else ()))
        # (a winner's card was said to lead once the match was decided)
        highlighted_as = {"won": "wins", "shared": "shares the win"}.get(standings.status, "leads")
        if standings.team_totals is None:
            return [
                {
                    "name": p.name,
                    # (the note on a line of its own: beside the deck, "left after rou…"
                    # was cut at 1280 px, the one word saying why the card is dimmed)
                    "detail": "\n".join(filter(None, (deck_label(p.deck), seat_note(p)))),
                    "total": standings.totals[p.name],
                    "decks": [p.deck],
                    "leader": p.name in highlighted,
                    "highlighted_as": highlighted_as,
                    # (a winner who left after the deciding round is no less the winner)
                    "out": not p.playing and p.name not in standings.winners,
                }
                for p in match.players
            ]
        entries = []
        for i, (team, total) in enumerate(standings.team_totals.items()):
            members = [p for p in match.players if p.team == team]
            # a member a line: on one, cut with "…" beside the team's backs, the partner's name
            # and total were lost (a card is narrow at 150 %, or with four players a row)
            # (the total kept whole, the name cut: "Bartholomew Montgo…" had lost the 36)
            said = "\n".join(
                isolated(p.name)
                + (f" ({note})" if (note := seat_note(p)) else "")
                + f"{KEEP_END}{standings.totals[p.name]}"
                for p in members
            )
            # every player left (a team that won and left is no less the winner)
            out = team not in (*standings.contenders, *standings.winners) and match.rounds
            entries.append(
                {
                    "name": team,
                    "detail": "\n".join(  # (each line a paragraph: each marked)
                        map(
                            left_to_right,
                            (("out of the running · " if out else "") + said).split("\n"),
                        )
                    ),
                    "total": total,
                    "decks": [p.deck for p in members],
                    "leader": team in highlighted,
                    "highlighted_as": highlighted_as,
                    "out": bool(out),
                    # the team's line on the chart (`chart_series`): its decks blended were
                    # another colour than that line
                    "colour": TEAM_RGB[i % len(TEAM_RGB)],
                }
            )
        return entries
