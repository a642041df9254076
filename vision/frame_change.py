"""How much a frame differs from another, as live counting judges it: a tiny thumbnail of each
frame, compared over the whole picture and block by block where the cards lie, a camera's own
exposure set aside; whether a frame is blurred; whether something lies over the cards from the
picture's edge; and a counted frame as newer frames are told apart from it (`CountedView`).

A change is judged over the whole thumbnail and, where the cards lie, block by block: a small
hand over one pile moves the whole picture's mean by less than any line (2.6 grey levels for a
hand of 4 % of the frame), and its frames voted as still ones, so a settled count fell by the
cards it hid. Away from the cards only the whole picture counts: a player fidgeting at the
table's edge holds no count back.

A camera's own exposure is set aside first. A webcam sets its exposure as the picture changes (a
dark sleeve comes in, and the whole table brightens; it goes, and the table dims back over a
second): a uniform gain on the picture, over the motion line from a frame a count before (3-9
grey levels for 15 % more or less light on the demo tables, 7-15 for 30 % more), that moved no
card. So two thumbnails are also compared with the brighter brought to the other's exposure
(`exposure_matched`: a gain and offset fitted on the pixels that agree best, so that a hand or
a moved pile does not pull the fit), and the smaller of the two differences is the change. A
thumbnail keeps, beside each pixel's grey, how much of it is at the camera's white and the grey
of the rest: white paper cannot brighten, nor paper near white past it, and with a gain alone
the cards of the demo's table 3 (6 % of it white to the last bit) still moved 7.5 for 15 % more
light, where they lie; with their white kept, 1.3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

THUMB_SIZE: Final = (32, 18)
SHARPNESS_SIZE: Final = (320, 180)  # the picture a frame's sharpness is measured on
# A frame that shows the last sharp frame's view (its grey under SCENE_THRESHOLD from it) but
# is less sharp than this share of it, where that one had edges and it keeps some, is blurred:
# a webcam's focus hunting, or motion blur without the picture moving, which moves no grey.
# Taken as motion, it does not vote: five such frames of seven outvote the window, red
# buggies and blue plows at 0. Measured on the demo tables (camera noise 3): 25 px of
# motion blur 0.31-0.56, defocus of sigma 3 0.36-0.54, of 1.5 0.60-0.80, 20 % less light
# 0.80-0.81. (Another table reads 0.28-0.90: a sharpness alone cannot tell it from a blur, its
# grey can.) A blur that lasts past a window's frames is the view's own.
BLURRED_BELOW: Final = 0.65
# the thumbnail's blocks, across and down, that changes are also judged in where cards lie:
# 4×3 thumbnail pixels each, about 2 % of the frame
BLOCKS: Final = (8, 6)
MOTION_THRESHOLD: Final = 6.0  # mean absolute grey difference to the previous frame
# a frame whose thumbnail no pixel of moves this far (grey levels) from a settled count's shows
# that table unmoved (`unmoved`): a camera's noise averaged over a thumbnail pixel moves it by
# under one, a card as large as the pixel (40 px of a 1280-px frame) by tens; a smaller card
# may move none this far, and is counted within a second all the same (the app's rest)
UNMOVED_BELOW: Final = 6.0
# a picture over the motion line from a counted frame is that frame's view again only under
# this: judged frame by frame, camera noise or a lamp's flicker near the line switched the
# live view's outlines on and off (16 times in 2 s at 6.5 ± 0.4)
MOVED_BACK_BELOW: Final = 4.0
SCENE_THRESHOLD: Final = 10.0  # mean absolute grey difference to the window's scene
# a change over more of the picture than this is the whole view's (another table, the camera
# moved), not a hand's
COVER_MOST: Final = 0.6
MIN_COVERED: Final = 3  # cards under what covers them, at least, for a view to be covered
# ... and its grey this far from the table's, at least (an arm, a sleeve; measured: a hand over
# demo table 3 40-49 grey levels off it, cards taken away or a smaller pile laid in their place
# 0-10; a hand the table's own grey is not told from the table, and waits a second as before)
COVER_GREY: Final = 20.0
# A camera's exposure is fitted only on a thumbnail with this much contrast (standard deviation,
# grey levels; the demo tables have 17-66): on an even picture any change is a gain to it.
MIN_CONTRAST: Final = 8.0
# the exposure changes taken for a camera's own: a webcam's gain from one frame to a frame a
# few seconds later, at most (beyond, the change is the table's or the room's, and it counts)
EXPOSURE_GAIN: Final = (0.75, 1.33)
EXPOSURE_OFFSET: Final = 24.0  # grey levels, either way
# a frame's grey at or over this is at the camera's white: more light leaves it there, so a
# thumbnail pixel over such pixels brightens less than the rest of the picture (demo table 3,
# 6 % of it white, moved 7.5 where its cards lie for 15 % more light with a gain alone, 1.3
# with its white kept)
WHITE_LEVEL: Final = 250
# the share of thumbnail pixels the exposure is fitted on: those that agree best with the fit,
# so a hand or a pile moved, under a quarter of the picture, does not pull it
EXPOSURE_FIT_SHARE: Final = 0.75


def thumbnail(frame_bgr: np.ndarray, *, sharpness: bool = True) -> np.ndarray:
    """The frame as a THUMB_SIZE float image that motion and scene changes are judged on: each
    pixel's grey (`[..., 0]`), the share of the frame's pixels under it at the camera's white
    (`[..., 1]`, WHITE_LEVEL or more: more light cannot brighten them), the grey of the others
    (`[..., 2]`; 0 where all are white), and how sharp the picture is there (`[..., 3]`: a
    blurred frame's is low; left out without `sharpness`, a millisecond of a 1080p frame the
    live view's comparisons, 15 a second, have no use for). A thumbnail of grey alone (2-D) is
    taken too, as having no white, and no sharpness to tell."""
    grey = _frame_grey(frame_bgr)
    mean = cv2.resize(grey, THUMB_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    _, white = cv2.threshold(grey, WHITE_LEVEL - 1, 255, cv2.THRESH_BINARY)
    share = cv2.resize(white, THUMB_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    _, others = cv2.threshold(grey, WHITE_LEVEL - 1, 0, cv2.THRESH_TOZERO_INV)  # (white: 0)
    others = cv2.resize(others, THUMB_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    rest = np.where(share < 1, others / np.maximum(1 - share, 1 / 255), 0).astype(np.float32)
    if not sharpness:
        return np.dstack([mean, share, rest])
    # how sharp the picture is under each pixel: the Laplacian's size on a 320 px picture
    small = cv2.resize(grey, SHARPNESS_SIZE, interpolation=cv2.INTER_AREA)
    edges = np.abs(cv2.Laplacian(small, cv2.CV_32F))
    sharp = cv2.resize(edges, THUMB_SIZE, interpolation=cv2.INTER_AREA)
    return np.dstack([mean, share, rest, sharp])


def _frame_grey(frame_bgr: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
    return grey if grey.dtype == np.uint8 else np.clip(grey, 0, 255).astype(np.uint8)


def unmoved(counted: np.ndarray, frame_bgr: np.ndarray) -> bool:
    """Whether `frame_bgr` shows the picture the thumbnail `counted` was made of, unmoved: no
    pixel of its own thumbnail's grey UNMOVED_BELOW or more from it, as it is (its grey alone:
    about 2 ms for 1080p) or, failing that, with the two brought to one exposure
    (`_exposure_change`): a lamp's flicker of a few per cent moved the paper's grey by more
    than that, and a still table under it was counted at nearly every frame (a review: 3-4
    counts a second where a steady light gave 0.9). A card laid moves its pixels all the same:
    the exposure is fitted on the pixels that agree."""
    grey = _frame_grey(frame_bgr)  # (once: the thumbnail below takes it as it is)
    small = cv2.resize(grey, THUMB_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    if float(np.abs(small - _grey(counted)).max()) < UNMOVED_BELOW:
        return True
    if counted.ndim != 3:  # (a grey thumbnail alone knows no white to fit the light around)
        return False
    matched = _exposure_change(counted, thumbnail(grey, sharpness=False))
    return matched is not None and float(matched.max()) < UNMOVED_BELOW


def _grey(thumb: np.ndarray) -> np.ndarray:
    return thumb[..., 0] if thumb.ndim == 3 else thumb


def _parts(thumb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pixel's white share, the grey of its white and the grey of the rest."""
    if thumb.ndim == 2:
        return np.zeros_like(thumb), np.full_like(thumb, 255), thumb
    grey, share, rest = thumb[..., 0], thumb[..., 1], thumb[..., 2]
    white = np.where(share > 0, (grey - (1 - share) * rest) / np.maximum(share, 1 / 255), 255)
    return share, white, rest


