"""`blitzcam evaluate`: run the counting pipeline over labelled scenes and score it.

Reads scenes written by `blitzcam dataset generate` (images/<split>/*.jpg with the ground truth
in scenes/<split>/*.json). Uses the same ONNX pipeline as `blitzcam count`; no torch.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

import numpy as np

from blitzcam.datasets.labels import SPLITS
from blitzcam.datasets.scene import UNKNOWN_DECK_PREFIX
from blitzcam.models.metrics import (
    CLASSES,
    LABELS_OFF_SHARE,
    UNKNOWN,
    SceneOutcome,
    ScenePrediction,
    SceneTruth,
    evaluate_scene,
    exact_rate,
    exact_rate_by_threshold,
    summarize,
)
from blitzcam.models.mistakes import SceneMistakes, mistake_line, scene_mistakes
from blitzcam.vision.images import ImageError

Photo = TypeVar("Photo")  # where a scene's picture is read from: a file, or a labelme file's copy

if TYPE_CHECKING:
    from blitzcam.vision.detections import Detections
    from blitzcam.vision.images import Picture


class SceneDataError(ValueError):
    """A dataset's scene files cannot be scored (missing, malformed, an image gone); the
    message names the file. Any other error of a run is a fault of ours, not of the data."""


SCORING_CONF = 0.01  # keep low-confidence boxes for the precision-recall curve (mAP)
SWEEP = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)  # operating thresholds tried
UNKNOWN_SWEEP = (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)  # identity "unknown" lines tried


def read_truth(record: dict[str, Any]) -> SceneTruth:
    """A scene file's objects as ground truth; ValueError naming the object that is not one
    (a polygon of other than 4 finite points, an unknown class, a deck that is no name)."""
    objects = record["objects"]
    if not isinstance(objects, list):
        raise ValueError(f"'objects' is a JSON {type(objects).__name__}, not a list")
    for index, obj in enumerate(objects):
        polygon = np.asarray(obj["polygon"], np.float64)
        if polygon.shape != (4, 2) or not np.isfinite(polygon).all():
            raise ValueError(f"object {index}: 'polygon' is not 4 finite [x, y] points")
        if obj["class"] not in CLASSES:
            raise ValueError(f"object {index}: 'class' {obj['class']!r} is not one of {CLASSES}")
        if obj["deck"] is not None and not isinstance(obj["deck"], str):
            raise ValueError(f"object {index}: 'deck' is not a name or null")
    corners = np.array([o["polygon"] for o in objects], np.float64).reshape(-1, 4, 2)
    classes = np.array([CLASSES.index(o["class"]) for o in objects], np.int64)
    return SceneTruth(
        corners=corners,
        classes=classes,
        decks=tuple(o["deck"] for o in objects),
        random_art=any(str(o["deck"]).startswith(UNKNOWN_DECK_PREFIX) for o in objects),
        conditions=scene_conditions(record, backs=int((classes == 0).sum())),
    )


# Ranges of the report's slices: (upper end, excluded; label), in order
CARD_WIDTH_RANGES: Final = ((56, "0-55 px"), (96, "56-95 px"), (math.inf, "96+ px"))
NOISE_RANGES: Final = ((4, "σ 0-4"), (8, "σ 4-8"), (math.inf, "σ 8+"))  # grey levels
BACKS_RANGES: Final = ((50, "0-49"), (100, "50-99"), (math.inf, "100+"))


def scene_conditions(record: dict[str, Any], *, backs: int) -> dict[str, str]:
    """What a scene was made under, as the report's slices ({"light": "dim", "table": "felt",
    "backs": "50-99", ...}): from the "scene" entry `blitzcam dataset generate` writes, each
    condition left out where the record does not say it (scenes labelled by other means)."""
    conditions = {"backs": _range_of(backs, BACKS_RANGES)}
    scene = record.get("scene")
    scene = scene if isinstance(scene, dict) else {}
    camera = scene.get("camera")
    camera = camera if isinstance(camera, dict) else {}
    if isinstance(camera.get("dim"), bool):
        conditions["light"] = "dim" if camera["dim"] else "bright"
    if isinstance(camera.get("blur"), str):
        conditions["blur"] = camera["blur"]
    if _is_number(camera.get("noise_sigma")):
        conditions["noise"] = _range_of(camera["noise_sigma"], NOISE_RANGES)
    if _is_number(camera.get("glare_spots")):
        conditions["glare"] = "spots" if camera["glare_spots"] > 0 else "none"
    if isinstance(scene.get("table"), str):
        conditions["table"] = scene["table"]
    if _is_number(scene.get("card_width_px")):
        conditions["card width"] = _range_of(scene["card_width_px"], CARD_WIDTH_RANGES)
    return conditions


def _is_number(value: Any) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # a whole number past any float (10**400)
        return False


def _range_of(value: float, ranges: tuple[tuple[float, str], ...]) -> str:
    return next(label for upper, label in ranges if value < upper)


def labelled_scenes(data_dir: Path, split: str) -> Iterator[tuple[str, Path, SceneTruth]]:
    """Scenes of one split, or of every split with `split="all"` (a dataset never trained on)."""
    splits = SPLITS if split == "all" else (split,)
    files = sorted(p for s in splits for p in (data_dir / "scenes" / s).glob("*.json"))
    if not files:
        where = data_dir / "scenes" / ("*" if split == "all" else split)
        # (a dataset of 1 or 2 scenes has them all in train: "no scene" alone was a dead end)
        elsewhere = split != "all" and any((data_dir / "scenes").glob("*/*.json"))
        hint = " (its scenes are in other splits: --split all scores every one)"
        hint = hint if elsewhere else ""
        raise SceneDataError(f"{where}: no scene ground truth (*.json) to evaluate on{hint}")
    truths = {(p.parent.name, p.stem) for p in files}
    for s in splits:  # a scene whose truth is gone would leave the report a scene short, unsaid
        for image in sorted((data_dir / "images" / s).glob("*.jpg")):
            if (s, image.stem) not in truths:
                raise SceneDataError(
                    f"{image}: its scene ground truth {data_dir / 'scenes' / s / image.stem}"
                    ".json is missing"
                )
    for path in files:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict):
                raise ValueError(f"a JSON {type(record).__name__}, not an object")
            truth = read_truth(record)
            image = data_dir / record["image"]
        except (OSError, ValueError, KeyError, TypeError, RecursionError, OverflowError) as exc:
            # (OverflowError: a whole number past any float, 10**400, as a coordinate)
            detail = f"no {exc} field" if isinstance(exc, KeyError) else str(exc)
            raise SceneDataError(f"{path}: not a scene ground-truth file ({detail})") from None
        if not image.is_file():  # said before a long run starts, not when it reaches the scene
            raise SceneDataError(f"{path}: its image {image} is missing")
        yield path.stem, image, truth


def on_frame(truth: SceneTruth, scale: tuple[float, float]) -> SceneTruth:
    """A scene's truth in the pixels of the frame counted: a picture over MAX_SIDE is shrunk
    when read (`scale`: its pixels per frame pixel, across and down), its labels are not."""
    if scale == (1.0, 1.0):
        return truth
    return dataclasses.replace(truth, corners=truth.corners / np.asarray(scale, np.float64))


def in_pixels(truth: SceneTruth, size: tuple[int, int]) -> SceneTruth:
    """A truth whose corners are shares of the picture (`relative`) in the pixels of a
    picture of `size` (width, height)."""
    corners = truth.corners * np.asarray(size, np.float64)
    return dataclasses.replace(truth, corners=corners, relative=False)


def evaluate(
    scenes: Sequence[tuple[str, Photo, SceneTruth]],
    *,
    data: Path,
    split: str | None,
    pipeline: Any,
    read_picture: Callable[[Photo], Picture],
    progress: Callable[[Iterator[Any], int], Iterator[Any]] | None = None,
    in_play: bool = False,
) -> dict[str, Any]:
    """Score `pipeline` (a vision CountingPipeline) on labelled scenes: one split of a
    generated dataset (`labelled_scenes`; `split` names it), or photos labelled by hand
    (models/labelme_scenes.py; `split` None). A scene whose picture does not decode is left
    out, listed, and named in `unreadable`: the run fails, the others still scored.

    With `in_play`, each scene's backs are decided among only the known decks it holds, as the
    app decides them among a match's decks (at the pipeline's in-play unknown line).
    """
    detector = pipeline.detector
    lines, line_in_play = pipeline.lines, pipeline.unknown_below_in_play  # restored after
    # the decks a back may be counted to: a stand-in (--decks with some decks only) is never
    # counted, else its backs are scored as missed ("blue-plow -> unknown: 24")
    counted = pipeline.profile.countable()
    operating_conf = lines.count_from
    operating_line = pipeline.in_play_line(() if in_play else None)
    reading_conf, max_det, keep_uncounted = detector.conf, detector.max_det, pipeline.keep_uncounted
    items: Iterator[Any] = iter(scenes)
    if progress is not None:
        items = progress(items, len(scenes))
    outcomes: list[SceneOutcome] = []
    mistakes: list[SceneMistakes] = []  # what made each inexact scene so
    pairs: list[tuple[SceneTruth, ScenePrediction]] = []  # every back with its best deck
    operating: list[tuple[SceneTruth, ScenePrediction]] = []  # as counted at the operating line
    similarities: list[np.ndarray] = []
    timings = []
    tiles = []  # zoomed tiles read per scene (vision/tiling.py; 0: one letterboxed pass)
    turned = 0  # scenes read turned a quarter (vision/orientation.py)
    left_out: list[dict[str, str]] = []  # scenes whose photo does not decode, or was resized
    unreadable: list[str] = []  # of those, the scenes whose picture does not decode
    try:
        # the boxes under the pipeline's own reading line (`doubted_from`) are only scored for mAP
        detector.conf, detector.max_det = min(SCORING_CONF, reading_conf), max(max_det, 1000)
        pipeline.keep_uncounted = True
        # every back keeps its best deck; the line comes later (backs under the operating line
        # still join a pile as they would at it)
        pipeline.lines = dataclasses.replace(
            lines, unknown_below=-math.inf, operating_below=operating_line
        )
        pipeline.unknown_below_in_play = -math.inf
        for name, image_path, truth in items:
            decks = scene_decks(truth, pipeline.profile.countable()) if in_play else None
            if decks == ():  # (no match is of no deck: decided among none, such a scene is
                # exact whatever is found, 58 of the 400 held-out scenes)
                left_out.append({"scene": name, "why": NO_DECK_IN_PLAY})
                continue
            try:  # (a picture found bad half-way through a long run: the rest is still scored,
                # and the run ends in failure; a generated dataset's threw the work away)
                picture = read_picture(image_path)
            except ImageError as exc:
                left_out.append({"scene": name, "why": str(exc)})
                unreadable.append(name)
                continue
            if truth.relative:
                truth = in_pixels(truth, picture.size)
            elif truth.size is not None and truth.size != picture.size:  # its boxes off its cards
                left_out.append({"scene": name, "why": resized_since(truth.size, picture.size)})
                continue
            truth = on_frame(truth, picture.scale)
            result = pipeline(picture.frame, in_play=decks)
            found = result.detections
            best = scene_prediction(found)
            prediction = with_unknown_below(best, found.similarity, operating_line)
            outcome = evaluate_scene(name, truth, prediction, known_decks=counted)
            outcomes.append(outcome)
            if not outcome.exact:
                mistakes.append(scene_mistakes(outcome, truth, prediction, known_decks=counted))
            pairs.append((truth, best))
            operating.append((truth, prediction))
            similarities.append(found.similarity)
            timings.append(result.timing_ms["total"])
            tiles.append(result.tiles)
            turned += result.turned
    finally:
        detector.conf, detector.max_det = reading_conf, max_det
        pipeline.lines, pipeline.unknown_below_in_play = lines, line_in_play
        pipeline.keep_uncounted = keep_uncounted
    if not outcomes:  # (a report of no scene would read as a clean bill)
        if not left_out:
            raise SceneDataError(f"{data}: no scene")
        # named by its file, not its name in the folder; once (a photo kept in its labels is)
        scene, why = data / left_out[0]["scene"], left_out[0]["why"]
        raise SceneDataError(why if why.startswith(str(scene)) else f"{scene}: {why}")
    report = summarize(outcomes)
    report["left_out"] = left_out
    report["unreadable"] = unreadable
    report["inexact_detail"] = [m.as_json() for m in mistakes]
    report["data"] = str(data)
    report["split"] = split  # (None: photos labelled by hand)
    report |= pipeline_said(pipeline, in_play=in_play)
    report["operating_conf"] = operating_conf
    report["nms_iou"] = detector.iou
    report["ms_per_scene"] = float(np.mean(timings)) if timings else math.nan
    report["zoom_below"] = pipeline.zoom_below
    report["sized_from"] = pipeline.sized_from
    report["turn_to_fill"] = pipeline.turn_to_fill
    report["scenes_read_turned"] = turned
    report["scenes_read_in_tiles"] = sum(n > 0 for n in tiles)
    report["tiles_read"] = int(sum(tiles))
    report["doubted_from"] = lines.doubted_from
    report["join_alike"] = lines.join_alike
    report["near_line_from"] = lines.near_line_from
    report["near_line_alike"] = lines.near_line_alike
    report["lone_alike"] = lines.lone_alike
    report["second_look"] = lines.second_look
    report["read_scales"] = list(lines.read_scales)
    # (decks as decided at the operating line: only its backs were grouped with look-alikes;
    # no doubted back joins a pile here, each line counts the boxes of its confidence or more)
    report["exact_rate_by_conf"] = exact_rate_by_threshold(operating, SWEEP, known_decks=counted)
    report["unknown_below"] = operating_line
    # deck labels of no known deck that are not random art either ("Yellow-Bucket" typed by
    # hand): scored as art nobody enrolled, they were reported as identification misses
    report["labels_of_no_deck"] = labels_of_no_deck(
        [truth for truth, _ in pairs],
        pipeline.known_decks,  # (the scenes scored)
    )
    report["consensus_link"] = lines.consensus_link
    report["same_deck_link"] = lines.same_deck_link
    report["exact_rate_by_unknown_below"] = {
        line: exact_rate(
            [
                (truth, with_unknown_below(best, sims, line))
                for (truth, best), sims in zip(pairs, similarities, strict=True)
            ],
            known_decks=counted,
        )
        for line in UNKNOWN_SWEEP
    }
    return report


def resized_since(labelled: tuple[int, int], size: tuple[int, int]) -> str:
    return (
        f"labelled on a {labelled[0]}x{labelled[1]} picture, and the photo is "
        f"{size[0]}x{size[1]} (resized since?)"
    )


def pipeline_said(pipeline: Any, *, in_play: bool) -> dict[str, Any]:
    """What a report says of the pipeline that counted its scenes: the model and its engine,
    what the backs were decided among, and what the decks were read against (a card measured
    with enrolled prints, or a --decks folder of two decks, read the same as one with the
    shipped art)."""
    profile = pipeline.profile
    return {
        "model": str(pipeline.detector.path),
        # (the engines agree to float rounding, not bit for bit)
        "engine": pipeline.detector.engine,
        "in_play": "each scene's own decks" if in_play else "every deck of the profile",
        "references": dict(zip(profile.names, profile.origins, strict=True)),
        "stand_ins": list(profile.stand_ins),
    }


def labels_of_no_deck(truths: Sequence[SceneTruth], known: Sequence[str]) -> dict[str, int]:
    """Backs' deck labels that name no known deck and are not random art ("unknown:..."),
    with how many backs carry each: most likely typos in hand-labelled scenes."""
    names = Counter(
        deck
        for truth in truths
        for deck, cls in zip(truth.decks, truth.classes, strict=True)
        if cls == 0
        and deck is not None
        and deck not in known
        and deck != UNKNOWN  # (labelled so on purpose)
        and not deck.startswith(UNKNOWN_DECK_PREFIX)
    )
    return dict(sorted(names.items()))


# why a scene is not scored with the decks in play: it holds none of the profile's decks
NO_DECK_IN_PLAY: Final = "no deck of the profile on its table: no match's decks to decide among"


def scene_decks(truth: SceneTruth, names: tuple[str, ...]) -> tuple[str, ...]:
    """The profile's decks that have backs in the scene: the decks in play of a match."""
    held = {deck for deck, cls in zip(truth.decks, truth.classes, strict=True) if cls == 0}
    return tuple(name for name in names if name in held)


