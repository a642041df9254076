"""What a screen reader is told: every box named by whose and what it is, and the drawn widgets
(the chart, the live view, a total's card) said in words. A review found "spin box 8", "edit
text" and silence where the eye reads headers, pictures and painted text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtGui import QAccessible

from blitzcam.game.text import isolated, unmarked
from blitzcam.ui.chart import RunningTotalsChart, Series
from blitzcam.ui.confirm import ConfirmDialog
from blitzcam.ui.counting_worker import CountSnapshot
from blitzcam.ui.join import JoinDialog
from blitzcam.ui.live_view import LiveView
from blitzcam.ui.new_match import NewMatchDialog
from blitzcam.ui.players import PlayersDialog
from blitzcam.ui.round_table import RoundTable
from blitzcam.ui.settings import AppSettings, SettingsDialog
from blitzcam.ui.total_card import TotalCard
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
    # On Linux Qt names a combo box by its item ("Green pump"): the seat's label names it
    labels = QAccessible.queryAccessibleInterface(new.rows[1].deck).relations(QAccessible.RelationFlag.Label)
    assert [label.text(QAccessible.Text.Name) for label, _ in labels] == ["Player 2: deck"]
    players = PlayersDialog(match_of().players)
    qtbot.addWidget(players)
    labels = QAccessible.queryAccessibleInterface(players.rows[2].deck).relations(QAccessible.RelationFlag.Label)
    assert [label.text(QAccessible.Text.Name) for label, _ in labels] == ["Player 3: deck"]
    join = JoinDialog(match_of(round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2))))
    qtbot.addWidget(join)
    assert join.start.accessibleName() == "Starting total"
    # (not "Player 1: name", the first seat's: a review)
    assert [join.row.name.accessibleName(), join.row.deck.accessibleName()] == [
        "The player joining: name", "The player joining: deck"]
    # ... and its label is no seat's ("Player 1: deck", a reader's name for the combo box;
    # accessibility review)
    labels = QAccessible.queryAccessibleInterface(join.row.deck).relations(QAccessible.RelationFlag.Label)
    assert "Player 1: deck" not in [label.text(QAccessible.Text.Name) for label, _ in labels]
    settings = SettingsDialog(AppSettings(), data_dir=tmp_path)
    qtbot.addWidget(settings)
    assert settings._camera.accessibleName() == "Camera"
    # ... and the row's label is its label (on Linux a reader named it by its text alone:
    # "demo, combo box"; accessibility review)
    labels = QAccessible.queryAccessibleInterface(settings._camera).relations(QAccessible.RelationFlag.Label)
    assert [label.text(QAccessible.Text.Name) for label, _ in labels] == ["Camera"]


def test_a_total_s_card_is_read_as_one(qtbot) -> None:
    card = TotalCard()
    qtbot.addWidget(card)
    card.show_total(name="Ann", detail="Green pump", total=14, decks=["green-pump"], leader=True)
    assert card.accessibleName() == "Ann, Green pump: 14 points, leads"
    card.show_total(name="Bob", detail="Red buggy", total=-3, decks=["red-buggy"], leader=False, out=True)
    assert card.accessibleName() == "Bob, Red buggy: -3 points, left the table"
    # a winner is said to win, not lead; one point is a point (review)
    card.show_total(name="Cy", detail="Blue plow", total=1, decks=["blue-plow"], leader=True,
                    highlighted_as="wins")  # fmt: skip
    assert card.accessibleName() == "Cy, Blue plow: 1 point, wins"
    # a team's members, isolated for the eye, are heard without the marks (review)
    card.show_total(name="Reds", detail=f"{isolated('Ann')} 5\n{isolated('Bob')} 3", total=8,
                    decks=["red-buggy", "red-plow"], leader=False)  # fmt: skip
    assert card.accessibleName() == "Reds, Ann 5, Bob 3: 8 points"
    table = RoundTable()
    qtbot.addWidget(table)
    assert table.accessibleName().startswith("Rounds")
    assert table._frozen.accessibleName() == "Rounds: the players' names, kept in view"


def test_the_cards_of_a_decided_match_say_who_won(qtbot) -> None:
    from blitzcam.game.rules import score_match
    from blitzcam.ui.scoreboard import ScoreboardView

    view = ScoreboardView()
    qtbot.addWidget(view)
    for tallies, said in (({"Ann": (40, 0), "Bob": (2, 1), "Cy": (0, 0)}, "wins"),
                          ({"Ann": (35, 0), "Bob": (35, 0), "Cy": (0, 0)}, "shares the win")):  # fmt: skip
        match = match_of(round_of(**tallies), target=30)
        view.show_match(match, score_match(match))
        assert view.cards[0].accessibleName().endswith(f"points, {said}")
        assert not view.cards[2].accessibleName().endswith(said)


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


def _announced(monkeypatch) -> list[tuple[str, bool]]:
    """What is told to a screen reader as it happens: (text, at once)."""
    from PySide6.QtGui import QAccessible

    told: list[tuple[str, bool]] = []

    def update(event) -> None:
        if hasattr(event, "message"):
            assertive = event.politeness() == QAccessible.AnnouncementPoliteness.Assertive
            told.append((event.message(), assertive))

    monkeypatch.setattr(QAccessible, "updateAccessibility", update)
    return told


def test_news_and_refusals_are_told_as_they_come(qtbot, monkeypatch) -> None:
    # (shown in the status bar or a red label only: a reader was never told they changed)
    from blitzcam.ui.dialog_parts import error_label
    from blitzcam.ui.status_bar import WrappingStatusBar

    told = _announced(monkeypatch)
    bar = WrappingStatusBar()
    qtbot.addWidget(bar)
    bar.showMessage("Round 1 undone", 5000)
    error = error_label()
    qtbot.addWidget(error)
    error.setText("Not saved: Ann's Blitz cards must be between 0 and 10, got 99")
    error.setText("")
    view = LiveView()
    qtbot.addWidget(view)
    view.show_message("Hold still")
    view.show_message("Hold still")  # (said once, not at every frame)
    bar.showMessage(f"{isolated('Ann')} joined", 5000)  # (isolated for the eye, heard bare)
    assert told == [
        ("Round 1 undone", False),
        ("Not saved: Ann's Blitz cards must be between 0 and 10, got 99", True),
        ("Waiting for the camera…", False),  # (a new view's own first news)
        ("Hold still", False),
        ("Ann joined", False),
    ]


def test_the_review_s_caller_the_enroll_buttons_and_targets_are_named(qtbot) -> None:
    from blitzcam.ui.counting_worker import NullCounter
    from blitzcam.ui.enroll import EnrollDialog
    from tests.ui.fakes import FakeSource

    dialog = ConfirmDialog(match_of().players, round_of(Ann=(9, 0), Bob=(5, 2), Cy=(7, 1)),
                           title="Round 1")  # fmt: skip
    qtbot.addWidget(dialog)
    assert dialog.caller.accessibleName() == "Called Blitz"
    enroll = EnrollDialog(FakeSource([np.zeros((8, 8, 3), np.uint8)]), NullCounter("none"))
    qtbot.addWidget(enroll)
    assert enroll.enroll_buttons["blue-plow"].accessibleName() == "Enroll Blue plow from view"
    assert enroll.forget_buttons["red-buggy"].accessibleName() == (
        "Red buggy: use the built-in drawing"
    )
    new = NewMatchDialog()
    qtbot.addWidget(new)
    assert new.target_buttons.button(75).accessibleName() == "Target 75"
    assert new.custom_target.accessibleName() == "Custom target"


def test_the_rounds_table_s_columns_are_named_and_tab_leaves_it(qtbot) -> None:
    table = RoundTable()
    qtbot.addWidget(table)
    match = match_of(round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2)))
    from blitzcam.game.rules import score_match

    table.show_rounds(match, score_match(match))
    labels = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert labels[:4] == ["Ann Dutch", "Ann Blitz", "Ann points", "Bob Dutch"]
    assert not table.tabKeyNavigation()


def test_the_scan_page_says_its_step_shots_and_counts(qtbot) -> None:
    from blitzcam.ui.counting_worker import CountedFrame, NullCounter
    from blitzcam.ui.scan import ScanView
    from tests.ui.fakes import FakeSource

    ann, bob = match_of().players[:2]
    view = ScanView((ann, bob), FakeSource([np.zeros((8, 8, 3), np.uint8)]), NullCounter(""))
    qtbot.addWidget(view)
    snapshot = CountSnapshot(counts={ann.deck: 7, bob.deck: 2}, settled=True, scene=1)
    view._on_counted(CountedFrame(np.zeros((36, 64, 3), np.uint8), snapshot, 1))
    said = view.accessibleDescription()
    assert said.startswith(view.step_title.text())
    assert "0 shots in this step" in said and "Ann: 7 in view, 0 shot; Bob: 2 in view" in said
    view.capture_button.click()
    assert "1 shot in this step" in view.accessibleDescription()
    assert "Ann: 7 in view, 7 shot" in view.accessibleDescription()
    assert view.accessibleName().startswith("Scan: Space shoots")


def test_the_live_view_s_news_is_told_once_however_many_frames_repeat_it(qtbot, monkeypatch) -> None:
    # a frame clears the message and the scan sets it again: "Hold still" was told 31 times
    told = _announced(monkeypatch)
    view = LiveView()
    qtbot.addWidget(view)
    frame = np.zeros((36, 64, 3), np.uint8)
    for _ in range(30):
        view.show_frame(frame, CountSnapshot())
        view.show_message("Hold still")
    view.show_message("Nothing on the table has changed")
    view.show_frame(frame, CountSnapshot())
    view.show_message("Hold still")  # (news again after other news: told again)
    assert [text for text, _ in told] == [
        "Waiting for the camera…", "Hold still", "Nothing on the table has changed", "Hold still"
    ]


def test_the_box_at_fault_says_why_the_round_was_not_saved(qtbot) -> None:
    # the focus went to it, its description empty, the reason in a label out of reach
    dialog = ConfirmDialog(match_of().players, round_of(Ann=(9, 0), Bob=(5, 2), Cy=(7, 1)),
                           title="Round 1")  # fmt: skip
    qtbot.addWidget(dialog)
    dialog.show_error("Blitz cards must be between 0 and 10, got 99", player="Bob", pile="Blitz")
    said = "Not saved: Blitz cards must be between 0 and 10, got 99"
    assert dialog.editor.blitz["Bob"].accessibleDescription() == said
    dialog.show_error("every count is 0", player="Ann")
    assert dialog.editor.blitz["Bob"].accessibleDescription() == ""
    assert dialog.editor.dutch["Ann"].accessibleDescription() == "Not saved: every count is 0"


def test_a_seat_s_refusal_goes_to_its_box_in_the_new_match_dialog(qtbot) -> None:
    # the refusal was a label the focus cannot reach: a screen reader heard it once, and the
    # focus stayed on OK, away from the name that broke the rule
    from tests.ui.test_dialogs import _ok

    dialog = NewMatchDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.activateWindow()
    qtbot.waitActive(dialog)
    dialog.count.setValue(3)
    first = dialog.rows[0].name.text()
    dialog.rows[2].name.setText(first)  # the first seat's name too
    _ok(dialog)
    second = dialog.rows[2].name
    assert dialog.focusWidget() is second and second.selectedText() == first
    assert "two players have this name" in second.accessibleDescription()
    second.setText("Cy")
    dialog.rows[2].deck.setCurrentIndex(dialog.rows[2].deck.findData(dialog.rows[0].deck.currentData()))
    _ok(dialog)
    assert dialog.focusWidget() is dialog.rows[2].deck
    assert "is already played by" in dialog.rows[2].deck.accessibleDescription()
    assert second.accessibleDescription() == ""  # (answered: no longer said there)
    dialog.count.setValue(4)  # three seats of one name: the second is where the rule broke
    dialog.rows[2].deck.setCurrentIndex(dialog.rows[2].deck.findData("blue-plow"))
    dialog.rows[2].name.setText(first)
    dialog.rows[3].name.setText(first)
    _ok(dialog)
    assert dialog.focusWidget() is dialog.rows[2].name
    dialog.count.setValue(3)
    second.setText("Cy")
    dialog.rows[2].deck.setCurrentIndex(dialog.rows[2].deck.findData(dialog.rows[0].deck.currentData()))
    _ok(dialog)
    dialog.rows[2].deck.setCurrentIndex(dialog.rows[2].deck.findData("blue-plow"))
    dialog.rows[1].name.setText("A\u200bn")  # a name that is no name: found by its text
    _ok(dialog)
    assert dialog.focusWidget() is dialog.rows[1].name
    dialog.rows[1].name.setText("Bob")
    dialog.teams.setChecked(True)
    dialog.rows[0].team.setText("North")
    dialog.rows[1].team.setText("South")
    _ok(dialog)  # Cy has no team
    assert dialog.focusWidget() is dialog.rows[2].team


def test_a_latecomer_s_and_the_players_refusals_go_to_their_boxes(qtbot, store, tmp_path) -> None:
    from blitzcam.ui.join import JoinDialog
    from blitzcam.ui.players import PlayersDialog
    from tests.ui.fakes import ScriptedFeed, synthetic_frame
    from tests.ui.test_dialogs import _ok
    from tests.ui.test_main_window import _window

    store.create_match(match_of())
    window = _window(qtbot, store, ScriptedFeed([synthetic_frame(0, [])]), tmp_path)
    window.join_action.trigger()
    join = window.findChild(JoinDialog)
    join.activateWindow()
    qtbot.waitActive(join)
    join.row.name.setText("bob")  # looks like Bob
    _ok(join)
    assert join.isVisible() and join.focusWidget() is join.row.name
    assert "looks like 'Bob'" in join.row.name.accessibleDescription()
    join.reject()
    window.players_action.trigger()
    players = window.findChild(PlayersDialog)
    players.activateWindow()
    qtbot.waitActive(players)
    players.rows[2].name.setText("Ann")  # Cy renamed as the first seat
    _ok(players)
    assert players.isVisible() and players.focusWidget() is players.rows[2].name
    assert "two players have this name" in players.rows[2].name.accessibleDescription()
    players.reject()


def test_the_scan_tells_its_shots_steps_and_warnings_and_answers_each_press(qtbot, monkeypatch) -> None:
    # (a review: Space, Enter, Backspace said nothing; the face-up warning was for the eye
    # only; and the shoot-again question, asked a second time, went unsaid, so a second Space
    # shot the pile twice)
    from blitzcam.ui.counting_worker import CountedFrame, NullCounter
    from blitzcam.ui.scan import ScanView
    from tests.ui.fakes import FakeSource

    told = _announced(monkeypatch)
    ann, bob = match_of().players[:2]
    view = ScanView((ann, bob), FakeSource([np.zeros((8, 8, 3), np.uint8)]), NullCounter(""))
    qtbot.addWidget(view)
    snapshot = CountSnapshot(counts={ann.deck: 7, bob.deck: 2}, settled=True, scene=1,
                             voted_face_up=1)  # fmt: skip
    view._on_counted(CountedFrame(np.zeros((36, 64, 3), np.uint8), snapshot, 1))
    said = [text for text, _ in told]
    assert "⚠ 1 face-up card: flip it" in said
    assert "⚠ 1 face-up card: flip it" in view.accessibleDescription()
    view.capture_button.click()
    assert [text for text, _ in told][-1] == "Step 1 of 2: Dutch cards. 1 shot in this step"
    view._on_counted(CountedFrame(np.zeros((36, 64, 3), np.uint8), snapshot, 2))
    view.capture_button.click()  # another frame of the same view: asked
    question = [text for text, _ in told][-1]
    assert question.startswith("Nothing on the table has changed")
    view.drop_button.click()
    assert [text for text, _ in told][-1] == "Step 1 of 2: Dutch cards. 0 shots in this step"
    view.capture_button.click()
    view._on_counted(CountedFrame(np.zeros((36, 64, 3), np.uint8), snapshot, 3))
    view.capture_button.click()  # asked again: told again
    assert [text for text, _ in told][-1] == question
    view.next_button.click()
    assert [text for text, _ in told][-1] == "Step 2 of 2: Blitz cards left. 0 shots in this step"


def test_a_capture_drawn_off_screen_tells_a_screen_reader_nothing(qtbot, monkeypatch) -> None:
    # ("Waiting for the camera…" was said for each capture a review drew)
    from blitzcam.ui.live_view import render_capture

    told = _announced(monkeypatch)
    render_capture(np.zeros((36, 64, 3), np.uint8), CountSnapshot(), width=64)
    assert told == []


def test_the_same_status_message_again_is_told_again(qtbot, monkeypatch) -> None:
    # (Qt leaves an unchanged message be, unsignalled: Delete with no round chosen, pressed a
    # second time, said nothing)
    from blitzcam.ui.status_bar import WrappingStatusBar

    told = _announced(monkeypatch)
    bar = WrappingStatusBar()
    qtbot.addWidget(bar)
    for _ in range(2):
        bar.showMessage("Choose the round to delete in the table first", 5000)
    assert [text for text, _ in told] == ["Choose the round to delete in the table first"] * 2


def test_what_the_matches_list_and_the_enroll_dialog_say_is_told(qtbot, monkeypatch, store) -> None:
    # ("Not saved: …", "Deleted the match of …" were set on a plain label, unsaid; a review)
    from blitzcam.ui.counting_worker import NullCounter
    from blitzcam.ui.dialog_parts import NewsLabel
    from blitzcam.ui.enroll import EnrollDialog
    from blitzcam.ui.history import MatchBrowser
    from tests.ui.fakes import FakeSource

    told = _announced(monkeypatch)
    browser = MatchBrowser(store)
    qtbot.addWidget(browser)
    enroll = EnrollDialog(FakeSource([np.zeros((8, 8, 3), np.uint8)]), NullCounter("none"))
    qtbot.addWidget(enroll)
    assert isinstance(browser.message, NewsLabel) and isinstance(enroll.message, NewsLabel)
    told.clear()
    for _ in range(2):  # (said again: the same failure twice is news twice)
        browser.message.setText("Not saved: /nowhere/x.json: No such file or directory")
    assert [text for text, _ in told] == ["Not saved: /nowhere/x.json: No such file or directory"] * 2


def test_a_frame_s_own_news_is_told_once_and_a_warning_not_at_each_count(qtbot, monkeypatch) -> None:
    # (a waiting shot's "hold still" was told again at every counted frame, and the pile
    # warning at every change of its count; a review of the first version)
    from blitzcam.ui.counting_worker import CountedFrame, NullCounter
    from blitzcam.ui.scan import ScanView
    from blitzcam.ui.shot_decision import HOLD_STILL
    from tests.ui.fakes import FakeSource

    told = _announced(monkeypatch)
    ann, bob = match_of().players[:2]
    view = ScanView((ann, bob), FakeSource([np.zeros((8, 8, 3), np.uint8)]), NullCounter(""))
    qtbot.addWidget(view)

    def counted(index: int, ann_backs: int, *, settled: bool) -> None:
        snapshot = CountSnapshot(counts={ann.deck: ann_backs, bob.deck: 2}, settled=settled,
                                 scene=1)  # fmt: skip
        view._on_counted(CountedFrame(np.zeros((36, 64, 3), np.uint8), snapshot, index))

    counted(1, 7, settled=False)
    view.capture_button.click()  # waits for the view to settle
    for index in range(2, 8):
        counted(index, 7, settled=False)
    assert [text for text, _ in told].count(HOLD_STILL) == 1
    view.session = view.session.next_step()  # the Blitz step: Ann's count over a pile's 10
    for index, backs in enumerate((14, 15, 14, 16), start=10):
        counted(index, backs, settled=True)
    piles = [text for text, _ in told if "Blitz pile" in text]
    assert len(piles) == 1 and "(Ann 14)" in piles[0]


def test_a_warning_that_comes_and_goes_is_told_once_until_it_has_been_gone_a_while(qtbot, monkeypatch) -> None:
    # (a face-up card the counter saw in some frames and not others was "flip it" at each
    # return: ten times in ten frames; review)
    from blitzcam.ui.counting_worker import CountedFrame, NullCounter
    from blitzcam.ui.scan import WARNING_TOLD_AGAIN_S, ScanView
    from tests.ui.fakes import FakeSource

    told = _announced(monkeypatch)
    ann, bob = match_of().players[:2]
    view = ScanView((ann, bob), FakeSource([np.zeros((8, 8, 3), np.uint8)]), NullCounter(""))
    qtbot.addWidget(view)
    now = [100.0]
    view.clock = lambda: now[0]
    frame = np.zeros((36, 64, 3), np.uint8)
    for index in range(10):
        snapshot = CountSnapshot(counts={ann.deck: 7}, settled=True, scene=1,
                                 voted_face_up=index % 2)  # fmt: skip
        view._on_counted(CountedFrame(frame, snapshot, index))
        now[0] += 1.0
    flips = [text for text, _ in told if text == "⚠ 1 face-up card: flip it"]
    assert len(flips) == 1
    view._on_counted(CountedFrame(frame, CountSnapshot(counts={ann.deck: 7}, settled=True, scene=1), 10))
    now[0] += WARNING_TOLD_AGAIN_S  # gone a while: news again when it comes back
    view._on_counted(CountedFrame(frame, CountSnapshot(counts={ann.deck: 7}, settled=True, scene=1,
                                                       voted_face_up=1), 11))  # fmt: skip
    assert len([text for text, _ in told if text == "⚠ 1 face-up card: flip it"]) == 2


def test_the_enroll_dialog_s_message_box_is_named(qtbot) -> None:
    # (a stop of the Tab order named nothing; accessibility review)
    from PySide6.QtWidgets import QScrollArea

    from blitzcam.ui.enroll import EnrollDialog
    from tests.ui.fakes import FakeCounter, FakeSource

    dialog = EnrollDialog(FakeSource([np.zeros((8, 8, 3), np.uint8)]), FakeCounter([]))
    qtbot.addWidget(dialog)
    box = dialog.message.parentWidget()
    while not isinstance(box, QScrollArea):
        box = box.parentWidget()
    assert box.accessibleName() == "Message"


def test_the_confirm_dialog_tells_its_warnings_and_a_refused_count_as_they_come(qtbot, monkeypatch) -> None:
    # (a shot missing, decks that look alike and a count the rules refuse were on the screen
    # alone: nothing was told as the dialog opened, nor as 11 was typed in a Blitz box, and the
    # box the focus was in carried no reason; accessibility review)
    from blitzcam.ui import confirm

    told: list[str] = []
    # (as `announce` says it: the marks that keep names in order are nothing to a reader)
    monkeypatch.setattr(confirm, "announce", lambda source, text, **kw: told.append(unmarked(text)))
    dialog = ConfirmDialog(match_of().players, round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2)),
                           title="Round 1", check=["Ann", "Bob"], unshot=["Blitz"])  # fmt: skip
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert told and "Blitz" in told[-1] and "Check Ann and Bob" in told[-1]
    assert dialog.accessibleDescription() == told[-1]
    told.clear()
    dialog.editor.blitz["Cy"].setValue(11)
    assert told == ["⚠ Cy: 11 Blitz cards: a Blitz pile is dealt 10"]
    assert dialog.editor.blitz["Cy"].accessibleDescription() == "Cy: 11 Blitz cards: a Blitz pile is dealt 10"
    dialog.editor.dutch["Cy"].setValue(3)  # (Cy's count still refused: not told again,
    dialog.editor.blitz["Cy"].setValue(12)  # nor at every key: 11 to 15 was told 4 times)
    dialog.editor.blitz["Cy"].setValue(2)  # (none: cleared, which announce says nothing of)
    assert told == ["⚠ Cy: 11 Blitz cards: a Blitz pile is dealt 10", ""]
    assert dialog.editor.blitz["Cy"].accessibleDescription() == ""
    # a count refused as the dialog opens is told with it, not before it is shown
    told.clear()
    opened = ConfirmDialog(match_of().players, round_of(Ann=(5, 0), Bob=(3, 11), Cy=(2, 2)),
                           title="Round 2")  # fmt: skip
    qtbot.addWidget(opened)
    assert told == []
    opened.show()
    qtbot.waitExposed(opened)
    assert told == ["⚠ Bob: 11 Blitz cards: a Blitz pile is dealt 10"]


def test_the_matches_list_reads_its_names_without_marks_of_direction(qtbot, store) -> None:
    # (its cells, read as the arrows move, were '\u200e\u2068Ann\u2069, \u2068Bob\u2069, …':
    # marks some readers say aloud, kept off every other name said; accessibility review)
    from blitzcam.game.text import unmarked
    from blitzcam.ui.history import MatchBrowser
    from tests.ui.fakes import match_of, round_of

    store.create_match(match_of(round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2))))
    browser = MatchBrowser(store)
    qtbot.addWidget(browser)
    table = QAccessible.queryAccessibleInterface(browser.table)
    cells = [table.child(i) for i in range(table.childCount())]
    said = [cell.text(QAccessible.Text.Name) for cell in cells if cell.role() == QAccessible.Role.Cell]
    players, standing = said[2], said[4]  # (the first row's: number, change, players, …)
    assert players == "Ann, Bob, Cy" and standing == "in progress: Ann leads with 5"
    assert unmarked(browser.table.item(0, 2).text()) == players != browser.table.item(0, 2).text()


def test_each_round_s_row_is_said_as_its_round(qtbot) -> None:
    # (its header was read as a bare number, "1", "2"; accessibility review)
    from blitzcam.game.rules import score_match
    from blitzcam.ui.round_table import RoundTable
    from tests.ui.fakes import match_of, round_of

    match = match_of(round_of(Ann=(5, 0), Bob=(3, 1), Cy=(2, 2)), round_of(Ann=(1, 0), Bob=(3, 1), Cy=(2, 2)))
    table = RoundTable()
    qtbot.addWidget(table)
    table.show_rounds(match, score_match(match))
    shown = QAccessible.queryAccessibleInterface(table)
    headers = [shown.child(i) for i in range(shown.childCount())]
    said = [h.text(QAccessible.Text.Name) for h in headers if h.role() == QAccessible.Role.RowHeader]
    assert [text for text in said if text] == ["Round 1", "Round 2"]
