"""Deck identity of each detected back: compare its drawing to the enrolled references.

Pure functions. Each back's drawing is cut out along the detector's box and embedded by the
identity network (`vision.embedding`); a drawing that matches no reference surely is cut again
along that box snapped to the drawing's own ink (the detector's boxes are a few pixels off;
references are cut the way labels are, as the minimum-area rectangle of the ink), and the better
reading counts. A back belongs to the deck whose nearest reference variant is most similar;
below `unknown_below` it belongs to no enrolled deck (random art, a deck nobody enrolled) and is
not counted to any deck. Backs the detector doubts (under the counting line) count only when
their drawing is a close copy of a counted pile's (see `identify`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Final

import numpy as np

from blitzcam.vision.back_boxes import (
    FACE_ON_BACK_IOU,
    box_sides,
    faces_on_surer_backs,
    on_face_up,
    scaled_boxes,
    side_cuts,
    snap_to_ink,
)
from blitzcam.vision.consensus import (
    alikeness_to_groups,
    group_means,
    join_groups,
    look_alike_part,
    merge_same_deck,
    scene_groups,
    unit_mean,
)
from blitzcam.vision.detections import UNKNOWN_DECK, Detections
from blitzcam.vision.embedding import (
    PATCH,
    References,
    deck_similarity,
    drawing_patch,
)
from blitzcam.vision.face_up import FACE_BOX_ONE_HUE, face_box_one_hue
from blitzcam.vision.polygons import polygon_cover, polygon_iou

# The three lines below were chosen together on the tuning scenes (550: seeds 4242 and 5151,
# never trained on nor reported as held-out) with the identity network of the time (one network;
# three averaged since stop 51, with the every-deck line inside their plateau); MODEL_CARD.md
# has the sweep. Where lines tied there, the stricter grouping and the lower unknown line won:
# groups of two decks merge less readily, and enrolled art keeps more of its backs.
UNKNOWN_BELOW: Final = 0.6  # under this cosine similarity a back is "unknown"
# The same line when only a match's decks are candidates (the app knows who plays which deck):
# fewer references, fewer near misses, so a lower line keeps faded copies. On the 550 tuning
# scenes, each decided among the decks it holds: 0.35 / 0.4 / 0.45 / 0.5 / 0.55 / 0.6 counted
# 517 / 528 / 528 / 526 / 526 / 525 exactly (all eight decks at 0.6: 522). Of the tie, 0.45 was
# a step further from the fall at 0.35. With the three networks averaged and lifted (stop 51;
# models/identity_average.py), summed over the choice sets (tuning 150 + 400, late rounds 80):
# 0.4 / 0.45 / 0.5 / 0.55 / 0.6 counted 598 / 610 / 609 / 609 / 607; the lift raises low
# likenesses more than one network gives them, and on fresh scenes 0.45 let a random-art pile
# nobody enrolled count for a deck in play, so the plateau's middle is taken (MODEL_CARD.md).
UNKNOWN_BELOW_IN_PLAY: Final = 0.5
CONSENSUS_LINK: Final = 0.7  # drawings this alike on average are copies of one back
SAME_DECK_LINK: Final = 0.5  # groups nearest one deck, their means this alike: one pile
# a pile of one of two look-alike decks holds the other's copies when it parts in two whose mean
# drawings are less alike than this (consensus.look_alike_part; chosen on enrolled art, seed 77)
PARTS_ALIKE: Final = 0.8
# A back under the counting line whose drawing is this alike to a counted group's mean joins that
# group and counts. Chosen on the same 550 tuning scenes with the shipped networks (MODEL_CARD.md).
JOIN_ALIKE: Final = 0.75
# ... and one the detector is nearly sure of (NEAR_LINE_FROM up to the counting line) joins at
# NEAR_LINE_ALIKE: the detector's own confidence is most of the evidence, and the copies of
# unfamiliar enrolled art it boxes at 0.42-0.43 read less alike to their pile than the eight
# decks' copies do. Chosen on the 550 tuning scenes and seed 77's enrolled art (MODEL_CARD.md):
# from 0.3-0.4 at 0.45-0.55 every pair tried gave the same; 0.35 and 0.5 are its middle.
NEAR_LINE_FROM: Final = 0.35
NEAR_LINE_ALIKE: Final = 0.5
# A back joining a pile (the doubted, the near-line and the lone ones) does not join it when it
# overlaps a counted back by this IoU, or that back covers this share of it (a second box on
# one drawing)
JOIN_OVERLAP: Final = 0.3
# ... or when either side is longer than this times the longest such side among the group's
# counted copies: copies of one drawing are one size (a covered one smaller), so a bigger box is
# something else (a pencil's dark stroke read as a plow). The tuning scenes had no such box; 1.2
# leaves room for the boxes' own few pixels of error. (A second look's cut is held to it too.)
JOIN_GROW: Final = 1.2
# A counted back whose drawing reads under the unknown line (a faded, glared or pencil-crossed
# copy) but is this alike to a decided pile's mean joins that pile, under the same rules as a
# doubted back. Chosen on the 550 tuning scenes (MODEL_CARD.md).
LONE_ALIKE: Final = 0.6
# A counted back still under the line, alone in its group, is read again along cuts of its box
# (back_boxes.SECOND_LOOK_KEEP of it, from each side in turn): the detector boxes a coin, a
# pencil or a finger on a card together with the drawing it half covers, and the whole box then
# reads as no deck. It joins the decided pile whose mean drawing its best cut is this alike to.
# Chosen on the 550 tuning scenes (MODEL_CARD.md): 0.45-0.5 best, 0.4 broke two scenes. The
# shares kept tied there and on enrolled art; 0.5-0.8 also brings back more of the copies a
# bigger coin leaves less of (tests/vision/test_identify.py). Only a lone copy gets this look,
# because a design nobody enrolled shows up as many copies that group together.
SECOND_LOOK_ALIKE: Final = 0.5
SURE_ABOVE: Final = 0.8  # a drawing this similar to a reference needs no second, snapped reading
# A drawing may also be read along its box grown and shrunk about its centre by these factors,
# its vector the readings' mean (the detector's box is a few pixels off, and one cut's reading
# swings with where its edge falls). Off by default: tried at stop 48 (MODEL_CARD.md, "Reading
# each box at three sizes"): (0.95, 1.05) made 6 more of 1,420 choice-set scenes exact and
# none of the 1,120 held-out ones, at 2.3 times the identification time.
READ_SCALES: Final[tuple[float, ...]] = ()

Embed = Callable[[np.ndarray], np.ndarray]  # (n, S, S, 3) uint8 BGR patches -> (n, d) unit rows


@dataclass(frozen=True, slots=True)
class IdentifyLines:
    """Every line `identify` decides by, with the shipped defaults: the one record a counting
    pipeline keeps and evaluation and the tests vary, where copies of them (identify's own
    keywords among them) had drifted apart."""

    unknown_below: float = UNKNOWN_BELOW
    consensus_link: float | None = CONSENSUS_LINK
    count_from: float = 0.0
    doubted_from: float = 0.0
    same_deck_link: float | None = SAME_DECK_LINK
    join_alike: float | None = JOIN_ALIKE
    lone_alike: float | None = LONE_ALIKE
    # the line backs are counted at, where `unknown_below` is lowered to keep every back's best
    # deck (evaluation, which applies it afterwards; None: `unknown_below`): a lone back under
    # it joins a pile (`lone_alike`), and a look-alike's part goes to its deck only at it, as
    # at that line (at the lowered one, evaluation parted piles `count` keeps whole)
    operating_below: float | None = None
    second_look: float | None = SECOND_LOOK_ALIKE
    near_line_from: float | None = NEAR_LINE_FROM
    near_line_alike: float = NEAR_LINE_ALIKE
    face_on_back_iou: float | None = FACE_ON_BACK_IOU
    parts_alike: float | None = PARTS_ALIKE
    read_scales: tuple[float, ...] = READ_SCALES
    face_one_hue: float | None = FACE_BOX_ONE_HUE

    @property
    def operating_line(self) -> float:
        """The line backs are counted at: `operating_below`, else `unknown_below`."""
        return self.unknown_below if self.operating_below is None else self.operating_below


def mean_readings(vectors: np.ndarray, per_drawing: int) -> np.ndarray:
    """(n * k, dim) unit vectors, k = `per_drawing` consecutive rows for each drawing ->
    (n, dim): each drawing's unit-length mean reading (one reading each: `vectors` as they are)."""
    if per_drawing == 1:
        return vectors
    rows = np.asarray(vectors, np.float32).reshape(-1, per_drawing, vectors.shape[-1])
    mean = rows.mean(axis=1)
    return mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-6)


