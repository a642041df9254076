"""Live counts that do not flicker: a vote over recent still frames, reset when the scene changes.

Each frame brings its counts and a tiny thumbnail (its grey, and how much of it is white). A
frame that differs much from the one before is in motion (a hand passing over the table): its
counts do not vote. A still frame that
differs much from the window's scene may be a new scene (cards dealt, a pile moved), or a hand
that paused over the cards: only once `min_votes` still frames in a row, over `min_still_s`
seconds at least, agree on the new view does the window restart with them; until then the old
vote stands (counted fast, three frames of a resting hand took a third of a second). A view
that looks like something lying over the cards from the picture's edge (`covers_cards`: an arm)
must hold COVERED_STILL_S. After
motion, even a view that looks like the window's scene (cards added or taken are a small change
to a thumbnail, and so is a small hand) is settled only once `min_votes` still frames, over
`min_still_s` too, have voted: if their vote differs from what was shown, or says a count none
of the window's votes said, the table changed under the hand and they restart the window. The
reported counts are the per-deck median of the window's votes, and a reported count is kept
while a third of the votes still say it, so that a card found in every other frame does not
make the number flicker. A frame that comes after the camera went unwatched for long (a camera
or stream that stalled) is taken as motion too: the table was not seen meanwhile; and so is a
blurred one (`is_blurred`: focus hunting moves no grey, and its counts are wrong).

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

Until a view settles, each report also says what its own still frames vote so far (`view`), or
that it is moving (None): a video that ends then has no more frames to settle it with. Each
report numbers the view its counts are of (`scene`: a new number each time the window restarts
on another view) and the view its own frames show (`view_scene`), so that a view is not shot
twice.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from blitzcam.vision.counting import Counts

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
# a picture over the motion line from a counted frame is that frame's view again only under
# this: judged frame by frame, camera noise or a lamp's flicker near the line switched the
# live view's outlines on and off (16 times in 2 s at 6.5 ± 0.4)
MOVED_BACK_BELOW: Final = 4.0
SCENE_THRESHOLD: Final = 10.0  # mean absolute grey difference to the window's scene
WINDOW: Final = 7  # frames: the latest gaps between frames kept, a blur's own frames
# frames whose counts are voted on: a count shown is given up when 7 of 9 say another (with 7,
# 5 of 7 did: +-1 noise on one deck in a fifth of the frames showed settled and wrong in 1.4 %
# of frames, 0.25 % with 9; in bursts of two frames, 6.8 % and 3.3 %), at 0.4 s more for a
# change no motion was seen making, at 5 counts a second (a hand's restarts the window)
VOTES: Final = 9
# the votes a window settles at when they do not all agree (the median of five needs three
# off; of three, two): +-1 noise in a fifth of the frames settled a scan's first view wrong in
# 6.5 % of scans, against 12.5 % at three; in a tenth, 0.5 % against 1.5 %
SPLIT_SETTLES: Final = 5
# the warning's number of backs read as no deck from which it is held while the votes reach it
# each way, not followed vote by vote (`_steady_warning`)
WARNING_HELD_FROM: Final = 10
# a new view must hold this long to replace the scene: a hand resting on the cards for a
# moment is not the table
MIN_STILL_S: Final = 1.0
# ... and a view that looks like something lying over the scene's cards from the picture's
# edge (an arm and its hand resting on the table: cards gone where it lies, none in their
# place) this long: else a hand resting 1.5 s over half the cards is taken for the table, its
# count shown settled and shootable, and for 1.5 s after it leaves
COVERED_STILL_S: Final = 4.0
# a change over more of the picture than this is the whole view's (another table, the camera
# moved), not a hand's
COVER_MOST: Final = 0.6
MIN_COVERED: Final = 3  # cards under what covers them, at least, for a view to be covered
# ... and its grey this far from the table's, at least (an arm, a sleeve; measured: a hand over
# demo table 3 40-49 grey levels off it, cards taken away or a smaller pile laid in their place
# 0-10; a hand the table's own grey is not told from the table, and waits a second as before)
COVER_GREY: Final = 20.0
# A frame taken after the camera went unwatched this long (at least STALL_MIN_S, and
# STALL_FACTOR times the usual: the time between frames, or between one frame's report and the
# next frame's being taken where the caller says it, so that a slow count is no stall) follows
# a stall of the camera or stream: what happened on the table meanwhile was not seen, so it is
# taken as motion, and the view settles only once still frames have voted on it again. (A shot
# waiting out a stall took the first frame after it with the counts from before it: one card
# added during a 10 s stall changed the thumbnail by 3.5.)
STALL_MIN_S: Final = 2.0
STALL_FACTOR: Final = 3.0
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
    grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
    grey = grey if grey.dtype == np.uint8 else np.clip(grey, 0, 255).astype(np.uint8)
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
    """Thumbnail `a`'s grey (the older frame's) as it would look at `b`'s exposure: each part of
    each pixel, its white and the rest, given a gain and an offset (`_fitted`), clipped where
    the camera clips, so that more light leaves the white at white. The gain is fitted on the
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
    """How much thumbnail `b` differs from the older `a`: the mean absolute grey difference, or,
    where larger, its mean over any one of `blocks` (the BLOCKS marked True: where cards lie);
    and the smaller of that and the same with the two brought to one exposure
    (`_exposure_change`: a camera's own gain moves no card). Every caller passes the older
    first, so that a change means the same to the stabiliser and to the live view
    (`CountedView`)."""
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
    older, newer = (a, b) if _grey(a).mean() >= _grey(b).mean() else (b, a)
    matched = exposure_matched(older, newer)
    return None if matched is None else np.abs(matched - _grey(newer))


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
    """How much thumbnail `b` differs from the older `a` in each of the BLOCKS (down ×
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
    centres per block in the scene), shows under half of them now (`centres`) and no block of
    it more than it held (one card, a box found at the hand's edge, aside), and is not the
    table itself: its grey now is COVER_GREY or more from the scene's table, where no card
    lay (`scene_cards`). Cards taken away show the table there, as does a smaller pile laid
    where the last lay; another pile shows cards where none lay; the camera moved changes
    nearly the whole picture."""
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
        over = float(_grey(thumb)[_per_pixel(inside, thumb)].mean())
        if (
            (inside & edge).any()
            and before >= MIN_COVERED
            and 2 * now < before
            and gained <= 1
            and abs(over - table) >= COVER_GREY
        ):
            return True
    return False


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
    def of(cls, frame_bgr: np.ndarray, corners: np.ndarray) -> CountedView:
        """`corners`: (n, 4, 2), the counted cards' in the frame's pixels."""
        shape = (int(frame_bgr.shape[0]), int(frame_bgr.shape[1]))
        return cls(thumbnail(frame_bgr, sharpness=False), card_blocks(corners, shape), shape)

    def change(self, newer_bgr: np.ndarray) -> float:
        """How much `newer_bgr` differs, as `difference` measures it (the stabiliser's own
        measure, its lines meaning the same), over the whole picture or where the counted
        cards lie; or in a block where none lay, weighed against SCENE_THRESHOLD there as
        MOTION_THRESHOLD where they lay (else a pile laid on bare table, 1-3 over the whole picture,
        is no change: a shot then pairs the frame before it with its count, where
        the stabiliser, judging by the newer frame's own cards, sees 36-127). inf for another
        size (a stream back at another)."""
        if newer_bgr.shape[:2] != self.shape:
            return math.inf
        newer = thumbnail(newer_bgr, sharpness=False)
        bare = block_changes(self.thumb, newer)[~self.blocks]
        laid = float(bare.max()) * MOTION_THRESHOLD / SCENE_THRESHOLD if bare.size else 0.0
        return max(difference(self.thumb, newer, self.blocks), laid)

    def moved_on(self, newer_bgr: np.ndarray) -> bool:
        """Whether `newer_bgr` shows the table otherwise: over the motion line."""
        return self.change(newer_bgr) > MOTION_THRESHOLD


