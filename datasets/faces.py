"""Card faces: a fully coloured card with its number in the corners, a child and a round emblem.

Original art (not the publisher's): red and blue cards show a boy in a brimmed hat, yellow and green
cards a girl in a bonnet, as the real game does; the central emblem is our own eight-petal rosette.
Faces are never counted, but the detector must learn to tell them from backs, so they only need to
look like a real face from a webcam's distance: strong colour, white numerals, white figures.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from blitzcam.datasets.engrave import (
    Drawing,
    Fill,
    Primitive,
    Stroke,
    ellipse,
    outline,
    pts,
    render,
    similarity,
    spline,
    transform,
)

FACE_COLOURS: Final[dict[str, tuple[int, int, int]]] = {
    "red": (204, 36, 44),
    "blue": (24, 88, 168),
    "yellow": (244, 196, 18),
    "green": (18, 140, 70),
}
BOY_COLOURS: Final = frozenset({"red", "blue"})
_WHITE: Final = np.array([250, 250, 246], np.float32)


def _boy() -> Drawing:
    """A boy in a brimmed hat, shirt with braces, trousers; white shapes, card-colour details."""
    return (
        Fill(ellipse(0, -0.62, 0.5, 0.08)),  # hat brim
        Fill(
            np.vstack(
                [
                    pts((-0.26, -0.64), (-0.22, -0.92)),
                    ellipse(0, -0.92, 0.22, 0.07, 180, 360),
                    pts((0.26, -0.64)),
                ]
            )
        ),
        Stroke(ellipse(0, -0.66, 0.27, 0.04, 0, 180), 0.04, ink=False),  # hat band
        Fill(ellipse(0, -0.43, 0.2, 0.2)),  # head
        Fill(pts((-0.38, -0.18), (0.38, -0.18), (0.3, 0.3), (-0.3, 0.3))),  # shirt
        Fill(outline(pts((-0.38, -0.16), (-0.52, 0.22)), 0.16)),  # arms
        Fill(outline(pts((0.38, -0.16), (0.52, 0.22)), 0.16)),
        Stroke(pts((-0.16, -0.18), (-0.12, 0.3)), 0.04, ink=False),  # braces
        Stroke(pts((0.16, -0.18), (0.12, 0.3)), 0.04, ink=False),
        Fill(
            pts(
                (-0.3, 0.32),
                (0.3, 0.32),
                (0.28, 0.9),
                (0.05, 0.9),
                (0.0, 0.45),
                (-0.05, 0.9),
                (-0.28, 0.9),
            )
        ),
        Fill(ellipse(-0.19, 0.95, 0.14, 0.05)),  # shoes
        Fill(ellipse(0.19, 0.95, 0.14, 0.05)),
    )


def _girl() -> Drawing:
    """A girl in a bonnet and long dress with an apron; white shapes, card-colour details."""
    return (
        Fill(np.vstack([ellipse(0, -0.5, 0.3, 0.34, 160, 380)])),  # bonnet
        Fill(ellipse(0, -0.44, 0.19, 0.2), ink=False),
        Fill(ellipse(0, -0.43, 0.16, 0.17)),  # face inside the bonnet
        Fill(outline(spline([(-0.12, -0.24), (0.0, -0.2), (0.12, -0.24)], 8), 0.05)),  # bow
        Fill(pts((-0.22, -0.2), (0.22, -0.2), (0.58, 0.88), (-0.58, 0.88))),  # dress
        Fill(outline(pts((-0.22, -0.16), (-0.42, 0.24)), 0.14)),  # arms
        Fill(outline(pts((0.22, -0.16), (0.42, 0.24)), 0.14)),
        Stroke(
            pts((-0.16, 0.0), (0.16, 0.0), (0.26, 0.7), (-0.26, 0.7)), 0.035, closed=True, ink=False
        ),
        Fill(ellipse(-0.15, 0.94, 0.12, 0.05)),  # shoes
        Fill(ellipse(0.15, 0.94, 0.12, 0.05)),
    )


def _emblem() -> Drawing:
    """A round rosette: white disc, eight petals and a centre in card colour, a dotted ring."""
    prims: list[Primitive] = [Fill(ellipse(0, 0, 1.0, 1.0))]
    prims.append(Stroke(ellipse(0, 0, 0.88, 0.88), 0.05, closed=True, ink=False))
    for a in range(0, 360, 45):
        petal = np.vstack(
            [
                ellipse(0.38, 0, 0.36, 0.13, 180, 360, n=16),
                ellipse(0.38, 0, 0.36, 0.13, 0, 180, n=16),
            ]
        )
        prims += transform([Fill(petal, ink=False)], similarity(scale=1.0, rot=a))
    prims.append(Fill(ellipse(0, 0, 0.14, 0.14)))
    for a in np.radians(np.arange(0, 360, 22.5) + 11.25):
        prims.append(Fill(ellipse(0.78 * np.cos(a), 0.78 * np.sin(a), 0.035, 0.035), ink=False))
    return tuple(prims)


def paint_face(colour: str, number: int, *, width: int, height: int) -> np.ndarray:
    """The face of one card as an (height, width, 3) uint8 RGB image (no corner transparency)."""
    if colour not in FACE_COLOURS:
        raise ValueError(
            f"unknown face colour {colour!r}: expected one of {', '.join(FACE_COLOURS)}"
        )
    if not 1 <= number <= 10:
        raise ValueError(f"face number must be 1..10, got {number}")
    img = np.empty((height, width, 3), np.float32)
    img[:] = FACE_COLOURS[colour]
    white = np.zeros((height, width), np.float32)

    def stamp(drawing: Drawing, size: int, cx: float, cy: float, *, flip: bool = False) -> None:
        cov = render(drawing, size, supersample=3)
        if flip:
            cov = cov[::-1, ::-1]
        x0, y0 = round(cx - size / 2), round(cy - size / 2)
        _max_into(white, cov, x0, y0)

    stamp(_emblem(), round(width * 0.46), width / 2, height / 2)
    figure = _boy() if colour in BOY_COLOURS else _girl()
    fig = round(width * 0.34)
    stamp(figure, fig, width * 0.5, height * 0.5 - width * 0.45)
    stamp(figure, fig, width * 0.5, height * 0.5 + width * 0.45, flip=True)
    numerals = _numerals(str(number), width=width, height=height)
    white = np.maximum(white, numerals)
    img += (_WHITE - img) * white[..., None]
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def _numerals(text: str, *, width: int, height: int) -> np.ndarray:
    """White corner numbers (top left upright, bottom right upside down) as coverage."""
    ss = 3
    big = np.zeros((height * ss, width * ss), np.uint8)
    font, scale = cv2.FONT_HERSHEY_DUPLEX, width * ss / 260.0
    thick = max(1, round(width * ss / 70))
    (_, th), _ = cv2.getTextSize(text, font, scale, thick)
    x, y = round(width * ss * 0.07), round(width * ss * 0.07) + th
    cv2.putText(big, text, (x, y), font, scale, 255, thick, cv2.LINE_AA)
    big = np.maximum(big, big[::-1, ::-1])
    return cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _max_into(dst: np.ndarray, src: np.ndarray, x0: int, y0: int) -> None:
    """dst[y0:, x0:] = max(dst, src) over their overlap (src may hang over the edges)."""
    h, w = src.shape
    H, W = dst.shape  # noqa: N806
    sx0, sy0 = max(0, -x0), max(0, -y0)
    dx0, dy0 = max(0, x0), max(0, y0)
    dx1, dy1 = min(W, x0 + w), min(H, y0 + h)
    if dx1 <= dx0 or dy1 <= dy0:
        return
    region = dst[dy0:dy1, dx0:dx1]
    np.maximum(region, src[sy0 : sy0 + dy1 - dy0, sx0 : sx0 + dx1 - dx0], out=region)
