"""`blitzcam evaluate` on scenes whose truth is counts (`models/counted_scenes.py`): photos of a
real table, or the app's kept captures. Each scene is counted as `blitzcam count` counts it (a
step of several shots: the sum of its shots, as the app sums them) and scored on its counts.

Scoring (`count_outcome`, `summarize_counts`) is pure; `evaluate_counts` runs the pipeline.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from blitzcam.models.counted_scenes import CountedScene, LeftOut
from blitzcam.models.evaluation import (
    SceneDataError,
    at_most_shown,
    decks_lines,
    error_text,
    how_many,
    pct,
    per_deck_lines,
    pipeline_said,
    unreadable_lines,
)
from blitzcam.models.metrics import UNKNOWN, count_errors, same_counts
from blitzcam.vision.images import ImageError, Picture


@dataclass(frozen=True, slots=True)
class CountOutcome:
    """One scene's true counts against those the pipeline gave it."""

    name: str
    truth: Mapping[str, int]
    counted: Mapping[str, int]  # backs per known deck, and "unknown": those counted to nobody
    face_up_truth: int | None
    face_up_found: int
    proposed: Mapping[str, int] | None = None  # the app's count when the capture was taken
    images: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return same_counts(self.truth, self.counted)

    @property
    def unknown(self) -> int:
        """Backs counted to no deck: a counts file cannot say them, so they are said apart
        (a deck the file does not name, or art nobody enrolled, or a miss of a deck's)."""
        return self.counted.get(UNKNOWN, 0)

    @property
    def proposed_exact(self) -> bool | None:
        return None if self.proposed is None else same_counts(self.truth, self.proposed)

    def decks_off(self) -> dict[str, dict[str, int]]:
        """{deck: {"counted": n, "true": m}} for each known deck counted wrong."""
        decks = sorted((set(self.truth) | set(self.counted)) - {UNKNOWN})
        return {
            d: {"counted": self.counted.get(d, 0), "true": self.truth.get(d, 0)}
            for d in decks
            if self.counted.get(d, 0) != self.truth.get(d, 0)
        }


def count_outcome(
    scene: CountedScene, counted: Mapping[str, int], *, face_up_found: int, unknown: int
) -> CountOutcome:
    return CountOutcome(
        name=scene.name,
        truth=dict(scene.counts),
        counted={
            **{d: n for d, n in counted.items() if n},
            **({UNKNOWN: unknown} if unknown else {}),
        },
        face_up_truth=scene.face_up,
        face_up_found=face_up_found,
        proposed=scene.proposed,
        images=tuple(map(str, scene.images)),
    )


def summarize_counts(outcomes: Sequence[CountOutcome]) -> dict[str, Any]:
    """The counting half of `summarize` (models/metrics.py), for scenes without boxes; and, for
    captures, how the app counted the same scenes when they were taken."""
    per_deck, mean_abs_error = count_errors([(o.truth, o.counted) for o in outcomes])
    per_deck.pop(UNKNOWN, None)  # no truth of backs of no deck: nothing to score it against
    with_face_up = [o for o in outcomes if o.face_up_truth is not None]
    report: dict[str, Any] = {
        "scenes": len(outcomes),
        "scene_exact_rate": _share([o.exact for o in outcomes]),
        # exact, and no back counted to no deck (which no counts file says)
        "scene_exact_rate_none_unknown": _share([o.exact and not o.unknown for o in outcomes]),
        "backs_counted_to_no_deck": sum(o.unknown for o in outcomes),
        "per_deck": per_deck,
        "mean_abs_count_error": mean_abs_error,
        "cards_counted": _cards(outcomes),
        "scenes_with_face_up_said": len(with_face_up),
        "face_up_found_exact_rate": _share(
            [o.face_up_found == o.face_up_truth for o in with_face_up]
        ),
        "inexact_detail": [
            {
                "scene": o.name,
                "images": list(o.images),
                "decks_off": o.decks_off(),
                "unknown": o.unknown,
            }
            for o in outcomes
            if not o.exact
        ],
        "exact_with_backs_of_no_deck": [
            {"scene": o.name, "images": list(o.images), "unknown": o.unknown}
            for o in outcomes
            if o.exact and o.unknown
        ],
    }
    then = [o for o in outcomes if o.proposed is not None]
    if then:
        report["when_taken"] = {
            "scenes": len(then),
            "exact_then": sum(bool(o.proposed_exact) for o in then),
            "exact_now": sum(o.exact for o in then),
            "right_now_wrong_then": [o.name for o in then if o.exact and not o.proposed_exact],
            "wrong_now_right_then": [o.name for o in then if o.proposed_exact and not o.exact],
        }
    return report


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else math.nan


