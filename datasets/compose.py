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
from types import ModuleType
from typing import Any, Final

import cv2
import numpy as np

from blitzcam.datasets import clutter as clutter_sprites
from blitzcam.datasets import layouts
from blitzcam.datasets.geometry import (
    TableView,
    clip_to_frame,
    min_area_box,
    sample_view,
    transform_points,
)
from blitzcam.datasets.photometric import camera_effects, sample_jpeg_quality
from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE, UNKNOWN_DECK_PREFIX, Scene, SceneObject
from blitzcam.datasets.tables import render_table
from blitzcam.game.decks import DECK_NAMES

MIN_DRAWING_VISIBLE: Final = 0.6
MIN_FACE_VISIBLE: Final = 0.5
# A card's width as a fraction of the frame's width (the envelope is 3.3-6.4 %; we go wider).
CARD_WIDTH_FRACTION: Final = (0.028, 0.075)
FACE_COLOURS: Final = ("red", "blue", "yellow", "green")
# Faces are not counted: rendered at a few widths and scaled, so a worker caches 160 of them.
FACE_WIDTHS: Final = (64, 128, 192, 256)
ART_WIDTH_STEP: Final = 8  # card widths are rounded to this, so rendered art can be cached
# Warped drawing masks are thin ink lines: a low threshold keeps 1-px strokes after rotation.
DRAWING_LEVEL: Final = 64
_NO_OWNER: Final = -1
_CLUTTER_OWNER: Final = -2


@dataclass(frozen=True)
class SceneConfig:
    """What one scene may contain. ``random_families`` are the random-art families allowed here
    (the holdout family is left out of train/val scenes)."""

    frame_size: tuple[int, int]
    random_families: tuple[str, ...]
    photometric: bool = True
    clutter: bool = True
    random_art_scene_share: float = 0.45


@dataclass(frozen=True)
class DeckSlot:
    """One deck in the scene: its label name, and where its art came from."""

    slot: int
    deck: str  # a built-in deck name, or "unknown:<family>"
    art: str  # "builtin" or "random"
    family: str | None


@dataclass(frozen=True)
class Piece:
    """A sprite to paint on the canvas: a card (cls 0/1) or clutter (cls None)."""

    rgba: np.ndarray
    drawing: np.ndarray | None  # bool mask of a back's drawing
    centre: tuple[float, float]
    angle: float
    cls: int | None
    slot: int = -1
    deck: str | None = None
    on_top: bool = True  # clutter only: above the cards (occludes) or under them
    gain: float = 1.0  # brightness: one card a little darker than the next (bent paper, wear)
    scale: float = 1.0  # sprite pixels -> canvas pixels


class ArtCache:
    """Renders card art through the art module, remembering built-in backs and faces (pure
    functions of their arguments) so a worker renders each size once."""

    def __init__(self, art: ModuleType, *, max_entries: int = 2048) -> None:
        self.art = art
        self.max_entries = max_entries
        self._cache: dict[tuple[Any, ...], Any] = {}

    def _get(self, key: tuple[Any, ...], render: Any) -> Any:
        if key not in self._cache:
            if len(self._cache) >= self.max_entries:
                self._cache.clear()
            self._cache[key] = render()
        return self._cache[key]

    def back(self, deck: str, width: int) -> Any:
        return self._get(("back", deck, width), lambda: self.art.render_back(deck, width=width))

    def face(self, colour: str, number: int, width: int) -> Any:
        return self._get(
            ("face", colour, number, width),
            lambda: self.art.render_face(colour, number, width=width),
        )

    def random_back(self, rng: np.random.Generator, width: int, family: str) -> Any:
        return self.art.render_random_back(rng, width=width, family=family)


# ---------------------------------------------------------------- choosing what is on the table


def sample_decks(rng: np.random.Generator, config: SceneConfig) -> tuple[DeckSlot, ...]:
    """2-8 decks; built-in names never repeat; a share of scenes get random-art decks."""
    count = int(rng.integers(2, 9)) if rng.random() < 0.7 else int(rng.integers(2, 5))
    builtin = [str(name) for name in rng.permutation(np.array(DECK_NAMES))]
    random_scene = bool(config.random_families) and rng.random() < config.random_art_scene_share
    share = rng.uniform(0.25, 1.0) if random_scene else 0.0
    slots = []
    for slot in range(count):
        if random_scene and (
            rng.random() < share
            or (slot == count - 1 and not any(s.art == "random" for s in slots))
        ):
            family = str(config.random_families[int(rng.integers(len(config.random_families)))])
            slots.append(DeckSlot(slot, f"{UNKNOWN_DECK_PREFIX}{family}", "random", family))
        else:
            slots.append(DeckSlot(slot, builtin.pop(), "builtin", None))
    return tuple(slots)