def card_blocks(corners: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
    """The BLOCKS (down × across, bool) that the boxes' bounds touch: `corners` (n, 4, 2) in
    the pixels of a frame of `frame_size` (height, width)."""
    across, down = BLOCKS
    blocks = np.zeros((down, across), bool)
    height, width = frame_size
    corners = corners[np.isfinite(corners).all(axis=(1, 2))] if len(corners) else corners
    if len(corners) == 0 or height <= 0 or width <= 0:
        return blocks
    low, high = corners.min(axis=1), corners.max(axis=1)  # (n, 2) x, y
    scale = np.array([across / width, down / height])
    first = np.clip(np.floor(low * scale), 0, [across - 1, down - 1]).astype(int)
    last = np.clip(np.floor(high * scale), 0, [across - 1, down - 1]).astype(int)
    inside = (high[:, 0] >= 0) & (high[:, 1] >= 0) & (low[:, 0] < width) & (low[:, 1] < height)
    for (x0, y0), (x1, y1) in zip(first[inside], last[inside], strict=True):
        blocks[y0 : y1 + 1, x0 : x1 + 1] = True
    return blocks


def exposure_matched(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Thumbnail `a`'s grey as it would look at `b`'s exposure: each part of each pixel, its
    white and the rest, given a gain and an offset (`_fitted`), clipped where the camera clips,
    so that more light leaves the white at white. The gain is fitted on the
    grey of the pixels whose white is the same in both (more light), or on their whole grey
    (less: the white dims too), whichever fits better. None where `a` is too even to tell a
    gain from a change (MIN_CONTRAST), or where no fit is a camera's exposure."""
    if _grey(a).std() < MIN_CONTRAST:
        return None
    share, white, rest = _parts(a)
    later_share, _, later_rest = _parts(b)
    same = (share < 0.9) & (later_share < 0.9) & (np.abs(later_share - share) < 0.05)
    fits = [_fitted(rest[same], later_rest[same]), _fitted(_grey(a).ravel(), _grey(b).ravel())]
    best: tuple[np.ndarray, np.ndarray] | None = None
    for fit in fits:
        if fit is None:
            continue
        gain, offset = fit
        others = (1 - share) * np.clip(gain * rest + offset, 0, 255)
        lit = others + share * np.clip(gain * white + offset, 0, 255)
        if best is None or _agreement(lit, b) < _agreement(best[0], b):
            best = lit, others + share * 255
    if best is None:
        return None
    # the white's own grey was the camera's white or more, how much more unseen: less light
    # brings it down to anywhere from the fit up to white still (taken as the fit alone, an
    # exposure drifting down by 5 % over demo table 3's clipped white moved it by 6.6-6.8, as
    # much as a hand: the view unsettled a second each swing). (The fit is chosen before: with
    # the room, one of less light took a light hand over the white paper in.)
    least, most = best
    return np.clip(_grey(b), least, most).astype(np.float32)


def _fitted(x: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    """The gain and offset taking `x` to `y` (grey levels), fitted by least squares on the
    EXPOSURE_FIT_SHARE of them that agree best, three times over; None for too few, or where
    it is no camera's exposure (EXPOSURE_GAIN, EXPOSURE_OFFSET)."""
    x, y = x.astype(np.float64).ravel(), y.astype(np.float64).ravel()
    if x.size < max(2, THUMB_SIZE[0] * THUMB_SIZE[1] // 4):
        return None
    keep = max(2, int(EXPOSURE_FIT_SHARE * x.size))
    fitted_x, fitted_y = x, y
    gain, offset = 1.0, 0.0
    for _ in range(3):
        spread = fitted_x.var()
        if spread <= 0:
            return None
        gain = float(((fitted_x - fitted_x.mean()) * (fitted_y - fitted_y.mean())).mean() / spread)
        offset = float(fitted_y.mean() - gain * fitted_x.mean())
        best = np.argpartition(np.abs(y - (gain * x + offset)), keep - 1)[:keep]
        fitted_x, fitted_y = x[best], y[best]
    low, high = EXPOSURE_GAIN
    if not (low <= gain <= high and abs(offset) <= EXPOSURE_OFFSET):
        return None
    return gain, offset


def _agreement(lit: np.ndarray, b: np.ndarray) -> float:
    """How far `lit` is from `b`'s grey over the EXPOSURE_FIT_SHARE of pixels nearest it."""
    off = np.abs(lit - _grey(b)).ravel()
    keep = max(1, int(EXPOSURE_FIT_SHARE * off.size))
    return float(np.partition(off, keep - 1)[:keep].mean())


def difference(a: np.ndarray, b: np.ndarray, blocks: np.ndarray | None = None) -> float:
    """How much thumbnails `a` and `b` differ: the mean absolute grey difference, or, where
    larger, its mean over any one of `blocks` (the BLOCKS marked True: where cards lie); and the
    smaller of that and the same with the two brought to one exposure (`_exposure_change`: a
    camera's own gain moves no card). The same either way round (the brighter is brought to
    the other's light, whichever came first)."""
    measured = _measured(np.abs(_grey(a) - _grey(b)), blocks)
    matched = _exposure_change(a, b)
    return measured if matched is None else min(measured, _measured(matched, blocks))


def _exposure_change(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The absolute grey difference of thumbnails `a` and `b` with the brighter of the two
    brought to the other's exposure (`exposure_matched`); None where it cannot be. A camera's
    gain either way moves no card, but the darker picture cannot tell how its near-white paper
    clips in the brighter one: in a thumbnail pixel it is averaged with ink, so its grey
    brightened and then clipped is over the brighter frame's (demo table 3, a light flickering
    from 4 % less to 4 % more: 7.3 where its cards lie, over the motion line). The brighter
    picture knows its clipped share, which dims to anywhere the fit allows (0.6)."""
    brighter, other = (a, b) if _grey(a).mean() >= _grey(b).mean() else (b, a)
    matched = exposure_matched(brighter, other)
    return None if matched is None else np.abs(matched - _grey(other))


def _measured(changed: np.ndarray, blocks: np.ndarray | None) -> float:
    whole = float(changed.mean())
    if blocks is None or not blocks.any():
        return whole
    per_block = _per_block(changed)
    if per_block is None:
        return whole
    return max(whole, float(per_block[blocks].max()))


def _per_block(changed: np.ndarray) -> np.ndarray | None:
    """`changed`'s mean in each of the BLOCKS (down × across); None for a picture smaller than
    them."""
    across, down = BLOCKS
    height, width = changed.shape[0] // down, changed.shape[1] // across
    if height == 0 or width == 0:
        return None
    return (
        changed[: height * down, : width * across]
        .reshape(down, height, across, width)
        .mean(axis=(1, 3))
    )


def is_blurred(sharp: np.ndarray, thumb: np.ndarray) -> bool:
    """Whether `thumb` (with its sharpness, `thumbnail`'s) is blurred next to `sharp`: the same
    view in grey, and its sharpness under BLURRED_BELOW of `sharp`'s (the median share, over
    the sharper half of `sharp`'s pixels that keep some edge: not where an edge went away)."""
    if difference(sharp, thumb) > SCENE_THRESHOLD:
        return False  # (another view: fewer cards, fewer edges)
    before, now = sharp[..., 3], thumb[..., 3]
    kept = (before >= np.median(before)) & (before > 0) & (now >= 0.15 * before)
    if not kept.any():
        return False
    return float(np.median(now[kept] / before[kept])) < BLURRED_BELOW


def block_changes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How much thumbnails `a` and `b` differ in each of the BLOCKS (down ×
    across): the mean absolute grey difference, the two brought to one exposure where they can
    be (`_exposure_change`)."""
    matched = _exposure_change(a, b)
    per_block = _per_block(np.abs(_grey(a) - _grey(b)) if matched is None else matched)
    return np.zeros(BLOCKS[::-1], np.float32) if per_block is None else per_block


def card_centres(corners: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
    """How many of the boxes' centres lie in each of the BLOCKS (down × across, int): `corners`
    (n, 4, 2) in the pixels of a frame of `frame_size` (height, width)."""
    across, down = BLOCKS
    centres = np.zeros((down, across), np.int32)
    height, width = frame_size
    if len(corners) == 0 or height <= 0 or width <= 0:
        return centres
    middle = corners.mean(axis=1)
    middle = middle[np.isfinite(middle).all(axis=1)]
    x = np.floor(middle[:, 0] * across / width).astype(int)
    y = np.floor(middle[:, 1] * down / height).astype(int)
    inside = (x >= 0) & (x < across) & (y >= 0) & (y < down)
    np.add.at(centres, (y[inside], x[inside]), 1)
    return centres


def covers_cards(
    scene: np.ndarray,
    thumb: np.ndarray,
    scene_cards: np.ndarray,
    scene_centres: np.ndarray,
    centres: np.ndarray,
) -> bool:
    """Whether `thumb` shows `scene` with something lying over its cards from the picture's
    edge (an arm and its hand): a part of the blocks it changed (over SCENE_THRESHOLD, less
    than COVER_MOST of the picture) reaches the edge, held cards (`scene_centres`: the cards'
    centres per block in the scene), shows MIN_COVERED fewer of them now (`centres`; "under
    half" took an arm over 5 of a pile's 12 for the table) and no block of
    it more than it held (one card, a box found at the hand's edge, aside), and is not the
    table itself: the grey now of its pixels that changed is COVER_GREY or more from the
    scene's table, where no card lay (`scene_cards`). Cards taken away show the table there,
    as does a smaller pile laid where the last lay; another pile shows cards where none lay;
    the camera moved changes nearly the whole picture."""
    changed = block_changes(scene, thumb) > SCENE_THRESHOLD
    if not changed.any() or changed.mean() > COVER_MOST or scene_cards.all():
        return False
    table = float(np.median(_grey(scene)[_per_pixel(~scene_cards, scene)]))
    parts, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=4)
    edge = np.zeros_like(changed)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
    for part in range(1, parts):
        inside = labels == part
        before, now = int(scene_centres[inside].sum()), int(centres[inside].sum())
        gained = int(np.maximum(centres - scene_centres, 0)[inside].sum())
        over = _grey_of_what_changed(scene, thumb, _per_pixel(inside, thumb))
        if (
            (inside & edge).any()
            and before - now >= MIN_COVERED
            and gained <= 1
            and abs(over - table) >= COVER_GREY
        ):
            return True
    return False


def _grey_of_what_changed(scene: np.ndarray, thumb: np.ndarray, pixels: np.ndarray) -> float:
    """The mean grey now of the `pixels` of `thumb` that changed from `scene` (all of them where
    none did): what lies where the view changed. Cards taken off a pile show the table there,
    what is left of the pile as it was; the whole blocks' mean, the pile's rest in it, was far
    from the table's, and a removal at the picture's edge waited as long as an arm."""
    grey = _grey(thumb)
    moved = pixels & (np.abs(grey - _grey(scene)) >= COVER_GREY)
    return float(grey[moved if moved.any() else pixels].mean())


def _per_pixel(blocks: np.ndarray, thumb: np.ndarray) -> np.ndarray:
    """The BLOCKS mask `blocks` as a mask of `thumb`'s pixels (those past whole blocks: none)."""
    down, across = blocks.shape
    height, width = _grey(thumb).shape[0] // down, _grey(thumb).shape[1] // across
    mask = np.zeros(_grey(thumb).shape, bool)
    mask[: height * down, : width * across] = np.kron(blocks, np.ones((height, width), bool))
    return mask


@dataclass(frozen=True)
class CountedView:
    """A counted frame as newer frames are told apart from it: its thumbnail, the blocks its
    cards lie in, its size. The live view shows frames between counts; a shot of the counted
    frame when the table in view has changed since is not of the picture the player saw, and
    its outlines over such a picture are drawn on cards no longer there."""

    thumb: np.ndarray
    blocks: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def of(
        cls, frame_bgr: np.ndarray, corners: np.ndarray, *, thumb: np.ndarray | None = None
    ) -> CountedView:
        """`corners`: (n, 4, 2), the counted cards' in the frame's pixels; `thumb`: the frame's
        `thumbnail`, where it was made already (the counting thread's: 4-6 ms of a 1080p frame
        on the window's thread, at each count)."""
        shape = (int(frame_bgr.shape[0]), int(frame_bgr.shape[1]))
        if thumb is None:
            thumb = thumbnail(frame_bgr, sharpness=False)
        return cls(thumb, card_blocks(corners, shape), shape)

    def change(self, newer_bgr: np.ndarray, *, newer_thumb: np.ndarray | None = None) -> float:
        """How much `newer_bgr` differs, as `difference` measures it (the stabiliser's own
        measure, its lines meaning the same), over the whole picture or where the counted
        cards lie; or in a block where none lay, weighed against SCENE_THRESHOLD there as
        MOTION_THRESHOLD where they lay (else a pile laid on bare table, 1-3 over the whole picture,
        is no change: a shot then pairs the frame before it with its count, where
        the stabiliser, judging by the newer frame's own cards, sees 36-127). inf for another
        size (a stream back at another)."""
        if newer_bgr.shape[:2] != self.shape:
            return math.inf
        newer = thumbnail(newer_bgr, sharpness=False) if newer_thumb is None else newer_thumb
        bare = block_changes(self.thumb, newer)[~self.blocks]
        laid = float(bare.max()) * MOTION_THRESHOLD / SCENE_THRESHOLD if bare.size else 0.0
        return max(difference(self.thumb, newer, self.blocks), laid)

    def moved_on(self, newer_bgr: np.ndarray, *, newer_thumb: np.ndarray | None = None) -> bool:
        """Whether `newer_bgr` shows the table otherwise: over the motion line."""
        return self.change(newer_bgr, newer_thumb=newer_thumb) > MOTION_THRESHOLD
