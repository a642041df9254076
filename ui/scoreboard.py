"""The scoreboard: the result, large totals (leader highlighted: ui/total_card.py), a
round-by-round table of Dutch, Blitz and round score per player (ui/round_table.py), and a chart
of running totals, laid out to fit the window. It shows what the core computes
(`rules.score_match`); it holds no rule. Double-clicking a round asks to edit it, a player's
name to change the players.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QGridLayout, QSplitter, QVBoxLayout, QWidget

from blitzcam.game.rules import Match, Standings, team_span
from blitzcam.game.text import (
    MOST_LEADERS_NAMED,
    isolated,
    left_to_right,
    listed,
    seat_note,
    sides_of,
    unmarked,
)
from blitzcam.ui.chart import RunningTotalsChart, Series
from blitzcam.ui.deck_colours import deck_label, deck_rgb
from blitzcam.ui.labels import KEEP_END, plain_label, set_styled
from blitzcam.ui.markers import MARKERS, deck_marker
from blitzcam.ui.round_table import ROW_HEIGHT, TABLE_LOOKS, RoundTable
from blitzcam.ui.scrolling import scrolling_rows
from blitzcam.ui.text_size import text_scale
from blitzcam.ui.total_card import SHORT_BOARD, TALL_BOARD, CardLook, TotalCard

# the chart's least width beside a wide table, in pixels: not grown with the text, which
# grows the table's columns more (at 150 % five players' rounds need 1,136 px, and a least
# that grew with the text kept the table at three fifths of a 1366-px window)
CHART_LEAST: Final = 340
CARDS_PER_ROW: Final = 4  # total cards side by side; more players take two rows
# one line colour per team on the chart, as many as teams can be (eight players, one each), in
# the order the most teams are told apart by, also with the commonest colour blindness: the
# least colour difference (CIE76) of the first two, three, four, normal or as deuteranopia and
# protanopia see them, 58.9, 46.4, 25.7 (a light blue and a lavender, teams two and four before,
# were 8.2 apart to a deuteranope)
TEAM_RGB: Final = (
    (240, 240, 240),
    (250, 230, 110),
    (200, 160, 255),
    (140, 230, 160),
    (255, 140, 170),
    (255, 190, 120),
    (120, 225, 230),
    (150, 200, 255),
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
            return (
                f"{WIN_MARK} Shared win among {len(standings.winners)} {sides_of(standings)}, "
                f"after round {standings.decided_after}!"
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
        return f"{len(leaders)} {sides_of(standings)} share the lead after round {played}"
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


def said_together(names: Sequence[str]) -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cy': each name isolated (see `isolated`)."""
    return listed([isolated(name) for name in names])


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
        span = team_span(match, standings, team)
        series.append(
            Series(
                team,
                TEAM_RGB[i % len(TEAM_RGB)],
                span.totals,
                span.joined,
                span.start,
                span.away,
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
        # measured as the page is without its scroll bar: the bar of a look that overflowed
        # took a card's width for the next look's measure, and a name that fitted beside its
        # total at one fit did not at the next (at 150 % in a 1024 x 640 window the board went
        # from tight to compact as a status message cleared, its table and chart off the page)
        self.page.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        try:
            self._fit_cards_to_page()
        finally:
            self.page.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def _fit_cards_to_page(self) -> None:
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
        # smallest any needs, one long name makes every name at the table small. They are
        # drawn near it: `ElidedLabel.drawn_near`.)
        shown = self.cards[: len(entries)]
        for card in shown:
            card.detail.drawn_with = [other.detail for other in shown if other is not card]
            # (and the names near one size: each its own, "Bob" stood at 30 pt beside
            # "Christina" at 15)
            card.name.drawn_near = [other.name for other in shown if other is not card]
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
