"""Detector and counting metrics on labelled scenes: pure functions over plain arrays.

Detector: precision and recall of the boxes the pipeline counted and mAP50, matching
oriented boxes by polygon IoU >= 0.5. Counting, what users care about: the share of scenes
whose count per deck is exactly right, exact rate and mean absolute error per deck, which
deck was taken for which, and face-up cards wrongly counted.

A scene is exact when every known deck's count is right: the counts `blitzcam count` reports
and a round is scored from. Backs left "unknown" are counted to nobody, so how many there are
does not make a scene exact or not; the stricter rate that also asks for that number is
reported beside it (`scene_exact_rate_with_unknown`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np

from blitzcam.vision.detections import UNKNOWN_NAME as UNKNOWN
from blitzcam.vision.polygons import polygon_iou

IOU_THRESHOLD: Final = 0.5
CLASSES: Final = ("back", "face")
# labelled backs, and backs counted, from which a scene whose labels lie on few of them is
# said (`SceneOutcome.labels_off`): with fewer, missing them all is a plain miss
LABELS_OFF_FROM: Final = 3
LABELS_OFF_SHARE: Final = 0.2  # ... and under this share of the backs counted on a label


def match_boxes(
    truth: np.ndarray, predicted: np.ndarray, confidence: np.ndarray, *, iou: float = IOU_THRESHOLD
) -> np.ndarray:
    """For each prediction (most confident first), the index of the truth box it claims, or -1.

    Greedy one-to-one matching as in VOC/COCO evaluation: a truth box is claimed once.
    """
    claimed = np.full(len(predicted), -1, np.int64)
    if not len(truth) or not len(predicted):
        return claimed
    truth_centres = truth.mean(axis=1)
    taken = np.zeros(len(truth), bool)
    for p in np.argsort(-confidence, kind="stable"):
        # only nearby truths can overlap: skip the polygon maths for the rest
        reach = np.abs(predicted[p] - predicted[p].mean(axis=0)).max() * 2 + 1
        near = np.flatnonzero(
            np.abs(truth_centres - predicted[p].mean(axis=0)).max(axis=1) < reach * 2
        )
        best, best_iou = -1, iou
        for t in near:
            if taken[t]:
                continue
            value = polygon_iou(truth[t], predicted[p])
            if value >= best_iou:
                best, best_iou = int(t), value
        if best >= 0:
            taken[best] = True
            claimed[p] = best
    return claimed


def average_precision(confidence: np.ndarray, correct: np.ndarray, n_truth: int) -> float:
    """Area under the precision-recall curve by COCO's rule: the interpolated precision at
    recall 0, 0.01, ..., 1, averaged. (Ultralytics integrates the same curve by trapezoids
    instead: a class missing one box of 200, with no false box, is 0.990 here and 0.995
    there.) By that rule, a class of which any box is never boxed at all scores nothing at
    recall 1: at most 100/101, 0.9901, however few or many are missed and whatever boxes rank
    above them. Thousands of backs always have one, so `summarize` says how many were boxed
    at all beside it."""
    if n_truth == 0:
        return float("nan")
    if not len(confidence):
        return 0.0
    correct = np.asarray(correct, bool)  # (0/1 integers: ~ is no "not" for them)
    order = np.argsort(-confidence, kind="stable")
    tp = np.cumsum(correct[order])
    fp = np.cumsum(~correct[order])
    recall = tp / n_truth
    precision = tp / np.maximum(tp + fp, 1)
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    index = np.searchsorted(recall, points, side="left")
    values = np.where(index < len(envelope), envelope[np.minimum(index, len(envelope) - 1)], 0.0)
    return float(values.mean())


@dataclass(frozen=True, slots=True)
class SceneTruth:
    """One labelled scene: oriented boxes (n, 4, 2), classes (n,) and each back's deck (or None)."""

    corners: np.ndarray
    classes: np.ndarray
    decks: tuple[str | None, ...]
    random_art: bool = False  # some backs show random art (no enrolled deck: must stay unknown)
    # what the scene was made under ({"light": "dim", "table": "felt", ...}): the report's
    # exact rate is also given for each, to say where the misses are
    conditions: Mapping[str, str] = field(default_factory=dict)
    # (width, height) of the picture the labels were drawn on, where known: a photo resized
    # since would leave every box off its card
    size: tuple[int, int] | None = None
    # corners in shares of the picture's width and height (YOLO label files): any size fits
    relative: bool = False