def _cards(outcomes: Sequence[CountOutcome]) -> dict[str, int]:
    """Cards in all: on the tables, counted to their deck's count, and counted over or under."""
    over = under = 0
    for o in outcomes:
        for off in o.decks_off().values():
            difference = off["counted"] - off["true"]
            over, under = over + max(difference, 0), under + max(-difference, 0)
    return {"true": sum(sum(o.truth.values()) for o in outcomes), "over": over, "under": under}


def _no_reference(deck: str, backs: int) -> str:
    """Why a scene with `backs` of `deck`, one of the eight a `--decks` folder has no back for,
    is not scored."""
    return f"the --decks folder holds no back for {deck}: its {backs} backs here cannot be counted"


def _none_in_play_read(decks: Sequence[str]) -> str:
    """Why a scene counted among its decks in play, none of which can be counted, is not."""
    return f"none of its decks in play ({', '.join(decks)}) has a back in the --decks folder"


def evaluate_counts(
    scenes: Sequence[CountedScene],
    *,
    pipeline: Any,
    read_picture: Callable[[Path], Picture],
    in_play: bool,
    data: Path,
    kind: str,
    left_out: Sequence[LeftOut] = (),
    progress: Callable[[Iterator[Any], int], Iterator[Any]] | None = None,
) -> dict[str, Any]:
    """Count every scene with `pipeline` (a vision CountingPipeline), each image as `blitzcam
    count` does; with `in_play`, among the scene's own decks, as the app counts a match's.
    Scenes holding a deck the pipeline does not know are left out (said in the report), and so
    are those with backs of a deck it cannot count, one of the eight without a reference in a
    `--decks` folder; such a deck in play with none on the table is left out of the decks the
    scene is counted among."""
    known, countable = set(pipeline.known_decks), set(pipeline.profile.countable())
    scored, left = [], list(left_out)
    for scene in scenes:
        if unknown_decks := sorted({*scene.counts, *scene.decks} - known):
            left.append(LeftOut(scene.name, f"{unknown_decks[0]} is no deck blitzcam knows here"))
        elif uncounted := sorted(
            deck for deck, n in scene.counts.items() if n and deck not in countable
        ):
            # (counted among the decks in play it was a traceback; among every deck its backs
            # were scored as missed, unsaid)
            left.append(
                LeftOut(scene.name, _no_reference(uncounted[0], scene.counts[uncounted[0]]))
            )
        elif in_play and not countable.intersection(scene.decks):
            left.append(LeftOut(scene.name, _none_in_play_read(scene.decks)))
        else:
            scored.append(scene)
    if not scored:  # (a report of no scene would read as a clean bill)
        first = left[0] if left else None
        raise SceneDataError(
            f"{data}: no scene to score"
            + (f": {len(left)} left out, the first {first.name}: {first.reason}" if first else "")
        )
    items: Iterator[CountedScene] = iter(scored)
    if progress is not None:
        items = progress(items, len(scored))
    outcomes, milliseconds = [], []
    unreadable: list[str] = []  # the scenes left out for a picture that does not decode
    for scene in items:
        counted: Counter[str] = Counter()
        face_up = unknown = 0
        total_ms = 0.0
        try:
            for image in scene.images:
                frame = read_picture(image).frame
                decks = tuple(deck for deck in scene.decks if deck in countable)
                result = pipeline(frame, in_play=decks if in_play else None)
                counted.update(result.counts)
                face_up, unknown = face_up + result.face_up, unknown + result.unknown
                total_ms += result.timing_ms["total"]
        except ImageError as exc:  # (a photo that does not decode: the others are still scored)
            left.append(LeftOut(scene.name, str(exc)))
            unreadable.append(scene.name)
            continue
        outcomes.append(count_outcome(scene, counted, face_up_found=face_up, unknown=unknown))
        milliseconds.append(total_ms)
    if not outcomes:
        raise SceneDataError(f"{data}: no scene could be counted: {left[-1].reason}")
    report = summarize_counts(outcomes)
    report |= {
        "kind": kind,
        "data": str(data),
        "images": sum(len(o.images) for o in outcomes),
        "left_out": [{"scene": s.name, "why": s.reason} for s in left],
        "unreadable": unreadable,
        "ms_per_scene": sum(milliseconds) / len(milliseconds) if milliseconds else math.nan,
    }
    return report | pipeline_said(pipeline, in_play=in_play)


