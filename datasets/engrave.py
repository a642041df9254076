"""Engraving-style line art: a drawing is a tuple of primitives, rendered to ink coverage.

Why: the four deck symbols and the random backs are defined once as geometry, independent of
resolution, and rendered at whatever card width a caller needs. Rendering draws at a supersampled
size and area-downsamples, which anti-aliases every stroke and turns hatching too fine for the
target size into an even tone (as a printed engraving looks from afar).

The frame is the square [-1, 1] x [-1, 1]; x grows to the right, y grows DOWN (image convention).
Primitives are painted in order: a later `Fill(ink=False)` erases what lies beneath it, which is
how a part in front hides the lines of a part behind it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

import cv2
import numpy as np

_SHIFT: Final = 4  # cv2 fixed-point fraction bits: sub-pixel accurate vertices
_FIXED: Final = float(1 << _SHIFT)
_INK: Final = 255


@dataclass(frozen=True, eq=False)
class Stroke:
    """A polyline of constant width (frame units); `ink=False` paints paper instead of ink."""

    points: np.ndarray
    width: float
    closed: bool = False
    ink: bool = True


@dataclass(frozen=True, eq=False)
class Fill:
    """A filled polygon; `ink=False` erases (paper) so that it occludes earlier primitives."""

    points: np.ndarray
    ink: bool = True


@dataclass(frozen=True, eq=False)
class Hatch:
    """Parallel lines clipped to a polygon: the engraver's shading.

    `angle` is the line direction in degrees (0 = along +x, 90 = along +y). `ramp` > 0 crowds
    the lines toward the side the normal points to (spacing shrinks geometrically from
    (1 + ramp) x `spacing` to `spacing`), which shades a rounded surface.
    """

    region: np.ndarray
    angle: float
    spacing: float
    width: float
    ramp: float = 0.0


Primitive: TypeAlias = Stroke | Fill | Hatch
Drawing: TypeAlias = tuple[Primitive, ...]


# --- geometry helpers (frame units) -------------------------------------------------------------


def pts(*xy: tuple[float, float]) -> np.ndarray:
    """Points as an (n, 2) float array."""
    return np.asarray(xy, dtype=np.float64).reshape(-1, 2)


def rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """An axis-aligned rectangle as a closed polygon."""
    return pts((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def ellipse(
    cx: float,
    cy: float,
    rx: float,
    ry: float,
    start: float = 0.0,
    end: float = 360.0,
    *,
    rot: float = 0.0,
    n: int = 64,
) -> np.ndarray:
    """Points on an elliptic arc; angles in degrees, 90 is the bottom (y down)."""
    t = np.radians(np.linspace(start, end, n))
    x, y = rx * np.cos(t), ry * np.sin(t)
    c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    return np.stack([cx + c * x - s * y, cy + s * x + c * y], axis=1)


def spline(ctrl: np.ndarray | Sequence[tuple[float, float]], n: int = 48) -> np.ndarray:
    """A Catmull-Rom curve through the control points (the ends included)."""
    p = np.asarray(ctrl, dtype=np.float64)
    if len(p) < 3:
        return np.linspace(p[0], p[-1], n)
    p = np.vstack([2 * p[0] - p[1], p, 2 * p[-1] - p[-2]])
    segments = len(p) - 3
    t = np.linspace(0.0, segments, n, endpoint=True)
    i = np.minimum(t.astype(int), segments - 1)
    u = (t - i)[:, None]
    p0, p1, p2, p3 = p[i], p[i + 1], p[i + 2], p[i + 3]
    return 0.5 * (
        2 * p1
        + (p2 - p0) * u
        + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u**2
        + (3 * p1 - p0 - 3 * p2 + p3) * u**3
    )


def outline(centre: np.ndarray, widths: float | np.ndarray) -> np.ndarray:
    """The closed outline of a bar of the given width(s) along a centre line."""
    c = np.asarray(centre, dtype=np.float64)
    w = np.broadcast_to(np.asarray(widths, dtype=np.float64), (len(c),))
    tangent = np.gradient(c, axis=0)
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    left = c + normal * (w[:, None] / 2)
    right = c - normal * (w[:, None] / 2)
    return np.vstack([left, right[::-1]])


def swell(centre: np.ndarray, width: float, *, taper: float = 0.6) -> Fill:
    """An engraved line: thickest in the middle, thinning toward both ends by `taper`."""
    t = np.linspace(0.0, 1.0, len(centre))
    widths = width * (1.0 - taper + taper * np.sin(np.pi * t) ** 0.5)
    return Fill(outline(centre, widths))


def part(
    region: np.ndarray,
    *,
    line: float,
    hatch: float | None = None,
    spacing: float = 0.04,
    hatch_width: float | None = None,
    ramp: float = 0.0,
) -> tuple[Primitive, ...]:
    """A solid part: erase what is behind it, shade it (optional), then ink its outline."""
    prims: list[Primitive] = [Fill(region, ink=False)]
    if hatch is not None:
        prims.append(Hatch(region, hatch, spacing, hatch_width or line * 0.5, ramp))
    prims.append(Stroke(region, line, closed=True))
    return tuple(prims)


def transform(drawing: Iterable[Primitive], matrix: np.ndarray) -> Drawing:
    """Apply a 2x3 affine matrix to every primitive (widths scale by the mean scale factor)."""
    m = np.asarray(matrix, dtype=np.float64)
    lin, off = m[:, :2], m[:, 2]
    scale = math.sqrt(abs(np.linalg.det(lin)))
    rot = math.degrees(math.atan2(lin[1, 0], lin[0, 0]))

    def move(p: np.ndarray) -> np.ndarray:
        return p @ lin.T + off

    out: list[Primitive] = []
    for prim in drawing:
        if isinstance(prim, Stroke):
            out.append(Stroke(move(prim.points), prim.width * scale, prim.closed, prim.ink))
        elif isinstance(prim, Fill):
            out.append(Fill(move(prim.points), prim.ink))
        else:
            out.append(
                Hatch(
                    move(prim.region),
                    prim.angle + rot,
                    prim.spacing * scale,
                    prim.width * scale,
                    prim.ramp,
                )
            )
    return tuple(out)


def similarity(*, scale: float, rot: float = 0.0, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """The 2x3 matrix of a rotation (degrees) and uniform scale about the origin, then a shift."""
    c, s = math.cos(math.radians(rot)) * scale, math.sin(math.radians(rot)) * scale
    return np.array([[c, -s, dx], [s, c, dy]])


# --- rendering ----------------------------------------------------------------------------------


def render(drawing: Iterable[Primitive], size: int, *, supersample: int = 3) -> np.ndarray:
    """Ink coverage of a drawing on a size x size square: float32 in [0, 1]."""
    if size < 1 or supersample < 1:
        raise ValueError(f"size and supersample must be >= 1, got {size} and {supersample}")
    big = size * supersample
    canvas = np.zeros((big, big), np.uint8)
    scale = big / 2.0
    for prim in drawing:
        if isinstance(prim, Stroke):
            _stroke(canvas, prim, scale)
        elif isinstance(prim, Fill):
            poly = _fixed(prim.points, scale)
            cv2.fillPoly(canvas, [poly], _INK if prim.ink else 0, cv2.LINE_AA, _SHIFT)
        else:
            _hatch(canvas, prim, scale)
    if supersample > 1:
        canvas = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    return canvas.astype(np.float32) * np.float32(1.0 / 255.0)


def _fixed(points: np.ndarray, scale: float) -> np.ndarray:
    return np.round((np.asarray(points) + 1.0) * (scale * _FIXED)).astype(np.int32)


def _thickness(width: float, scale: float) -> int:
    return max(1, round(width * scale))


def _stroke(canvas: np.ndarray, prim: Stroke, scale: float) -> None:
    cv2.polylines(
        canvas,
        [_fixed(prim.points, scale)],
        prim.closed,
        _INK if prim.ink else 0,
        _thickness(prim.width, scale),
        cv2.LINE_AA,
        _SHIFT,
    )


def _hatch(canvas: np.ndarray, prim: Hatch, scale: float) -> None:
    poly = (np.asarray(prim.region) + 1.0) * scale
    h, w = canvas.shape
    x0, y0 = np.clip(np.floor(poly.min(axis=0)).astype(int) - 1, 0, [w, h])
    x1, y1 = np.clip(np.ceil(poly.max(axis=0)).astype(int) + 2, 0, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    roi_shape = (y1 - y0, x1 - x0)
    mask = np.zeros(roi_shape, np.uint8)
    local = np.round((poly - [x0, y0]) * _FIXED).astype(np.int32)
    cv2.fillPoly(mask, [local], _INK, cv2.LINE_8, _SHIFT)

    thick = _thickness(prim.width, scale)
    step = max(prim.spacing * scale, 2.0 * thick + 0.5)  # keep a gap: hatching stays a tone
    theta = math.radians(prim.angle)
    d = np.array([math.cos(theta), math.sin(theta)])
    nrm = np.array([-d[1], d[0]])
    centre = np.array([roi_shape[1], roi_shape[0]]) / 2.0
    half = math.hypot(*roi_shape) / 2.0 + 2.0
    across = (poly - [x0, y0] - centre) @ nrm
    offsets = _offsets(float(across.min()), float(across.max()), step, prim.ramp)
    if len(offsets) == 0:
        return
    mids = centre + offsets[:, None] * nrm
    segs = np.stack([mids - d * half, mids + d * half], axis=1)
    lines = np.zeros(roi_shape, np.uint8)
    cv2.polylines(
        lines,
        list(np.round(segs * _FIXED).astype(np.int32)),
        False,
        _INK,
        thick,
        cv2.LINE_AA,
        _SHIFT,
    )
    roi = canvas[y0:y1, x0:x1]
    np.maximum(roi, cv2.bitwise_and(lines, mask), out=roi)


def _offsets(lo: float, hi: float, step: float, ramp: float) -> np.ndarray:
    if ramp <= 0.0:
        return np.arange(lo + step / 2, hi, step)
    out, pos = [], lo
    while pos < hi:
        out.append(pos)
        t = (pos - lo) / (hi - lo)
        pos += step * (1.0 + ramp) ** (1.0 - t)
    return np.asarray(out)


def bounds(drawing: Iterable[Primitive]) -> tuple[np.ndarray, np.ndarray]:
    """The (min, max) corners of everything a drawing inks, stroke widths included."""
    lo, hi = np.full(2, np.inf), np.full(2, -np.inf)
    for prim in drawing:
        if isinstance(prim, Fill) and not prim.ink:
            continue
        p = prim.region if isinstance(prim, Hatch) else prim.points
        pad = prim.width / 2 if isinstance(prim, Stroke) else 0.0
        lo = np.minimum(lo, p.min(axis=0) - pad)
        hi = np.maximum(hi, p.max(axis=0) + pad)
    return lo, hi


def fit(drawing: Iterable[Primitive]) -> Drawing:
    """Centre a drawing in the frame and scale it so its longer side spans the frame exactly."""
    prims = tuple(drawing)
    lo, hi = bounds(prims)
    scale = 2.0 / float(np.max(hi - lo))
    centre = (lo + hi) / 2
    return transform(prims, similarity(scale=scale, dx=-centre[0] * scale, dy=-centre[1] * scale))