@dataclass(frozen=True, slots=True)
class ScenePrediction:
    """What the pipeline saw: every detection (any confidence), the ones it counted, and decks."""

    corners: np.ndarray
    classes: np.ndarray
    confidence: np.ndarray
    decks: tuple[str, ...]  # deck name per detection ("unknown" when none matched; faces too)
    counted: np.ndarray  # bool (n,): detections that went into the counts


@dataclass(frozen=True, slots=True)
class SceneOutcome:
    name: str
    truth_counts: Mapping[str, int]
    predicted_counts: Mapping[str, int]
    face_up_counted: int
    confusions: Mapping[tuple[str, str], int]
    # detector evaluation, per class: (confidence, correct) of every prediction, truth count
    scored: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    n_truth: Mapping[str, int] = field(default_factory=dict)
    counted_correct: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # tp, n counted
    # the counts had every counted back that matches a labelled back got its true deck: what
    # the detector alone allows (tells detection errors from identification errors)
    counts_if_identity_right: Mapping[str, int] = field(default_factory=dict)
    random_art: bool = False
    conditions: Mapping[str, str] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return same_counts(self.truth_counts, self.predicted_counts)

    @property
    def exact_with_unknown(self) -> bool:
        """Exact, and as many backs left unknown as the scene has backs of no known deck."""
        return same_counts(self.truth_counts, self.predicted_counts, with_unknown=True)

    @property
    def exact_if_identity_right(self) -> bool:
        return same_counts(self.truth_counts, self.counts_if_identity_right)

    @property
    def labels_off(self) -> bool:
        """Whether its labels lie on few of the backs counted (under LABELS_OFF_SHARE), several
        of each: labels of another picture, or of this one before it was turned or cropped (a
        photo turned half a turn keeps its size; a few of its boxes still fall on a label),
        which score its counts as they stand and few boxes."""
        matched, counted = self.counted_correct.get("back", (0, 0))
        labelled = self.n_truth.get("back", 0)
        return min(counted, labelled) >= LABELS_OFF_FROM and matched < LABELS_OFF_SHARE * counted


def same_counts(a: Mapping[str, int], b: Mapping[str, int], *, with_unknown: bool = False) -> bool:
    """Every known deck's count alike (and the unknown backs' too, `with_unknown`)."""
    keys = set(a) | set(b)
    if not with_unknown:
        keys.discard(UNKNOWN)
    return all(a.get(k, 0) == b.get(k, 0) for k in keys)


def truth_deck_name(deck: str | None, known: Iterable[str]) -> str:
    """The name a perfect pipeline would give: a known deck's name, else "unknown"."""
    return deck if deck is not None and deck in set(known) else UNKNOWN