def identify(
    frame_bgr: np.ndarray,
    detections: Detections,
    references: References,
    deck_names: tuple[str, ...],
    embed: Embed,
    *,
    lines: IdentifyLines = IdentifyLines(),
    patch_size: int = PATCH,
    in_play: Collection[int] | None = None,
    look_alikes: Collection[tuple[int, int]] = (),
) -> Detections:
    """A copy of `detections` with each back's deck and similarity filled in (faces stay unknown)
    and `counted` saying which rows count. The lines it decides by are `lines`' fields, named
    below as they are there.

    `references.owners[row]` is the deck (index into deck_names) of each reference vector. Every
    drawing is read along its box and along it scaled by each of `read_scales` (`scaled_boxes`),
    the readings averaged (`mean_readings`; an empty tuple: one reading).
    Detections of confidence `count_from` or more count (faces as face-up cards), except backs
    lying on a counted face-up card (`on_face_up`), which never count, and face-up boxes
    overlapping a surer back of `count_from` or more by more than `face_on_back_iou` (None:
    none), which are that back read twice (`faces_on_surer_backs`) and are no face-up card, nor
    are face-up boxes whose colour is less than `face_one_hue` one hue (`face_box_one_hue`; None:
    none): colour noise, a dithered picture. With
    `consensus_link`, those backs' drawings are first grouped by their own similarity
    (`vision.consensus`) and each gets its group's decision; None reads each alone. With
    `same_deck_link`, groups nearest the same deck whose means are that alike are then merged
    (`consensus.merge_same_deck`). Backs under `count_from` are never grouped, so that they cannot
    sway a counted back's decision; with `consensus_link` and `join_alike`, one of `doubted_from`
    or more whose drawing is at least that alike to a group's mean joins it (its decision, and
    it counts) unless it is a second box on a counted back (or on a more confident one that
    joined), lies on a face-up card of `doubted_from` or more, or is bigger than the group's
    copies (`JOIN_GROW`); one of `near_line_from` or more (None: no such tier) joins at
    `near_line_alike` if that is lower. The others are read alone and do not count. With
    `lone_alike`, a counted back whose group reads under the line (`operating_below`, or else
    `unknown_below`) joins the decided group whose mean it is at least that alike to, under the
    same rules: a pile's faded or pencil-crossed copy that no deck's reference recognises. With
    `second_look`, a counted back still under that line and alone in its group is read along
    cuts of its box (`side_cuts`) and joins the decided group whose mean its best cut is at least
    that alike to: a copy boxed together with the coin or pencil lying on it.

    With `look_alikes` (pairs of indices into deck_names: decks that read nearly alike,
    `vision.lookalike`), a decided pile of one whose look-alike no pile took is parted when it
    holds the other's copies too (`consensus.look_alike_part`, parts less than `parts_alike`
    alike; None: never), and that part goes to the other deck when it reads at least the line
    to it and nearer it than any deck but the first.

    With `in_play` (indices into deck_names: a match's decks), backs are decided among those
    decks only, and a back nearer some other enrolled deck than any deck in play is no deck's:
    the cards of a deck nobody plays must not land on a player who does (its sister deck, one
    drawing in another colour, can read above the line).
    """
    deck = np.full(len(detections), UNKNOWN_DECK, np.int64)
    score = np.full(len(detections), np.nan, np.float32)
    backs = np.flatnonzero(detections.of_class("back"))
    counted, on_face = _face_up_rules(frame_bgr, detections, backs, lines)
    if len(backs) and len(deck_names):
        decks = _Candidates.among(references, len(deck_names), in_play)
        reader = _Reader(frame_bgr, embed, decks, patch_size, lines.read_scales)
        corners, confidence = detections.corners[backs], detections.confidence[backs]
        vectors, sims = _read_backs(corners, reader)
        grouped = np.flatnonzero((confidence >= lines.count_from) & ~on_face)
        if lines.consensus_link is not None and len(grouped):
            groups, sims = _group_piles(vectors, sims, grouped, decks, lines, look_alikes)
            doubted = []
            if lines.join_alike is not None:
                doubted = _doubted_joining(
                    vectors, corners, confidence, on_face, grouped, groups, lines
                )
                for k, member in doubted:
                    sims[k] = sims[member]
                    counted[backs[k]] = True
            sims = _join_unread(
                vectors, sims, corners, confidence, grouped, groups, decks, reader, lines
            )
            # ... and each follows its copy there: one that joined a faint copy, which then
            # joined a pile, was counted as no deck's beside it
            for k, member in doubted:
                sims[k] = sims[member]
        best_score, nearer_elsewhere = decks.decide(sims)
        decided = (best_score >= lines.unknown_below) & ~nearer_elsewhere
        deck[backs] = np.where(decided, decks.nearest(sims), UNKNOWN_DECK)
        score[backs] = best_score
    return detections.with_decks(deck, score, deck_names, counted)


