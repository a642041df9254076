"""The deck profile: one reference drawing per deck that identification compares against.

Where references come from, in order of precedence:
- `--decks DIR`: DIR/<deck>.png only (deck name from the file name, held to enrollment's rules;
  extra decks too);
- otherwise the built-in art (`blitzcam.datasets.art.render_back`) for the eight decks, each
  replaced by the user's enrolled back at data_dir()/decks/<deck>.png when there is one, plus any
  extra enrolled names.
A reference image is a whole card back, upright and flat (exported or rectified by enrollment).
"""

from __future__ import annotations

import dataclasses
import errno
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import cv2
import numpy as np

from blitzcam.errors import UserError
from blitzcam.files import file_managers_own
from blitzcam.game.decks import DECK_NAME_MAX, DECK_NAMES, folded_deck_name, meant_deck
from blitzcam.paths import data_dir, data_dir_path, not_there, out_of_reach
from blitzcam.vision.back_boxes import box_sides, inkness
from blitzcam.vision.detections import UNKNOWN_NAME, obb_corners
from blitzcam.vision.embedding import PATCH, drawing_patch, renumbered
from blitzcam.vision.images import IMAGE_SUFFIXES, ImageError, has_colour, read_image

if TYPE_CHECKING:
    from blitzcam.vision.card_finder import Bright


# a deck's name, as enrollment stores it and a --decks folder's file names give it (fullmatch)
DECK_NAME_PATTERN: Final = re.compile(rf"[a-z0-9][a-z0-9-]{{0,{DECK_NAME_MAX - 1}}}")
# names Windows keeps for devices in every folder: a profile stored under one cannot be copied
# to (or made on) a Windows machine
WINDOWS_DEVICES: Final = frozenset(
    {"con", "prn", "aux", "nul"} | {f"{kind}{n}" for kind in ("com", "lpt") for n in range(10)}
)
BUILTIN_WIDTH: Final = 320  # built-in backs are rendered this wide for reference features
REFERENCE_WIDTH: Final = 320  # enrolled/--decks backs are resized to this width first
BORDER: Final = 0.06  # ink this close to a card's edge is the card's edge, not its drawing
MIN_DRAWING_FRACTION: Final = 0.002  # of the card area: less ink than this is "no drawing"
INK_THRESHOLD: Final = 0.3
AREA_SLACK: Final = 1.12
COVER_KEEP: Final = (0.6, 0.8)  # how much of a covered drawing still shows, in reference variants
# A back is mostly paper around its drawing: the generator's backs (the eight and 300 random
# designs of every family) ink 2-8 % of the card at REFERENCE_WIDTH. A black or noisy picture
# inks 60-78 % of it, the demo's photos of whole tables 45-58 %; as a reference, any of them
# became a "deck" that nothing matches. The line leaves real prints, bolder than ours, room.
# (Counting the drawing's pieces would tell a table too, but a finely hatched back has more.)
MAX_INK_SHARE: Final = 0.4
# A card back is about 2:3 (Dutch Blitz cards are 2.25 x 3.5 in); a picture whose long side is
# more than this times its short one is no photo of one (and, scaled to REFERENCE_WIDTH, a
# 2 x 500 px strip would be 80,000 px tall: past what OpenCV's warps take)
MAX_CARD_ASPECT: Final = 3.0
MIN_DRAWING_SIDE: Final = 3.0  # px at REFERENCE_WIDTH: a drawing thinner is a line, no drawing


def name_to_offer(name: str) -> str | None:
    """The deck name to suggest for `name`, which cannot be one: its plain form ("Café":
    "cafe"), or the deck a slip of that is meant for ("Red-Bugy": "red-buggy"); None where the
    name offered would be refused in turn (reserved, a Windows device, still not a name)."""
    plain = folded_deck_name(name)
    plain = meant_deck(plain) or plain
    if plain in (name, UNKNOWN_NAME) or plain in WINDOWS_DEVICES:
        return None
    return plain if DECK_NAME_PATTERN.fullmatch(plain) else None