def evaluate_scene(
    name: str, truth: SceneTruth, prediction: ScenePrediction, *, known_decks: Sequence[str]
) -> SceneOutcome:
    known = tuple(known_decks)
    truth_names = [
        truth_deck_name(d, known) for d, c in zip(truth.decks, truth.classes, strict=True) if c == 0
    ]
    counted = prediction.counted & (prediction.classes == 0)
    predicted_names = [d for d, keep in zip(prediction.decks, counted, strict=True) if keep]
    scored, n_truth, counted_correct = {}, {}, {}
    confusions: Counter[tuple[str, str]] = Counter()
    identity_right: Counter[str] = Counter()
    face_up_counted = 0
    on_a_back = np.zeros(len(prediction.classes), bool)  # boxes that claim a labelled back
    for cls, cls_name in enumerate(CLASSES):
        t_mask = truth.classes == cls
        p_mask = prediction.classes == cls
        claims = match_boxes(
            truth.corners[t_mask], prediction.corners[p_mask], prediction.confidence[p_mask]
        )
        scored[cls_name] = (prediction.confidence[p_mask], claims >= 0)
        n_truth[cls_name] = int(t_mask.sum())
        keep = prediction.counted[p_mask]
        # the counted boxes matched among themselves: matched with every box, a more confident
        # box that was not counted took the back, and the counted one on it scored as a miss
        claims = np.full(len(keep), -1, np.int64)
        claims[keep] = match_boxes(
            truth.corners[t_mask],
            prediction.corners[p_mask][keep],
            prediction.confidence[p_mask][keep],
        )
        counted_correct[cls_name] = (int((claims[keep] >= 0).sum()), int(keep.sum()))
        if cls == 0:
            on_a_back[np.flatnonzero(p_mask)[claims >= 0]] = True
            predicted_backs = [
                d for d, c in zip(prediction.decks, prediction.classes, strict=True) if c == 0
            ]
            for p, t in enumerate(claims):
                if t >= 0 and keep[p]:
                    confusions[(truth_names[t], predicted_backs[p])] += 1
                if keep[p]:
                    identity_right[truth_names[t] if t >= 0 else predicted_backs[p]] += 1
    # a counted back that sits on a face-up card: the one mistake users must never see
    faces = truth.corners[truth.classes == 1]
    # ("unknown" backs are counted to nobody: only those given a deck score here; a box on a
    # labelled back is that back, even where the back lies on top of a face-up card)
    to_deck = counted & np.array([d != UNKNOWN for d in prediction.decks], bool) & ~on_a_back
    if len(faces) and to_deck.any():
        claims = match_boxes(
            faces, prediction.corners[to_deck], prediction.confidence[to_deck], iou=0.3
        )
        # face-up cards, not boxes: two boxes on one face are one card counted
        hit = set(claims[claims >= 0].tolist())
        backs = truth.corners[truth.classes == 0]
        hit |= _faces_under(faces, prediction.corners[to_deck][claims < 0], backs)
        face_up_counted = len(hit)
    return SceneOutcome(
        name=name,
        truth_counts=Counter(truth_names),
        predicted_counts=Counter(predicted_names),
        face_up_counted=face_up_counted,
        confusions=confusions,
        scored=scored,
        n_truth=n_truth,
        counted_correct=counted_correct,
        counts_if_identity_right=identity_right,
        random_art=truth.random_art,
        conditions=truth.conditions,
    )


def _faces_under(faces: np.ndarray, boxes: np.ndarray, backs: np.ndarray) -> set[int]:
    """The face-up cards (indices into `faces`) on which a counted box's centre lies (a small
    box inside a big one), unless it lies on a labelled back (`backs`) too: that is the back,
    boxed askew where it lies on the face-up card, not the face-up card counted."""
    under: set[int] = set()
    for centre in boxes.mean(axis=1) if len(boxes) else []:
        point = (float(centre[0]), float(centre[1]))
        if any(_inside(point, back) for back in backs):
            continue
        for index, face in enumerate(faces):
            if _inside(point, face):
                under.add(index)
                break
    return under


def _inside(point: tuple[float, float], polygon: np.ndarray) -> bool:
    return cv2.pointPolygonTest(polygon.astype(np.float32), point, False) >= 0


