"""Compose one synthetic overhead photo of a card table, with exact labels.

Cards, clutter and the table are painted on a flat top-down canvas (`geometry.TableView`):
each sprite is warped onto a small region of interest, never the whole canvas. An integer
owner buffer records which card is on top at every canvas pixel, so the visible part of each
back's drawing is known exactly. Backs showing less than MIN_DRAWING_VISIBLE of their drawing
(hidden by other cards, a hand, or the frame's edge) and faces showing less than
MIN_FACE_VISIBLE are left out of the picture entirely, so every card in a frame is labelled
and counting ground truth is unambiguous. Removing a card only uncovers others, so one pass
of removal is enough. Then ONE perspective warp takes the canvas into the frame, the visible
drawing's outline points go through the same homography, and cv2.minAreaRect gives the OBB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np

from blitzcam.datasets.geometry import (
    TableView,
    clip_to_frame,
    min_area_box,
    sample_view,
    transform_points,
)
from blitzcam.datasets.photometric import camera_effects, sample_jpeg_quality
from blitzcam.datasets.plan import (
    ArtCache,
    DeckSlot,
    Piece,
    SceneConfig,
    plan_cards,
    plan_clutter,
    sample_decks,
)
from blitzcam.datasets.scene import CLASS_BACK, Scene, SceneObject
from blitzcam.datasets.tables import render_table

__all__ = [
    "ArtCache",
    "DeckSlot",
    "Piece",
    "Placed",
    "SceneConfig",
    "compose_scene",
    "owner_buffer",
    "place",
    "visible_part",
]

MIN_DRAWING_VISIBLE: Final = 0.6
MIN_FACE_VISIBLE: Final = 0.5
# A card's width as a fraction of the frame's width (the envelope is 3.3-6.4 %; we go wider).
CARD_WIDTH_FRACTION: Final = (0.028, 0.075)
# a late round's 100-250 counted cards fit a frame only at the small end of that range
LATE_ROUND_CARD_WIDTH: Final = (0.028, 0.036)
ART_WIDTH_STEP: Final = 8  # card widths are rounded to this, so rendered art can be cached
# Warped drawing masks are thin ink lines: a low threshold keeps 1-px strokes after rotation.
DRAWING_LEVEL: Final = 64
_NO_OWNER: Final = -1
_CLUTTER_OWNER: Final = -2


@dataclass(frozen=True)
class Placed:
    """A piece warped onto its region of interest (possibly sticking out of the canvas)."""

    matrix: np.ndarray  # (2, 3) sprite -> ROI
    x0: int
    y0: int
    size: tuple[int, int]  # ROI (width, height)
    mask: np.ndarray  # bool (h, w): the piece covers the pixel
    drawing: np.ndarray | None  # bool (h, w): the back's drawing


def place(piece: Piece) -> Placed:
    h, w = piece.rgba.shape[:2]
    cx, cy = piece.centre
    a = np.radians(piece.angle)
    # Half extents of the turned sprite's bounding box: the ROI hugs the card.
    half_w = 0.5 * piece.scale * (abs(np.cos(a)) * w + abs(np.sin(a)) * h) + 2.5
    half_h = 0.5 * piece.scale * (abs(np.sin(a)) * w + abs(np.cos(a)) * h) + 2.5
    x0, y0 = int(np.floor(cx - half_w)), int(np.floor(cy - half_h))
    size = (int(np.ceil(cx + half_w)) - x0, int(np.ceil(cy + half_h)) - y0)
    matrix = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), piece.angle, piece.scale)
    matrix[:, 2] += (cx - x0 - (w - 1) / 2, cy - y0 - (h - 1) / 2)
    if piece.drawing is None:
        warped = cv2.warpAffine(piece.rgba[..., 3], matrix, size)
        return Placed(matrix, x0, y0, size, warped >= 128, None)
    pair = np.dstack([piece.rgba[..., 3], piece.drawing.astype(np.uint8) * 255])
    warped = cv2.warpAffine(pair, matrix, size)
    mask = warped[..., 0] >= 128
    return Placed(matrix, x0, y0, size, mask, (warped[..., 1] >= DRAWING_LEVEL) & mask)


def overlap(
    p: Placed, canvas_size: tuple[int, int]
) -> tuple[tuple[slice, slice], tuple[slice, slice]] | None:
    """(canvas slices, ROI slices) of the part of the ROI inside the canvas, or None."""
    width, height = canvas_size
    ax0, ay0 = max(p.x0, 0), max(p.y0, 0)
    ax1, ay1 = min(p.x0 + p.size[0], width), min(p.y0 + p.size[1], height)
    if ax0 >= ax1 or ay0 >= ay1:
        return None
    return (
        (slice(ay0, ay1), slice(ax0, ax1)),
        (slice(ay0 - p.y0, ay1 - p.y0), slice(ax0 - p.x0, ax1 - p.x0)),
    )


def owner_buffer(placed: list[Placed], ids: list[int], canvas_size: tuple[int, int]) -> np.ndarray:
    owner = np.full((canvas_size[1], canvas_size[0]), _NO_OWNER, np.int16)
    for p, ident in zip(placed, ids, strict=True):
        sl = overlap(p, canvas_size)
        if sl is not None:
            owner[sl[0]][p.mask[sl[1]]] = ident
    return owner


def visible_part(
    p: Placed,
    ident: int,
    owner: np.ndarray,
    in_frame: np.ndarray,
) -> tuple[float, np.ndarray | None, tuple[slice, slice] | None]:
    """(visible fraction, visible mask on the in-canvas ROI, canvas slices) of card `ident`:
    of its drawing for a back, of the whole card for a face."""
    region = p.drawing if p.drawing is not None else p.mask
    total = int(region.sum())
    sl = overlap(p, (owner.shape[1], owner.shape[0]))
    if total == 0 or sl is None:
        return 0.0, None, None
    seen = region[sl[1]] & (owner[sl[0]] == ident) & in_frame[sl[0]]
    return min(1.0, int(seen.sum()) / total), seen, sl[0]


def _shifted(mask: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """`mask` moved by (dx, dy) whole pixels, zeros shifted in."""
    out = np.zeros_like(mask)
    h, w = mask.shape[:2]
    out[max(dy, 0) : h + min(dy, 0), max(dx, 0) : w + min(dx, 0)] = mask[
        max(-dy, 0) : h - max(dy, 0), max(-dx, 0) : w - max(dx, 0)
    ]
    return out


def _composite(
    canvas: np.ndarray, piece: Piece, p: Placed, shadow: tuple[int, int, float] | None = None
) -> None:
    """Alpha-blend a piece onto the canvas; `shadow` (dx, dy, strength) first darkens what lies
    under its edge, so a card on a card shows its outline as a real one does."""
    sl = overlap(p, (canvas.shape[1], canvas.shape[0]))
    if sl is None:
        return
    warped = cv2.warpAffine(piece.rgba, p.matrix, p.size)[sl[1]]
    alpha = np.ascontiguousarray(warped[..., 3])
    under = canvas[sl[0]]
    if shadow is not None:
        dx, dy, strength = shadow
        dark = cv2.blur(_shifted(alpha, dx, dy), (3, 3))
        light = cv2.convertScaleAbs(dark, alpha=-strength, beta=255)  # 255 - strength * dark
        under = cv2.multiply(under, cv2.cvtColor(light, cv2.COLOR_GRAY2RGB), scale=1 / 255)
    over = cv2.convertScaleAbs(warped[..., :3], alpha=piece.gain)  # saturating brightness
    weight = alpha.astype(np.float32) * np.float32(1 / 255)
    canvas[sl[0]] = cv2.blendLinear(over, np.ascontiguousarray(under), weight, 1 - weight)


def _drop_shadows(
    table: np.ndarray,
    cover: np.ndarray,
    rng: np.random.Generator,
    card_px: int,
    offset: np.ndarray,
    strength: float,
) -> np.ndarray:
    """Darken the table where the cards and objects on it block the light (at the table's
    resolution, which may be a fraction of the cover mask's); `offset` in canvas pixels."""
    h, w = table.shape[:2]
    ratio = w / cover.shape[1]
    small = cv2.resize(cover.view(np.uint8) * np.uint8(255), (w, h), interpolation=cv2.INTER_AREA)
    dx, dy = offset * ratio
    small = cv2.warpAffine(small, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h))
    shadow = cv2.GaussianBlur(small, (0, 0), max(0.6, rng.uniform(0.02, 0.08) * card_px * ratio))
    light = cv2.convertScaleAbs(shadow, alpha=-strength, beta=255)  # 255 - strength * shadow
    return cv2.multiply(table, cv2.cvtColor(light, cv2.COLOR_GRAY2RGB), scale=1 / 255)