@dataclass(frozen=True)
class Cell:
    """A part of the frame one group of cards lies in, seen on the canvas."""

    centre: np.ndarray  # (2,) canvas px
    size: tuple[float, float]  # (along, across) canvas px: the frame cell's width and height
    angle: float  # degrees, direction of the frame cell's width on the canvas (CCW on screen)


def _cells(view: TableView, count: int, rng: np.random.Generator) -> list[Cell]:
    """Split the frame into a grid of >= count cells, in random order."""
    width, height = view.frame_size
    cols = max(1, round(np.sqrt(count * width / height)))
    rows = int(np.ceil(count / cols))
    while (rows - 1) * cols >= count and rows > 1:
        rows -= 1
    inverse = np.linalg.inv(view.homography)
    cells = []
    for r in range(rows):
        for c in range(cols):
            x0, x1 = width * c / cols, width * (c + 1) / cols
            y0, y1 = height * r / rows, height * (r + 1) / rows
            q = transform_points(inverse, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
            along = min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3]))
            across = min(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]))
            d = (q[1] - q[0]) + (q[2] - q[3])
            centre = q.mean(axis=0) + rng.normal(0, min(along, across) * 0.03, 2)
            angle = float(np.degrees(np.arctan2(-d[1], d[0])))
            cells.append(Cell(centre, (float(along), float(across)), angle))
    order = rng.permutation(len(cells))
    return [cells[i] for i in order]


def _fit_layout(
    rng: np.random.Generator,
    kind: str,
    n: int,
    aspect: float,
    turn: float,
    room: tuple[float, float],
) -> np.ndarray:
    """Poses for up to n cards of layout `kind`, turned by `turn` degrees, that fit in a
    `room` (width, height) box in card widths; drops cards from the end when they cannot."""
    attempt = 0
    while True:  # ends: n falls by at least one card per try from the third on
        local = layouts.LAYOUTS[kind](n, aspect, rng)
        for quarter in (0.0, 90.0):  # a player on the next side of the table, if that fits
            poses = layouts.rotate(local, turn + quarter)
            w, h = layouts.extent(poses, aspect)
            if (w <= room[0] * 1.05 and h <= room[1] * 1.05) or n == 0:
                return poses
        attempt += 1
        if attempt >= 2:
            n = min(n - 1, int(n * 0.85))


def _group_turn(rng: np.random.Generator) -> float:
    """Players sit round the table: mostly square to an edge, sometimes any angle."""
    if rng.random() < 0.3:
        return float(rng.uniform(-180, 180))
    return float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 6))


