"""ui/labels.py: text people type is shown as typed."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument

from blitzcam.game.text import unmarked
from blitzcam.ui.labels import ElidedLabel, as_plain


def _shown(text: str) -> str:
    """What Qt draws of `text` in a message box or tooltip (rich text when it might be)."""
    from PySide6.QtGui import Qt

    document = QTextDocument()
    if Qt.mightBeRichText(text):
        document.setHtml(text)
    else:
        document.setPlainText(text)
    return document.toPlainText()


@pytest.mark.parametrize(
    "typed",
    [
        "Delete the match of <s>Ann, Bob (2 rounds)?",  # the rest was struck through
        "Delete round 2 (Bob<br>Jr 4/4, <b>Cy</b> 12/0)?",  # a line broken, a name bold
        "Tom & Jerry's <i>table</i>",
        "<b>Ann</b>  and  Bob",  # (markup collapsed its spaces)
        "<s>Ann\n  Bob\tJr",  # (and a line's leading spaces, a tab)
        "Ann, Bob",  # nothing like markup: as it is, a plain tooltip's own layout kept
    ],
)
def test_a_typed_name_in_a_question_or_tooltip_is_shown_as_typed(qtbot, typed: str) -> None:
    # (review: '<s>Ann' in the Delete questions struck through everything after it)
    assert _shown(as_plain(typed)) == typed
    assert as_plain("Ann, Bob") == "Ann, Bob"
    label = ElidedLabel(typed)
    qtbot.addWidget(label)
    assert _shown(label.toolTip()) == typed


def test_a_number_is_never_cut_inside_and_a_kept_end_stays_whole(qtbot) -> None:
    # (a latecomer's "with -10 points" read "with -1…", another number; a team member's total
    # after a long name was cut away: "Bartholomew Montgo…"; review)
    from PySide6.QtGui import QFont, QFontMetrics

    from blitzcam.ui.labels import KEEP_END, elided

    metrics = QFontMetrics(QFont("DejaVu Sans", 10))
    text = "joined after round 2 with -10 points"
    for width in range(metrics.horizontalAdvance("joined after"), metrics.horizontalAdvance(text)):
        cut = elided(metrics, text, width)
        kept = cut.removesuffix("…")
        inside = kept[-1:] in "0123456789-" and text[len(kept):len(kept) + 1].isdigit()
        assert text.startswith(kept) and not inside, cut
    name = "Bartholomew Montgomery-Smythe"
    for width in (60, 120, 200):
        cut = elided(metrics, f"{name}{KEEP_END}36", width)
        assert cut.endswith(" 36") and metrics.horizontalAdvance(cut) <= width, cut
    assert elided(metrics, f"Ann{KEEP_END}36", 400) == "Ann 36"


MARKUP_NAMES = ("<b>Ann</b>", "<img src='no-such.png'>Bo", "<a href='x'>Cy</a>")


def _drawn_as_markup(text: str) -> bool:
    """Whether `text`, shown where Qt guesses the format, draws one of MARKUP_NAMES as markup."""
    from PySide6.QtGui import Qt as GuiQt

    return GuiQt.mightBeRichText(text) and any(name in text for name in MARKUP_NAMES)


def _markup_shown() -> list[str]:
    """Every label, tooltip and table cell's tooltip in the app's windows drawing a name as
    markup."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QLabel, QTableWidget

    found = []
    for widget in QApplication.allWidgets():
        plain = not isinstance(widget, QLabel) or widget.textFormat() == Qt.TextFormat.PlainText
        if not plain and _drawn_as_markup(widget.text()):
            found.append(f"{type(widget).__name__} {widget.objectName()}: {widget.text()}")
        if _drawn_as_markup(widget.toolTip()):
            found.append(f"tooltip of {type(widget).__name__}: {widget.toolTip()}")
        if isinstance(widget, QTableWidget):
            for row in range(widget.rowCount()):
                for col in range(widget.columnCount()):
                    item = widget.item(row, col)
                    if item is not None and _drawn_as_markup(item.toolTip()):
                        found.append(f"cell ({row}, {col}) of {type(widget).__name__}: {item.toolTip()}")
    return found


def test_names_like_markup_are_drawn_as_typed_everywhere(qtbot, store, tmp_path) -> None:
    # (a round's points, the matches browser's players and standings, and the scan's warnings
    # drew them as markup: '<img src=/dev/zero>' on hover read that file until memory ran out;
    # the confirm's problems showed the escaped markup, "&lt;b&gt;"; security review)
    from PySide6.QtWidgets import QApplication

    from blitzcam.game.rules import Match, Player, Round, Settings, Tally
    from blitzcam.ui.confirm import ConfirmDialog
    from blitzcam.ui.history import MatchBrowser
    from blitzcam.ui.main_window import MainWindow
    from tests.ui.fakes import ScriptedFeed, synthetic_frame

    decks = ("green-pump", "red-buggy", "blue-plow")
    players = tuple(Player(name, deck) for name, deck in zip(MARKUP_NAMES, decks, strict=True))
    played = Round({name: Tally(dutch=4 + i, blitz=i) for i, name in enumerate(MARKUP_NAMES)})
    match_id = store.create_match(Match(players, Settings(target=75), (played,)))
    feed = ScriptedFeed([synthetic_frame(0, [])])
    window = MainWindow(
        store, open_source=lambda spec: feed, counter=feed.counter,
        settings_path=tmp_path / "app-settings.json", interval_ms=1,
    )  # fmt: skip
    qtbot.addWidget(window)
    window.show()
    window.show_match(match_id)
    assert _markup_shown() == []  # the round's points, each name's tooltip
    window.browse_action.trigger()  # the matches browser: its players and standings
    qtbot.waitUntil(lambda: any(isinstance(w, MatchBrowser) for w in QApplication.topLevelWidgets()))
    assert _markup_shown() == []
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MatchBrowser):
            widget.close()
    window.scan_action.trigger()
    scan = window.scan
    scan._warned = f"{MARKUP_NAMES[0]}'s cards: 3 lie over a pile"
    scan._show_warnings()
    assert MARKUP_NAMES[0] in scan.warnings.text()  # (drawn as typed)
    assert _markup_shown() == []
    over = Round({name: Tally(dutch=45 if i == 0 else 1, blitz=0) for i, name in enumerate(MARKUP_NAMES)})
    dialog = ConfirmDialog(players, over, title="Round 2", parent=window)
    qtbot.addWidget(dialog)
    assert unmarked(dialog.editor.problems.text()).startswith(f"⚠ {MARKUP_NAMES[0]}: 45 Dutch cards")
    assert _markup_shown() == []
    dialog.reject()
