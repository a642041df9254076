"""The counting pipeline: frame -> detections -> deck identities -> counts; thin over pure stages.

`CountingPipeline.from_defaults()` loads the shipped models once (the card detector
models/blitzcam-obb.onnx and the identity network models/blitzcam-identity.onnx, or the files
named by BLITZCAM_MODEL / BLITZCAM_IDENTITY_MODEL) and the deck profile (built-in art plus
enrolled backs, or a `--decks DIR`), embedding every reference drawing once. Calling it on a BGR
frame returns one FrameResult. Imports no torch.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TypeVar

import numpy as np

from blitzcam.errors import UserError
from blitzcam.game.decks import DECK_NAMES, meant_deck
from blitzcam.paths import REPO_ROOT, in_a_checkout, not_there
from blitzcam.vision.counting import Counts, count
from blitzcam.vision.decode import Decoded
from blitzcam.vision.detections import Detections
from blitzcam.vision.detector import Detector
from blitzcam.vision.embedding import Embedder, References
from blitzcam.vision.frame_change import card_blocks, card_centres, thumbnail
from blitzcam.vision.identify import UNKNOWN_BELOW_IN_PLAY, IdentifyLines, identify
from blitzcam.vision.lookalike import (
    LookAlike,
    OtherDeck,
    look_alikes,
    nearer_another,
    stand_ins_alike,
)
from blitzcam.vision.orientation import fills_more_turned, turn_back_obb, turn_frame
from blitzcam.vision.reference_cache import cached_reference_vectors
from blitzcam.vision.references import DeckProfile, builtin_profile, load_profile
from blitzcam.vision.stabilise import Stabiliser
from blitzcam.vision.tiling import (
    CLOSER_BY,
    MAX_LOOKS,
    ZOOM_BELOW,
    ZOOM_MIN_BACKS,
    ZOOM_SIZED_FROM,
    ZOOM_TO,
    explore_zoom,
    fitted_zoom,
    held_whole,
    holding_no_centre,
    tile_grid,
    tile_overlap,
    zoom_for,
    zoom_image,
)

T = TypeVar("T")

MODEL_ENV: Final = "BLITZCAM_MODEL"
# models/blitzcam-obb-int8.onnx (`models/quantize.py`) is faster and a little less right
MODEL_NAME: Final = "blitzcam-obb.onnx"
IDENTITY_ENV: Final = "BLITZCAM_IDENTITY_MODEL"
IDENTITY_NAME: Final = "blitzcam-identity.onnx"
# Backs at or above this detector confidence are counted (and those under it that join a counted
# pile, below). Chosen on the training recipe's validation split (best share of scenes counted
# exactly; see models/MODEL_CARD.md).
COUNT_CONF: Final = 0.45
# The detector's boxes down to this confidence are read: under COUNT_CONF a back counts only when
# its drawing joins a counted pile's (vision/identify.py: JOIN_ALIKE), and a face-up card of this
# confidence keeps a doubted box on it from counting. Chosen with JOIN_ALIKE on the tuning scenes.
DOUBTED_FROM: Final = 0.1
# Boxes overlapping a more confident one by more than this (probabilistic IoU) are dropped.
# Labelled drawings never overlap their neighbours by more than 0.006 (docs/counting.md), while
# two boxes on one half-covered drawing do by 0.35-0.55; on the tuning scenes (550) 0.7,
# ultralytics' default, counted 91.1 % exactly, 0.6 92.0 %, 0.5 and 0.4 92.5 %, recall unchanged.
COUNT_IOU: Final = 0.5
# Boxes kept from one read, every class and confidence from DOUBTED_FROM: eight decks hold 320
# cards, and face-up cards and doubted boxes come on top. ultralytics' 300 cut a full table's
# sure backs (a 2x2 of demo tables: 300 of 360 counted, the least sure kept at 0.88).
COUNT_MAX_BOXES: Final = 1000
# A box narrower than this (frame pixels) is no card, not even a sliver of one: a 64 x 64
# frame of noise gave 118 "backs" of 1 px. The smallest drawings counted are 14 x 23 px.
MIN_BOX_SIDE: Final = 3.0


def profile_references(embedder: Embedder, profile: DeckProfile) -> References:
    """Every reference back of `profile` embedded by `embedder` (read back from the cache when
    this network, engine and set of drawings were embedded before)."""
    return cached_reference_vectors(embedder, profile.patches, profile.owners)


def read_as_others(
    embedder: Embedder, profile: DeckProfile, references: References
) -> list[OtherDeck]:
    """The decks of the eight in `profile` (embedded as `references`) whose own reference
    (enrolled, or a --decks file) reads more like another deck's built-in drawing than its own
    deck's: the wrong back stored under its name, whose cards then go to a third deck that no
    look-alike pair names. The built-in drawings are drawn only when there is such a deck."""
    own = [
        i
        for i, (name, origin) in enumerate(zip(profile.names, profile.origins, strict=True))
        if name in DECK_NAMES and origin != "built-in"
    ]
    if not own:
        return []
    drawings = profile_references(embedder, builtin_profile())
    found = (
        nearer_another(
            profile.names[i], references.vectors[references.owners == i], drawings, DECK_NAMES
        )
        for i in own
    )
    return [other for other in found if other is not None]


def one_blas_thread() -> None:
    """Keep numpy's BLAS (OpenBLAS in numpy's wheels) on the calling thread, for the process.

    Identification's matrix products are small (a frame's backs by the references), and
    OpenBLAS's idle worker threads busy-wait after each: measured on 2 cores, that took a core
    from the next frame's forward pass (ONNX Runtime 96 -> 128 ms, OpenVINO 66 -> 118 ms).
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def _model_path(env: str, name: str) -> Path:
    """$env if set; else models/<name> in the checkout or in the installed package."""
    override = os.environ.get(env)
    if override:
        # (the file's name alone, said as missing, was one the user never typed: a forgotten
        # export in a shell profile)
        if not Path(override).is_file():
            what = "a folder, not a model file" if Path(override).is_dir() else None
            what = what or not_there(Path(override))
            raise UserError(f"{env}={override}: {what} (unset it for the shipped model)")
        return Path(override)
    in_repo = REPO_ROOT / "models" / name
    # (installed, REPO_ROOT is site-packages, where another distribution's models/ folder
    # took the shipped model's place)
    if in_a_checkout() and in_repo.is_file():
        return in_repo
    try:
        from importlib.resources import files

        installed = Path(str(files("blitzcam.models") / name))
        if installed.is_file():
            return installed
    except (ModuleNotFoundError, TypeError):
        pass
    return in_repo


