"""The four back symbols (pump, buggy, bucket, plow) as original engraving-style drawings.

Drawn from scratch in code (we may not ship the publisher's artwork). Each is designed to be told
apart by SHAPE alone, because two decks share each ink: a tall pump with a side handle and spout, a
wide buggy on two spoked wheels, a squat hooped pail under an arched bail, a low plow with long
rising handles. Frame and conventions: see `blitzcam.datasets.engrave`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Final

import numpy as np

from blitzcam.datasets.engrave import (
    Drawing,
    Fill,
    Hatch,
    Primitive,
    Stroke,
    ellipse,
    outline,
    part,
    pts,
    rect,
    spline,
    swell,
)

LINE: Final = 0.022  # main outline
THIN: Final = 0.012  # details
SHADE: Final = 0.038  # hatch spacing
SHADE_W: Final = 0.011  # hatch line width


def _wheel(cx: float, cy: float, r: float, *, spokes: int = 12) -> list[Primitive]:
    """A spoked cart wheel seen from the side: tyre, felloe, spokes, hub."""
    prims: list[Primitive] = [
        Fill(ellipse(cx, cy, r, r), ink=False),
        Stroke(ellipse(cx, cy, r, r), LINE * 1.3, closed=True),
        Stroke(ellipse(cx, cy, r * 0.86, r * 0.86), THIN, closed=True),
    ]
    # felloe shading: a ring of short radial strokes between tyre and inner rim
    ring = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    for a in ring[(np.cos(ring) + np.sin(ring)) > 0.2]:
        c, s = np.cos(a), np.sin(a)
        prims.append(
            Stroke(
                pts((cx + c * r * 0.87, cy + s * r * 0.87), (cx + c * r * 0.97, cy + s * r * 0.97)),
                SHADE_W,
            )
        )
    for a in np.linspace(0, 2 * np.pi, spokes, endpoint=False) + 0.13:
        c, s = np.cos(a), np.sin(a)
        line = pts((cx + c * r * 0.12, cy + s * r * 0.12), (cx + c * r * 0.86, cy + s * r * 0.86))
        prims.append(swell(line, THIN * 1.6, taper=0.3))
    prims.append(Fill(ellipse(cx, cy, r * 0.14, r * 0.14)))
    prims.append(Fill(ellipse(cx - r * 0.03, cy - r * 0.03, r * 0.05, r * 0.05), ink=False))
    return prims


def pump() -> Drawing:
    """A cast-iron farm pump on a plank: column, capped top, long raised handle, curved spout."""
    p: list[Primitive] = []
    # the plank it stands on, with wood grain
    plank = rect(-0.58, 0.64, 0.58, 0.84)
    p += part(plank, line=LINE)
    for y, x0, x1 in (
        (0.69, -0.5, 0.1),
        (0.74, -0.2, 0.45),
        (0.79, -0.52, -0.05),
        (0.79, 0.12, 0.5),
    ):
        p.append(swell(spline([(x0, y), ((x0 + x1) / 2, y - 0.012), (x1, y)], 12), THIN))
    # flared foot
    p += part(
        pts((-0.25, 0.5), (0.25, 0.5), (0.36, 0.64), (-0.36, 0.64)),
        line=LINE,
        hatch=-90,
        spacing=SHADE,
        hatch_width=SHADE_W,
        ramp=2.0,
    )
    # column: slightly tapered cylinder, shaded dark toward the right
    body = pts((-0.19, -0.42), (0.19, -0.42), (0.23, 0.52), (-0.23, 0.52))
    p += part(body, line=LINE)
    shade = pts((0.0, -0.42), (0.19, -0.42), (0.23, 0.52), (0.0, 0.52))
    p.append(Hatch(shade, -90, SHADE * 0.7, SHADE_W, ramp=3.0))
    p.append(
        Hatch(
            pts((-0.19, -0.42), (-0.14, -0.42), (-0.17, 0.52), (-0.23, 0.52)),
            90,
            SHADE * 0.6,
            SHADE_W,
        )
    )
    for y, rx in ((-0.28, 0.2), (0.36, 0.225)):  # cast rings
        band = np.vstack(
            [ellipse(0, y - 0.025, rx, 0.05, 0, 180), ellipse(0, y + 0.025, rx, 0.05, 180, 0)]
        )
        p.append(Fill(band))
    # spout: a curved tapering tube on the left, its mouth pointing down
    spout_c = spline([(-0.16, -0.14), (-0.42, -0.17), (-0.62, -0.08), (-0.68, 0.06)], 40)
    spout = outline(spout_c, np.linspace(0.13, 0.09, 40))
    p += part(spout, line=LINE, hatch=20, spacing=SHADE * 0.9, hatch_width=SHADE_W)
    p.append(Stroke(ellipse(-0.68, 0.06, 0.05, 0.02, rot=-10), THIN, closed=True))
    p += part(ellipse(-0.2, -0.14, 0.04, 0.1), line=THIN)  # spout flange
    for y in (0.17, 0.3, 0.42):  # water drops
        p.append(
            Fill(
                np.vstack([ellipse(-0.68, y, 0.018, 0.022, -20, 200, n=16), pts((-0.68, y - 0.05))])
            )
        )
    # top: collar, dome cap and finial
    p += part(
        rect(-0.25, -0.5, 0.25, -0.42),
        line=LINE,
        hatch=-90,
        spacing=SHADE,
        hatch_width=SHADE_W,
        ramp=2.0,
    )
    dome = np.vstack([ellipse(0, -0.5, 0.2, 0.17, 180, 360)])
    p += part(dome, line=LINE, hatch=-90, spacing=SHADE, hatch_width=SHADE_W, ramp=2.5)
    p += part(ellipse(0, -0.7, 0.045, 0.045), line=THIN)
    # fulcrum arm on the right of the cap
    p += part(
        outline(pts((0.17, -0.46), (0.33, -0.66)), 0.06),
        line=THIN,
        hatch=45,
        spacing=SHADE * 0.7,
        hatch_width=SHADE_W,
    )
    # handle: long bar rising to the upper right, knob at its end
    handle_c = spline([(-0.06, -0.6), (0.33, -0.68), (0.64, -0.83), (0.9, -0.97)], 48)
    handle = outline(handle_c, np.linspace(0.1, 0.065, 48))
    p += part(handle, line=LINE, hatch=20, spacing=SHADE * 0.9, hatch_width=SHADE_W)
    p += part(ellipse(0.33, -0.67, 0.028, 0.028), line=THIN)  # pivot pin
    p += part(ellipse(0.92, -0.975, 0.055, 0.045, rot=-25), line=LINE)
    # pump rod from the handle down into the cap
    p += part(rect(-0.025, -0.62, 0.025, -0.55), line=THIN)
    return tuple(p)


def buggy() -> Drawing:
    """A covered box buggy in profile: boxy cab with a window, two spoked wheels, shafts."""
    p: list[Primitive] = []
    # shafts reaching forward (left) to where the horse would be
    for dy, w in ((-0.06, 0.045), (0.0, 0.06)):
        shaft = spline(
            [(-0.4, 0.22 + dy), (-0.75, 0.2 + dy), (-0.95, 0.12 + dy), (-1.0, 0.06 + dy)], 32
        )
        p += part(outline(shaft, np.linspace(w, w * 0.6, 32)), line=THIN)
    p.append(swell(pts((-0.86, 0.2), (-0.86, 0.08)), THIN * 2))  # tug stop
    # wheels behind the body
    p += _wheel(0.42, 0.48, 0.37)
    p += _wheel(-0.32, 0.53, 0.32)
    # body box and cab
    box = pts((-0.5, 0.02), (0.72, 0.02), (0.72, 0.27), (-0.44, 0.27))
    p += part(box, line=LINE, hatch=0, spacing=SHADE, hatch_width=SHADE_W, ramp=1.5)
    cab = np.vstack(
        [
            pts((-0.38, 0.02), (-0.38, -0.5)),
            spline([(-0.38, -0.5), (-0.28, -0.7), (0.1, -0.74), (0.58, -0.7), (0.7, -0.52)], 40),
            pts((0.7, 0.02)),
        ]
    )
    p += part(cab, line=LINE, hatch=90, spacing=SHADE * 1.1, hatch_width=SHADE_W * 0.9)
    # roof edge and the window (paper) with a curtain line
    p.append(
        Stroke(
            spline([(-0.4, -0.52), (-0.28, -0.74), (0.1, -0.78), (0.6, -0.74), (0.73, -0.54)], 40),
            THIN,
        )
    )
    window = pts((-0.3, -0.5), (0.18, -0.52), (0.18, -0.16), (-0.3, -0.16))
    p += part(window, line=THIN)
    p.append(
        Hatch(
            pts((-0.3, -0.5), (-0.08, -0.51), (-0.08, -0.16), (-0.3, -0.16)),
            90,
            SHADE * 0.6,
            SHADE_W,
        )
    )
    p.append(Stroke(pts((0.3, -0.5), (0.3, -0.03)), THIN))  # door seam
    p.append(Fill(ellipse(0.36, -0.25, 0.018, 0.018)))  # door handle
    # dash rising at the front and a step
    dash = spline([(-0.44, 0.27), (-0.55, 0.05), (-0.6, -0.16)], 20)
    p.append(swell(dash, LINE * 1.4, taper=0.3))
    p.append(Stroke(pts((0.05, 0.27), (0.0, 0.38), (0.14, 0.38)), THIN * 1.2))
    # leaf springs
    for x in (-0.32, 0.42):
        p.append(
            Fill(
                np.vstack(
                    [
                        ellipse(x, 0.27, 0.14, 0.05, 0, 180, n=20),
                        ellipse(x, 0.27, 0.14, 0.025, 180, 0, n=20),
                    ]
                )
            )
        )
    # lantern on the corner
    p += part(rect(-0.46, -0.42, -0.4, -0.32), line=THIN)
    return tuple(p)


def bucket() -> Drawing:
    """A wooden pail: staves narrowing to the foot, two iron hoops, an arched wire bail."""
    p: list[Primitive] = []
    top_y, top_rx, top_ry = -0.22, 0.6, 0.15
    bot_y, bot_rx, bot_ry = 0.72, 0.46, 0.11

    def front(t: float) -> tuple[float, float, float]:
        """Centre y and radii of the pail's cross-section at height t (0 = rim, 1 = foot)."""
        return (
            top_y + (bot_y - top_y) * t,
            top_rx + (bot_rx - top_rx) * t,
            top_ry + (bot_ry - top_ry) * t,
        )

    # bail (behind the pail's far rim, in front of nothing)
    bail = ellipse(0, top_y - 0.02, top_rx + 0.05, 0.72, 180, 360)
    p.append(swell(bail, LINE * 1.5, taper=0.2))
    grip = outline(ellipse(0, top_y - 0.02, top_rx + 0.05, 0.72, 250, 290, n=20), 0.08)
    p += part(grip, line=THIN, hatch=90, spacing=SHADE * 0.8, hatch_width=SHADE_W)
    # lug staves (ears) rising above the rim where the bail hooks in
    for sx in (-1, 1):
        ear = pts(
            (sx * 0.6, top_y + 0.12),
            (sx * 0.55, top_y - 0.1),
            (sx * 0.66, top_y - 0.12),
            (sx * 0.66, top_y + 0.12),
        )
        p += part(ear, line=THIN)
        p += part(ellipse(sx * 0.62, top_y - 0.04, 0.022, 0.022), line=THIN)
    # body: silhouette of the frustum
    side_l = pts((-top_rx, top_y), (-bot_rx, bot_y))
    foot = ellipse(0, bot_y, bot_rx, bot_ry, 180, 0)
    body = np.vstack(
        [side_l, foot, pts((top_rx, top_y)), ellipse(0, top_y, top_rx, top_ry, 0, 180)]
    )
    p += part(body, line=LINE)
    # staves: lines that follow the round of the pail, darker toward the right
    for u in np.linspace(-0.9, 0.9, 9):
        a, b = front(0.0), front(1.0)
        line = pts(
            (a[1] * u, a[0] + a[2] * np.sqrt(1 - u * u)),
            (b[1] * u, b[0] + b[2] * np.sqrt(1 - u * u)),
        )
        p.append(Stroke(line, THIN))
    right = np.vstack(
        [ellipse(0, top_y, top_rx, top_ry, 30, 0), ellipse(0, bot_y, bot_rx, bot_ry, 0, 40)]
    )
    p.append(
        Hatch(
            np.vstack([right, pts((bot_rx * 0.55, bot_y + 0.02), (top_rx * 0.55, top_y + 0.04))]),
            90,
            SHADE * 0.7,
            SHADE_W,
        )
    )
    # hoops: dark bands with a paper highlight line
    for t in (0.13, 0.82):
        (y0, rx0, ry0), (y1, rx1, ry1) = front(t - 0.045), front(t + 0.045)
        band = np.vstack(
            [ellipse(0, y0, rx0 + 0.015, ry0, 180, 0), ellipse(0, y1, rx1 + 0.015, ry1, 0, 180)]
        )
        p.append(Fill(band))
        ym, rxm, rym = front(t - 0.015)
        p.append(Stroke(ellipse(0, ym, rxm * 0.98, rym, 165, 60, n=40), THIN * 0.7, ink=False))
    # rim: stave ends around the mouth, dark inside with the far wall shaded
    p.append(Fill(ellipse(0, top_y, top_rx, top_ry), ink=False))
    p.append(Stroke(ellipse(0, top_y, top_rx, top_ry), LINE, closed=True))
    inner = ellipse(0, top_y + 0.005, top_rx - 0.06, top_ry - 0.04)
    p.append(Stroke(inner, THIN, closed=True))
    p.append(Hatch(inner, -90, SHADE * 0.6, SHADE_W, ramp=2.5))
    p.append(
        Fill(
            np.vstack(
                [
                    ellipse(0, top_y + 0.005, top_rx - 0.06, top_ry - 0.04, 0, 180),
                    ellipse(0, top_y + 0.035, top_rx - 0.09, top_ry - 0.07, 180, 0),
                ]
            )
        )
    )
    return tuple(p)