def scene_prediction(found: Detections) -> ScenePrediction:
    """What the pipeline saw in one frame, as the metrics read it."""
    return ScenePrediction(
        corners=found.corners.astype(np.float64),
        classes=found.class_id,
        confidence=found.confidence,
        decks=tuple(found.deck_name(i) for i in range(len(found))),
        counted=found.counted,
    )


def joins_doubted(report: dict[str, Any]) -> bool:
    """Whether the evaluated pipeline let boxes under its counting line join a counted pile."""
    return (
        report.get("join_alike") is not None
        and report.get("doubted_from", 1.0) < report["operating_conf"]
    )


def with_unknown_below(
    prediction: ScenePrediction, similarity: np.ndarray, line: float
) -> ScenePrediction:
    """The prediction with every back whose identity score is under `line` made "unknown"."""
    decks = tuple(
        deck if score >= line else UNKNOWN
        for deck, score in zip(prediction.decks, similarity, strict=True)
    )
    return dataclasses.replace(prediction, decks=decks)


def _finite_or_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite_or_none(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite_or_none(item) for item in value]
    return value


def report_json(report: dict[str, Any]) -> str:
    """The report as strict JSON: a rate with nothing to measure (no face-up card in the data,
    say) is null, not the NaN that Python alone reads back."""
    return json.dumps(_finite_or_none(report), indent=2, allow_nan=False)


