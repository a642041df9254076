"""What lies on the table in one scene: decks, their art, where each player's cards go, clutter.

Pure planning, no pixels: returns `Piece` records (a sprite and its pose on the flat canvas of
`geometry.TableView`) in paint order. `compose` paints them and keeps the labels exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Final

import numpy as np

from blitzcam.datasets import clutter as clutter_sprites
from blitzcam.datasets import layouts
from blitzcam.datasets.geometry import TableView, transform_points
from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE, UNKNOWN_DECK_PREFIX
from blitzcam.game.decks import DECK_NAMES

FACE_COLOURS: Final = ("red", "blue", "yellow", "green")
# A late round of a big game (`SceneConfig.late_round`): six to eight players, each with most of
# a deck to count, spread tight in rows so that all of it fits the frame.
LATE_ROUND_DECKS: Final = (6, 8)
LATE_ROUND_CARDS: Final = (25, 40)
LATE_ROUND_LAYOUTS: Final = {"rows": 0.5, "spread": 0.35, "grid": 0.15}
# Faces are not counted: rendered at a few widths and scaled, so a worker caches 160 of them.
FACE_WIDTHS: Final = (64, 128, 192, 256)


@dataclass(frozen=True)
class SceneConfig:
    """What one scene may contain. ``random_families`` are the random-art families allowed here
    (the holdout family is left out of train/val scenes)."""

    frame_size: tuple[int, int]
    random_families: tuple[str, ...]
    photometric: bool = True
    clutter: bool = True
    random_art_scene_share: float = 0.45
    late_round: bool = False  # LATE_ROUND_DECKS, each with LATE_ROUND_CARDS


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


def sample_decks(rng: np.random.Generator, config: SceneConfig) -> tuple[DeckSlot, ...]:
    """2-8 decks (a late round: LATE_ROUND_DECKS); built-in names never repeat; a share of
    scenes get random-art decks."""
    if config.late_round:
        count = int(rng.integers(LATE_ROUND_DECKS[0], LATE_ROUND_DECKS[1] + 1))
    else:
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
    *,
    tries: int = 2,
) -> np.ndarray:
    """Poses for up to n cards of layout `kind`, turned by `turn` degrees, that fit in a
    `room` (width, height) box in card widths; after `tries` layouts of all n that do not
    fit, drops cards from the end."""
    attempt = 0
    while True:  # ends: n falls by at least one card per try once the tries are spent
        local = layouts.LAYOUTS[kind](n, aspect, rng)
        for quarter in (0.0, 90.0):  # a player on the next side of the table, if that fits
            poses = layouts.rotate(local, turn + quarter)
            w, h = layouts.extent(poses, aspect)
            if (w <= room[0] * 1.05 and h <= room[1] * 1.05) or n == 0:
                return poses
        attempt += 1
        if attempt >= tries:
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
    *,
    late_round: bool = False,
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
    if late_round:
        for s in slots:
            n = int(rng.integers(LATE_ROUND_CARDS[0], LATE_ROUND_CARDS[1] + 1))
            groups.append((_pick(LATE_ROUND_LAYOUTS, rng), [s.slot] * n))
    else:
        full_decks = len(slots) <= 4 and rng.random() < 0.5  # a late round of a small game
        for s in slots:
            if full_decks:
                n = int(rng.integers(15, 41))
            else:
                n = int(rng.integers(0, 41)) if rng.random() < 0.85 else int(rng.integers(0, 6))
            groups.append((_pick(layouts.LAYOUT_WEIGHTS, rng), [s.slot] * n))
    # an unsorted row of mixed decks, maybe with a few faces in it (a late round's players
    # have sorted theirs: the frame is full of their piles)
    if not late_round and rng.random() < 0.35:
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
        poses = _fit_layout(  # a late round's piles are laid out again before any is cut
            rng, kind, len(members), aspect, _group_turn(rng), room, tries=8 if late_round else 2
        )
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
