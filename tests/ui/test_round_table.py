"""ui/round_table.py on its own; the table as the board lays it out is tested with the board
(tests/ui/test_scoreboard.py)."""

from __future__ import annotations

from blitzcam.ui.round_table import RoundTable


def test_a_table_laid_out_before_its_frozen_rows_are_made_starts(qtbot) -> None:
    # PySide6 6.7-6.8 lay the table out inside QTableWidget's __init__ (hiding its header),
    # before RoundTable had made its frozen rows: the app did not start (review, a wheel
    # installed with PySide6 6.8.3)
    table = RoundTable()
    qtbot.addWidget(table)
    frozen = table._frozen
    del table._frozen  # as it is while QTableWidget.__init__ runs
    table.updateGeometries()
    table._frozen = frozen
    table.updateGeometries()
    assert frozen.width() > 0