def default_model_path() -> Path:
    """BLITZCAM_MODEL if set; else models/blitzcam-obb.onnx (the card detector)."""
    return _model_path(MODEL_ENV, MODEL_NAME)


def counting_detector(
    model_path: Path | None = None, *, threads: int | None = None, engine: str | None = None
) -> Detector:
    """The detector as counting sets it (the shipped model where `model_path` is None): boxes
    read from DOUBTED_FROM, suppressed above COUNT_IOU, COUNT_MAX_BOXES at most. Anything
    that must box as counting does (enrollment's check of a drawing in parts) loads it so."""
    return Detector(
        model_path or default_model_path(),
        conf=DOUBTED_FROM,
        iou=COUNT_IOU,
        max_det=COUNT_MAX_BOXES,
        threads=threads,
        engine=engine,
    )


def default_identity_path() -> Path:
    """BLITZCAM_IDENTITY_MODEL if set; else models/blitzcam-identity.onnx (deck identity)."""
    return _model_path(IDENTITY_ENV, IDENTITY_NAME)


def decks_in_play(profile: DeckProfile, in_play: Collection[str]) -> tuple[int, ...]:
    """The profile's indices of the decks `in_play` (a match's decks: the app knows who plays
    which). Raises ValueError naming a deck the profile has no reference of its own for."""
    decks = set(in_play)  # once: an iterator would be empty the second time
    countable = profile.countable()
    missing = sorted(decks - set(countable))
    if missing:
        # (a slip of one of the eight, `grene-pump`, was told only that it had no reference)
        named = [
            f"{name} (did you mean {meant}?)" if (meant := meant_deck(name)) in countable else name
            for name in missing
        ]
        raise ValueError(
            f"deck in play without a reference: {', '.join(named)} (the decks that can be "
            f"counted: {', '.join(countable)})"
        )
    return tuple(sorted(profile.names.index(name) for name in decks))