@dataclass(frozen=True, slots=True)
class DeckProfile:
    """Deck names and their reference drawings (cut as identification cuts a back), in order."""

    names: tuple[str, ...]
    patches: np.ndarray  # (rows, PATCH, PATCH, 3) uint8 BGR: one per reference variant
    owners: np.ndarray  # (rows,) int64: the deck (index into names) of each patch
    origins: tuple[str, ...]  # where each reference came from (file path or "built-in")
    # enrolled files left out, one line each saying why (only `default_profile(skip_unusable=
    # True)` leaves any out; every other way of loading raises on the first)
    left_out: tuple[str, ...] = ()
    # decks of the eight read against their built-in art only so that their backs are told from
    # the decks given (a `--decks` folder without them): never counted. Without them, a table's
    # blue plows were counted as the folder's one red plow, the nearest deck it had.
    stand_ins: tuple[str, ...] = ()

    def known_decks(self) -> tuple[str, ...]:
        """The eight decks, then any extra names of this profile (what counts are reported for)."""
        return tuple(DECK_NAMES) + tuple(n for n in self.names if n not in DECK_NAMES)

    def countable(self) -> tuple[str, ...]:
        """The decks a back may be counted to: every name but the stand-ins."""
        return tuple(n for n in self.names if n not in self.stand_ins)

    def without(self, decks: Collection[str]) -> DeckProfile:
        """This profile with `decks` and their references taken out."""
        keep = [i for i, name in enumerate(self.names) if name not in decks]
        rows, owners = renumbered(self.owners, keep)
        return dataclasses.replace(
            self,
            names=tuple(self.names[i] for i in keep),
            patches=self.patches[rows],
            owners=owners,
            origins=tuple(self.origins[i] for i in keep),
            stand_ins=tuple(name for name in self.stand_ins if name not in decks),
        )

    def unread_decks(self) -> tuple[str, ...]:
        """Known decks this profile holds no reference of their own for (a `--decks` folder
        without some of the eight): reported, always as 0, since nothing is counted as them."""
        countable = self.countable()
        return tuple(n for n in self.known_decks() if n not in countable)


def user_decks_dir(*, made: bool = False) -> Path:
    """Where the user's enrolled backs are: read where it is (not there: none enrolled, and a
    count needs no data directory it cannot make), or `made` for a back to be stored."""
    return (data_dir() if made else data_dir_path()) / "decks"


def decks_folder_state() -> tuple[tuple[str, int, int], ...] | None:
    """What the enrolled backs' folder holds now: each file's name, change time and size (None
    when it cannot be read). A process that loaded the profile tells from it that another one
    (`blitzcam decks enroll` beside the app) changed the profile since."""
    folder = user_decks_dir()
    try:
        if not folder.is_dir():
            return ()
        stats = ((entry.name, entry.stat()) for entry in folder.iterdir())
        return tuple(sorted((name, stat.st_mtime_ns, stat.st_size) for name, stat in stats))
    except OSError:
        return None