def per_deck_lines(per_deck: dict[str, dict[str, Any]]) -> list[str]:
    """The per-deck figures' header and rows."""
    # (an enrolled deck's name may be 40 letters: the columns stay in line under it)
    width = max([16, *map(len, per_deck)])
    lines = ["deck".ljust(width + 2) + "scenes   exact   mean abs error"]
    for deck, row in per_deck.items():
        lines.append(
            f"  {deck:<{width}} {row['scenes']:>5}  {pct(row['exact_rate'])}  "
            f"{error_text(row['mean_abs_error']):>8}"
        )
    return lines


def decks_lines(report: dict[str, Any]) -> list[str]:
    """What the backs were decided among and read against; a warning for labels of no deck."""
    references = report.get("references")
    if references is None:  # (a report from before it)
        return []
    enrolled = prints_read(report)
    lines = [
        f"decks: {report['in_play']}; read against "
        + (f"prints of {', '.join(enrolled)}, " if enrolled else "")
        + ("the built-in art of the rest" if enrolled else "the built-in art")
        + (
            f"; stand-ins never counted: {', '.join(report['stand_ins'])}"
            if report.get("stand_ins")
            else ""
        )
    ]
    if no_deck := report.get("labels_of_no_deck"):
        from blitzcam.game.decks import meant_deck

        def misspelt(name: str) -> str:  # (a slip of the keyboard is named)
            meant = meant_deck(name)
            return f"; {meant} misspelt?" if meant is not None else ""

        said = ", ".join(f"{name!r} ({n} backs{misspelt(name)})" for name, n in no_deck.items())
        lines.append(f"WARNING: labels that name no deck (scored as art nobody enrolled): {said}")
    return lines