def candidate_decks(
    profile: DeckProfile, in_play: Collection[str] | None
) -> tuple[int, ...] | None:
    """The profile's indices of the decks a back may be counted to: those `in_play`, or with
    None every deck but the stand-ins (None: every deck)."""
    if in_play is None and not profile.stand_ins:
        return None
    return decks_in_play(profile, profile.countable() if in_play is None else in_play)


def _timed(timing: dict[str, float], stage: str, step: Callable[..., T], *args: object) -> T:
    """`step(*args)`, its milliseconds added to `timing[stage]`."""
    start = time.perf_counter()
    result = step(*args)
    timing[stage] = timing.get(stage, 0.0) + (time.perf_counter() - start) * 1000
    return result


@dataclass(frozen=True, slots=True)
class FrameResult:
    """Everything one frame says: the identified detections, the counts, where the time went."""

    detections: Detections
    counted: Counts  # backs per known deck (zeros included), face-up cards, backs of no deck
    timing_ms: Mapping[str, float]  # preprocess, inference, postprocess, identify, total
    settled: bool = (
        True  # live counting: enough still frames of this scene agree (see LiveCounting)
    )
    # live counting, not settled: the vote of this view's own still frames so far (the counts
    # are the view before's); None while it moves. `scene` numbers the view the counts are of,
    # `view_scene` the one `view` is of (see Stable)
    view: Counts | None = None
    scene: int = 0
    view_scene: int | None = None
    tiles: int = 0  # zoomed tiles the detector read for a closer look (0: none was needed)
    turned: bool = False  # the frame was read turned a quarter (vision/orientation.py)
    # live counting: the frame's thumbnail as the vote judged it (frame_change.thumbnail), made
    # on the counting thread, so that the live view need not make it again on the window's
    thumb: np.ndarray | None = field(default=None, compare=False)
    # live counting: whether this frame's own count of each deck is the vote's (None: not
    # counted live). A card laid where no motion showed reaches the vote only frame by frame
    agrees: bool | None = None

    @property
    def counts(self) -> Mapping[str, int]:
        return self.counted.per_deck

    @property
    def face_up(self) -> int:
        return self.counted.face_up

    @property
    def unknown(self) -> int:
        return self.counted.unknown


