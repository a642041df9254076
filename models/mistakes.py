"""Why a scene was not counted exactly: each labelled back no counted box found, each counted box
on no labelled back, and each back given another deck. Pure functions over the metrics' records.

The evaluation's figures say how many scenes are inexact and, through "had every counted box
its back's deck", roughly whose fault; retraining the detector or choosing a line needs the
mistakes themselves (a back boxed askew, a drawing on a face-up card, a faint drawing never
boxed). Matching is the metrics' own (`metrics.match_boxes`, IoU 0.5, counted boxes among
themselves), so a mistake here is one the figures counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from blitzcam.models.metrics import (
    IOU_THRESHOLD,
    UNKNOWN,
    SceneOutcome,
    ScenePrediction,
    SceneTruth,
    match_boxes,
    truth_deck_name,
)
from blitzcam.vision.polygons import polygon_iou

FACE_UP: Final = "face-up card"  # what a face box or a face label is called here


@dataclass(frozen=True, slots=True)
class NearestBox:
    """The detector's box (of any confidence; a face-up box only at the matching IoU) that
    overlaps a missed back most."""

    iou: float
    confidence: float
    counted: bool
    deck: str  # its deck as decided ("unknown" for none), or FACE_UP for a face box


@dataclass(frozen=True, slots=True)
class MissedBack:
    """A labelled back no counted box claimed (IoU 0.5 or more)."""

    deck: str  # its true deck, "unknown" for art no deck was enrolled for
    nearest: NearestBox | None  # None: no box of the detector's touches it


@dataclass(frozen=True, slots=True)
class ExtraBox:
    """A counted back box that claimed no labelled back."""

    deck: str  # the deck it was counted to ("unknown": counted to nobody)
    confidence: float
    on: str  # what it overlaps most: a labelled back's deck, FACE_UP, or "nothing"
    iou: float  # ... by this much (0 for nothing)


@dataclass(frozen=True, slots=True)
class SceneMistakes:
    """What made one scene inexact (`scene_mistakes`)."""

    name: str
    by_detector: bool  # inexact even had every counted box on a back got that back's deck
    decks_off: Mapping[str, tuple[int, int]]  # deck -> (counted, true), known decks that are off
    missed: tuple[MissedBack, ...]
    extra: tuple[ExtraBox, ...]
    wrong_deck: Mapping[tuple[str, str], int]  # (true deck, counted as) -> backs

    def as_json(self) -> dict[str, Any]:
        return {
            "scene": self.name,
            "cause": "detector" if self.by_detector else "identification",
            "decks_off": {d: {"counted": c, "true": t} for d, (c, t) in self.decks_off.items()},
            "missed_backs": [
                {
                    "deck": m.deck,
                    "nearest_box": None
                    if m.nearest is None
                    else {
                        "iou": round(m.nearest.iou, 3),
                        "confidence": round(m.nearest.confidence, 3),
                        "counted": m.nearest.counted,
                        "deck": m.nearest.deck,
                    },
                }
                for m in self.missed
            ],
            "extra_boxes": [
                {
                    "deck": e.deck,
                    "confidence": round(e.confidence, 3),
                    "on": e.on,
                    "iou": round(e.iou, 3),
                }
                for e in self.extra
            ],
            "wrong_deck": [
                {"truth": t, "counted_as": p, "cards": n}
                for (t, p), n in sorted(self.wrong_deck.items())
            ],
        }


def _overlaps(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of one (4, 2) box with each of (n, 4, 2) others (0 where their extents miss)."""
    out = np.zeros(len(others))
    if not len(others):
        return out
    low, high = box.min(axis=0), box.max(axis=0)
    near = np.all((others.min(axis=1) < high) & (others.max(axis=1) > low), axis=1)
    for k in np.flatnonzero(near):
        out[k] = polygon_iou(box, others[k])
    return out