def drawing_mask(card_bgr: np.ndarray) -> np.ndarray:
    """The ink of a back's drawing, found from pixels alone: ink away from the card's edge."""
    _balanced, ink = inkness(card_bgr)
    mask = (ink > INK_THRESHOLD).astype(np.uint8)
    h, w = mask.shape
    margin_x, margin_y = max(1, round(w * BORDER)), max(1, round(h * BORDER))
    mask[:margin_y], mask[-margin_y:], mask[:, :margin_x], mask[:, -margin_x:] = 0, 0, 0, 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    keep = np.zeros(count, bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= max(3, mask.size * 0.00005)  # drop specks of noise
    return keep[labels]


def drawing_boxes(mask: np.ndarray) -> list[np.ndarray]:
    """Oriented boxes (4,2 corners, ultralytics order) a detector may put around this drawing.

    Labels are the minimum-area rectangle of the visible drawing. For drawings with two nearly
    equal minima (the pump: upright, or turned along its handle) perspective decides which one a
    photo gets, so every local minimum within AREA_SLACK of the best is a reference variant.
    """
    points = np.argwhere(mask)[:, ::-1].astype(np.float64)
    hull = cv2.convexHull(points.astype(np.float32))[:, 0].astype(np.float64)
    angles = np.deg2rad(np.arange(0.0, 90.0, 1.0))
    cos, sin = np.cos(angles), np.sin(angles)
    xs = hull[None, :, 0] * cos[:, None] - hull[None, :, 1] * sin[:, None]
    ys = hull[None, :, 0] * sin[:, None] + hull[None, :, 1] * cos[:, None]
    areas = np.ptp(xs, axis=1) * np.ptp(ys, axis=1)
    local = (areas <= np.roll(areas, 1)) & (areas <= np.roll(areas, -1))
    chosen = np.flatnonzero(local & (areas <= areas.min() * AREA_SLACK))
    boxes = []
    for k in chosen:
        cx_r, cy_r = (xs[k].max() + xs[k].min()) / 2, (ys[k].max() + ys[k].min()) / 2
        t = angles[k]
        cx, cy = cx_r * cos[k] + cy_r * sin[k], -cx_r * sin[k] + cy_r * cos[k]
        obb = np.array([[cx, cy, np.ptp(xs[k]), np.ptp(ys[k]), -t]], np.float32)
        boxes.append(obb_corners(obb)[0])
    return boxes


def covered_boxes(mask: np.ndarray, boxes: list[np.ndarray]) -> list[np.ndarray]:
    """Boxes of the drawing with one side covered by another card (COVER_KEEP of it still showing).

    The detector boxes only the visible part of a drawing, so a partly covered back is compared
    with references cut the same way: for each box variant, keep the drawing's pixels up to a
    fraction of the way from one side, and box them as a label would (minimum-area rectangle).
    """
    points = np.argwhere(mask)[:, ::-1].astype(np.float32)
    covered = []
    for corners in boxes:
        origin, x_end, y_end = corners[2], corners[1], corners[3]
        axes = np.stack([x_end - origin, y_end - origin])
        uv = (points - origin) @ np.linalg.inv(axes)  # box-frame coordinates in [0, 1]
        for keep in COVER_KEEP:
            for axis in (0, 1):
                for kept in (uv[:, axis] <= keep, uv[:, axis] >= 1 - keep):
                    if kept.sum() >= 10:
                        (cx, cy), (w, h), angle = cv2.minAreaRect(row_ends(points[kept]))
                        obb = np.array([[cx, cy, w, h, np.deg2rad(angle)]], np.float32)
                        covered.append(obb_corners(obb)[0])
    return covered


def row_ends(points: np.ndarray) -> np.ndarray:
    """The first and last of each row's points ((n, 2) x, y, in `np.argwhere`'s row-major order)
    as (m, 1, 2): the same convex hull, so the same minimum-area rectangle, from a fraction of
    the points (every point of a row lies between its two ends)."""
    ys = points[:, 1]
    first = np.flatnonzero(np.r_[True, ys[1:] != ys[:-1]])
    last = np.r_[first[1:] - 1, len(points) - 1]
    return points[np.unique(np.r_[first, last])].reshape(-1, 1, 2)


def reference_boxes(
    card_bgr: np.ndarray, mask: np.ndarray | None = None, *, name: str
) -> list[np.ndarray]:
    """A card back -> every box a detector may put around its drawing: the whole drawing (each
    near-minimal rectangle) and the same partly covered. UserError when there is no drawing."""
    if mask is None:
        mask = drawing_mask(card_bgr)
    if mask.sum() < max(10, mask.size * MIN_DRAWING_FRACTION):
        raise UserError(
            f"{name}: no drawing found on this card back (is it a back, in focus and lit?)"
        )
    if (share := float(mask.mean())) > MAX_INK_SHARE:
        raise UserError(
            f"{name}: this does not look like a card back: ink covers {share:.0%} of it, where a "
            "back is mostly light paper around its drawing (light a dark photo brighter; a back "
            "printed in colour to its edges cannot be enrolled: decks are told by a drawing on "
            "paper)"
        )
    boxes = drawing_boxes(mask)
    if box_sides(boxes[0])[1] < MIN_DRAWING_SIDE:  # (a box of no area has no inside to cut)
        raise UserError(
            f"{name}: no drawing found on this card back, only a thin line of ink (is it a "
            "back, in focus and lit?)"
        )
    return boxes + covered_boxes(mask, boxes)


def with_mirrors(patches: list[np.ndarray]) -> list[np.ndarray]:
    """Patches and their mirror images: many webcams mirror their picture by default."""
    return patches + [np.ascontiguousarray(patch[:, ::-1]) for patch in patches]


def reference_patches(
    card_bgr: np.ndarray, mask: np.ndarray | None = None, *, name: str
) -> list[np.ndarray]:
    """A card back -> its drawing cut out as identification cuts a back, one per variant: each
    box a detector may give the whole drawing, the same partly covered, and all of those
    mirrored."""
    boxes = reference_boxes(card_bgr, mask, name=name)
    return with_mirrors([drawing_patch(card_bgr, corners) for corners in boxes])


def _resized(card_bgr: np.ndarray) -> np.ndarray:
    scale = REFERENCE_WIDTH / card_bgr.shape[1]
    size = (REFERENCE_WIDTH, max(1, round(card_bgr.shape[0] * scale)))
    return cv2.resize(
        card_bgr, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    )


def card_patches(card_bgr: np.ndarray, *, name: str, deck: str) -> list[np.ndarray]:
    """A stored reference card of `deck`, as a profile reads it (scaled to REFERENCE_WIDTH) ->
    its patches; UserError naming `name` when it is not the shape of a card, shows no drawing,
    or is grey for one of the eight decks. Enrollment checks a card with this before storing it,
    so that what it stores always loads."""
    height, width = card_bgr.shape[:2]
    if max(height, width) > MAX_CARD_ASPECT * min(height, width):
        raise UserError(
            f"{name}: {width}×{height} px is not the shape of a card back (about 2:3): crop "
            "the picture to the card"
        )
    patches = reference_patches(_resized(card_bgr), name=name)
    # the eight are told apart by their inks: a grey print of one matched none of its backs,
    # without a word (a deck of the user's own may be black on white)
    if deck in DECK_NAMES and not has_colour(card_bgr):
        raise UserError(
            f"{name}: the picture has no colour, and {deck}'s back is told from its sister "
            "deck's by its ink: take or save it in colour"
        )
    return patches


def load_reference_file(path: Path, deck: str) -> list[np.ndarray]:
    """`deck`'s reference image file -> identification patches; UserError naming the file if
    unusable."""
    from blitzcam.vision.card_finder import card_in, card_shaped_picture

    try:
        card = read_image(path)
    except ImageError as exc:
        raise UserError(f"deck reference {exc}") from None
    found = None  # what the card finder made of it, where it was asked (once)
    # (first: else a photo of a back on a wood table reads its grain as drawing, taken as the
    # deck's look, its cards then counted as another deck's) unless it is a card's
    # shape, as a back cut to its edges is and a camera's frame is not (else the light panel of a
    # design in a dark frame is found as the card)
    if not card_shaped_picture(card.shape):
        found = card_in(card)
        if (photo := _photo_with_a_card(found[0], card.shape, path, deck)) is not None:
            raise UserError(photo)
    try:
        return card_patches(card, name=str(path), deck=deck)
    except UserError as exc:
        raise UserError(_not_a_cut_back(card, path, deck, found) or str(exc)) from None


# a reference's longer side, at least: a back is read scaled to REFERENCE_WIDTH, and one of a
# few pixels holds no drawing to scale (a strip 2 px wide keeps its own reason: not a card's
# shape)
MIN_REFERENCE_SIDE: Final = 24


def _photo_with_a_card(
    cards: Sequence[Bright], shape: tuple[int, ...], path: Path, deck: str
) -> str | None:
    """Why a reference file of `shape`, in which the card finder found `cards`, is not a card
    back cut to its edges where it is a photo with one card in it (a phone's photo saved into
    a --decks folder), or None."""
    height, width = shape[:2]
    # (no card in it, a table of them, or the card is the picture: no photo of one card)
    if len(cards) != 1 or cards[0].area > PHOTO_CARD_SHARE * width * height:
        return None
    return (
        f"{path}: a photo with a card in it, not a back cut to its edges as `blitzcam decks "
        f"export` writes one: `blitzcam decks enroll {deck} --image {path}` cuts it out and "
        "stores it"
    )


def _not_a_cut_back(
    picture: np.ndarray,
    path: Path,
    deck: str,
    found: tuple[list[Bright], str | None] | None = None,
) -> str | None:
    """Why a reference file that cannot be used is not a card back cut to its edges, where it
    is plainly something else: a few pixels, a card's face, or a photo with a card in it, of
    any shape (a phone's photo saved into a --decks folder is not "no drawing found on this card
    back (is it a back ...?)", which it is). `found`: the card finder's reading of
    `picture`, where it was made. None otherwise: the first reason stands."""
    height, width = picture.shape[:2]
    if max(height, width) < MIN_REFERENCE_SIDE:
        return f"{path}: {width}×{height} px: too small to be a card back"
    from blitzcam.vision.card_finder import card_in, card_shaped_picture
    from blitzcam.vision.face_up import FACE_UP, is_face

    cards, problem = found if found is not None else card_in(picture)
    # (a face photographed, or one cut to its edges: a card's shape with no card in it, where a
    # photo of a back on a cloth of one colour, 16:10 as a card nearly is, has its back found)
    whole = not cards and card_shaped_picture(picture.shape)
    if problem == FACE_UP or (whole and is_face(picture)):
        return (
            f"{path}: a card's face, not its back (a card of one strong colour with its "
            "number): a deck is read against its back"
        )
    return _photo_with_a_card(cards, picture.shape, path, deck)


# a card found covering less of a reference picture not of a card's shape than this: the
# picture is a photo of it (at 0.6, a phone's photo of a card filling 71 % of it is read whole,
# table and all, and that deck's cards counted as another's, unsaid). A back cut to its
# edges loosely enough to change its shape is a photo of it too: `decks enroll` cuts it out
PHOTO_CARD_SHARE: Final = 0.95


def card_on_white(rgba: np.ndarray) -> np.ndarray:
    """A rendered card (RGBA, transparent corners) as a BGR photo of it on white paper."""
    bgr = np.ascontiguousarray(rgba[..., 2::-1])
    edge = rgba[..., 3] < 255  # only the rounded corners' pixels: blended in float there
    rgb = rgba[edge, :3].astype(np.float32)
    alpha = rgba[edge, 3:4].astype(np.float32) / 255.0
    bgr[edge] = (rgb * alpha + 255.0 * (1 - alpha))[:, ::-1].astype(np.uint8)
    return bgr


def _builtin_patches(deck: str) -> list[np.ndarray]:
    from blitzcam.datasets.art import render_back

    card = render_back(deck, width=BUILTIN_WIDTH)
    return reference_patches(card_on_white(card.rgba), card.drawing_mask, name=f"built-in {deck}")


def _profile(
    entries: list[tuple[str, list[np.ndarray], str]],
    left_out: tuple[str, ...] = (),
    stand_ins: tuple[str, ...] = (),
) -> DeckProfile:
    return DeckProfile(
        names=tuple(name for name, _, _ in entries),
        patches=np.stack([patch for _, patches, _ in entries for patch in patches]).reshape(
            -1, PATCH, PATCH, 3
        ),
        owners=np.array(
            [i for i, (_, patches, _) in enumerate(entries) for _ in patches], np.int64
        ),
        origins=tuple(origin for _, _, origin in entries),
        left_out=left_out,
        stand_ins=stand_ins,
    )


def folder_deck_files(folder: Path) -> dict[str, Path]:
    """A --decks folder's <deck>.png files by deck name, a badly named one left out (empty for
    a folder that cannot be read)."""
    try:
        return _deck_files(Path(folder), problems=[])
    except OSError:
        return {}


def _deck_files(
    folder: Path, problems: list[str] | None = None, *, enrolled: bool = False
) -> dict[str, Path]:
    """A folder's <deck>.png files by deck name, in file-name order; UserError naming the file
    whose name cannot name a deck, or that names a deck a second time. Checked before any
    image is read. With `problems`, such a file is said there and left out instead.
    `enrolled`: the folder is the user's profile, which `blitzcam decks` commands mend."""
    files: dict[str, Path] = {}
    try:
        listing = sorted(folder.iterdir())
    except OSError as exc:  # a folder we may not read, say: every count would fail on it
        reason = exc.strerror or exc
        _refuse(f"{folder}: cannot list the deck references: {reason}", problems)
        return files
    for path in listing:
        if path.suffix.lower() != ".png" or path.name.startswith("."):
            continue
        dangling = path.is_symlink() and not path.exists()
        if path.is_dir():  # (passed over unsaid, its deck read as the built-in art or none)
            _refuse(f"{path}: a folder, not a picture of a deck's back: rename it", problems)
            continue
        if not path.is_file() and not dangling:
            continue
        name = path.stem
        if dangling:  # (passed over, it was a deck nobody could list, forget or enroll over)
            remove = f"remove it (`blitzcam decks forget {name}`)" if enrolled else "remove it"
            if _links_in_a_loop(path):
                _refuse(f"{path}: a link that leads back to itself: {remove}", problems)
            else:
                _refuse(
                    f"{path}: a link to {path.readlink()}, which is not there: {remove} or "
                    "put the picture back",
                    problems,
                )
        elif name == UNKNOWN_NAME:  # output names unidentified backs so: a deck may not be
            _refuse(f"{path}: the deck name {name!r} is reserved; rename the file", problems)
        elif not DECK_NAME_PATTERN.fullmatch(name):  # a name in counts, JSON and file names
            example = name_to_offer(name) or "green-pump"
            long = f" ({len(name)} of them here)" if len(name) > DECK_NAME_MAX else ""
            _refuse(
                f"{path}: {name!r} cannot name a deck: rename the file to a-z, 0-9 and dashes, "
                f"up to {DECK_NAME_MAX}{long}, not starting with a dash (e.g. {example}.png)",
                problems,
            )
        elif name in WINDOWS_DEVICES:  # held to enrollment's rules (con.png: the console)
            _refuse(
                f"{path}: {name!r} names a device on Windows: rename the file (`blitzcam decks "
                f"forget {name}` removes an enrolled one)",
                problems,
            )
        elif not enrolled and (meant := meant_deck(name)) is not None:
            # held to enrollment's rules: red-bugy.png counted red buggy's cards under the typo,
            # and a script reading counts["red-buggy"] read 0 (the profile's such decks were
            # enrolled with --own, on purpose)
            _refuse(
                f"{path}: {name!r} is not one of the eight decks: did you mean {meant}? Rename "
                f"the file ({meant}.png; a deck of your own: a name further from it)",
                problems,
            )
        elif name in files:  # mine.png and mine.PNG: which one would count?
            _refuse(
                f"{path}: a second reference for deck {name!r} (beside {files[name]})", problems
            )
        else:
            files[name] = path
    return files


def _links_in_a_loop(path: Path) -> bool:
    """Whether following `path`'s links comes back round (a.png -> b.png -> a.png: both are
    there, and "b.png is not there" sent the user looking for a file that was)."""
    try:
        path.stat()
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _refuse(problem: str, problems: list[str] | None) -> None:
    """Raise `problem` as a UserError, or note it in `problems` and go on."""
    if problems is None:
        raise UserError(problem)
    problems.append(problem)


def profile_from_dir(folder: Path) -> DeckProfile:
    """`--decks DIR`: DIR/<deck>.png, each a deck named after its file; the eight decks it has
    no file for are stand-ins (their built-in art tells their backs from the folder's decks)."""
    folder = Path(folder)
    if why := out_of_reach(folder):
        raise UserError(f"--decks {folder}: {why}")
    if not folder.exists():
        raise UserError(f"--decks {folder}: {not_there(folder, 'folder')}")
    if not folder.is_dir():
        raise UserError(f"--decks {folder}: not a folder")
    files = _deck_files(folder)
    if not files:
        kinds = sorted({p.suffix.lower() for p in folder.iterdir()} & IMAGE_SUFFIXES - {".png"})
        unread = f" (its {', '.join(kinds)} pictures are not read: save them as PNG)" * bool(kinds)
        raise UserError(
            f"--decks {folder}: the folder holds no <deck>.png reference images{unread}"
        )
    entries = [(name, load_reference_file(p, name), str(p)) for name, p in files.items()]
    missing = tuple(name for name in DECK_NAMES if name not in files)
    entries += [(name, _builtin_patches(name), "built-in, not counted") for name in missing]
    return _profile(entries, stand_ins=missing)


def pictures_not_read(folder: Path) -> list[Path]:
    """Pictures in a `--decks` folder that are not read: not PNG files, or hidden (only a
    visible <deck>.png is read: a red-plow.jpg, or a .red-plow.png, beside PNGs left red
    plow's cards uncounted without a word of the file; a mine.jpg, a deck of the user's own,
    the same). A macOS `._` file is no picture of the user's."""
    try:
        listing = sorted(Path(folder).iterdir())
    except OSError:
        return []
    return [
        path
        for path in listing
        if not file_managers_own(path.name)
        and path.suffix.lower() in IMAGE_SUFFIXES
        and (path.suffix.lower() != ".png" or path.name.startswith("."))
    ]


def enrolled_files(*, problems: list[str] | None = None) -> dict[str, Path]:
    """The user's enrolled backs by deck name (data_dir()/decks/<deck>.png); see _deck_files."""
    folder = user_decks_dir()
    return _deck_files(folder, problems, enrolled=True) if folder.is_dir() else {}


def usable_enrolled(
    *, problems: list[str] | None = None
) -> dict[str, tuple[Path, list[np.ndarray]]]:
    """The user's enrolled backs that load, by deck name: each file and its patches. A file
    that cannot be used raises UserError naming it, or with `problems` is said there."""
    loaded = {}
    for name, path in enrolled_files(problems=problems).items():
        try:
            loaded[name] = (path, load_reference_file(path, name))
        except UserError as exc:
            if problems is None:  # (a command stops on it: it says the way out)
                then = (
                    "its backs are read against the built-in art"
                    if name in DECK_NAMES
                    else "the deck is no longer counted"
                )
                raise UserError(
                    f"{exc} (enrolled as {name}: enroll it again, `blitzcam decks enroll "
                    f"{name} --image FILE`, or `blitzcam decks forget {name}`: {then})"
                ) from None
            problems.append(str(exc))
    return loaded


def builtin_profile() -> DeckProfile:
    """The eight decks read against blitzcam's own drawings of them alone."""
    return _profile([(name, _builtin_patches(name), "built-in") for name in DECK_NAMES])


def default_profile(*, skip_unusable: bool = False) -> DeckProfile:
    """Built-in art for the eight decks, overridden or extended by the user's enrolled backs.

    An enrolled file that cannot be used raises UserError naming it. With `skip_unusable` (the
    app, which must go on counting a damaged profile) it is left out instead, said in the
    profile's `left_out`: one of the eight decks is then read against its built-in art."""
    problems: list[str] | None = [] if skip_unusable else None
    loaded = usable_enrolled(problems=problems)
    entries = []
    for name in DECK_NAMES:
        if name in loaded:
            path, patches = loaded[name]
            entries.append((name, patches, str(path)))
        else:
            entries.append((name, _builtin_patches(name), "built-in"))
    for name, (path, patches) in loaded.items():
        if name not in DECK_NAMES:
            entries.append((name, patches, str(path)))
    return _profile(entries, tuple(problems or ()))


def load_profile(decks_dir: Path | None = None, *, skip_unusable: bool = False) -> DeckProfile:
    """`decks_dir`'s references, or the user's profile (see default_profile for
    `skip_unusable`; a folder named on purpose is always held to every file)."""
    if decks_dir is not None:
        return profile_from_dir(decks_dir)
    return default_profile(skip_unusable=skip_unusable)
