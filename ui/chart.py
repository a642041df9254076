"""A line chart of running totals per round, drawn with QPainter (PySide6-Essentials has no
QtCharts). The axis arithmetic is pure and tested on its own; the widget only paints.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from blitzcam.ui.labels import elided
from blitzcam.ui.markers import draw_marker
from blitzcam.ui.text_size import text_scale

MARGINS: Final = (56, 16, 20, 34)  # left, top, right, bottom (above the legend), in pixels
LEGEND_ROW: Final = 18  # height of a row of the legend, in pixels
LEGEND_SWATCH: Final = 16  # a swatch and its gap before the label
LEGEND_GAP: Final = 18  # between one label and the next swatch
LEGEND_LABEL_MAX: Final = 180  # a longer name is cut short with "…"
LEGEND_LABEL_CAPS: Final = (LEGEND_LABEL_MAX, 110, 70, 40)  # ... shorter, where room is short
LEGEND_READABLE: Final = 70  # a name keeps this much at least: the chart grows a row for it
# the legend spans the chart, not only the plot (under the values' column it had room for a
# name more a row: eight names at 150 % took eight rows, and pushed the newest round out of view)
LEGEND_INSET: Final = 8  # from the chart's sides, in pixels
MIN_PLOT_HEIGHT: Final = 90  # pixels the plot keeps, where a shorter legend can leave them
# the chart's least height: with eight players' totals above it, the scoreboard fits a
# 600 px screen in full screen (at 180 it needed 624)
MIN_HEIGHT: Final = 150
# past the lowest and highest values, of their span: a line at the plot's edge is drawn whole
AXIS_MARGIN: Final = 0.04
GRID: Final = QColor(255, 255, 255, 40)
AXIS_TEXT: Final = QColor(200, 204, 214)
TARGET_PEN: Final = QColor(255, 215, 0, 170)
FADED_ALPHA: Final = 110  # a line of a player who left, dimmed as their card is


@dataclass(frozen=True, slots=True)
class Series:
    """One line: a player's (or team's) total after each round they played, starting from
    `start` after round `joined` (0 and 0: from nothing before round 1)."""

    label: str
    colour: tuple[int, int, int]
    totals: tuple[int, ...]  # after round joined + 1, joined + 2, …
    joined: int = 0
    start: int = 0
    sat_out: tuple[int, ...] = ()  # rounds the player sat out: their total carried, dashed
    # the dots' shape (MARKERS): two decks of one ink (blue pump, blue plow) drew one blue
    marker: str = "circle"
    # its dots drawn hollow: a latecomer playing the deck of a player who left, whose line
    # would be the same in every way
    hollow: bool = False
    faded: bool = False  # drawn dimmed, as the card of a player who left is


LINE_WIDTH: Final = 4  # a series' line, in pixels; lines that meet lie this far apart
MARKER_ROOM: Final = 14  # pixels between a line's dots, at least (a dot is 10 across)


def sat_out_steps(series: Series) -> list[bool]:
    """For each step of a line (from one point of `line_points` to the next), whether it leads
    into a round its player sat out: drawn dashed, with no dot (no round was played)."""
    away = set(series.sat_out)
    return [series.joined + i in away for i in range(1, len(series.totals) + 1)]


def line_points(series: Series) -> list[tuple[int, int]]:
    """(round, total) of each point of a line: from the round its player joined after (0: the
    start of the match), at their start, to the last round they played."""
    return [(series.joined, series.start)] + [
        (series.joined + i, total) for i, total in enumerate(series.totals, start=1)
    ]


def side_by_side(lines: Sequence[Sequence[tuple[int, int]]]) -> list[list[float]]:
    """Each line's points, how far below its true place each is drawn, in line widths: the
    lines at one point (level totals after a round) side by side round it, centred, the one
    going highest next on top (else the one that came from highest; else in the series'
    order), so that they part without crossing. A point no other line shares, and the match's
    start, where every line begins, stay where they are. Drawn on one another, the second line
    of a tie would hide the first."""
    shared: dict[tuple[int, int], list[int]] = {}
    for index, line in enumerate(lines):
        for at in line:
            shared.setdefault(at, []).append(index)

    def heading(index: int, at: tuple[int, int]) -> tuple[int, int, int]:
        line = lines[index]
        i = list(line).index(at)
        after = line[i + 1][1] if i + 1 < len(line) else at[1]
        before = line[i - 1][1] if i > 0 else at[1]
        return (-after, -before, index)  # (highest first: drawn on top)

    shifts = []
    for index, line in enumerate(lines):
        row = []
        for at in line:
            group = shared[at]
            if len(group) == 1 or at[0] == 0:
                row.append(0.0)
                continue
            order = sorted(group, key=lambda other, at=at: heading(other, at))
            row.append(order.index(index) - (len(group) - 1) / 2)
        shifts.append(row)
    return shifts


def nice_step(span: float, max_ticks: int) -> int:
    """A round tick step (1, 2, 5 × 10^k) giving at most `max_ticks` intervals over `span`."""
    if span <= 0 or max_ticks < 1:
        return 1
    raw = span / max_ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        step = factor * magnitude
        if step >= raw:
            return max(1, int(step))
    return max(1, int(10 * magnitude))


def value_axis(low: int, high: int, max_ticks: int = 6) -> tuple[float, float, list[int]]:
    """The value axis over [low, high] (0 always in it): its bottom and top, a margin
    (AXIS_MARGIN of the span) past the values, and the ticks inside, multiples of a nice step.
    The axis ends at the values, not at the ticks past them: at the step a short plot allows
    (200, for totals of -15 to 99 under a target of 300), it ran from -200 to 400, the totals
    a fifth of its height and a third of it under the lowest."""
    low, high = min(low, 0), max(high, 0)
    if low == high:
        high = low + 1
    margin = AXIS_MARGIN * (high - low)
    bottom, top = low - margin, high + margin
    # a step that leaves two ticks inside at least: the largest the plot allows may leave only
    # 0 (at two ticks' room, totals of -30 to 60 under a target of 75: a step of 100)
    for allowed in range(max_ticks, max_ticks + 8):
        step = nice_step(high - low, allowed)
        first, last = math.ceil(bottom / step) * step, math.floor(top / step) * step
        if last > first:
            break
    ticks = list(range(first, last + 1, step))
    # ... and no more than the plot has room for: every other one, 0 kept (the step that left
    # two put four at a short plot's two ticks' room, -47 to 18: -40, -20, 0, 20)
    sparser = [tick for tick in ticks if tick % (2 * step) == 0]
    return bottom, top, sparser if len(ticks) > max_ticks + 1 and len(sparser) >= 2 else ticks


def legend_layout(
    label_widths: Sequence[int], width: float, scale: float = 1.0
) -> list[tuple[float, int]]:
    """Where each legend entry goes: (x from the legend's left edge, row), filling a row of
    `width` pixels before starting the next, so that eight players' names all show; `scale`:
    the text's (the swatch and the gaps grow with it)."""
    swatch, gap = LEGEND_SWATCH * scale, LEGEND_GAP * scale
    places = []
    x, row = 0.0, 0
    for label_width in label_widths:
        entry = swatch + label_width
        if x > 0 and x + entry > width:
            x, row = 0.0, row + 1
        places.append((x, row))
        x += entry + gap
    return places


def legend_rows(places: Sequence[tuple[float, int]]) -> int:
    """How many rows a legend laid out by `legend_layout` takes (one, empty)."""
    return 1 + max((row for _, row in places), default=0)


def fitted_legend(
    widths_at: Callable[[int], list[int]], width: float, rows_free: int, scale: float = 1.0
) -> tuple[int, list[tuple[float, int]]]:
    """The longest label cap (LEGEND_LABEL_CAPS, in pixels at `scale`) whose legend
    (`legend_layout`) takes no more than `rows_free` rows, or else the shortest; `widths_at(cap)`
    gives the labels' widths cut to it. Eight players in a narrow window had one name a row,
    and the plot squeezed to nothing."""
    for cap in (round(cap * scale) for cap in LEGEND_LABEL_CAPS):
        places = legend_layout(widths_at(cap), width, scale)
        if legend_rows(places) <= max(1, rows_free):
            break
    return cap, places


def rows_wanted(widths_at: Callable[[int], list[int]], width: float, scale: float = 1.0) -> int:
    """The legend rows its names need to keep LEGEND_READABLE pixels each (at `scale`): the
    chart asks to be tall enough for them (at 150 % in a 1024-px window, eight names were cut
    to their first letter to fit the rows it had)."""
    return legend_rows(legend_layout(widths_at(round(LEGEND_READABLE * scale)), width, scale))


def target_label_above(line_y: float, label_height: float, top: float) -> bool:
    """Whether the target's label fits above its line (at the top of the scale it would be
    cut off by the widget's edge: it goes under the line then)."""
    return line_y - label_height >= top


def round_axis_labels(
    plot: QRectF, rounds: int, advance: Callable[[str], int], height: float = 20.0
) -> list[tuple[QRectF, str]]:
    """Where the round axis is labelled, each text in a box of its own width (`height`: a line
    of its text): the rounds' numbers under the plot, and the axis' title "round" left of the
    0, under the totals' column (at the right end, it covered the last rounds' numbers:
    "5round")."""
    y = plot.bottom() + 4
    # as many numbers as fit side by side, 12 at most (13 in 184 px covered each other)
    fit = int(plot.width() // (advance(str(max(rounds, 1))) + 8))
    step = nice_step(max(rounds, 1), max(1, min(12, fit)))
    labels = []
    for r in range(0, max(rounds, 1) + 1, step):
        x = plot.left() + plot.width() * r / max(rounds, 1)
        width = advance(str(r)) + 2
        labels.append((QRectF(x - width / 2, y, width, height), str(r)))
    zero_left = labels[0][0].left()
    width = advance("round") + 2
    labels.append(
        (QRectF(max(0.0, zero_left - 6 - width), y + height * 0.3, width, height), "round")
    )
    return labels


def chart_summary(series: Sequence[Series], target: int | None) -> str:
    """The chart in words: each line's total after the last round it has, and the target."""
    lines = [
        f"{line.label} {line.totals[-1]} after round {line.joined + len(line.totals)}"
        for line in series
        if line.totals
    ]
    return "; ".join(lines + ([f"target {target}"] if target is not None else []))


class RunningTotalsChart(QWidget):
    """Running totals per round; the target as a dashed golden line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Running totals by round")
        self._series: tuple[Series, ...] = ()
        self._target: int | None = None
        self._asked = 0  # the height last asked of the layout (minimumSizeHint)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def minimumSizeHint(self) -> QSize:
        # as tall as the text is large (at 150 % the plot kept 60 px, its numbers on top of
        # each other), and tall enough for the rows of legend its names need to keep
        # LEGEND_READABLE pixels at this width; the scoreboard's page scrolls down to it
        k = text_scale()
        metrics = QFontMetrics(self._axes_font())
        least = round(MIN_HEIGHT * k)
        width, rows_free = self._legend_room(least)
        rows = rows_wanted(self._label_widths(metrics), width, k)
        # (one row always has room: the plot gives up a little of its floor for it)
        height = least if rows <= max(1, rows_free) else max(least, self._height_with(rows))
        return QSize(super().minimumSizeHint().width(), height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._ask_for_height()

    def _ask_for_height(self) -> None:
        """Tell the layout when the height asked for changed (the legend's rows follow the
        width and the names)."""
        asked = self.minimumSizeHint().height()
        if asked != self._asked:
            self._asked = asked
            self.updateGeometry()

    def _axes_font(self) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(max(8.0, font.pointSizeF() * 0.85))
        return font

    def _elided(self, metrics: QFontMetrics, cap: int) -> list[str]:
        # (labels.elided: an Arabic name's "…" at its end as it reads, not beside its first word)
        return [elided(metrics, s.label, cap) for s in self._series]

    def _label_widths(self, metrics: QFontMetrics) -> Callable[[int], list[int]]:
        """The legend's names' widths, each cut to a cap."""
        return lambda cap: [metrics.horizontalAdvance(text) for text in self._elided(metrics, cap)]

    def _legend_room(self, height: int) -> tuple[int, int]:
        """The legend's width, and the rows it has under a plot of MIN_PLOT_HEIGHT in a chart
        `height` tall."""
        k = text_scale()
        free = height - self._height_with(0)
        return self.width() - 2 * round(LEGEND_INSET * k), free // round(LEGEND_ROW * k)

    def _height_with(self, rows: int) -> int:
        """The chart's height with a plot of MIN_PLOT_HEIGHT and `rows` rows of legend."""
        k = text_scale()
        _, top, _, bottom = (round(margin * k) for margin in MARGINS)
        return top + bottom + MIN_PLOT_HEIGHT + rows * round(LEGEND_ROW * k)

    def set_data(self, series: Sequence[Series], target: int | None) -> None:
        self._series = tuple(series)
        self._target = target
        # drawn, not written: what a screen reader says of it is the lines' last totals
        self.setAccessibleDescription(chart_summary(self._series, target))
        self._ask_for_height()
        self.update()

    def series(self) -> tuple[Series, ...]:
        return self._series

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        # the margins and rows as large as the text (at 150 % "round" ran into the numbers)
        k = text_scale()
        left, top, right, bottom = (round(margin * k) for margin in MARGINS)
        row_height = round(LEGEND_ROW * k)
        text_line = 20 * k  # a line of the axes' text
        painter.setFont(self._axes_font())
        metrics = painter.fontMetrics()
        cap, legend = fitted_legend(
            self._label_widths(metrics), *self._legend_room(self.height()), scale=k
        )
        labels = self._elided(metrics, cap)
        rows = legend_rows(legend)
        bottom += row_height * rows
        plot_height = self.height() - top - bottom
        lines = [line_points(s) for s in self._series]
        rounds = max((line[-1][0] for line in lines), default=0)
        values = [0, *(v for line in lines for _, v in line)]
        if self._target is not None:
            values.append(self._target)
        # as many values as fit the plot's height with room between them
        y_lo, y_hi, ticks = value_axis(
            min(values), max(values), max(2, min(6, int(plot_height // (1.5 * text_line))))
        )
        # the values' column as wide as its widest (a target of 100,000 read "00000")
        left = max(left, max(metrics.horizontalAdvance(str(t)) for t in ticks) + round(12 * k))
        plot = QRectF(left, top, self.width() - left - right, plot_height)
        x_hi = max(rounds, 1)

        def point(round_index: int, value: float) -> QPointF:
            x = plot.left() + plot.width() * round_index / x_hi
            y = plot.bottom() - plot.height() * (value - y_lo) / (y_hi - y_lo)
            return QPointF(x, y)

        for tick in ticks:
            p = point(0, tick)
            painter.setPen(QPen(GRID, 2 if tick == 0 else 1))
            painter.drawLine(QPointF(plot.left(), p.y()), QPointF(plot.right(), p.y()))
            painter.setPen(AXIS_TEXT)
            painter.drawText(
                QRectF(0, p.y() - text_line / 2, left - 8, text_line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                str(tick),
            )
        for rect, text in round_axis_labels(plot, x_hi, metrics.horizontalAdvance, text_line):
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        if self._target is not None:
            pen = QPen(TARGET_PEN, 2, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            y = point(0, self._target).y()
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            label_y = y - text_line if target_label_above(y, text_line, 0) else y + 2
            painter.drawText(
                QRectF(plot.left() + 4, label_y, 200 * k, text_line - 2),
                Qt.AlignmentFlag.AlignLeft,
                f"target {self._target}",
            )
        width = LINE_WIDTH
        step = marker_step(plot.width() / x_hi)
        drawn = list(zip(self._series, lines, side_by_side(lines), strict=True))
        for s, line, shifts in (drawn[i] for i in drawing_order(lines)):
            colour = series_colour(s)
            pen = QPen(colour, width)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            painter.setPen(pen)
            points = [
                point(r, v) + QPointF(0, shift * width)
                for (r, v), shift in zip(line, shifts, strict=True)
            ]
            away = sat_out_steps(s)
            for a, b, dashed in zip(points[:-1], points[1:], away, strict=True):
                pen.setStyle(Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
                painter.setPen(pen)
                painter.drawLine(a, b)
            painter.setPen(QPen(colour, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush if s.hollow else colour)
            for p, (r, _), dashed in zip(points[1:], line[1:], away, strict=True):
                if not dashed and ((x_hi - r) % step == 0 or r == line[-1][0]):
                    draw_marker(painter, s.marker, p, 5)
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(AXIS_TEXT)
        legend_top = self.height() - row_height * rows
        for s, label, (x, row) in zip(self._series, labels, legend, strict=True):
            y = legend_top + row_height * row  # legend under the axis
            painter.setPen(QPen(series_colour(s), 2))
            painter.setBrush(Qt.BrushStyle.NoBrush if s.hollow else series_colour(s))
            left_edge = LEGEND_INSET * k + x
            marker_at = QPointF(left_edge + 6 * k, y + row_height / 3)
            draw_marker(painter, s.marker, marker_at, 5 * k)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(AXIS_TEXT)
            text_at = QPointF(left_edge + LEGEND_SWATCH * k, y + row_height * 0.6)
            painter.drawText(text_at, label)
        painter.end()


def marker_step(round_width: float) -> int:
    """Every how many rounds the lines' dots are drawn, counted back from the last round (and a
    line's own last dot), where a round is `round_width` pixels wide: each where they have room,
    fewer where they would pile up (at 300 rounds the dots, 1,208 of them, covered the
    leader's line)."""
    if round_width <= 0:
        return 1
    return max(1, math.ceil(MARKER_ROOM / round_width))


def drawing_order(lines: Sequence[Sequence[tuple[int, int]]]) -> list[int]:
    """The order lines are drawn in: the highest last total last, on top of the others (the
    leader's line was hidden under the ones drawn after it); ties as listed."""
    return sorted(range(len(lines)), key=lambda i: lines[i][-1][1] if lines[i] else -math.inf)


def series_colour(series: Series) -> QColor:
    """A line's colour: its own, dimmed for one `faded`."""
    return QColor(*series.colour, FADED_ALPHA if series.faded else 255)