def plow() -> Drawing:
    """A walking plow in profile: beam and gauge wheel, curved moldboard and share, two handles."""
    p: list[Primitive] = []
    # far handle (behind everything): same curve as the near one, set back and up
    far_c = spline([(0.2, 0.32), (0.5, -0.08), (0.76, -0.5), (0.9, -0.62), (0.99, -0.64)], 40)
    p += part(
        outline(far_c, np.linspace(0.08, 0.06, 40)),
        line=THIN,
        hatch=0,
        spacing=SHADE * 0.6,
        hatch_width=SHADE_W,
    )
    # beam: from the clevis at the front, arching back and down into the standard
    beam_c = spline([(-0.9, 0.04), (-0.5, -0.08), (-0.05, -0.12), (0.12, -0.02), (0.16, 0.12)], 48)
    p += part(
        outline(beam_c, np.linspace(0.08, 0.12, 48)),
        line=LINE,
        hatch=0,
        spacing=SHADE * 0.75,
        hatch_width=SHADE_W,
        ramp=1.5,
    )
    # clevis with its hitch ring at the front
    p += part(
        rect(-0.96, -0.04, -0.88, 0.13),
        line=THIN,
        hatch=90,
        spacing=SHADE * 0.5,
        hatch_width=SHADE_W,
    )
    p.append(Stroke(ellipse(-0.98, 0.2, 0.045, 0.045), THIN * 1.5, closed=True))
    # gauge wheel hanging from the front of the beam
    p += part(outline(pts((-0.66, -0.04), (-0.66, 0.42)), 0.04), line=THIN)
    p += _wheel(-0.66, 0.44, 0.15, spokes=8)
    # knife coulter that cuts the sod ahead of the share
    coulter = pts((-0.38, -0.1), (-0.31, -0.1), (-0.3, 0.4), (-0.38, 0.5))
    p += part(coulter, line=THIN, hatch=85, spacing=SHADE * 0.55, hatch_width=SHADE_W)
    # moldboard: the twisted plate that lifts and turns the soil, engraved with contour lines
    lower = spline([(-0.62, 0.66), (-0.2, 0.62), (0.15, 0.56), (0.36, 0.42), (0.46, 0.18)], 40)
    upper = spline([(-0.62, 0.66), (-0.3, 0.44), (-0.02, 0.18), (0.2, 0.04), (0.46, 0.18)], 40)
    p += part(np.vstack([lower, upper[::-1]]), line=LINE)
    for s in np.linspace(0.12, 0.88, 8):
        contour = lower * (1 - s) + upper * s
        p.append(swell(contour[3:-2], SHADE_W * (2.2 - 1.6 * s), taper=0.7))
    p.append(Stroke((lower * 0.55 + upper * 0.45)[6:-6], THIN * 0.8, ink=False))  # sheen
    # share (the cutting point) and landside along the furrow bottom
    p += part(
        pts((-0.66, 0.68), (-0.3, 0.6), (0.3, 0.6), (0.3, 0.7), (-0.5, 0.72)),
        line=THIN,
        hatch=0,
        spacing=SHADE * 0.5,
        hatch_width=SHADE_W,
    )
    # standard joining beam and moldboard
    p += part(
        pts((0.06, 0.0), (0.2, 0.02), (0.22, 0.5), (0.1, 0.5)),
        line=LINE,
        hatch=90,
        spacing=SHADE * 0.55,
        hatch_width=SHADE_W,
    )
    # near handle with rungs to the far one and a turned grip
    near_c = spline([(0.12, 0.46), (0.42, 0.04), (0.68, -0.4), (0.82, -0.52), (0.92, -0.54)], 40)
    for t in (0.32, 0.62):
        a, b = near_c[int(t * 39)], far_c[int(t * 39)]
        p.append(swell(np.stack([a, b]), THIN * 2.4, taper=0.2))
    p += part(
        outline(near_c, np.linspace(0.1, 0.07, 40)),
        line=LINE,
        hatch=0,
        spacing=SHADE * 0.7,
        hatch_width=SHADE_W,
        ramp=1.5,
    )
    for c in (near_c, far_c):
        p += part(
            outline(c[-8:], 0.085), line=THIN, hatch=90, spacing=SHADE * 0.45, hatch_width=SHADE_W
        )
    return tuple(p)


SYMBOLS: Final[dict[str, Callable[[], Drawing]]] = {
    "pump": pump,
    "buggy": buggy,
    "bucket": bucket,
    "plow": plow,
}


@cache
def symbol_drawing(symbol: str) -> Drawing:
    """The drawing of one symbol (built once per process)."""
    try:
        return SYMBOLS[symbol]()
    except KeyError:
        raise ValueError(
            f"unknown symbol {symbol!r}: expected one of {', '.join(SYMBOLS)}"
        ) from None
