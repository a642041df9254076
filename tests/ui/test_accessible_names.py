"""What a screen reader is told: every box named by whose and what it is, and the drawn widgets
(the chart, the live view, a total's card) said in words. A review found "spin box 8", "edit
text" and silence where the eye reads headers, pictures and painted text."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blitzcam.ui.chart import RunningTotalsChart, Series
from blitzcam.ui.confirm import ConfirmDialog
from blitzcam.ui.counting_worker import CountSnapshot
from blitzcam.ui.join import JoinDialog
from blitzcam.ui.live_view import LiveView
from blitzcam.ui.new_match import NewMatchDialog
from blitzcam.ui.scoreboard import RoundTable, TotalCard
from blitzcam.ui.settings import AppSettings, SettingsDialog
from tests.ui.fakes import match_of, round_of


def test_each_count_box_says_whose_and_which_pile(qtbot) -> None:
    dialog = ConfirmDialog(match_of().players, round_of(Ann=(9, 0), Bob=(5, 2), Cy=(7, 1)), title="Round 1")
    qtbot.addWidget(dialog)
    assert dialog.editor.dutch["Bob"].accessibleName() == "Bob, Dutch cards"
    assert dialog.editor.blitz["Cy"].accessibleName() == "Cy, Blitz cards"


def test_the_seats_and_the_dialogs_boxes_are_named(qtbot, tmp_path: Path) -> None:
    new = NewMatchDialog()
    qtbot.addWidget(new)
    assert [new.rows[1].name.accessibleName(), new.rows[1].deck.accessibleName(),
            new.rows[1].team.accessibleName()] == ["Player 2: name", "Player 2: deck", "Player 2: team"]  # fmt: skip
    join = JoinDialog(match_of(round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2))))
    qtbot.addWidget(join)
    assert join.start.accessibleName() == "Starting total"
    settings = SettingsDialog(AppSettings(), data_dir=tmp_path)
    qtbot.addWidget(settings)
    assert settings._camera.accessibleName() == "Camera"


def test_a_total_s_card_is_read_as_one(qtbot) -> None:
    card = TotalCard()
    qtbot.addWidget(card)
    card.show_total(name="Ann", detail="Green pump", total=14, decks=["green-pump"], leader=True)
    assert card.accessibleName() == "Ann, Green pump: 14 points, leads"
    card.show_total(name="Bob", detail="Red buggy", total=-3, decks=["red-buggy"], leader=False, out=True)
    assert card.accessibleName() == "Bob, Red buggy: -3 points, left the table"
    table = RoundTable()
    qtbot.addWidget(table)
    assert table.accessibleName().startswith("Rounds")


def test_the_chart_and_the_live_view_say_in_words_what_they_draw(qtbot) -> None:
    chart = RunningTotalsChart()
    qtbot.addWidget(chart)
    chart.set_data([Series("Ann", (0, 128, 0), (5, 12)), Series("Di", (0, 0, 255), (3,), joined=1)], 75)
    assert chart.accessibleName() == "Running totals by round"
    assert chart.accessibleDescription() == "Ann 12 after round 2; Di 3 after round 2; target 75"
    view = LiveView()
    qtbot.addWidget(view)
    assert view.accessibleName() == "Camera view"
    assert view.accessibleDescription() == "Waiting for the camera…"
    view.show_frame(np.zeros((36, 64, 3), np.uint8), CountSnapshot(note="No detector model: train one"))
    assert view.accessibleDescription() == "No detector model: train one"
    view.show_message("The camera stopped")
    assert view.accessibleDescription() == "The camera stopped"