class CountingPipeline:
    """Detector, identity network and deck profile, loaded once; call it on BGR frames."""

    def __init__(
        self,
        detector: Detector,
        embedder: Embedder,
        profile: DeckProfile,
        *,
        references: References | None = None,
    ) -> None:
        """`references`: the profile's reference vectors as `embedder` embeds them, when they
        are at hand already (None: embedded, or read from the cache, here)."""
        one_blas_thread()
        self.detector = detector
        self.embedder = embedder
        # every line identification decides by (vision/identify.py: IdentifyLines; evaluation
        # varies them through `dataclasses.replace`): the detector reads boxes it doubts too,
        # from `doubted_from` (evaluation lowers the detector's line further, to score every
        # box); boxes count from `count_from`, or by joining a counted pile
        self.lines = IdentifyLines(
            doubted_from=detector.conf, count_from=max(COUNT_CONF, detector.conf)
        )
        self.unknown_below_in_play = UNKNOWN_BELOW_IN_PLAY  # the line when decks in play are given
        self.keep_uncounted = False  # evaluation keeps every box the detector found, to score it
        # a closer look, in tiles, when the sure backs' typical long side reached the network
        # under this many pixels (vision/tiling.py; None: never)
        self.zoom_below: float | None = ZOOM_BELOW
        self.zoom_to = ZOOM_TO  # ... zoomed so that side comes out this long
        # a frame that fills the input better turned a quarter is read turned (portrait phone
        # frames; vision/orientation.py); off, from code, to measure what turning gives
        self.turn_to_fill = True
        self.sized_from = ZOOM_SIZED_FROM  # the backs a closer look judges the size by
        self._use(profile, references)

    def _use(self, profile: DeckProfile, references: References | None = None) -> None:
        if references is None:
            references = profile_references(self.embedder, profile)
        # a stand-in that reads like a deck given is most likely that deck under the user's own
        # name for it: it would take that deck's backs, so it stands in for nothing
        alike = stand_ins_alike(references, profile.names, profile.stand_ins)
        if alike:
            keep = [i for i, name in enumerate(profile.names) if name not in alike]
            profile, references = profile.without(alike), references.of_decks(keep)
        # ~10 ms for the eight decks: once (a stand-in is never counted: it mixes up nothing)
        pairs = [
            pair
            for pair in look_alikes(references, profile.names)
            if not {pair.deck, pair.other} & set(profile.stand_ins)
        ]
        names = profile.names
        # one tuple, swapped at once: a frame in flight on another thread sees old or new, whole
        self._identity = (
            profile,
            references,
            profile.known_decks(),
            pairs,
            [(names.index(a.deck), names.index(a.other)) for a in pairs],  # as identify takes them
        )

    @property
    def profile(self) -> DeckProfile:
        return self._identity[0]

    @property
    def references(self) -> References:
        return self._identity[1]

    @property
    def known_decks(self) -> tuple[str, ...]:
        return self._identity[2]

    @property
    def look_alikes(self) -> list[LookAlike]:
        """The profile's decks that read nearly alike (vision/lookalike.py), most alike first."""
        return self._identity[3]

    def read_as_others(self) -> list[OtherDeck]:
        """The decks of the eight whose own reference reads more like another deck's built-in
        drawing than its own deck's (`read_as_others`)."""
        return read_as_others(self.embedder, self.profile, self.references)

    def in_play_line(self, in_play: Collection[str] | None) -> float:
        """The unknown line for backs decided among every deck, or among the decks `in_play`."""
        return self.lines.unknown_below if in_play is None else self.unknown_below_in_play

    def reload_profile(self, decks_dir: Path | None = None, *, skip_unusable: bool = False) -> None:
        """Read the deck profile again (the models stay loaded): `decks_dir`'s, or with None the
        user's, whatever the pipeline was built with (the app's always is the user's);
        `skip_unusable` as in references.default_profile."""
        self._use(load_profile(decks_dir, skip_unusable=skip_unusable))

    @classmethod
    def from_defaults(
        cls,
        *,
        model_path: Path | None = None,
        identity_path: Path | None = None,
        decks_dir: Path | None = None,
        threads: int | None = None,
        engine: str | None = None,
        skip_unusable: bool = False,
        profile: DeckProfile | None = None,
    ) -> CountingPipeline:
        """The shipped models (or those named), run by `engine` (None: vision/onnx_session.py's
        choice), and the user's deck profile (or `decks_dir`; `skip_unusable` as in
        references.default_profile), or `profile` where the caller has read it already (the
        app reads its --decks folder first, to say the folder's problems before the models').

        The detector, the largest part of start-up, compiles on this thread while a second one
        draws the profile's reference backs, opens the identity network and embeds them
        (OpenVINO compiles and runs without holding the GIL). On 2 cores, `blitzcam count` with
        empty caches went from a median 2.74 to 2.37 s start to exit (five rounds each, with
        the faster reference drawings of the same release), and no faster once they are warm.
        Errors are raised in the order they were when everything loaded one after the other:
        the detector's, the identity network's, then the profile's."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deck-profile")
        try:
            # one worker: each task starts once the one before it has finished
            given = profile
            profile = (
                pool.submit(load_profile, decks_dir, skip_unusable=skip_unusable)
                if given is None
                else pool.submit(lambda: given)
            )
            # (its path found there too: a $BLITZCAM_IDENTITY_MODEL naming nothing is said
            # after a detector's own problem, in the order above)
            embedder = pool.submit(
                lambda: Embedder(
                    identity_path or default_identity_path(), threads=threads, engine=engine
                )
            )
            references = pool.submit(
                lambda: profile_references(embedder.result(), profile.result())
            )
            detector = counting_detector(model_path, threads=threads, engine=engine)
            return cls(
                detector, embedder.result(), profile.result(), references=references.result()
            )
        finally:  # after an error, what has not started yet never starts
            pool.shutdown(wait=False, cancel_futures=True)

    def __call__(
        self, frame_bgr: np.ndarray, *, in_play: Collection[str] | None = None
    ) -> FrameResult:
        """Count one BGR frame; with `in_play`, backs are decided among those decks only,
        a back nearer another deck counting to nobody (the others are still reported, as
        zeros)."""
        if frame_bgr.dtype != np.uint8 or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            # the network would read 16-bit or float values as 8-bit ones (wrong counts, not
            # an error), and grey or BGRA frames fail deep in the engine
            raise ValueError(
                f"CountingPipeline: expected a BGR uint8 frame (height, width, 3), got "
                f"{frame_bgr.dtype} {frame_bgr.shape}; vision.pixel_format.to_bgr8 converts one"
            )
        t0 = time.perf_counter()
        timing: dict[str, float] = {}
        # a portrait frame's first read is turned a quarter, filling the landscape input; its
        # boxes are turned back at once, and a closer look reads the frame as it came (tiles
        # fit any shape, and there the perspective shrinks cards up the frame, as in training)
        turned = self.turn_to_fill and fills_more_turned(
            frame_bgr.shape[:2], self.detector.info.imgsz
        )
        frame = _timed(timing, "preprocess", turn_frame, frame_bgr) if turned else frame_bgr
        blob, params = _timed(timing, "preprocess", self.detector.prepare, frame)
        output = _timed(timing, "inference", self.detector.forward, blob)
        detections = _timed(timing, "postprocess", self.detector.decode, output, params)
        if turned:
            detections = detections.with_boxes(turn_back_obb(detections.obb, frame_bgr.shape[:2]))
        detections, tiles = self._look_closer(frame_bgr, detections, params.gain_xy[0], timing)
        sides = detections.obb[:, 2:4]
        detections = detections[sides.min(axis=1, initial=np.inf) >= MIN_BOX_SIDE]
        t3 = time.perf_counter()
        # read once: reload_profile may swap it
        profile, references, known_decks, _, look_alike_rows = self._identity
        lines = dataclasses.replace(self.lines, unknown_below=self.in_play_line(in_play))
        detections = identify(
            frame_bgr,
            detections,
            references,
            profile.names,
            self.embedder.embed,
            lines=lines,
            patch_size=self.embedder.patch_size,
            in_play=candidate_decks(profile, in_play),
            look_alikes=look_alike_rows,
        )
        if not self.keep_uncounted:
            detections = detections[detections.counted]
        counts: Counts = count(detections, known_decks)
        t4 = time.perf_counter()
        timing["identify"] = (t4 - t3) * 1000
        timing["total"] = (t4 - t0) * 1000
        return FrameResult(
            detections=detections,
            counted=counts,
            timing_ms=timing,
            tiles=tiles,
            turned=turned,
        )

    def _sure_back_sides(self, detections: Detections) -> np.ndarray:
        """Long sides (frame pixels) of the backs sure enough to judge the cards' size by."""
        sure = detections.of_class("back") & (detections.confidence >= self.sized_from)
        return np.maximum(detections.obb[sure, 2], detections.obb[sure, 3])

    def _look_closer(
        self,
        frame_bgr: np.ndarray,
        detections: Detections,
        read_at: float,
        timing: dict[str, float],
    ) -> tuple[Detections, int]:
        """The frame read again in tiles, zoomed, while the last read found the backs too small
        (vision/tiling.py); the last read's detections and the tiles read in all. `read_at`:
        network pixels per frame pixel in the first read (the letterbox's gain)."""
        if self.zoom_below is None:
            return detections, 0
        frame_hw = frame_bgr.shape[:2]
        network_hw = self.detector.info.imgsz
        explore = explore_zoom(frame_hw, network_hw)
        tiles = 0
        for _ in range(MAX_LOOKS):
            sides = self._sure_back_sides(detections)
            scale = zoom_for(sides, read_at, below=self.zoom_below, to=self.zoom_to)
            if scale is None and tiles == 0 and len(sides) < ZOOM_MIN_BACKS:
                scale = explore
            largest = float(sides.max()) if len(sides) else 0.0
            if scale is not None:
                scale = fitted_zoom(scale, frame_hw, network_hw, largest)
            if scale is None or scale < read_at * CLOSER_BY:
                break
            detections, read = self._read_in_tiles(frame_bgr, scale, largest, timing, detections)
            tiles += read
            read_at = scale
        return detections, tiles

    def _read_in_tiles(
        self,
        frame_bgr: np.ndarray,
        scale: float,
        largest: float,
        timing: dict[str, float],
        before: Detections,
    ) -> tuple[Detections, int]:
        """The frame zoomed by `scale` and read tile by tile; each stage's time is added to
        `timing`'s. `largest`: the longest sure back's long side so far, in frame pixels;
        `before`: the last read's detections, whose boxes too big for any tile stay."""
        detector = self.detector
        zoomed = _timed(timing, "preprocess", zoom_image, frame_bgr, scale)
        overlap = tile_overlap(largest * scale, detector.info.imgsz)
        tiles = tile_grid(zoomed.shape[:2], detector.info.imgsz, overlap)
        found = []
        for tile in tiles:
            blob = _timed(timing, "preprocess", detector.prepare_tile, zoomed, tile)
            output = _timed(timing, "inference", detector.forward, blob)
            found.append(
                _timed(
                    timing,
                    "postprocess",
                    detector.decode_tile,
                    output,
                    tile,
                    zoomed.shape[:2],
                    scale,
                )
            )
        seen = np.concatenate([np.zeros((0, 5), np.float32), *(tile.obb for tile in found)])
        too_big = ~held_whole(before.obb, scale, overlap)  # (few: only they are looked in)
        too_big[too_big] = holding_no_centre(before.obb[too_big], seen)
        found.append(
            Decoded(
                obb=before.obb[too_big],
                score=before.confidence[too_big],
                class_id=before.class_id[too_big],
            )
        )
        detections = _timed(timing, "postprocess", detector.merge_tiles, found)
        return detections, len(tiles)