def prints_read(report: dict[str, Any]) -> list[str]:
    """The decks a report's backs were read against a print of (enrolled, or a --decks
    folder's), not the built-in art."""
    references = report.get("references") or {}
    return [name for name, origin in references.items() if origin not in BUILT_IN_ORIGINS]


BUILT_IN_ORIGINS: Final = ("built-in", "built-in, not counted")


def pct(value: float | None) -> str:
    # (None: nothing measured, as a report read back from its JSON says it)
    return "   n/a" if value is None or value != value else f"{100 * value:6.2f}%"


def error_text(value: float | None) -> str:
    return "n/a" if value is None or value != value else f"{value:.3f}"


def how_many(n: int, thing: str) -> str:
    """`n` things, the word singular for one ("1 scenes (1 images)", a report said)."""
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _tiles_line(report: dict[str, Any]) -> str:
    """How many scenes the pipeline read again in tiles, zoomed (reports before it: unknown)."""
    if "scenes_read_in_tiles" not in report:
        return "scenes read again in tiles: not recorded"
    if report.get("zoom_below") is None:
        return "scenes read again in tiles: 0 (closer looks off)"
    sized = report.get("sized_from")
    judged = "" if sized is None else f" (judged by the backs from confidence {sized})"
    return (
        f"scenes read again in tiles, their backs under {report['zoom_below']} network pixels"
        f"{judged}: {report['scenes_read_in_tiles']} ({report['tiles_read']} tiles)"
    )