def exact_rate_by_threshold(
    scenes: Sequence[tuple[SceneTruth, ScenePrediction]],
    thresholds: Sequence[float],
    *,
    known_decks: Sequence[str],
) -> dict[float, float]:
    """Share of scenes counted exactly if only backs at or above each confidence were counted
    (the pipeline's own choice, `prediction.counted`, set aside).

    For choosing the pipeline's operating threshold on a validation split.
    """
    return {
        float(threshold): _exact_share(
            scenes, lambda p, t=threshold: p.confidence >= t, known_decks=known_decks
        )
        for threshold in thresholds
    }


def exact_rate(
    scenes: Sequence[tuple[SceneTruth, ScenePrediction]], *, known_decks: Sequence[str]
) -> float:
    """Share of scenes whose counted backs (`prediction.counted`) give every known deck's count."""
    return _exact_share(scenes, lambda p: p.counted, known_decks=known_decks)


def _exact_share(
    scenes: Sequence[tuple[SceneTruth, ScenePrediction]],
    counts: Callable[[ScenePrediction], np.ndarray],
    *,
    known_decks: Sequence[str],
) -> float:
    if not scenes:
        return float("nan")
    exact = 0
    for truth, prediction in scenes:
        expected = Counter(
            truth_deck_name(d, known_decks)
            for d, c in zip(truth.decks, truth.classes, strict=True)
            if c == 0
        )
        keep = (prediction.classes == 0) & counts(prediction)
        counted = Counter(d for d, k in zip(prediction.decks, keep, strict=True) if k)
        exact += same_counts(counted, expected)
    return exact / len(scenes)


def _share(outcomes: Sequence[SceneOutcome], kind: str = "exact") -> float:
    """Share of the scenes whose `kind` property (exact, exact_with_unknown, …) holds."""
    if not outcomes:
        return float("nan")
    return sum(getattr(o, kind) for o in outcomes) / len(outcomes)


def summarize(outcomes: Sequence[SceneOutcome]) -> dict[str, Any]:
    """The report: detector metrics, then the counting metrics users care about."""
    detector: dict[str, Any] = {}
    aps = []
    all_boxed = 0
    for cls_name in CLASSES:
        conf = np.concatenate([o.scored[cls_name][0] for o in outcomes] or [np.zeros(0)])
        correct = np.concatenate([o.scored[cls_name][1] for o in outcomes] or [np.zeros(0, bool)])
        n_truth = sum(o.n_truth[cls_name] for o in outcomes)
        tp = sum(o.counted_correct[cls_name][0] for o in outcomes)
        n_kept = sum(o.counted_correct[cls_name][1] for o in outcomes)
        ap = average_precision(conf, correct.astype(bool), n_truth)
        detector[cls_name] = {
            "precision": tp / n_kept if n_kept else float("nan"),
            "recall": tp / n_truth if n_truth else float("nan"),
            "mAP50": ap,
            # labelled boxes matched by some box of any confidence scored: what the detector
            # finds at all (mAP50 stops at 0.9901 once one is never found)
            "boxed": int(correct.sum()) / n_truth if n_truth else float("nan"),
            "instances": n_truth,
        }
        all_boxed += int(correct.sum())
        if not np.isnan(ap):
            aps.append(ap)
    all_tp = sum(o.counted_correct[c][0] for o in outcomes for c in CLASSES)
    all_kept = sum(o.counted_correct[c][1] for o in outcomes for c in CLASSES)
    all_truth = sum(o.n_truth[c] for o in outcomes for c in CLASSES)
    detector["all"] = {
        "precision": all_tp / all_kept if all_kept else float("nan"),
        "recall": all_tp / all_truth if all_truth else float("nan"),
        "mAP50": float(np.mean(aps)) if aps else float("nan"),
        "boxed": all_boxed / all_truth if all_truth else float("nan"),
    }
    per_deck, mean_abs_error = count_errors(
        [(o.truth_counts, o.predicted_counts) for o in outcomes]
    )
    confusions: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        confusions.update(o.confusions)
    builtin_art = [o for o in outcomes if not o.random_art]
    return {
        "scenes": len(outcomes),
        "detector": detector,
        "scene_exact_rate": _share(outcomes),
        "scene_exact_rate_with_unknown": _share(outcomes, "exact_with_unknown"),
        "scene_exact_rate_if_identity_right": _share(outcomes, "exact_if_identity_right"),
        "scenes_builtin_art": len(builtin_art),
        "scene_exact_rate_builtin_art": _share(builtin_art),
        "scene_exact_rate_random_art": _share([o for o in outcomes if o.random_art]),
        "per_deck": per_deck,
        "mean_abs_count_error": mean_abs_error,
        "confusions": [
            {"truth": t, "predicted": p, "cards": n}
            for (t, p), n in sorted(confusions.items())
            if t != p
        ],
        "face_up_counted": sum(o.face_up_counted for o in outcomes),
        # (the one mistake users must never see: which photos, where it happens)
        "face_up_counted_scenes": [o.name for o in outcomes if o.face_up_counted],
        "labels_off_scenes": [o.name for o in outcomes if o.labels_off],
        "inexact_scenes": [o.name for o in outcomes if not o.exact],
        "exact_by_condition": exact_by_condition(outcomes),
    }