def _no_cards() -> np.ndarray:
    return np.zeros(BLOCKS[::-1], bool)


def _no_centres() -> np.ndarray:
    return np.zeros(BLOCKS[::-1], np.int32)


def lower_median(values: list[int]) -> int:
    """The median of `values`, the lower middle one when they are even in number: always a
    count some frame saw (votes of 2, 2, 5, 5 give 2, never 3)."""
    return sorted(values)[(len(values) - 1) // 2]


def vote(history: list[Counts]) -> Counts:
    """Per-deck lower median of the counts in the window."""
    return steady_vote(history, None)


def _steady(values: list[int], shown: int) -> int:
    # the count shown so far stays while a third of the votes still say it (-1: none shown)
    if shown >= 0 and 3 * values.count(shown) >= len(values):
        return shown
    return lower_median(values)


def _steady_warning(values: list[int], shown: int) -> int:
    # a warning's number (backs read as no deck: never scored) this large stays while the votes
    # still reach it either way: on a table of art no deck matches, a still view's frames read
    # 86-121 such backs, and the number shown changed 48 times, the view settled. Under it each
    # back matters (a warning held at 0 hid one back read as no deck in most frames), and it
    # follows a third of the votes as a deck's count does
    if shown >= WARNING_HELD_FROM and _reaches(shown, values):
        return shown
    return _steady(values, shown)


def _reaches(value: int, values: list[int]) -> bool:
    """Whether `value` is one of `values`, or, for a warning's number from WARNING_HELD_FROM,
    between the least and the most of them (as `_steady_warning` holds it)."""
    if value >= WARNING_HELD_FROM:
        return min(values, default=value + 1) <= value <= max(values, default=-1)
    return value in values


def steady_vote(history: list[Counts], shown: Counts | None) -> Counts:
    """Per-deck lower median of the counts in the window, except that a count `shown` before
    (None: nothing shown yet for this scene) is kept while at least a third of the votes say it:
    votes alternating 20, 21, 20, 21, ... keep showing what they showed. The backs read as no
    deck, a warning, keep a number of WARNING_HELD_FROM or more while any vote is at it or
    beyond it each way (`_steady_warning`)."""
    decks = list(history[-1].per_deck)
    before = shown or Counts(per_deck={}, face_up=-1, unknown=-1)  # -1: no count was shown
    per_deck = {
        d: _steady([c.per_deck.get(d, 0) for c in history], before.per_deck.get(d, -1))
        for d in decks
    }
    return Counts(
        per_deck=per_deck,
        face_up=_steady([c.face_up for c in history], before.face_up),
        unknown=_steady_warning([c.unknown for c in history], before.unknown),
    )


def _said_before(voted: Counts, history: list[Counts]) -> bool:
    """Whether each count of `voted` (per deck, face-up, unknown) is one some vote of `history`
    said (the warning's number of backs read as no deck: one the votes reach, `_reaches`)."""
    return (
        all(n in {c.per_deck.get(d, 0) for c in history} for d, n in voted.per_deck.items())
        and voted.face_up in {c.face_up for c in history}
        and _reaches(voted.unknown, [c.unknown for c in history])
    )


@dataclass(frozen=True, slots=True)
class Stable:
    """What the stabiliser reports: the voted counts, and whether the view is settled."""

    counts: Counts
    settled: bool  # enough still frames of this scene have voted
    votes: int
    # the view in front of the camera: the vote of its still frames so far, which are `counts`
    # themselves unless those are held from the view before; None while the view moves
    view: Counts | None = None
    scene: int = 0  # the window's view, whose counts these are: new when the window restarts
    # the number `view` is of: `scene` when it is the window's view, the next one when it is
    # another (a new scene, or the table changed under a hand); None while the view moves
    view_scene: int | None = None


class Stabiliser:
    """Feed `update(frame_thumbnail, counts)` every frame; read the returned Stable."""

    def __init__(
        self,
        *,
        window: int = VOTES,
        min_votes: int = 3,
        motion_threshold: float = MOTION_THRESHOLD,
        scene_threshold: float = SCENE_THRESHOLD,
        min_still_s: float = MIN_STILL_S,
        split_settles: int = SPLIT_SETTLES,
    ) -> None:
        """`window`: the votes kept; `min_votes`: the fewest that settle a view whose votes all
        agree; `split_settles`: the fewest that settle one whose votes do not (at most the
        window)."""
        if window < 1 or not 1 <= min_votes <= window:
            raise ValueError(
                f"Stabiliser: expected 1 <= min_votes <= window, got {min_votes}, {window}"
            )
        self._votes: deque[Counts] = deque(maxlen=window)
        self._min_votes = min_votes
        self._split_settles = min(split_settles, window)  # (a short window settles at its end)
        self._motion, self._scene_change = motion_threshold, scene_threshold
        self._previous: np.ndarray | None = None
        self._scene: np.ndarray | None = None
        # where cards lay (BLOCKS): in the frame before, in the window's scene's frames, and in
        # the frames of a new scene's that may replace it
        self._previous_cards = self._scene_cards = self._next_cards = _no_cards()
        # how many cards' centres lay in each block, in the scene's frames and in a new one's
        # (the most any frame had)
        self._scene_centres = self._next_centres = _no_centres()
        # still frames in a row that differ from the window's scene: a new scene once they are
        # min_votes, and like one another
        self._next_votes: list[Counts] = []
        self._next_scene: np.ndarray | None = None
        self._next_since = 0.0  # when the first of those frames came
        self._after_since = 0.0  # when the first still frame after a motion came
        self._min_still_s = min_still_s
        self._last: Stable | None = None
        # still frames since a motion over a window's scene; None: no motion to settle after
        self._after_motion: list[Counts] | None = None
        self._scene_number = 0  # of the window's view (never reused, resets included)
        self._last_at: float | None = None  # when the frame before came
        # the last frame judged sharp, and the blurred frames since
        self._sharp: np.ndarray | None = None
        self._blurred_since = 0
        self._gaps: deque[float] = deque(maxlen=WINDOW)  # between the latest frames

    def reset(self) -> None:
        self._scene_number += 1
        self._votes.clear()
        self._previous = self._scene = self._next_scene = None
        self._previous_cards = self._scene_cards = self._next_cards = _no_cards()
        self._scene_centres = self._next_centres = _no_centres()
        self._next_votes = []
        self._last = None
        self._after_motion = None
        self._last_at = None  # (the usual gap between frames is the machine's: kept)
        self._sharp, self._blurred_since = None, 0

    def _changed(self, thumb: np.ndarray, cards: np.ndarray) -> bool:
        return (
            self._scene is not None
            and difference(self._scene, thumb, self._scene_cards | cards) > self._scene_change
        )

    def update(
        self,
        thumb: np.ndarray,
        counts: Counts,
        *,
        at: float | None = None,
        unseen_s: float | None = None,
        cards: np.ndarray | None = None,
        centres: np.ndarray | None = None,
    ) -> Stable:
        """`at`: when the frame was taken, in seconds on any steady clock (None: now).
        `unseen_s`: how long the camera went unwatched before it, from the report of the frame
        before (None: the time since that frame; a caller whose counting takes seconds says,
        or each slow count looks like a stall). `cards`: the BLOCKS its cards lie in
        (`card_blocks`; None: judged over the whole thumbnail only). `centres`: how many
        cards' centres lie in each block (`card_centres`; None: nothing is taken for a hand
        lying over the cards)."""
        now = time.monotonic() if at is None else at
        cards = _no_cards() if cards is None else cards
        found = _no_centres() if centres is None else centres
        moving = (
            self._previous is not None
            and difference(self._previous, thumb, self._previous_cards | cards) > self._motion
        )
        moving |= self._after_stall(now, unseen_s)
        moving |= self._blurred(thumb)
        self._previous, self._previous_cards = thumb, cards
        if moving:
            # a new scene must hold still for min_votes frames in a row
            self._next_votes, self._next_scene = [], None
            if self._last is not None:
                self._after_motion = []  # and so must the old one, which a hand may have changed
                return self._held(None)
        if self._scene is None:
            self._scene, self._scene_cards = thumb, cards
            self._scene_centres = found
        elif self._after_motion is not None and not self._changed(thumb, cards):
            # the scene's look, after a hand: settled once min_votes still frames agree over
            # min_still_s (had eight cards been added, its first frames used to report the old
            # count as settled; counted fast, a small hand resting a tenth of a second was)
            if not self._after_motion:
                self._after_since = now
            self._after_motion.append(counts)
            held = now - self._after_since >= self._min_still_s
            if (len(self._after_motion) < self._min_votes or not held) and self._last is not None:
                return self._held(vote(self._after_motion))
            settling, self._after_motion = self._after_motion, None
            # the table changed under the hand unless the count shown still stands among the
            # settling votes as it does among the window's (a third of them say it: a count
            # flickering 20, 21 restarted the window, and a view already shot was shot again)
            # and they vote no count the window never said (three cards laid, one frame of
            # three missing them, kept the old count "settled")
            shown = self._last.counts if self._last is not None else None
            if shown is not None and (
                steady_vote(settling, shown) != shown
                or not _said_before(vote(settling), list(self._votes))
            ):
                self._votes.clear()  # the table changed under the hand
                self._last = None
                self._scene_number += 1
                self._scene_centres = found  # (cards taken under it: no longer the scene's)
            self._votes.extend(settling[:-1])
        elif self._changed(thumb, cards):
            if (
                self._next_scene is None
                or difference(self._next_scene, thumb, self._next_cards | cards)
                > self._scene_change
            ):
                self._next_votes, self._next_scene, self._next_since = [], thumb, now
                self._next_cards, self._next_centres = _no_cards(), _no_centres()
            self._next_votes.append(counts)
            self._next_cards = self._next_cards | cards
            self._next_centres = np.maximum(self._next_centres, found)
            still_s = self._min_still_s
            if centres is not None and covers_cards(
                self._scene, thumb, self._scene_cards, self._scene_centres, centres
            ):
                still_s = max(still_s, COVERED_STILL_S)
            held = now - self._next_since >= still_s
            if self._last is not None and (len(self._next_votes) < self._min_votes or not held):
                return self._held(vote(self._next_votes), new=True)
            self._votes.clear()  # the new scene has held: its frames are the window
            self._votes.extend(self._next_votes[:-1])
            self._scene, self._last = self._next_scene, None
            self._scene_cards, self._scene_centres = self._next_cards, self._next_centres
            self._after_motion = None
            self._scene_number += 1
        self._next_votes, self._next_scene = [], None
        self._votes.append(counts)
        self._scene_cards = self._scene_cards | cards
        self._scene_centres = np.maximum(self._scene_centres, found)
        # only a settled count is held on to: the first frame of a scan may be an outlier
        shown = self._last.counts if self._last is not None and self._last.settled else None
        votes = list(self._votes)
        voted = steady_vote(votes, shown)
        number = self._scene_number
        # settled once min_votes frames agree, or else once split_settles have voted: the
        # first view of a scan settled on three votes, and two of them one off (+-1 noise in a
        # fifth of the frames) showed a wrong count settled, and held, in 12.5 % of scans. A
        # view settled stays so: one vote off among its first five would unsettle it a frame
        agreed = all(vote_ == votes[0] for vote_ in votes)
        split = len(votes) >= self._split_settles
        self._last = Stable(
            voted,
            settled=shown is not None or (len(votes) >= self._min_votes and (agreed or split)),
            votes=len(self._votes),
            view=voted,  # (a moving frame never comes here: there is always a report to hold)
            scene=number,
            view_scene=number,
        )
        return self._last

    def _blurred(self, thumb: np.ndarray) -> bool:
        """Whether `thumb`'s frame is blurred next to the last sharp one (BLURRED_BELOW)."""
        if thumb.ndim != 3 or thumb.shape[2] < 4:
            return False
        blurred = self._sharp is not None and is_blurred(self._sharp, thumb)
        self._blurred_since = self._blurred_since + 1 if blurred else 0
        if not blurred or self._blurred_since > WINDOW:
            self._sharp, self._blurred_since = thumb, 0
        return blurred

    def _after_stall(self, now: float, unseen_s: float | None) -> bool:
        """Whether a frame at `now` comes after a stall (see STALL_MIN_S); notes its gap."""
        last, self._last_at = self._last_at, now
        if last is None:
            return False
        gap = now - last if unseen_s is None else unseen_s
        usual = float(np.median(self._gaps)) if self._gaps else 0.0
        self._gaps.append(gap)  # (a stall's among them: the median of a window outvotes it)
        return gap > max(STALL_MIN_S, STALL_FACTOR * usual)

    def _held(self, view: Counts | None, *, new: bool = False) -> Stable:
        """The last report's counts, held while this view is not settled (`view`: its own,
        `new`: another view than the window's, whatever its vote)."""
        assert self._last is not None
        number = self._scene_number
        if view is not None and not new:  # after a hand: another view if its vote differs
            new = view != self._last.counts
        return Stable(
            self._last.counts,
            settled=False,
            votes=len(self._votes),
            view=view,
            scene=number,
            view_scene=None if view is None else number + new,
        )
