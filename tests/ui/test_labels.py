"""ui/labels.py: text people type is shown as typed."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument

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
