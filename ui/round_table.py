"""The scoreboard's rounds table: a row a round, each player's Dutch, Blitz and round score,
their names kept in view over it; Enter, F2 or a double-click on a row asks to edit that round,
on the names to change the players. It shows what the core computes and holds no rule.
"""

from __future__ import annotations

from typing import Final, Literal

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from blitzcam.game.rules import Match, Round, Standings
from blitzcam.ui.deck_colours import deck_text_rgb
from blitzcam.ui.labels import as_plain, elided

HEADER_ROWS: Final = 2  # player names, then each one's SUB_HEADERS
ROW_HEIGHT: Final = 34  # a round's row, in pixels
MIN_COLUMN: Final = 40  # a count's column at the least, in pixels (more where the text needs)
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
NAME_SHRUNK: Final = 0.8  # a name over the rounds' columns, drawn this much smaller, then cut


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
            head.setForeground(QColor(*deck_text_rgb(player.deck)))
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
        for n in range(1, len(match.rounds) + 1):  # (said "1", "2" to a screen reader)
            header = self.verticalHeaderItem(HEADER_ROWS + n - 1)
            header.setData(Qt.ItemDataRole.AccessibleTextRole, f"Round {n}")
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
                points.setToolTip(
                    as_plain(f"{player.name}: Dutch {tally.dutch}, Blitz {tally.blitz}")
                )
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
        if event.key() == Qt.Key.Key_F2 and self.currentRow() < 0 and self.rowCount() > HEADER_ROWS:
            # on no row (a round just saved, a match just opened): the newest round, the one
            # most often mended, where the key did nothing, unsaid (F2 alone: Enter saves a
            # round, and a second press would open the round just saved)
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
