"""Matches: a list of every match in the store (the latest first), open one, export one as
JSON (the match file) or CSV (the score sheet). Export formats come from the core.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Final

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from blitzcam.files import database_in_the_way, write_text_atomic
from blitzcam.game.match_file import EXPORT_FORMATS, export_text
from blitzcam.game.rules import Match, MatchError
from blitzcam.game.store import MatchStore, StoreError
from blitzcam.game.text import (
    describe_standing,
    isolated,
    left_mark,
    left_to_right,
    local_time,
    unmarked,
)
from blitzcam.ui.dialog_parts import NewsLabel
from blitzcam.ui.labels import as_plain
from blitzcam.ui.scrolling import SCREEN_ALLOWANCE
from blitzcam.ui.text_size import text_scale


def export_path(chosen: str, kind: str) -> Path:
    """The file a save dialog's answer names: with the ending of `kind` (the format the user
    picked, 'json' or 'csv') added when the name has neither, as Qt's own dialog does not on
    every platform. A name that says .json or .csv keeps its own."""
    path = Path(chosen)
    if path.suffix.lower() in {f".{k}" for k in EXPORT_FORMATS}:
        return path
    return path.with_name(f"{path.name}.{kind}")


def ask_export_target(parent: QWidget, title: str, suggested: str, filters: str) -> Path | None:
    """The file to export to, asked in a save dialog (None: cancelled). When the ending is added
    to the name typed, the dialog's own overwrite check was about another file: a file already
    under the full name is replaced only if the user says so here."""
    path, chosen = QFileDialog.getSaveFileName(parent, title, suggested, filters)
    if not path:
        return None
    target = export_path(path, "csv" if "*.csv" in chosen else "json")
    if target != Path(path) and target.exists():
        answer = QMessageBox.question(  # (No by default: Enter kept the file)
            parent,
            title,
            as_plain(f"{target.name} already exists in {target.parent}. Replace it?"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return None
    return target


def export_match(match: Match, path: Path, *, store: Path) -> None:
    """Write `match` to `path`: .csv -> the score sheet, anything else -> the match JSON.
    OSError where it cannot be written, or is a database (the match store `store`, or one
    like it), never written over."""
    why = database_in_the_way(path, store)
    if why is not None:
        raise OSError(errno.EEXIST, why, str(path))
    write_text_atomic(path, export_text(match, "csv" if path.suffix.lower() == ".csv" else "json"))


OPENS_AT: Final = (980, 420)  # the browser's first size at the base text size, in pixels


class MatchBrowser(QDialog):
    """Every match; `openRequested(match_id)` asks the main window to show it."""

    openRequested = Signal(int)
    deleted = Signal(int)  # a match deleted here (the window lets it go if it shows it)

    def __init__(
        self, store: MatchStore, parent: QWidget | None = None, *, current: int | None = None
    ) -> None:
        """`current`: the match open in the window, chosen in the list at first (the newest
        was: Enter, Open or an export then acted on another match than the one on screen)."""
        super().__init__(parent)
        self.setWindowTitle("Matches")
        # as large as the text is (at 150 % two matches' players read "Bartholomew …" alike),
        # up to the screen
        k, free = text_scale(), self.screen().availableGeometry()
        self.resize(
            min(round(OPENS_AT[0] * k), free.width() - SCREEN_ALLOWANCE),
            min(round(OPENS_AT[1] * k), free.height() - SCREEN_ALLOWANCE),
        )
        self._store = store
        self._current = current
        self._list_note = ""  # what `reload` last said of the list
        self._listed_mark: tuple[int, int] | None = None  # the store's change mark then
        self._row_after_delete = 0  # the row chosen after a delete, where the deleted one was
        # the match's number first: the one `blitzcam match --match ID` and the window's
        # "Resumed the unfinished match 3" name, said nowhere here
        self.table = QTableWidget(0, 5)
        self.table.setAccessibleName("Matches")
        self.table.setHorizontalHeaderLabels(["No.", "Last change", "Players", "Rounds", "Result"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        # the number, the date and the rounds as wide as they are written (the date was cut to
        # "2026-12…"); the players and the result share what is left, each cut text whole in its
        # tooltip (the result sized to its text left "Chris…" of every match's players beside
        # one shared win)
        for column in (0, 1, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        for column in (2, 4):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        # Tab leaves the list for the buttons (it walked the cells for ever: Export and Delete
        # could not be reached without a mouse); the arrows choose the match
        self.table.setTabKeyNavigation(False)
        self.message = NewsLabel()
        open_button = QPushButton("&Open")
        json_button = QPushButton("Export &JSON…")
        csv_button = QPushButton("Export &CSV…")
        # (a match could be deleted nowhere: one given up on stayed in the list for ever)
        # (auto-default, as each of these: Enter on the focused one presses it, not Open; a
        # keyboard's Enter on Delete… opened the match. Reached by Tab only: clicked, it kept
        # the focus, and the Enter that meant Open asked the delete again)
        delete_button = QPushButton("&Delete…")
        delete_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        # enabled with one listed
        self._on_a_match = (open_button, json_button, csv_button, delete_button)
        close_button = QPushButton("Close")
        buttons = QHBoxLayout()
        for b in self._on_a_match:
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        open_button.setDefault(True)  # once the dialog's (see ConfirmDialog)
        delete_key = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.table)
        delete_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_key.activated.connect(self._on_delete)  # as Delete deletes a round on the board
        open_button.clicked.connect(self._on_open)
        self.table.cellDoubleClicked.connect(lambda *_: self._on_open())
        self.table.itemSelectionChanged.connect(self._on_chosen)
        json_button.clicked.connect(lambda: self._on_export("json"))
        csv_button.clicked.connect(lambda: self._on_export("csv"))
        delete_button.clicked.connect(self._on_delete)
        close_button.clicked.connect(self.reject)
        self.reload()
        self._widen_to_the_list()

    def _widen_to_the_list(self) -> None:
        """As wide as the list's columns are written, up to the screen: at its first size a
        1920-px screen showed "shared win: Anneke and Bob after …" and five players' names
        cut. Once, as it opens: a list read again does not move the window."""
        table = self.table
        header = table.horizontalHeader()
        wants = [
            max(table.sizeHintForColumn(column), header.sectionSizeHint(column))
            for column in range(table.columnCount())
        ]
        # (the players' and the result's columns share the room left alike: each as wide as
        # the wider of them)
        columns = wants[0] + wants[1] + wants[3] + 2 * max(wants[2], wants[4])
        margins = self.layout().contentsMargins()
        bar = table.verticalScrollBar().sizeHint().width()
        wanted = columns + bar + 2 * table.frameWidth() + margins.left() + margins.right()
        room = self.screen().availableGeometry().width() - SCREEN_ALLOWANCE
        if wanted > self.width():
            self.resize(min(wanted, room), self.height())

    def changeEvent(self, event: QEvent) -> None:
        # back from another window (a round added with `blitzcam match`, another blitzcam):
        # the list as stored now, the match chosen kept
        if (
            event.type() == QEvent.Type.ActivationChange
            and self.isActiveWindow()
            and self._changed_since_listed()
        ):
            self.reload()
        super().changeEvent(event)

    def _changed_since_listed(self) -> bool:
        """Whether the file may hold other matches than those listed (its first activation,
        just after the list was made, lists nothing new: 0.13 s for 500 matches)."""
        try:
            return self._store.change_mark() != self._listed_mark
        except StoreError:
            return True  # (listed again, the list says what is wrong)

    def reload(self) -> None:
        """List the matches as stored now; the match chosen stays chosen (at first, the one
        open in the window; else the newest)."""
        chosen = self.selected_match() if self.table.rowCount() else self._current
        problems: list[str] = []
        try:
            self._listed_mark = self._store.change_mark()
            summaries = self._store.list_matches(problems=problems)
        except StoreError as exc:  # the list itself is unreadable (a damaged page, a bad disk)
            self.table.setRowCount(0)
            for button in self._on_a_match:
                button.setEnabled(False)
            self.message.setText(f"Matches cannot be listed: {exc}")
            return
        # emptied first: each item set over a filled row had the columns sized to their
        # contents measured over the whole table again (21 s for 1,000 matches, at each return)
        self.table.setRowCount(0)
        self.table.setRowCount(len(summaries))
        for row, s in enumerate(summaries):
            cells = (
                str(s.match_id),
                local_time(s.updated_at),
                left_to_right(", ".join(isolated(p.name) + left_mark(p) for p in s.players)),
                str(s.rounds_played),
                left_to_right(describe_standing(s.standings, name=isolated)),
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, s.match_id)
                if col in (2, 4):
                    item.setToolTip(as_plain(text))  # (a name is not markup: '<img …>' read a file)
                    # (read by a screen reader as the arrows move: without the marks that keep
                    # each name's direction, which some readers say aloud)
                    item.setData(Qt.ItemDataRole.AccessibleTextRole, unmarked(text))
                self.table.setItem(row, col, item)
        if summaries:
            ids = [summary.match_id for summary in summaries]
            row = ids.index(chosen) if chosen in ids else min(self._row_after_delete, len(ids) - 1)
            self.table.selectRow(max(0, row))
        self._row_after_delete = 0
        self._on_chosen()
        note = ""  # what the list says of itself
        if problems:  # a damaged match is named, and hides none of the others
            # (with what to do with one: the list cannot open it)
            note = (
                f"{len(problems)} match(es) could not be read: {problems[0]} (at a terminal, "
                "`blitzcam match export FILE --match NUMBER --as-stored` writes one out to "
                "mend and import again; `blitzcam match delete NUMBER` removes one)"
            )
        elif not summaries:
            note = "No matches yet."
        # what the last action said stays (a reload on coming back to the browser, after a
        # file dialog or a question, wiped "Saved ..."), unless the list has news of its own
        if (note or self.message.text() == self._list_note) and note != self.message.text():
            self.message.setText(note)  # (told as it changes: not at each return to the list)
        self._list_note = note

    def _on_chosen(self) -> None:
        """The buttons that act on a match, enabled while one is chosen (a selection cleared
        with Ctrl+click left them on, doing nothing)."""
        for button in self._on_a_match:
            button.setEnabled(self.selected_match() is not None)

    def selected_match(self) -> int | None:
        items = self.table.selectedItems()
        return None if not items else int(items[0].data(Qt.ItemDataRole.UserRole))

    def _on_open(self) -> None:
        match_id = self.selected_match()
        if match_id is not None:
            self.openRequested.emit(match_id)
            self.accept()

    def _on_delete(self) -> None:
        """Delete the chosen match, asked first (No the default): it cannot be brought back."""
        match_id = self.selected_match()
        if match_id is None:
            return
        row = self.table.currentRow()
        players, rounds = self.table.item(row, 2).text(), self.table.item(row, 3).text()
        changed, result = self.table.item(row, 1).text(), self.table.item(row, 4).text()
        # (named by its number, last change and result, and said when it is the one open: two
        # matches of the same players read alike)
        open_now = " It is the match open in the window." if match_id == self._current else ""
        answer = QMessageBox.question(
            self,
            "Delete match",
            as_plain(
                f"Delete match {match_id}, of {players} ({rounds} round"
                f"{'' if rounds == '1' else 's'}; last change {changed}; {result})?{open_now} "
                "It cannot be brought back: export it first to keep a copy."
            ),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        try:
            self._store.delete_match(match_id)
        except (MatchError, StoreError) as exc:  # deleted elsewhere, or the store refused
            self.message.setText(f"Not deleted: {exc}")
            return
        self.deleted.emit(match_id)
        if match_id == self._current:
            self._current = None
        self._row_after_delete = row  # (the neighbour chosen, not the newest match)
        self.reload()
        self.message.setText(f"Deleted match {match_id}, of {players}")

    def _on_export(self, kind: str) -> None:
        match_id = self.selected_match()
        if match_id is None:
            return
        target = ask_export_target(
            self,
            f"Export match {match_id}",
            f"match-{match_id}.{kind}",
            f"{kind.upper()} (*.{kind})",
        )
        if target is not None:
            try:
                match = self._store.load(match_id)
            except (MatchError, StoreError) as exc:  # deleted or damaged since it was listed
                self.message.setText(f"Not saved: {exc}")
                return
            try:
                export_match(match, target, store=self._store.path)
            except OSError as exc:
                self.message.setText(f"Not saved: {target}: {exc.strerror or exc}")
                return
            self.message.setText(f"Saved {target}")