KINDS: Final = {
    "photos": "photos and their counts.csv",
    "captures": "the app's captures, against the counts the players confirmed",
}


def counts_report_table(report: dict[str, Any]) -> str:
    """The report as a readable table."""
    cards = report["cards_counted"]
    lines = [
        f"{how_many(report['scenes'], 'scene')} ({how_many(report['images'], 'image')}) from "
        f"{report['data']}: "
        f"{KINDS[report['kind']]}; model {report['model']} ({report['engine']})",
        *decks_lines(report),
        "scored on counts alone: no detector precision or recall",
        "",
        "scenes counted exactly (each deck's count right): "
        + pct(report["scene_exact_rate"]).strip(),
        "mean absolute count error per deck on the table or counted: "
        + error_text(report["mean_abs_count_error"]),
        f"cards on the tables: {cards['true']}; counted over: {cards['over']}, "
        f"under: {cards['under']} (a card taken for another deck is both)",
        f"backs counted to no deck (which no count says: a deck not named, art nobody "
        f"enrolled, or a deck's back missed): {report['backs_counted_to_no_deck']}; scenes exact "
        f"with none: {pct(report['scene_exact_rate_none_unknown']).strip()}",
    ]
    if report["scenes_with_face_up_said"]:
        lines.append(
            "face-up cards found as many as said: "
            f"{pct(report['face_up_found_exact_rate']).strip()} of "
            f"{report['scenes_with_face_up_said']} scenes"
        )
    if then := report.get("when_taken"):
        lines += [
            f"counted right when taken (the app's count, before any correction): "
            f"{then['exact_then']} of {then['scenes']}; now: {then['exact_now']}",
            *_names("  right now, wrong then", then["right_now_wrong_then"]),
            *_names("  wrong now, right then", then["wrong_now_right_then"]),
        ]
    lines.append(f"time per scene: {report['ms_per_scene']:.0f} ms")
    lines += ["", *per_deck_lines(report["per_deck"])]
    details = report["inexact_detail"]
    if details:
        lines += ["", "inexact scenes: known decks off (counted of true)"]
        lines += at_most_shown([_inexact_line(detail) for detail in details])
    if unknown := report["exact_with_backs_of_no_deck"]:
        lines += ["", "exact scenes with backs counted to no deck"]
        lines += at_most_shown([f"  {u['scene']}: {u['unknown']}" for u in unknown])
    if report["left_out"]:
        lines += ["", f"left out, not scored: {len(report['left_out'])}"]
        lines += [f"  {s['scene']}: {s['why']}" for s in report["left_out"]]
        lines += unreadable_lines(report)
    return "\n".join(lines)


def _inexact_line(detail: dict[str, Any]) -> str:
    off = ", ".join(f"{d} {v['counted']} of {v['true']}" for d, v in detail["decks_off"].items())
    n = detail["unknown"]
    unknown = f" ({n} back{'s' if n != 1 else ''} of no deck)" if n else ""
    return f"  {detail['scene']}: {off}{unknown}"


def _names(label: str, names: Sequence[str]) -> list[str]:
    return [f"{label}: {', '.join(names)}"] if names else []
