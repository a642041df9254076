"""ui/total_card.py on its own; the cards as the board lays them out are tested with the
board (tests/ui/test_scoreboard.py)."""

from __future__ import annotations

from blitzcam.ui.total_card import TotalCard


def test_a_card_drawn_bare_drops_its_deck_line_alone(qtbot) -> None:
    # (bare, "left after round 2" went with the deck: a dimmed card said nothing of why; a
    # team's members too; the diff's review)
    card = TotalCard()
    qtbot.addWidget(card)
    card.show_total(name="Ed", detail="Blue pump\nleft after round 2", total=-4,
                    decks=["blue-pump"], leader=False, out=True)  # fmt: skip
    card.set_bare(True)
    assert card.detail.text() == "left after round 2" and not card.detail.isHidden()
    card.set_bare(False)
    assert card.detail.text() == "Blue pump\nleft after round 2"
    card.show_total(name="North", detail="Ann 12\nBob -3", total=9,
                    decks=["green-pump", "red-buggy"], leader=True)  # fmt: skip
    card.set_bare(True)
    assert card.detail.text() == "Ann 12\nBob -3"
    card.show_total(name="Cy", detail="Yellow bucket", total=5, decks=["yellow-bucket"],
                    leader=False)  # fmt: skip
    assert card.detail.isHidden()  # (drawn bare still: its one line was the deck's)