def scene_mistakes(
    outcome: SceneOutcome,
    truth: SceneTruth,
    prediction: ScenePrediction,
    *,
    known_decks: tuple[str, ...],
) -> SceneMistakes:
    """The mistakes behind one scene's counts (`outcome`: `metrics.evaluate_scene` of the same
    truth and prediction)."""
    backs = np.flatnonzero(truth.classes == 0)
    counted = np.flatnonzero(prediction.counted & (prediction.classes == 0))
    claims = match_boxes(
        truth.corners[backs], prediction.corners[counted], prediction.confidence[counted]
    )
    claimed = set(claims[claims >= 0].tolist())

    def name_of(k: int) -> str:
        return FACE_UP if prediction.classes[k] == 1 else prediction.decks[k]

    missed = []
    is_face = prediction.classes == 1
    # a box that counted another back is that back's, not this one's "askew" box: in a fan
    # of backs 7 px apart, a back no box was on was said boxed askew by its neighbour's
    taken = np.zeros(len(prediction.classes), bool)
    taken[counted[claims >= 0]] = True
    for t, label in enumerate(backs):
        if t in claimed:
            continue
        ious = _overlaps(truth.corners[label], prediction.corners)
        # a face-up box is the box on this back only when it is its box (a face-up card the
        # back lies on overlaps it a little: the back was not boxed as one)
        if len(ious):
            ious = np.where((is_face & (ious < IOU_THRESHOLD)) | taken, 0.0, ious)
        nearest = None
        if len(ious) and ious.max() > 0:
            k = int(ious.argmax())
            nearest = NearestBox(
                float(ious[k]),
                float(prediction.confidence[k]),
                bool(prediction.counted[k]),
                name_of(k),
            )
        missed.append(MissedBack(truth_deck_name(truth.decks[label], known_decks), nearest))
    extra = []
    for k, claim in zip(counted, claims, strict=True):
        if claim >= 0:
            continue
        ious = _overlaps(prediction.corners[k], truth.corners)
        on, best = "nothing", 0.0
        if len(ious) and ious.max() > 0:
            j = int(ious.argmax())
            best = float(ious[j])
            on = FACE_UP if truth.classes[j] == 1 else truth_deck_name(truth.decks[j], known_decks)
        extra.append(ExtraBox(prediction.decks[k], float(prediction.confidence[k]), on, best))
    off = {
        deck: (outcome.predicted_counts.get(deck, 0), outcome.truth_counts.get(deck, 0))
        for deck in known_decks
        if outcome.predicted_counts.get(deck, 0) != outcome.truth_counts.get(deck, 0)
    }
    wrong = Counter({pair: n for pair, n in outcome.confusions.items() if pair[0] != pair[1]})
    return SceneMistakes(
        name=outcome.name,
        by_detector=not outcome.exact_if_identity_right,
        decks_off=off,
        missed=tuple(missed),
        extra=tuple(extra),
        wrong_deck=dict(wrong),
    )


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}" if high - low < 0.005 else f"{low:.2f}-{high:.2f}"


def _many(n: int) -> str:
    return f"{n}× " if n > 1 else ""


def _missed_clause(missed: list[dict[str, Any]], count_from: float) -> str:
    """The missed backs, alike ones together, by the box most on each: unboxed, doubted (a box
    under the counting line `count_from`, its confidences), not counted (one above it that
    did not count), boxed as a face-up card, boxed askew (a counted box under IoU 0.5 with it,
    or one that did not match it)."""
    kinds: dict[tuple[str, str, str], list[float]] = {}
    for m in missed:
        near = m["nearest_box"]
        if near is None:
            key, value = (m["deck"], "unboxed", ""), 0.0
        elif near["deck"] == FACE_UP:
            key, value = (m["deck"], "boxed as a face-up card", ""), near["iou"]
        elif near["counted"]:
            key, value = (m["deck"], "boxed askew", near["deck"]), near["iou"]
        elif near["confidence"] < count_from:
            key, value = (m["deck"], "doubted", ""), near["confidence"]
        else:
            key, value = (m["deck"], "not counted", ""), near["confidence"]
        kinds.setdefault(key, []).append(value)
    phrases = []
    for (deck, kind, as_deck), values in kinds.items():
        detail = {
            "unboxed": "",
            "doubted": f" ({_span(values)})",
            "not counted": f" ({_span(values)})",
            "boxed as a face-up card": f" (IoU {_span(values)})",
            "boxed askew": f" (IoU {_span(values)}, as {as_deck})",
        }[kind]
        phrases.append(f"{_many(len(values))}{deck} {kind}{detail}")
    return "missed " + ", ".join(phrases)


def _extra_clause(extra: list[dict[str, Any]]) -> str:
    kinds = Counter(
        f"{e['deck']} on {e['on'] if e['on'] in ('nothing', FACE_UP) else e['on'] + ' back'}"
        for e in extra
    )
    return "extra " + ", ".join(f"{_many(n)}{kind}" for kind, n in kinds.items())


def _wrong_deck_phrase(wrong: dict[str, Any]) -> str:
    many = _many(wrong["cards"])
    if wrong["counted_as"] == UNKNOWN:
        return f"{many}{wrong['truth']} left unknown"
    if wrong["truth"] == UNKNOWN:
        return f"{many}art nobody enrolled counted as {wrong['counted_as']}"
    return f"{many}{wrong['truth']} counted as {wrong['counted_as']}"


def mistake_line(detail: dict[str, Any], count_from: float) -> str:
    """One inexact scene's mistakes (`SceneMistakes.as_json`) in a line of the report table;
    `count_from`: the counting line the scene was counted with."""
    parts = [
        ", ".join(f"{d} {v['counted']} of {v['true']}" for d, v in detail["decks_off"].items())
    ]
    if detail["wrong_deck"]:
        parts.append(", ".join(_wrong_deck_phrase(w) for w in detail["wrong_deck"]))
    if detail["missed_backs"]:
        parts.append(_missed_clause(detail["missed_backs"], count_from))
    if detail["extra_boxes"]:
        parts.append(_extra_clause(detail["extra_boxes"]))
    return f"{detail['scene']} ({detail['cause']}): " + "; ".join(p for p in parts if p)