def _reading_line(report: dict[str, Any]) -> str:
    """How each drawing was read (reports before reading at several sizes: not recorded)."""
    scales = report.get("read_scales")
    if scales is None:
        return "each drawing's readings: not recorded"
    if not scales:
        return "each drawing read once, along its box"
    sizes = ", ".join(f"{scale:g}" for scale in scales)
    return f"each drawing read along its box and along it scaled by {sizes}, readings averaged"


def _turned_line(report: dict[str, Any]) -> str:
    """How many scenes were read turned a quarter (reports before it: unknown)."""
    if "scenes_read_turned" not in report:
        return "scenes read turned a quarter: not recorded"
    if not report.get("turn_to_fill"):
        return "scenes read turned a quarter: 0 (turning off)"
    return (
        "scenes read turned a quarter, filling the network input better so: "
        f"{report['scenes_read_turned']}"
    )


def _conditions_lines(by_condition: dict[str, dict[str, dict[str, int]]]) -> list[str]:
    if not by_condition:
        return []
    lines = [
        "",
        "scenes exact by what they were made under: exact of scenes (exact had every counted "
        "box on a back got its deck)",
    ]
    for condition, values in by_condition.items():
        cells = [
            f"{value} {row['exact']}/{row['scenes']} ({row['exact_if_identity_right']})"
            for value, row in values.items()
        ]
        lines.append(f"  {condition:<11} " + "   ".join(cells))
    return lines