@dataclass(frozen=True, slots=True)
class _Candidates:
    """The decks a back may be given (`playing`, a mask over every enrolled deck) and how a row
    of similarities to every deck is decided among them: decks outside play only veto."""

    references: References
    n_decks: int
    playing: np.ndarray

    @classmethod
    def among(
        cls, references: References, n_decks: int, in_play: Collection[int] | None
    ) -> _Candidates:
        playing = np.ones(n_decks, bool)
        if in_play is not None:
            playing[:] = False
            playing[np.fromiter(in_play, np.int64)] = True
        return cls(references, n_decks, playing)

    def similarity(self, vectors: np.ndarray) -> np.ndarray:
        """(n, dim) unit vectors -> (n, n_decks): likeness to every deck, in play or not."""
        return deck_similarity(vectors, self.references, self.n_decks)

    def in_play(self, sims: np.ndarray) -> np.ndarray:
        """The rows with every deck outside play at -1."""
        return np.where(self.playing, sims, -1.0)

    def best(self, sims: np.ndarray) -> np.ndarray:
        """Each row's likeness to its nearest deck in play."""
        return self.in_play(sims).max(axis=1)

    def nearest(self, sims: np.ndarray) -> np.ndarray:
        """Each row's nearest deck in play."""
        return self.in_play(sims).argmax(axis=1)

    def decide(self, sims: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The best deck in play's likeness per row, and whether a deck outside play is nearer."""
        best_score = self.best(sims)
        return best_score, np.where(self.playing, -1.0, sims).max(axis=1) > best_score


@dataclass(frozen=True, slots=True)
class _Reader:
    """Reads drawings in one frame: each box at every size of `read_scales`, a drawing's readings
    averaged into one unit vector, and its likeness to every deck."""

    frame_bgr: np.ndarray
    embed: Embed
    decks: _Candidates
    patch_size: int
    read_scales: tuple[float, ...]

    def __call__(self, boxes: list[np.ndarray] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cuts = scaled_boxes(np.stack(boxes), self.read_scales).reshape(-1, 4, 2)
        patches = np.stack([drawing_patch(self.frame_bgr, cut, self.patch_size) for cut in cuts])
        vectors = mean_readings(self.embed(patches), 1 + len(self.read_scales))
        return vectors, self.decks.similarity(vectors)


def _face_up_rules(
    frame_bgr: np.ndarray, detections: Detections, backs: np.ndarray, lines: IdentifyLines
) -> tuple[np.ndarray, np.ndarray]:
    """Which rows count before identity is read (`lines.count_from` or more), and which of the
    back rows `backs` lie on a face-up card: those never count. A face-up box that is a surer
    back read twice, or not of one colour, neither counts nor covers a back. A back on a
    face-up card the frame counts never counts; a doubted back does not on a doubted face-up
    card either (a sure back does: a doubted face box can sit on a real back)."""
    counted = detections.confidence >= lines.count_from
    confidence = detections.confidence[backs]
    is_face, boxes_of = detections.of_class("face"), detections.corners
    sure = confidence >= lines.count_from
    if lines.face_on_back_iou is not None:
        faces = np.flatnonzero(is_face)
        read_twice = faces[
            faces_on_surer_backs(
                boxes_of[faces],
                detections.confidence[faces],
                boxes_of[backs[sure]],
                confidence[sure],
                lines.face_on_back_iou,
            )
        ]
        counted[read_twice] = False
        is_face[read_twice] = False  # (of_class gives a fresh mask)
    if lines.face_one_hue is not None:
        faces = np.flatnonzero(is_face)
        no_face = faces[face_box_one_hue(frame_bgr, boxes_of[faces]) < lines.face_one_hue]
        counted[no_face] = False
        is_face[no_face] = False
    on_face = np.zeros(len(backs), bool)
    on_face[sure] = on_face_up(boxes_of[backs[sure]], boxes_of[is_face & counted])
    on_face[~sure] = on_face_up(
        boxes_of[backs[~sure]],
        boxes_of[is_face & (detections.confidence >= lines.doubted_from)],
    )
    counted[backs[on_face]] = False
    return counted, on_face


def _read_backs(corners: np.ndarray, read: _Reader) -> tuple[np.ndarray, np.ndarray]:
    """Every back's drawing read along its box; one read with doubt is read again along its box
    snapped to the ink, and the better reading kept."""
    decks = read.decks
    vectors, sims = read(corners)
    doubtful = np.flatnonzero(decks.best(sims) < SURE_ABOVE)
    snapped = {int(i): snap_to_ink(read.frame_bgr, corners[i]) for i in doubtful}
    # (a box the ink leaves as it was reads as it did: not read again)
    doubtful = np.array([i for i in doubtful if not np.array_equal(snapped[i], corners[i])], int)
    if len(doubtful):
        again, again_sims = read([snapped[i] for i in doubtful])
        better = decks.best(again_sims) > decks.best(sims[doubtful])
        vectors[doubtful[better]] = again[better]
        sims[doubtful[better]] = again_sims[better]
    return vectors, sims


def _group_piles(
    vectors: np.ndarray,
    sims: np.ndarray,
    grouped: np.ndarray,
    decks: _Candidates,
    lines: IdentifyLines,
    look_alikes: Collection[tuple[int, int]],
) -> tuple[np.ndarray, np.ndarray]:
    """The counted backs (rows `grouped`) grouped into piles by their own likeness, groups
    nearest one deck merged, look-alike decks' copies parted: the piles' ids (per grouped row)
    and the similarities with each grouped row's replaced by its pile mean's."""
    assert lines.consensus_link is not None
    groups = scene_groups(vectors[grouped], lines.consensus_link)
    if lines.same_deck_link is not None and len(grouped) > 1:
        groups = merge_same_deck(
            vectors[grouped],
            groups,
            # nearest of every deck: a pile nobody plays must not merge into its sister deck's
            # in play
            lambda m: decks.similarity(m).argmax(axis=1),
            lines.same_deck_link,
        )
    sims = sims.copy()
    own_sims = sims[grouped]
    sims[grouped] = decks.similarity(group_means(vectors[grouped], groups))
    if look_alikes and lines.parts_alike is not None:
        groups, sims[grouped] = _part_look_alikes(
            vectors[grouped],
            own_sims,
            groups,
            sims[grouped],
            look_alikes,
            decks,
            lines.operating_line,
            lines.parts_alike,
        )
    return groups, sims


def _doubted_joining(
    vectors: np.ndarray,
    corners: np.ndarray,
    confidence: np.ndarray,
    on_face: np.ndarray,
    grouped: np.ndarray,
    groups: np.ndarray,
    lines: IdentifyLines,
) -> list[tuple[int, int]]:
    """(doubted back, a member of the pile it joins) pairs: backs under the counting line (from
    `doubted_from`, on no face-up card) whose drawing is a close copy of a pile's, at
    `join_alike`, or `near_line_alike` from `near_line_from` when that is lower."""
    assert lines.join_alike is not None
    doubted = np.flatnonzero(
        (confidence < lines.count_from) & (confidence >= lines.doubted_from) & ~on_face
    )
    alike = np.full(len(confidence), lines.join_alike)
    if lines.near_line_from is not None:
        alike[confidence >= lines.near_line_from] = min(lines.join_alike, lines.near_line_alike)
    return _joining(doubted, vectors, corners, grouped, groups, confidence, alike)


def _join_unread(
    vectors: np.ndarray,
    sims: np.ndarray,
    corners: np.ndarray,
    confidence: np.ndarray,
    grouped: np.ndarray,
    groups: np.ndarray,
    decks: _Candidates,
    read: _Reader,
    lines: IdentifyLines,
) -> np.ndarray:
    """The similarities with each counted back that reads under the line (and not nearer a deck
    nobody plays: those stay nobody's) given a decided pile's when it joins one: as a close
    enough copy (`lone_alike`), or, alone in its group, at a second look along cuts of its box
    (`second_look`)."""
    sims = sims.copy()
    pile_score, elsewhere = decks.decide(sims[grouped])
    low = pile_score < lines.operating_line
    settled = ~low & ~elsewhere
    unread = grouped[low & ~elsewhere]
    piles = grouped[settled]
    if lines.lone_alike is not None and len(unread) and len(piles):
        joined = _joining(
            unread, vectors, corners, piles, groups[settled], confidence, lines.lone_alike
        )
        for k, member in joined:
            sims[k] = sims[member]
        unread = np.setdiff1d(unread, [k for k, _ in joined])
    if lines.second_look is not None and len(unread) and len(piles):
        ids, sizes = np.unique(groups, return_counts=True)
        lone = np.intersect1d(unread, grouped[np.isin(groups, ids[sizes == 1])])
        seen = settled | elsewhere  # the piles, of decks in play or not
        for k, member in _second_look(
            lone,
            corners,
            vectors,
            grouped[seen],
            groups[seen],
            settled[seen],
            read,
            lines.second_look,
        ):
            sims[k] = sims[member]
    return sims


def _part_look_alikes(
    vectors: np.ndarray,
    own_sims: np.ndarray,
    groups: np.ndarray,
    sims: np.ndarray,
    look_alikes: Collection[tuple[int, int]],
    decks: _Candidates,
    line: float,
    parts_alike: float,
) -> tuple[np.ndarray, np.ndarray]:
    """`identify`'s look-alike rule over the grouped backs: their groups and their rows of
    similarity to each deck (the group's mean's), with each part that is a look-alike deck's
    copies made a group of its own, given that deck (its rows hold the first deck at -1)."""
    groups, sims = groups.copy(), sims.copy()
    partners: dict[int, list[int]] = {}
    for a, b in look_alikes:
        partners.setdefault(a, []).append(b)
        partners.setdefault(b, []).append(a)
    best, elsewhere = decks.decide(sims)
    settled = (best >= line) & ~elsewhere
    nearest = decks.nearest(sims)
    ids, first = np.unique(groups, return_index=True)
    piles = {int(g): int(nearest[i]) for g, i in zip(ids, first, strict=True) if settled[i]}
    next_id = int(groups.max()) + 1
    for g, deck in list(piles.items()):
        members = np.flatnonzero(groups == g)
        for other in partners.get(deck, ()):
            if not decks.playing[other] or other in piles.values():
                continue  # the other deck has a pile of its own (or cannot be counted)
            part = look_alike_part(
                vectors[members],
                own_sims[members],
                deck,
                other,
                decks.similarity,
                parts_alike=parts_alike,
            )
            if part is None:
                continue
            row = decks.similarity(unit_mean(vectors[members[part]])[None])[0]
            row[deck] = -1.0  # read nearer the first deck, as a look-alike's copies can be
            if decks.nearest(row[None])[0] != other or row[other] < line:
                continue
            groups[members[part]] = next_id
            sims[members[part]] = row
            piles[next_id] = other
            next_id += 1
            break
    return groups, sims


def _joining(
    doubted: np.ndarray,
    vectors: np.ndarray,
    corners: np.ndarray,
    grouped: np.ndarray,
    groups: np.ndarray,
    confidence: np.ndarray,
    alike: float | np.ndarray,
) -> list[tuple[int, int]]:
    """(doubted back, a member of the group it joins) pairs, as rows of `vectors`/`corners`:
    its drawing a close copy of the group's (at least `alike`, or `alike[row]` for each row),
    its box on no counted back (nor on one that joined before it: the most confident join
    first) and no bigger than the group's copies."""
    doubted = doubted[np.argsort(-confidence[doubted], kind="stable")]
    lines = alike[doubted] if isinstance(alike, np.ndarray) else alike
    joined = join_groups(vectors[doubted], vectors[grouped], groups, lines)
    taken = list(corners[grouped])
    pairs = []
    for k, group in zip(doubted, joined, strict=True):
        if group < 0:
            continue
        members = grouped[groups == group]
        box = corners[k]
        if _stands_alone(box, taken) and _no_bigger(box, corners[members]):
            pairs.append((int(k), int(members[0])))
            taken.append(box)
    return pairs


def _second_look(
    lone: np.ndarray,
    corners: np.ndarray,
    vectors: np.ndarray,
    piles: np.ndarray,
    groups: np.ndarray,
    joinable: np.ndarray,
    read: _Reader,
    alike: float,
) -> list[tuple[int, int]]:
    """(lone back, a member of the pile it joins) pairs, as rows of `vectors`/`corners`.

    Each lone back is read along its `side_cuts` (not snapped to their ink: on enrolled art a
    snapped cut joined another design's pile). Of the piles (rows `piles`, grouped by `groups`),
    the one whose mean drawing a cut is most alike is joined when it is `joinable` (decided, and
    not a deck nobody plays: a copy more like such a pile stays nobody's), at least `alike`, that
    cut not nearer a deck nobody plays and no bigger than the pile's copies."""
    if not len(lone):
        return []
    cuts = np.stack([side_cuts(corners[k]) for k in lone])
    cut_vectors, cut_sims = read(list(cuts.reshape(-1, 4, 2)))
    ids, alikeness = alikeness_to_groups(cut_vectors, vectors[piles], groups)
    alikeness[read.decks.decide(cut_sims)[1]] = -np.inf
    per_back = alikeness.reshape(len(lone), cuts.shape[1], len(ids))
    pairs = []
    for k, back_cuts, alikeness_of in zip(lone, cuts, per_back, strict=True):
        cut, group = np.unravel_index(int(alikeness_of.argmax()), alikeness_of.shape)
        in_pile = groups == ids[group]
        members = piles[in_pile]
        if (
            joinable[in_pile][0]
            and alikeness_of[cut, group] >= alike
            and _no_bigger(back_cuts[cut], corners[members])
        ):
            pairs.append((int(k), int(members[0])))
    return pairs


def _no_bigger(box: np.ndarray, copies: np.ndarray) -> bool:
    """A box joining a group (a doubted or lone back's, or a second look's cut) is no longer,
    side by side, than JOIN_GROW times the longest such side among the group's counted copies."""
    return bool(np.all(box_sides(box) <= JOIN_GROW * box_sides(copies).max(axis=0)))


def _stands_alone(box: np.ndarray, counted_backs: list[np.ndarray]) -> bool:
    """A doubted back's box is not a second box on a counted back (overlapping it, or with
    JOIN_OVERLAP of it or more inside it)."""
    return all(
        max(polygon_iou(box, other), polygon_cover(box, other)) < JOIN_OVERLAP
        for other in counted_backs
    )
