"""A line chart of running totals per round, drawn with QPainter (PySide6-Essentials has no
QtCharts). The axis arithmetic is pure and tested on its own; the widget only paints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

MARGINS: Final = (56, 16, 20, 52)  # left, top, right, bottom, in pixels
GRID: Final = QColor(255, 255, 255, 40)
AXIS_TEXT: Final = QColor(200, 204, 214)
TARGET_PEN: Final = QColor(255, 215, 0, 170)


@dataclass(frozen=True, slots=True)
class Series:
    """One line: a player's (or team's) total after each round, starting from 0 before round 1."""

    label: str
    colour: tuple[int, int, int]
    totals: tuple[int, ...]  # after round 1, 2, …


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


def value_ticks(low: int, high: int, max_ticks: int = 6) -> list[int]:
    """Tick values covering [low, high] (0 always included), multiples of a nice step."""
    low, high = min(low, 0), max(high, 0)
    if low == high:
        high = low + 1
    step = nice_step(high - low, max_ticks)
    start = math.floor(low / step) * step
    stop = math.ceil(high / step) * step
    return list(range(start, stop + step, step))


class RunningTotalsChart(QWidget):
    """Running totals per round; the target as a dashed golden line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._series: tuple[Series, ...] = ()
        self._target: int | None = None
        self.setMinimumHeight(180)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_data(self, series: Sequence[Series], target: int | None) -> None:
        self._series = tuple(series)
        self._target = target
        self.update()

    def series(self) -> tuple[Series, ...]:
        return self._series

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        left, top, right, bottom = MARGINS
        plot = QRectF(left, top, self.width() - left - right, self.height() - top - bottom)
        rounds = max((len(s.totals) for s in self._series), default=0)
        values = [0, *(v for s in self._series for v in s.totals)]
        if self._target is not None:
            values.append(self._target)
        ticks = value_ticks(min(values), max(values))
        y_lo, y_hi = ticks[0], ticks[-1]
        x_hi = max(rounds, 1)

        def point(round_index: int, value: float) -> QPointF:
            x = plot.left() + plot.width() * round_index / x_hi
            y = plot.bottom() - plot.height() * (value - y_lo) / (y_hi - y_lo)
            return QPointF(x, y)

        font = QFont(self.font())
        font.setPointSizeF(max(8.0, font.pointSizeF() * 0.85))
        painter.setFont(font)
        for tick in ticks:
            p = point(0, tick)
            painter.setPen(QPen(GRID, 2 if tick == 0 else 1))
            painter.drawLine(QPointF(plot.left(), p.y()), QPointF(plot.right(), p.y()))
            painter.setPen(AXIS_TEXT)
            painter.drawText(
                QRectF(0, p.y() - 10, left - 8, 20),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                str(tick),
            )
        x_step = nice_step(x_hi, 12)
        for r in range(0, x_hi + 1, x_step):
            p = point(r, y_lo)
            painter.drawText(
                QRectF(p.x() - 20, plot.bottom() + 4, 40, 20), Qt.AlignmentFlag.AlignHCenter, str(r)
            )
        painter.drawText(
            QRectF(plot.left(), plot.bottom() + 4, plot.width() - 24, 20),
            Qt.AlignmentFlag.AlignRight,
            "round",
        )
        if self._target is not None:
            pen = QPen(TARGET_PEN, 2, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            y = point(0, self._target).y()
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.drawText(
                QRectF(plot.left() + 4, y - 20, 200, 18), Qt.AlignmentFlag.AlignLeft,
                f"target {self._target}",
            )
        for s in self._series:
            pen = QPen(QColor(*s.colour), 4)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            painter.setPen(pen)
            points = [point(0, 0), *(point(i, v) for i, v in enumerate(s.totals, start=1))]
            painter.drawPolyline(points)
            painter.setBrush(QColor(*s.colour))
            for p in points[1:]:
                painter.drawEllipse(p, 4, 4)
            painter.setBrush(Qt.BrushStyle.NoBrush)
        x = plot.left()
        for s in self._series:  # legend under the axis
            painter.fillRect(QRectF(x, self.height() - 18, 12, 12), QColor(*s.colour))
            painter.setPen(AXIS_TEXT)
            width = painter.fontMetrics().horizontalAdvance(s.label)
            painter.drawText(QPointF(x + 16, self.height() - 7), s.label)
            x += width + 34
        painter.end()