def report_table(report: dict[str, Any]) -> str:
    """The report as a readable table."""
    lines = [
        f"{how_many(report['scenes'], 'scene')} from {report['data']} "
        f"({report['split'] or 'labelled by hand'}), "
        f"model {report['model']} ({report.get('engine', 'engine not recorded')}), "
        f"boxes suppressed above IoU {report['nms_iou']}",
        *decks_lines(report),
        *_unlabelled_lines(report.get("photos_without_labels") or []),
        *_left_out_lines(report.get("left_out") or [], report.get("shapes_left_out") or []),
        *unreadable_lines(report),
        *_unchecked_lines(report.get("labels_unchecked") or [], report["scenes"]),
        *_labels_off_lines(report.get("labels_off_scenes") or []),
        "",
        "detector        precision   recall    mAP50    boxed (at any confidence)",
    ]
    for name, row in report["detector"].items():
        lines.append(
            f"  {name:<12} {pct(row['precision'])}  {pct(row['recall'])}  {pct(row['mAP50'])}"
            f"  {pct(row.get('boxed', math.nan))}"  # (a report from before it: n/a)
        )
    lines += [
        "",
        f"scenes counted exactly (each deck's count right): {pct(report['scene_exact_rate'])}",
        "  the same, and as many backs left unknown as backs of no known deck: "
        f"{pct(report['scene_exact_rate_with_unknown']).strip()}",
        "  the same had every counted box on a labelled back got that back's deck (boxes on "
        "no back keep their decision): "
        f"{pct(report['scene_exact_rate_if_identity_right']).strip()}",
        # (split by the labels: generated scenes' known decks are the built-in art, a labelled
        # photo's the decks it names, enrolled ones too: "built-in art only" was said of those)
        "  scenes whose backs are all of known decks: "
        f"{pct(report['scene_exact_rate_builtin_art']).strip()} of {report['scenes_builtin_art']}"
        "; with backs of no known deck (random art nobody enrolled: they must stay unknown): "
        f"{pct(report['scene_exact_rate_random_art']).strip()} of "
        f"{report['scenes'] - report['scenes_builtin_art']}",
        "mean absolute count error per deck on the table or counted: "
        + error_text(report["mean_abs_count_error"]),
        f"face-up cards counted as a deck: {report['face_up_counted']}"
        + _named(report.get("face_up_counted_scenes") or []),
        _turned_line(report),
        _tiles_line(report),
        _reading_line(report),
        "a frame's backs decided in groups of drawings alike on average above: "
        f"{report.get('consensus_link') or 'off (each back alone)'}"
        + (
            f"; groups nearest one deck merged when their means are alike above "
            f"{report['same_deck_link']}"
            if report.get("same_deck_link") is not None
            else ""
        ),
        f"backs counted from detector confidence {report['operating_conf']}"
        + (
            f"; those read from {report['doubted_from']} join a counted group when their "
            f"drawing is alike its mean above {report['join_alike']}"
            + (
                f" (from {report['near_line_from']}: above {report['near_line_alike']})"
                if report.get("near_line_from") is not None
                else ""
            )
            if joins_doubted(report)
            else ""
        )
        + (
            f"; counted backs under the unknown line join a decided group alike above "
            f"{report['lone_alike']}"
            if report.get("lone_alike") is not None and report.get("consensus_link") is not None
            else ""  # (backs join groups: with each back decided alone there are none)
        )
        + (
            f"; one still under it and alone in its group joins one its best cut is alike "
            f"above {report['second_look']}"
            if report.get("second_look") is not None and report.get("consensus_link") is not None
            else ""
        ),
        "",
    ]
    lines += per_deck_lines(report["per_deck"])
    lines += _conditions_lines(report.get("exact_by_condition") or {})
    lines += [
        "",
        "scenes exact if counting every box from confidence (no doubted back joining a pile): "
        + "  ".join(
            f"{conf:.2f}: {pct(rate).strip()}"
            for conf, rate in report["exact_rate_by_conf"].items()
        ),
        "scenes exact if each back's decision is called unknown under another identity score "
        f"(piles and joins as decided at {report['unknown_below']}, not decided again): "
        + "  ".join(
            f"{line:.2f}: {pct(rate).strip()}"
            for line, rate in report["exact_rate_by_unknown_below"].items()
        ),
    ]
    if report["confusions"]:
        lines += ["", "confusions (truth -> counted as): cards"]
        lines += [f"  {c['truth']} -> {c['predicted']}: {c['cards']}" for c in report["confusions"]]
    lines += _mistakes_lines(report.get("inexact_detail") or [], report["operating_conf"])
    return "\n".join(lines)