def _label_polygon(
    seen: np.ndarray, canvas_slice: tuple[slice, slice], view: TableView
) -> np.ndarray:
    """The frame-space OBB around a visible canvas mask: outline pixels' corners, warped."""
    contours, _ = cv2.findContours(
        seen.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    pts = np.concatenate([c.reshape(-1, 2) for c in contours]).astype(np.float64)
    pts += (canvas_slice[1].start, canvas_slice[0].start)
    corners = (
        pts[:, None, :] + np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    ).reshape(-1, 2)
    # Pixel centres are integers on both sides; +0.5 turns frame centres into edge coordinates.
    frame_pts = transform_points(view.homography, corners) + 0.5
    return clip_to_frame(min_area_box(frame_pts), view.frame_size)


def _card_outline(piece: Piece, p: Placed, view: TableView) -> np.ndarray:
    """The whole card's corners in frame pixels (edge coordinates, like the labels)."""
    h, w = piece.rgba.shape[:2]
    sprite = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    canvas = sprite @ p.matrix[:, :2].T + p.matrix[:, 2] + (p.x0, p.y0)
    return transform_points(view.homography, canvas) + 0.5


def compose_scene(rng: np.random.Generator, config: SceneConfig, art: ArtCache) -> Scene:
    """One synthetic frame and its labels; every random choice comes from `rng`."""
    view = sample_view(rng, config.frame_size)
    frac = rng.uniform(*(LATE_ROUND_CARD_WIDTH if config.late_round else CARD_WIDTH_FRACTION))
    card_px = max(
        ART_WIDTH_STEP * 4, ART_WIDTH_STEP * round(frac * config.frame_size[0] / ART_WIDTH_STEP)
    )
    table_size = (max(8, view.canvas_size[0] // 2), max(8, view.canvas_size[1] // 2))
    table_kind, table = render_table(rng, table_size)
    slots = sample_decks(rng, config)
    cards, groups = plan_cards(rng, view, slots, art, card_px, late_round=config.late_round)
    extras = plan_clutter(rng, view, card_px) if config.clutter else []
    below = [c for c in extras if not c.on_top]
    above = [c for c in extras if c.on_top]

    in_frame = np.zeros((view.canvas_size[1], view.canvas_size[0]), np.uint8)
    cv2.fillConvexPoly(in_frame, np.round(view.footprint * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    in_frame = in_frame.astype(bool)

    placed_cards = [place(c) for c in cards]
    placed_above = [place(c) for c in above]
    ids = list(range(len(cards))) + [_CLUTTER_OWNER] * len(above)
    owner = owner_buffer(placed_cards + placed_above, ids, view.canvas_size)
    keep = []
    for i, (card, p) in enumerate(zip(cards, placed_cards, strict=True)):
        fraction = visible_part(p, i, owner, in_frame)[0]
        needed = MIN_DRAWING_VISIBLE if card.cls == CLASS_BACK else MIN_FACE_VISIBLE
        if fraction >= needed:
            keep.append(i)
    dropped = len(cards) - len(keep)
    kept_ids = keep + [_CLUTTER_OWNER] * len(above)
    owner = owner_buffer([placed_cards[i] for i in keep] + placed_above, kept_ids, view.canvas_size)

    objects = []
    for i in keep:
        card, p = cards[i], placed_cards[i]
        fraction, seen, canvas_slice = visible_part(p, i, owner, in_frame)
        # Removal only uncovers cards, so every kept card still passes; check it all the same.
        assert (
            seen is not None
            and canvas_slice is not None
            and fraction >= (MIN_DRAWING_VISIBLE if card.cls == CLASS_BACK else MIN_FACE_VISIBLE)
        )
        objects.append(
            SceneObject(
                int(card.cls),
                _label_polygon(seen, canvas_slice, view),
                card.deck,
                card.slot,
                round(float(fraction), 4),
                _card_outline(card, p, view),
            )
        )

    # One light for the scene: every shadow falls the same way.
    offset = rng.normal(0, 0.04 * card_px, 2)
    strength = float(rng.uniform(0.1, 0.45))
    table = _drop_shadows(table, owner != _NO_OWNER, rng, card_px, offset, strength)
    canvas = cv2.resize(table, view.canvas_size, interpolation=cv2.INTER_LINEAR)
    edge = np.clip(np.round(offset / 2), -2, 2).astype(int)
    edge_shadow = (int(edge[0]) or 1, int(edge[1]) or 1, strength * 0.8)
    for piece in below:
        _composite(canvas, piece, place(piece))
    for i in keep:
        _composite(canvas, cards[i], placed_cards[i], edge_shadow)
    for piece, p in zip(above, placed_above, strict=True):
        _composite(canvas, piece, p, edge_shadow)

    image = cv2.warpPerspective(
        canvas,
        view.homography,
        view.frame_size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    camera: dict[str, Any] = {}
    if config.photometric:
        image, camera = camera_effects(image, rng)
    quality = sample_jpeg_quality(rng)
    meta = {
        "table": table_kind,
        "tilt_deg": round(view.tilt_deg, 2),
        "card_width_px": card_px,
        "decks": [
            {"slot": s.slot, "deck": s.deck, "art": s.art, "family": s.family} for s in slots
        ],
        "groups": groups,
        "clutter": len(extras),
        "dropped_cards": dropped,
        "camera": camera,
    }
    if config.late_round:  # said only where drawn: other scenes keep their bytes
        meta["late_round"] = True
    return Scene(image, tuple(objects), quality, meta)
