"""The marks that tell decks apart without their colour, for players who cannot tell red from
green: a shape per drawing on the back (pump, buggy, bucket, plow). The chart's dots carry it,
and each counted card in the live view, twice for an expansion deck (`doubled_mark`), which
prints the same drawings in other inks. (The chart's hollow dots are a latecomer's on a
leaver's deck: hollow does not mean the expansion.)"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainter, QPolygonF

from blitzcam.game.decks import DECKS_BY_NAME

MARKERS: Final = ("circle", "square", "triangle", "diamond")
SYMBOL_MARKERS: Final[dict[str, str]] = {
    "pump": "circle",
    "buggy": "square",
    "bucket": "triangle",
    "plow": "diamond",
}


def deck_marker(deck: str) -> str:
    """A deck's shape by the drawing on its back, as its colour is its ink: the two blue decks
    (pump and plow) drew the same blue line on the chart."""
    symbol = DECKS_BY_NAME[deck].symbol if deck in DECKS_BY_NAME else ""
    return SYMBOL_MARKERS.get(symbol, "circle")


def doubled_mark(deck: str) -> bool:
    """Whether a counted card's mark is drawn twice: an expansion deck's (its drawing is a base
    deck's in another ink: green and yellow buckets read alike to a red-green blind player)."""
    return deck in DECKS_BY_NAME and DECKS_BY_NAME[deck].pack == "expansion"


def marker_shape(marker: str, centre: QPointF, radius: float) -> QPolygonF | None:
    """The polygon of a dot of `marker`'s shape around `centre` (None: a circle, drawn as an
    ellipse), its area close to the circle's."""
    x, y, r = centre.x(), centre.y(), radius
    if marker == "square":
        r *= 0.9
        corners = [(x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)]
    elif marker == "triangle":
        r *= 1.3
        corners = [(x, y - r), (x + r * 0.87, y + r * 0.5), (x - r * 0.87, y + r * 0.5)]
    elif marker == "diamond":
        r *= 1.25
        corners = [(x, y - r), (x + r, y), (x, y + r), (x - r, y)]
    else:
        return None
    return QPolygonF([QPointF(a, b) for a, b in corners])


def draw_marker(painter: QPainter, marker: str, centre: QPointF, radius: float) -> None:
    """A dot of `marker`'s shape, with the painter's pen and brush."""
    shape = marker_shape(marker, centre, radius)
    if shape is None:
        painter.drawEllipse(centre, radius, radius)
    else:
        painter.drawPolygon(shape)