def _listed(names: Sequence[str], shown: int = 10) -> str:
    """`names` in a line, `shown` of them at most, then how many more ("a, b, and 3 more")."""
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    return f"{', '.join(names[:shown])}{more}"


def _unlabelled_lines(photos: Sequence[str]) -> list[str]:
    """The photos beside labelme files that none names: tables the figures leave out."""
    if not photos:
        return []
    return [f"photos no labelme file names, not scored: {_listed(photos)}"]


def _left_out_lines(scenes: Sequence[dict[str, str]], shapes: Sequence[str]) -> list[str]:
    """The scenes not scored (a photo that does not decode, one resized since it was
    labelled) and the shapes that box no card (a labelme file's points and lines)."""
    no_deck = [s["scene"] for s in scenes if s["why"] == NO_DECK_IN_PLAY]
    others = [s for s in scenes if s["why"] != NO_DECK_IN_PLAY]
    lines = at_most_shown([f"left out, not scored: {s['scene']}: {s['why']}" for s in others])
    if no_deck:  # (one line: a set of random art alone has many)
        lines.append(f"left out, not scored: {len(no_deck)} scenes with {NO_DECK_IN_PLAY}")
    if shapes:
        lines.append(f"shapes that box no card, left out: {len(shapes)} ({shapes[0]}, ...)")
    return lines


