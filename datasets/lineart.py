"""Random engraving-style drawings for synthetic card backs.

Why: the detector must learn "a card back with a line drawing on it", not our four pictures, so the
scene generator also places backs carrying drawings from these procedural families. Each family
draws a loose, randomised member of its kind (a tool, a vehicle, a vessel...) with outlines,
hatching and solid accents in the same vocabulary as the deck symbols. Every random choice comes
from the `np.random.Generator` passed in: the same generator state gives the same drawing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from blitzcam.datasets.engrave import (
    Drawing,
    Fill,
    Hatch,
    Primitive,
    Stroke,
    ellipse,
    fit,
    outline,
    part,
    pts,
    rect,
    similarity,
    spline,
    swell,
    transform,
)


class _Style:
    """Per-drawing pen choices: line weights and hatch spacing, drawn once from the rng."""

    def __init__(self, rng: np.random.Generator) -> None:
        k = float(rng.uniform(0.7, 1.6))
        self.line = 0.022 * k
        self.thin = 0.012 * k
        self.spacing = float(rng.uniform(0.032, 0.06))
        self.hatch_w = 0.011 * float(rng.uniform(0.8, 1.3))
        self.angle = float(rng.choice([0.0, 90.0, 45.0, -45.0, 30.0, -60.0]))
        self.hatch_p = float(rng.uniform(0.3, 0.9))

    def part(
        self, rng: np.random.Generator, region: np.ndarray, *, bold: bool = True
    ) -> tuple[Primitive, ...]:
        """A part outlined in this style, hatched with probability hatch_p."""
        hatch = None
        if rng.random() < self.hatch_p:
            hatch = self.angle + float(rng.choice([0.0, 0.0, 90.0, 45.0]))
        return part(
            region,
            line=self.line if bold else self.thin,
            hatch=hatch,
            spacing=self.spacing,
            hatch_width=self.hatch_w,
            ramp=float(rng.uniform(0.0, 2.5)),
        )


def _almond(
    p0: np.ndarray | tuple[float, float],
    p1: np.ndarray | tuple[float, float],
    width: float,
    n: int = 16,
) -> np.ndarray:
    """A pointed oval from p0 to p1 (a leaf, petal, wing, blade)."""
    a, b = np.asarray(p0, float), np.asarray(p1, float)
    d = b - a
    nrm = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-9)
    t = np.linspace(0, 1, n)[:, None]
    bulge = np.sin(np.pi * t) * width / 2
    side1 = a + d * t + nrm * bulge
    side2 = a + d * t - nrm * bulge
    return np.vstack([side1, side2[::-1]])


def _wheel(cx: float, cy: float, r: float, st: _Style, rng: np.random.Generator) -> list[Primitive]:
    prims: list[Primitive] = [
        Fill(ellipse(cx, cy, r, r), ink=False),
        Stroke(ellipse(cx, cy, r, r), st.line, True),
    ]
    if rng.random() < 0.6:
        prims.append(Stroke(ellipse(cx, cy, r * 0.82, r * 0.82), st.thin, True))
        for a in np.linspace(0, 2 * np.pi, int(rng.integers(5, 13)), endpoint=False) + rng.uniform(
            0, 1
        ):
            prims.append(
                Stroke(
                    pts((cx, cy), (cx + r * 0.82 * np.cos(a), cy + r * 0.82 * np.sin(a))), st.thin
                )
            )
    else:
        prims.append(Hatch(ellipse(cx, cy, r, r), st.angle, st.spacing, st.hatch_w))
    prims.append(Fill(ellipse(cx, cy, r * 0.15, r * 0.15)))
    return prims


def tool(rng: np.random.Generator) -> Drawing:
    """A hand tool: a long handle with a hammer head, axe blade, spade, rake or fork."""
    st = _Style(rng)
    p: list[Primitive] = []
    hw = float(rng.uniform(0.1, 0.17))
    top = float(rng.uniform(-0.55, -0.35))
    handle = spline([(0, 0.95), (float(rng.normal(0, 0.03)), 0.3), (0, top)], 24)
    p += st.part(rng, outline(handle, np.linspace(hw, hw * 0.8, 24)))
    kind = rng.integers(5)
    if kind == 0:  # hammer / mallet
        w, h = float(rng.uniform(0.5, 0.9)), float(rng.uniform(0.16, 0.3))
        p += st.part(rng, rect(-w / 2, top - h, w / 2, top + 0.02))
    elif kind == 1:  # axe
        edge = float(rng.uniform(0.35, 0.6))
        blade = np.vstack(
            [
                pts((0, top + 0.05), (0, top - 0.25)),
                spline(
                    [
                        (-0.25, top - 0.3 - edge / 2),
                        (-0.45, top - 0.12),
                        (-0.25, top + 0.2 + edge / 4),
                    ],
                    20,
                ),
            ]
        )
        p += st.part(rng, blade)
    elif kind == 2:  # spade
        w, h = float(rng.uniform(0.35, 0.6)), float(rng.uniform(0.45, 0.7))
        blade = np.vstack(
            [
                pts((-w / 2, top)),
                spline([(-w / 2, top - h * 0.6), (0, top - h), (w / 2, top - h * 0.6)], 20),
                pts((w / 2, top)),
            ]
        )
        p += st.part(rng, blade)
    else:  # rake or fork
        n = int(rng.integers(3, 9))
        w = float(rng.uniform(0.4, 0.9))
        p += st.part(rng, rect(-w / 2, top - 0.08, w / 2, top + 0.02))
        for x in np.linspace(-w / 2 + 0.03, w / 2 - 0.03, n):
            length = float(rng.uniform(0.25, 0.45)) if kind == 3 else 0.5
            p.append(
                swell(
                    spline([(x, top - 0.06), (x * 1.05, top - 0.06 - length)], 8),
                    st.line * 1.4,
                    taper=0.5,
                )
            )
    return transform(p, similarity(scale=1.0, rot=float(rng.uniform(-50, 50))))


def vehicle(rng: np.random.Generator) -> Drawing:
    """Something on wheels: a cart, wagon, coach or little engine."""
    st = _Style(rng)
    p: list[Primitive] = []
    length = float(rng.uniform(1.2, 1.8))
    body_h = float(rng.uniform(0.25, 0.55))
    y_base = 0.2
    wheels_n = int(rng.integers(2, 5))
    r = float(rng.uniform(0.16, 0.38))
    xs = np.linspace(-length / 2 + r * 0.9, length / 2 - r * 0.9, wheels_n)
    if rng.random() < 0.5:  # shafts or a tow bar
        p.append(
            swell(
                spline([(-length / 2, y_base), (-length / 2 - 0.4, y_base - 0.1)], 12),
                st.line * 1.5,
            )
        )
    for x in xs[::2]:
        p += _wheel(float(x), y_base + r * 0.6, r, st, rng)
    body = pts(
        (-length / 2, y_base - body_h),
        (length / 2, y_base - body_h),
        (length / 2 - 0.05, y_base),
        (-length / 2 + 0.05, y_base),
    )
    p += st.part(rng, body)
    if rng.random() < 0.7:  # cab, canopy or boiler
        cw = length * float(rng.uniform(0.35, 0.7))
        cx = float(rng.uniform(-length / 2 + cw / 2, length / 2 - cw / 2))
        ch = float(rng.uniform(0.25, 0.55))
        roof = spline(
            [
                (cx - cw / 2, y_base - body_h),
                (cx - cw / 2, y_base - body_h - ch),
                (cx, y_base - body_h - ch * float(rng.uniform(1.0, 1.3))),
                (cx + cw / 2, y_base - body_h - ch),
                (cx + cw / 2, y_base - body_h),
            ],
            30,
        )
        p += st.part(rng, roof)
        ww = cw * 0.3
        p += part(
            rect(cx - ww, y_base - body_h - ch * 0.75, cx + ww * 0.3, y_base - body_h - ch * 0.25),
            line=st.thin,
        )
    if rng.random() < 0.3:  # chimney
        x = float(rng.uniform(-length / 2 + 0.1, 0))
        p += st.part(
            rng,
            pts(
                (x - 0.05, y_base - body_h),
                (x + 0.05, y_base - body_h),
                (x + 0.09, y_base - body_h - 0.35),
                (x - 0.09, y_base - body_h - 0.35),
            ),
        )
    for x in xs[1::2]:
        p += _wheel(float(x), y_base + r * 0.6, r, st, rng)
    return tuple(p)


def vessel(rng: np.random.Generator) -> Drawing:
    """A turned vessel: jug, vase, churn, pot or bottle, with bands, handle, spout or lid."""
    st = _Style(rng)
    p: list[Primitive] = []
    n = int(rng.integers(3, 6))
    ys = np.linspace(-0.8, 0.8, n)
    rs = rng.uniform(0.15, 0.6, n)
    prof = spline(np.stack([rs, ys], axis=1), 40)
    prof[:, 0] = np.maximum(prof[:, 0], 0.08)
    top_r, bot_r = float(prof[0, 0]), float(prof[-1, 0])
    ry = float(rng.uniform(0.04, 0.1))
    if rng.random() < 0.5:  # handle loop on the right
        i0, i1 = 6, int(rng.integers(18, 34))
        a, b = prof[i0], prof[i1]
        bulge = float(rng.uniform(0.2, 0.4))
        loop = spline(
            [(a[0], a[1]), (max(a[0], b[0]) + bulge, (a[1] + b[1]) / 2), (b[0], b[1])], 24
        )
        p.append(swell(loop, st.line * 2.5, taper=0.3))
    if rng.random() < 0.4:  # spout on the left
        a = prof[int(rng.integers(3, 12))]
        p += st.part(
            rng,
            pts(
                (-a[0] + 0.02, a[1] - 0.05),
                (-a[0] - 0.35, a[1] - 0.2),
                (-a[0] - 0.33, a[1] - 0.14),
                (-a[0] + 0.02, a[1] + 0.12),
            ),
            bold=False,
        )
    body = np.vstack(
        [
            prof * [-1, 1],
            ellipse(0, float(prof[-1, 1]), bot_r, ry, 180, 0)[1:-1][::-1] * [1, 1],
            prof[::-1],
            ellipse(0, float(prof[0, 1]), top_r, ry, 0, 180)[1:-1][::-1],
        ]
    )
    p += part(body, line=st.line)
    side = np.vstack([prof * [0.35, 1], prof[::-1]])
    p.append(
        Hatch(
            side,
            90.0 + float(rng.uniform(-10, 10)),
            st.spacing,
            st.hatch_w,
            float(rng.uniform(0.5, 3)),
        )
    )
    for t in rng.uniform(0.15, 0.9, int(rng.integers(0, 4))):
        yy, rr = (
            float(np.interp(t, np.linspace(0, 1, 40), prof[:, 1])),
            float(np.interp(t, np.linspace(0, 1, 40), prof[:, 0])),
        )
        band = np.vstack(
            [
                ellipse(0, yy - 0.02, rr + 0.01, ry, 180, 0),
                ellipse(0, yy + 0.02, rr + 0.01, ry, 0, 180),
            ]
        )
        p.append(Fill(band) if rng.random() < 0.5 else Stroke(band, st.thin, True))
    p.append(Fill(ellipse(0, float(prof[0, 1]), top_r, ry), ink=False))
    p.append(Stroke(ellipse(0, float(prof[0, 1]), top_r, ry), st.line, True))
    if rng.random() < 0.4:  # lid and knob
        y = float(prof[0, 1])
        p += st.part(rng, np.vstack([ellipse(0, y, top_r, ry * 1.5, 180, 360)]))
        p += part(ellipse(0, y - ry * 1.5 - 0.04, 0.05, 0.05), line=st.thin)
    else:
        p.append(Fill(ellipse(0, float(prof[0, 1]) + ry * 0.2, top_r * 0.8, ry * 0.55)))
    return tuple(p)


def animal(rng: np.random.Generator) -> Drawing:
    """A farm or wild creature: a four-legged beast, a bird or a fish."""
    st = _Style(rng)
    p: list[Primitive] = []
    kind = rng.integers(3)
    if kind == 0:  # quadruped
        bl, bh = float(rng.uniform(0.6, 0.85)), float(rng.uniform(0.28, 0.42))
        leg_len = float(rng.uniform(0.3, 0.6))
        for x in (-bl * 0.65, bl * 0.55, -bl * 0.5, bl * 0.7):
            leg = spline(
                [
                    (x, 0.0),
                    (x + float(rng.normal(0, 0.04)), bh * 0.6 + leg_len * 0.5),
                    (x, bh * 0.6 + leg_len),
                ],
                10,
            )
            p += st.part(rng, outline(leg, np.linspace(0.13, 0.07, 10)), bold=False)
        tail = spline([(bl * 0.95, -bh * 0.3), (bl * 1.2, 0.0), (bl * 1.15, 0.35)], 12)
        p.append(swell(tail, st.line * 2, taper=0.8))
        p += st.part(rng, ellipse(0, 0, bl, bh))
        hx, hy = -bl * 1.05, -bh * float(rng.uniform(0.8, 1.8))
        p += st.part(
            rng, outline(pts((-bl * 0.7, -bh * 0.3), (hx + 0.1, hy + 0.05)), bh * 0.9), bold=False
        )
        p += st.part(
            rng,
            _almond((hx + 0.18, hy - 0.05), (hx - 0.3, hy + 0.18), float(rng.uniform(0.22, 0.34))),
        )
        p += part(_almond((hx + 0.12, hy - 0.05), (hx + 0.2, hy - 0.32), 0.1), line=st.thin)
        p.append(Fill(ellipse(hx - 0.02, hy + 0.02, 0.025, 0.025)))
    elif kind == 1:  # bird
        p.append(swell(pts((0.0, 0.25), (-0.05, 0.7)), st.line * 1.5))
        p.append(swell(pts((0.15, 0.25), (0.15, 0.7)), st.line * 1.5))
        tail = [
            _almond((0.45, -0.05), (0.95, float(rng.uniform(-0.5, 0.2)) + d), 0.2)
            for d in (-0.1, 0.0, 0.1)
        ]
        for t in tail:
            p += st.part(rng, t, bold=False)
        p += st.part(rng, ellipse(0.05, 0, 0.5, float(rng.uniform(0.25, 0.35))))
        p += st.part(
            rng, _almond((-0.25, -0.05), (0.6, float(rng.uniform(-0.3, 0.1))), 0.3), bold=False
        )
        p += part(ellipse(-0.5, -0.35, 0.2, 0.2), line=st.line)
        p += part(pts((-0.68, -0.4), (-0.95, -0.3), (-0.68, -0.3)), line=st.thin)
        p.append(Fill(ellipse(-0.53, -0.4, 0.03, 0.03)))
    else:  # fish
        bl = float(rng.uniform(0.7, 0.95))
        p += st.part(rng, pts((bl * 0.8, 0), (bl + 0.3, -0.35), (bl + 0.2, 0), (bl + 0.3, 0.35)))
        p += st.part(rng, _almond((-bl, 0.0), (bl * 0.9, 0.0), float(rng.uniform(0.5, 0.8)), n=24))
        for x in np.linspace(-bl * 0.4, bl * 0.6, 5):
            p.append(Stroke(ellipse(float(x), 0, 0.12, 0.2, 60, 300, n=12), st.thin))
        p += part(_almond((-0.1, -0.25), (0.4, -0.5), 0.18), line=st.thin)
        p.append(Fill(ellipse(-bl * 0.7, -0.05, 0.04, 0.04)))
    return tuple(p) if rng.random() < 0.5 else transform(p, np.array([[-1.0, 0, 0], [0, 1.0, 0]]))


def plant(rng: np.random.Generator) -> Drawing:
    """A plant: a stem with leaves and a flower, or a tree with a hatched crown."""
    st = _Style(rng)
    p: list[Primitive] = []
    if rng.random() < 0.5:
        stem = spline(
            [(0, 0.95), (float(rng.normal(0, 0.15)), 0.2), (float(rng.normal(0, 0.1)), -0.45)], 30
        )
        p.append(swell(stem, st.line * 1.6, taper=0.4))
        for i in rng.choice(np.arange(6, 26), size=int(rng.integers(2, 6)), replace=False):
            a = stem[i]
            side = 1 if rng.random() < 0.5 else -1
            tip = a + np.array([side * rng.uniform(0.3, 0.6), -rng.uniform(0.05, 0.35)])
            p += st.part(rng, _almond(a, tip, float(rng.uniform(0.12, 0.25))), bold=False)
            p.append(Stroke(np.stack([a, a + (tip - a) * 0.85]), st.thin * 0.8))
        c = stem[-1]
        petals = int(rng.integers(5, 11))
        plen = float(rng.uniform(0.25, 0.45))
        for a in np.linspace(0, 2 * np.pi, petals, endpoint=False):
            p += part(
                _almond(c, c + plen * np.array([np.cos(a), np.sin(a)]), plen * 0.5), line=st.thin
            )
        p += part(
            ellipse(float(c[0]), float(c[1]), 0.09, 0.09),
            line=st.thin,
            hatch=45,
            spacing=st.spacing * 0.6,
            hatch_width=st.hatch_w,
        )
    else:
        trunk_w = float(rng.uniform(0.06, 0.12))
        p += st.part(
            rng,
            pts((-trunk_w, 0.95), (trunk_w, 0.95), (trunk_w * 0.6, -0.2), (-trunk_w * 0.6, -0.2)),
        )
        for _ in range(int(rng.integers(4, 9))):  # overlapping clumps of the crown
            a, dist = float(rng.uniform(0, 2 * np.pi)), float(rng.uniform(0.0, 0.32))
            cx, cy = dist * np.cos(a), -0.35 + 0.8 * dist * np.sin(a)
            rr = float(rng.uniform(0.2, 0.38))
            p += part(
                ellipse(cx, cy, rr, rr * 0.85, n=40),
                line=st.line,
                hatch=st.angle,
                spacing=st.spacing,
                hatch_width=st.hatch_w,
                ramp=1.5,
            )
    return tuple(p)


def geometric(rng: np.random.Generator) -> Drawing:
    """A hex-sign style rosette: rings, a star or petals, radial rays and dots."""
    st = _Style(rng)
    p: list[Primitive] = []
    k = int(rng.choice([4, 5, 6, 8, 12]))
    p.append(Stroke(ellipse(0, 0, 1, 1), st.line * 1.5, True))
    if rng.random() < 0.6:
        p.append(Stroke(ellipse(0, 0, 0.9, 0.9), st.thin, True))
    motif = rng.integers(3)
    for a in np.linspace(0, 2 * np.pi, k, endpoint=False):
        tip = 0.82 * np.array([np.cos(a), np.sin(a)])
        if motif == 0:  # petals
            p += st.part(
                rng, _almond((0, 0), tip, float(rng.uniform(0.18, 0.35)) * 6 / k), bold=False
            )
        elif motif == 1:  # star points
            b0 = 0.3 * np.array([np.cos(a - np.pi / k), np.sin(a - np.pi / k)])
            b1 = 0.3 * np.array([np.cos(a + np.pi / k), np.sin(a + np.pi / k)])
            p += st.part(rng, np.stack([b0, tip, b1, np.zeros(2)]), bold=False)
        else:  # rays with dots
            p.append(swell(np.stack([tip * 0.25, tip]), st.line * 1.5, taper=0.7))
            p.append(Fill(ellipse(*(tip * 1.0), 0.05, 0.05)))
    if rng.random() < 0.7:
        r = float(rng.uniform(0.12, 0.3))
        p += part(
            ellipse(0, 0, r, r),
            line=st.line,
            hatch=st.angle,
            spacing=st.spacing,
            hatch_width=st.hatch_w,
        )
    return tuple(p)


# The wider families (`WIDE_FAMILIES`): drawn only where a dataset asks for them
# (`dataset generate --wide-art`), so that every dataset made before keeps its bytes. Each
# differs from the first six in a way real backs may: straight-edged buildings, closed emblems,
# letter-like strokes with no object behind them, and solid ink masses with paper cut out.


def building(rng: np.random.Generator) -> Drawing:
    """A building: a house, barn, mill or chapel with a pitched roof, windows and a door."""
    st = _Style(rng)
    p: list[Primitive] = []
    w, h = float(rng.uniform(0.7, 1.4)), float(rng.uniform(0.5, 0.9))
    roof_h = float(rng.uniform(0.3, 0.7))
    overhang = float(rng.uniform(0.0, 0.12))
    kind = rng.integers(3)
    if kind == 1:  # a barn's gambrel roof
        knee = roof_h * float(rng.uniform(0.4, 0.6))
        roof = pts(
            (-w / 2 - overhang, 0), (-w / 2 + w * 0.1, -knee), (0, -roof_h),
            (w / 2 - w * 0.1, -knee), (w / 2 + overhang, 0),
        )  # fmt: skip
    else:
        roof = pts((-w / 2 - overhang, 0), (0, -roof_h), (w / 2 + overhang, 0))
    if kind == 2:  # a chapel's tower and spire, drawn first: the roof covers its foot
        tx, tw = float(rng.uniform(-w / 3, w / 3)), float(rng.uniform(0.12, 0.22))
        top = -roof_h - float(rng.uniform(0.2, 0.5))
        p += st.part(rng, rect(tx - tw / 2, top, tx + tw / 2, -roof_h * 0.3))
        p += st.part(rng, pts((tx - tw * 0.7, top), (tx, top - float(rng.uniform(0.3, 0.6))),
                              (tx + tw * 0.7, top)), bold=False)  # fmt: skip
    p += st.part(rng, rect(-w / 2, 0, w / 2, h))
    p += st.part(rng, roof)
    if rng.random() < 0.5:  # shingles or thatch: rows across the roof
        for y in np.linspace(-roof_h * 0.8, -roof_h * 0.15, int(rng.integers(2, 6))):
            half = (w / 2 + overhang) * (1 + y / roof_h)
            p.append(Stroke(pts((-half, float(y)), (half, float(y))), st.thin))
    dw = float(rng.uniform(0.12, 0.25))
    dx = float(rng.uniform(-w / 2 + dw, w / 2 - dw))
    door_top = h - float(rng.uniform(0.3, 0.5)) * h - 0.1
    p += part(rect(dx - dw / 2, door_top, dx + dw / 2, h), line=st.line,
              hatch=90.0 if rng.random() < 0.5 else None, spacing=st.spacing,
              hatch_width=st.hatch_w)  # fmt: skip
    for _ in range(int(rng.integers(1, 5))):  # windows with their cross bars
        ww = float(rng.uniform(0.1, 0.18))
        wx = float(rng.uniform(-w / 2 + ww, w / 2 - ww))
        if abs(wx - dx) < (ww + dw) / 2 + 0.02:
            continue
        wy = float(rng.uniform(0.12, max(0.13, door_top)))
        p += part(rect(wx - ww / 2, wy - ww / 2, wx + ww / 2, wy + ww / 2), line=st.thin)
        p.append(Stroke(pts((wx, wy - ww / 2), (wx, wy + ww / 2)), st.thin * 0.8))
        p.append(Stroke(pts((wx - ww / 2, wy), (wx + ww / 2, wy)), st.thin * 0.8))
    if kind == 0 and rng.random() < 0.6:  # a mill's sails on the gable
        cy = -roof_h * 0.55
        length = float(rng.uniform(0.45, 0.8))
        for a in np.radians(float(rng.uniform(0, 90)) + np.array([0, 90, 180, 270])):
            tip = np.array([np.cos(a), np.sin(a)]) * length + [0, cy]
            p += st.part(rng, outline(np.stack([[0, cy], tip]), 0.09), bold=False)
        p.append(Fill(ellipse(0, cy, 0.04, 0.04)))
    p.append(swell(pts((-w / 2 - 0.25, h), (w / 2 + 0.25, h)), st.line * 1.3, taper=0.4))
    return tuple(p)


def emblem(rng: np.random.Generator) -> Drawing:
    """A closed emblem: a shield, heart, diamond, oval or banner, with a border and a charge."""
    st = _Style(rng)
    p: list[Primitive] = []
    kind = rng.integers(5)
    if kind == 0:  # shield
        w, h = float(rng.uniform(0.6, 0.9)), float(rng.uniform(0.8, 1.1))
        shape = np.vstack([pts((-w, -h), (w, -h)), spline([(w, -h * 0.2), (w * 0.6, h * 0.6),
                                                          (0, h)], 20),
                           spline([(0, h), (-w * 0.6, h * 0.6), (-w, -h * 0.2)], 20)])  # fmt: skip
    elif kind == 1:  # heart
        lobe = float(rng.uniform(0.45, 0.6))
        shape = np.vstack([ellipse(-lobe, -0.3, lobe, lobe, 150, 360),
                           ellipse(lobe, -0.3, lobe, lobe, 180, 390), pts((0, 0.95))])  # fmt: skip
    elif kind == 2:  # diamond
        w = float(rng.uniform(0.5, 0.9))
        shape = pts((0, -1), (w, 0), (0, 1), (-w, 0))
    elif kind == 3:  # oval cartouche
        shape = ellipse(0, 0, float(rng.uniform(0.6, 1.0)), float(rng.uniform(0.6, 1.0)))
    else:  # banner with forked ends
        w, h = 1.0, float(rng.uniform(0.25, 0.45))
        fork = float(rng.uniform(0.1, 0.25))
        shape = pts((-w, -h), (w, -h), (w - fork, 0), (w, h), (-w, h), (-w + fork, 0))
    p += part(shape, line=st.line * 1.4)
    centre = (shape.min(axis=0) + shape.max(axis=0)) / 2
    inner = centre + (shape - centre) * float(rng.uniform(0.78, 0.88))
    p.append(Stroke(inner, st.thin, True))
    charge = rng.integers(4)
    size = float(rng.uniform(0.25, 0.45))
    cx, cy = float(centre[0]), float(centre[1])
    if charge == 0:  # a star
        k = int(rng.choice([5, 6, 8]))
        a = np.linspace(0, 2 * np.pi, 2 * k, endpoint=False) - np.pi / 2
        r = np.where(np.arange(2 * k) % 2 == 0, size, size * float(rng.uniform(0.35, 0.55)))
        star = np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=1)
        p.append(Fill(star) if rng.random() < 0.5 else Stroke(star, st.line, True))
    elif charge == 1:  # a cross
        t = size * float(rng.uniform(0.25, 0.4))
        p += st.part(rng, rect(cx - t, cy - size, cx + t, cy + size), bold=False)
        p += st.part(rng, rect(cx - size, cy - t, cx + size, cy + t), bold=False)
    elif charge == 2:  # a chevron band
        band = pts((cx - size * 1.5, cy + size * 0.6), (cx, cy - size * 0.4),
                   (cx + size * 1.5, cy + size * 0.6))  # fmt: skip
        p.append(swell(band, st.line * 3, taper=0.2))
    else:  # a field of hatching and a ring
        p.append(Hatch(inner, st.angle, st.spacing, st.hatch_w))
        p += part(ellipse(cx, cy, size, size), line=st.line)
    return transform(p, similarity(scale=1.0, rot=float(rng.choice([0.0, 0.0, 90.0, 45.0]))))


def glyph(rng: np.random.Generator) -> Drawing:
    """A letter-like monogram: two to four swelling pen strokes, serifs and a dot or two."""
    st = _Style(rng)
    p: list[Primitive] = []
    width = st.line * float(rng.uniform(2.5, 5.0))
    for _ in range(int(rng.integers(2, 5))):
        n = int(rng.integers(2, 5))
        ctrl = rng.uniform(-0.9, 0.9, (n, 2))
        stroke = spline(ctrl, 32)
        p.append(swell(stroke, width, taper=float(rng.uniform(0.3, 0.9))))
        if rng.random() < 0.5:  # serifs across the ends
            for end, nxt in ((stroke[0], stroke[2]), (stroke[-1], stroke[-3])):
                d = end - nxt
                nrm = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-9) * width * 1.6
                p.append(Stroke(np.stack([end - nrm, end + nrm]), st.thin))
    for _ in range(int(rng.integers(0, 3))):
        x, y = rng.uniform(-0.8, 0.8, 2)
        r = float(rng.uniform(0.04, 0.09))
        p.append(Fill(ellipse(float(x), float(y), r, r)))
    if rng.random() < 0.3:  # underlined
        p.append(swell(pts((-0.9, 1.0), (0.9, 1.0)), st.line * 1.5))
    return tuple(p)


def silhouette(rng: np.random.Generator) -> Drawing:
    """A solid ink mass (a cut-paper shape) with paper cut out of it and an outline ring."""
    p: list[Primitive] = []
    st = _Style(rng)
    blobs = int(rng.integers(1, 5))
    for _ in range(blobs):
        cx, cy = rng.uniform(-0.4, 0.4, 2)
        # four to eight points, one in each of as many equal sectors: a mass, never a sliver
        k = int(rng.integers(4, 9))
        a = (np.arange(k) + rng.uniform(0.1, 0.9, k)) * (2 * np.pi / k)
        r = rng.uniform(0.3, 0.7, k)
        ctrl = np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=1)
        p.append(Fill(spline(np.vstack([ctrl, ctrl[:1]]), 48)))
    for _ in range(int(rng.integers(1, 6))):  # cut-outs: slits and holes in paper
        at = rng.uniform(-0.5, 0.5, 2)
        if rng.random() < 0.5:
            r = float(rng.uniform(0.04, 0.12))
            oval = ellipse(float(at[0]), float(at[1]), r, r * float(rng.uniform(0.5, 1.0)))
            p.append(Fill(oval, ink=False))
        else:
            d = rng.normal(0, 1, 2)
            d = d / max(float(np.hypot(*d)), 1e-9) * float(rng.uniform(0.15, 0.4))
            # (a filled slit, not a paper-coloured stroke: `fit` sizes a drawing by its strokes,
            # and a slit past the ink's edge made the drawing small)
            p.append(Fill(outline(np.stack([at - d, at + d]), st.line), ink=False))
    if rng.random() < 0.5:
        r = float(rng.uniform(1.0, 1.25))
        p.append(Stroke(ellipse(0, 0, r, r), st.thin, True))
    return tuple(p)


FAMILIES: Final[dict[str, Callable[[np.random.Generator], Drawing]]] = {
    "tool": tool,
    "vehicle": vehicle,
    "vessel": vessel,
    "animal": animal,
    "plant": plant,
    "geometric": geometric,
    "building": building,
    "emblem": emblem,
    "glyph": glyph,
    "silhouette": silhouette,
}
WIDE_FAMILIES: Final[tuple[str, ...]] = ("building", "emblem", "glyph", "silhouette")


def random_drawing(rng: np.random.Generator, family: str) -> Drawing:
    """One random drawing of the family, fitted to fill the frame (longer side = 2 units)."""
    try:
        make = FAMILIES[family]
    except KeyError:
        raise ValueError(
            f"unknown line-art family {family!r}: expected one of {', '.join(FAMILIES)}"
        ) from None
    return fit(make(rng))