class LiveCounting:
    """A pipeline for a camera feed: counts voted over recent still frames (see stabilise.py).

    Same call as CountingPipeline, and `at`: when the frame was taken on the source's own clock
    (a video file's position, in seconds; None: now). The detections are this frame's, the
    counts the window's vote.
    """

    def __init__(self, pipeline: CountingPipeline, stabiliser: Stabiliser | None = None) -> None:
        self.pipeline = pipeline
        self.stabiliser = stabiliser or Stabiliser()
        self._in_play: frozenset[str] | None = None
        self._profile = getattr(pipeline, "profile", None)  # stand-ins in tests have none
        self._reported: float | None = None  # when the last frame's counts were reported

    def reset(self) -> None:
        """Forget the votes so far: a new scan of the table starts (the last round's cards, or
        another match's, must not be shown while the new ones are spread)."""
        self.stabiliser.reset()
        self._reported = None

    def __call__(
        self,
        frame_bgr: np.ndarray,
        *,
        in_play: Collection[str] | None = None,
        at: float | None = None,
    ) -> FrameResult:
        decks = None if in_play is None else frozenset(in_play)  # read once: it may be an iterator
        profile = getattr(self.pipeline, "profile", None)
        # counts decided among other decks, or against the references before an enrollment,
        # do not vote here
        if decks != self._in_play or profile is not self._profile:
            self.stabiliser.reset()
            self._in_play, self._profile = decks, profile
        if at is None:
            taken = time.monotonic()  # (the frame was read just now)
            # unwatched since the last report: the camera's wait, not this machine's counting
            unseen = None if self._reported is None else taken - self._reported
        else:  # a video file's own clock: judged as it was shot, however fast it is read
            taken, unseen = at, None
        result = self.pipeline(frame_bgr, in_play=decks)
        counted = result.detections.corners[result.detections.counted]
        thumb = thumbnail(frame_bgr)
        stable = self.stabiliser.update(
            thumb,
            result.counted,
            at=taken,
            unseen_s=unseen,
            cards=card_blocks(counted, frame_bgr.shape[:2]),
            centres=card_centres(counted, frame_bgr.shape[:2]),
        )
        self._reported = time.monotonic()
        return dataclasses.replace(
            result,
            counted=stable.counts,
            settled=stable.settled,
            view=stable.view,
            scene=stable.scene,
            view_scene=stable.view_scene,
            thumb=thumb,
            # (per deck: the vote holds a number of backs of no deck the frames wobble about, and
            # compared whole, a still table of art never rested; diff review)
            agrees=dict(result.counted.per_deck) == dict(stable.counts.per_deck),
        )