def unreadable_lines(report: dict[str, Any]) -> list[str]:
    """A warning for the scenes whose picture does not decode: the run exits 1 for them."""
    names = report.get("unreadable") or []
    if not names:
        return []
    return [
        f"WARNING: pictures that do not decode, left out of every figure (the run fails): "
        f"{len(names)} ({_listed(names)})"
    ]


def _named(scenes: Sequence[str]) -> str:
    """` (in a.jpg, b.jpg)` after a figure, the scenes it comes from; nothing for none."""
    return f" (in {_listed(scenes)})" if scenes else ""


def _labels_off_lines(scenes: Sequence[str]) -> list[str]:
    """A warning for scenes whose labels lie on none of the backs counted."""
    if not scenes:
        return []
    return [
        f"WARNING: the labels of {how_many(len(scenes), 'scene')} lie on few of the backs "
        f"counted (under {LABELS_OFF_SHARE:.0%}: labels of another picture, or the photo turned "
        f"or cropped since it was labelled?): {_listed(scenes)}"
    ]


def _unchecked_lines(names: Sequence[str], scenes: int) -> list[str]:
    """A warning for photos whose labels are still blitzcam's own (`dataset prelabel`)."""
    if not names:
        return []
    return [
        f"WARNING: {len(names)} of {scenes} photos' labels are blitzcam's own, their "
        f"'checked' flag unticked: scored unchecked, they measure the counting against itself "
        f"(first: {names[0]})"
    ]


MISTAKE_LINES: Final = 40  # inexact scenes listed in the table (the JSON holds every one)


def at_most_shown(lines: Sequence[str], *, lister: str = "the JSON") -> list[str]:
    """A table's `lines` of scenes, MISTAKE_LINES at most, then how many more `lister` lists."""
    shown = list(lines[:MISTAKE_LINES])
    if len(lines) > MISTAKE_LINES:
        shown.append(f"  ... and {len(lines) - MISTAKE_LINES} more ({lister} lists all)")
    return shown


def _mistakes_lines(details: list[dict[str, Any]], count_from: float) -> list[str]:
    """Each inexact scene's decks off and the mistakes behind them (models/mistakes.py)."""
    if not details:
        return []
    lines = [
        "",
        "inexact scenes: known decks off (counted of true), and why (a back missed: unboxed, "
        "doubted under the counting line, boxed above it and not counted, boxed as a face-up "
        "card, or boxed askew, IoU under 0.5 with it; an extra counted box, and what it lies "
        "on)",
    ]
    lines += at_most_shown(
        [f"  {mistake_line(detail, count_from)}" for detail in details], lister="the JSON report"
    )
    return lines