def _pick(weights: dict[str, float], rng: np.random.Generator) -> str:
    names = list(weights)
    p = np.array([weights[n] for n in names])
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def plan_cards(
    rng: np.random.Generator,
    view: TableView,
    slots: tuple[DeckSlot, ...],
    art: ArtCache,
    card_px: int,
) -> tuple[list[Piece], list[dict[str, Any]]]:
    """Every card to paint, in paint order, and a note per group for the scene's record."""
    aspect = float(art.art.CARD_ASPECT)
    slot_art = {}
    for s in slots:
        slot_art[s.slot] = (
            art.back(s.deck, card_px)
            if s.art == "builtin"
            else art.random_back(rng, card_px, str(s.family))
        )
    groups: list[tuple[str, list[int | None]]] = []  # (layout, deck slot per card; None = face)
    full_decks = len(slots) <= 4 and rng.random() < 0.5  # a late round: big piles to count
    for s in slots:
        if full_decks:
            n = int(rng.integers(15, 41))
        else:
            n = int(rng.integers(0, 41)) if rng.random() < 0.85 else int(rng.integers(0, 6))
        groups.append((_pick(layouts.LAYOUT_WEIGHTS, rng), [s.slot] * n))
    if rng.random() < 0.35:  # an unsorted row of mixed decks, maybe with a few faces in it
        n = int(rng.integers(3, 25))
        face_share = rng.uniform(0, 0.3) if rng.random() < 0.4 else 0.0
        deck_choice = [int(rng.integers(len(slots))) for _ in range(n)]
        mixed: list[int | None] = [None if rng.random() < face_share else d for d in deck_choice]
        groups.append(("rows" if rng.random() < 0.6 else "scatter", mixed))
    if rng.random() < 0.45:  # face-up cards: a leftover Blitz pile spread out, stray faces
        groups.append(
            (_pick({"rows": 1, "scatter": 1, "grid": 0.5}, rng), [None] * int(rng.integers(1, 13)))
        )
    cells = _cells(view, len(groups), rng)
    pieces: list[Piece] = []
    notes = []
    for (kind, members), cell in zip(groups, cells, strict=False):
        room = (cell.size[0] / card_px, cell.size[1] / card_px)
        poses = _fit_layout(rng, kind, len(members), aspect, _group_turn(rng), room)
        poses = layouts.rotate(poses, cell.angle)  # cell axes -> canvas axes
        centre = cell.centre
        members = members[: len(poses)]
        if rng.random() < 0.5 and kind != "fans":
            order = rng.permutation(len(members))  # sorted piles are not always in order
            members = [members[i] for i in order]
        for (x, y, angle), slot in zip(poses, members, strict=True):
            cx, cy = centre[0] + x * card_px, centre[1] + y * card_px
            if slot is None:
                face_px = next((w for w in FACE_WIDTHS if w >= card_px), FACE_WIDTHS[-1])
                card = art.face(
                    FACE_COLOURS[int(rng.integers(4))], int(rng.integers(1, 11)), face_px
                )
                pieces.append(
                    Piece(
                        card.rgba,
                        None,
                        (cx, cy),
                        float(angle),
                        CLASS_FACE,
                        gain=float(rng.uniform(0.9, 1.06)),
                        scale=card_px / face_px,
                    )
                )
            else:
                card = slot_art[slot]
                pieces.append(
                    Piece(
                        card.rgba,
                        card.drawing_mask,
                        (cx, cy),
                        float(angle),
                        CLASS_BACK,
                        slot,
                        slots[slot].deck,
                        gain=float(rng.uniform(0.9, 1.06)),
                    )
                )
        notes.append(
            {
                "layout": kind,
                "cards": len(members),
                "slots": sorted({m for m in members if m is not None}),
            }
        )
    return pieces, notes


def plan_clutter(rng: np.random.Generator, view: TableView, card_px: int) -> list[Piece]:
    """0-4 objects somewhere on the table, and sometimes a hand reaching in from an edge."""
    pieces = []
    lo, hi = view.footprint.min(axis=0), view.footprint.max(axis=0)
    for _ in range(int(rng.choice([0, 0, 1, 1, 2, 3, 4]))):
        kind = _pick({"phone": 1, "coin": 1.5, "pen": 1}, rng)
        sprite = clutter_sprites.CLUTTER[kind](rng, card_px)
        centre = (float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1], hi[1])))
        pieces.append(
            Piece(
                sprite,
                None,
                centre,
                float(rng.uniform(-180, 180)),
                None,
                on_top=bool(rng.random() < 0.5),
            )
        )
    if rng.random() < 0.3:
        sprite = clutter_sprites.hand(rng, card_px)
        edge = int(rng.integers(4))
        a, b = view.footprint[edge], view.footprint[(edge + 1) % 4]
        point = a + (b - a) * rng.uniform(0.15, 0.85)
        inward = view.footprint.mean(axis=0) - point
        inward /= np.linalg.norm(inward)
        reach = sprite.shape[0] * rng.uniform(0.0, 0.3)  # sprite centre inside by this much
        centre = point + inward * reach
        # The sprite's fingers point up (-y): turn them to point inwards.
        angle = float(np.degrees(np.arctan2(-inward[0], -inward[1])) + rng.normal(0, 15))
        pieces.append(
            Piece(sprite, None, (float(centre[0]), float(centre[1])), angle, None, on_top=True)
        )
    return pieces


# ---------------------------------------------------------------- painting


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


def compose_scene(rng: np.random.Generator, config: SceneConfig, art: ArtCache) -> Scene:
    """One synthetic frame and its labels; every random choice comes from `rng`."""
    view = sample_view(rng, config.frame_size)
    frac = rng.uniform(*CARD_WIDTH_FRACTION)
    card_px = max(
        ART_WIDTH_STEP * 4, ART_WIDTH_STEP * round(frac * config.frame_size[0] / ART_WIDTH_STEP)
    )
    table_size = (max(8, view.canvas_size[0] // 2), max(8, view.canvas_size[1] // 2))
    table_kind, table = render_table(rng, table_size)
    slots = sample_decks(rng, config)
    cards, groups = plan_cards(rng, view, slots, art, card_px)
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
    return Scene(image, tuple(objects), quality, meta)