def count_errors(
    scenes: Sequence[tuple[Mapping[str, int], Mapping[str, int]]],
) -> tuple[dict[str, dict[str, Any]], float]:
    """Per deck, over the scenes it is on the table or counted in (`scenes`: true and counted
    counts of each): how many, the share exact and the mean absolute error; and that error
    over every scene's such decks, "unknown" left out (NaN: no deck anywhere, nothing
    measured, not "no error")."""
    decks = sorted({k for truth, counted in scenes for k in (*truth, *counted)})
    per_deck = {}
    for deck in decks:
        errors = [
            abs(truth.get(deck, 0) - counted.get(deck, 0))
            for truth, counted in scenes
            if truth.get(deck, 0) or counted.get(deck, 0)
        ]
        per_deck[deck] = {
            "scenes": len(errors),
            "exact_rate": sum(e == 0 for e in errors) / len(errors) if errors else float("nan"),
            "mean_abs_error": float(np.mean(errors)) if errors else 0.0,
        }
    # over each scene's decks on the table or counted in it, as per deck above (every known
    # deck in every scene would add a zero for each absent one, and a deck counted once
    # anywhere would add one to every scene: more mistakes could lower the mean)
    all_errors = [
        abs(truth.get(d, 0) - counted.get(d, 0))
        for truth, counted in scenes
        for d in decks
        if d != UNKNOWN  # not a deck: its backs are counted to nobody
        and (truth.get(d, 0) or counted.get(d, 0))
    ]
    return per_deck, float(np.mean(all_errors)) if all_errors else float("nan")


def exact_by_condition(outcomes: Sequence[SceneOutcome]) -> dict[str, dict[str, dict[str, int]]]:
    """For each condition scenes were made under and each of its values, how many scenes had it,
    how many were counted exactly, and how many would have been had every counted box on a back
    got that back's deck (the rest is the detector's): {"light": {"dim": {"scenes": 96,
    "exact": 85, "exact_if_identity_right": 89}, ...}, ...}, conditions and values in order."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for outcome in outcomes:
        for condition, value in outcome.conditions.items():
            row = table.setdefault(condition, {}).setdefault(
                value, {"scenes": 0, "exact": 0, "exact_if_identity_right": 0}
            )
            row["scenes"] += 1
            row["exact"] += outcome.exact
            row["exact_if_identity_right"] += outcome.exact_if_identity_right
    return {
        c: dict(sorted(values.items(), key=lambda item: _natural(item[0])))
        for c, values in sorted(table.items())
    }


def _natural(value: str) -> tuple[float, str]:
    """Ranges ("0-55 px", "56-95 px", "96+ px") by their first number, words by their spelling."""
    number = re.search(r"\d+(?:\.\d+)?", value)
    return (float(number.group()) if number else math.inf, value)
