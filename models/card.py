"""The model card: how the shipped detector was made and how well it does, from recorded facts.

Written by `python -m blitzcam.models.card RUN_DIR REPORT.json` after training and evaluation,
so every number in it comes from a file the run produced.
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from blitzcam.files import sha256_of
from blitzcam.models import (
    DETECTOR_INT8,
    DETECTOR_ONNX,
    DETECTOR_PT,
    IDENTITY_ONNX,
    IDENTITY_PT,
    MODEL_CARD,
)
from blitzcam.models.evaluation import SCORING_CONF, joins_doubted, prints_read
from blitzcam.models.identity_negatives import NEGATIVE_CONF
from blitzcam.models.identity_network import IdentityRecipe
from blitzcam.models.recipe import SHIPPED
from blitzcam.models.run_kind import FINISHED_FILE
from blitzcam.models.run_timing import train_seconds
from blitzcam.models.stages import stage_epochs
from blitzcam.vision.embedding import PATCH


def _unmeasured(value: float | None) -> bool:
    # `blitzcam evaluate` writes what it could not measure (no face-up card, no random art in
    # the set) as null in its JSON, NaN in memory
    return value is None or value != value


def _pct(value: float | None) -> str:
    return "n/a" if _unmeasured(value) else f"{100 * value:.2f} %"


def _num(value: float | None, spec: str, unit: str = "") -> str:
    return "n/a" if _unmeasured(value) else f"{value:{spec}}{unit}"


def command_line(command: str, recipe: dict[str, Any], defaults: dict[str, Any]) -> str:
    """How the run was started: the command alone when its recipe is the defaults, else the
    fields it changed (a card must not call a run with other epochs the shipped recipe)."""
    saved = json.loads(json.dumps(defaults))  # tuples as recipe.json holds them: lists
    changed = sorted(k for k in saved.keys() | recipe.keys() if recipe.get(k) != saved.get(k))
    if not changed:
        return f"- Command: `{command}` (the defaults are this recipe)."
    said = ", ".join(f"{k} {recipe.get(k)!r} (default {saved.get(k)!r})" for k in changed)
    return f"- Command: `{command}` with its recipe changed from the defaults: {said}."


STAGE_ORDER = ("train", "refine", "extend", "harden", "more")


def _finished(run_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """(stage, its finished.json) of each finished stage of the run, in training order."""
    found = [
        (p.parent.name, json.loads(p.read_text(encoding="utf-8")))
        for p in run_dir.glob(f"*/{FINISHED_FILE}")
    ]
    return sorted(
        found, key=lambda f: STAGE_ORDER.index(f[0]) if f[0] in STAGE_ORDER else len(STAGE_ORDER)
    )


def _went_on_from_lines(run_dir: Path) -> list[str]:
    """A run that went on from the shipped weights (`blitzcam train --from-shipped`) says so:
    its first stages are theirs, recorded, not trained by it."""
    shipped = [name for name, finished in _finished(run_dir) if finished.get("shipped")]
    if not shipped:
        return []
    digest = next(f["shipped"] for _, f in _finished(run_dir) if f.get("shipped"))
    return [
        f"- Stages {', '.join(f'`{name}`' for name in shipped)} are those of the weights shipped "
        f"before (`blitzcam-obb.pt` sha256 `{digest}`), which this run went on from "
        "(`blitzcam train --from-shipped`): their wall times below are their card's."
    ]


def wall_time_lines(run_dir: Path) -> list[str]:
    """Where and how long the stages ran: stages that wrote finished.json say so themselves;
    the rest of the run's recorded time ran on this machine's CPU."""
    total = train_seconds(run_dir)
    lines, elsewhere = [], 0.0
    for name, finished in _finished(run_dir):
        if not finished.get("shipped"):  # (the shipped weights' stages are no part of the run)
            elsewhere += finished["seconds"]
        lines.append(
            f"- Wall time of stage `{name}`: {finished['seconds'] / 60:.0f} min on "
            f"{finished['device']} (scene generation and crops included)."
        )
    rest = total - elsewhere
    if rest > 0:
        lines.insert(
            0,
            f"- Wall time of the other stages: {rest / 60:.0f} min on "
            f"{platform.processor() or platform.machine()} CPU, 2 cores shared with other work, "
            f"Python {sys.version.split()[0]}.",
        )
    return lines


def _decks_said(report: dict[str, Any]) -> str:
    """', decks read against prints of X and Y' when a report's decks were not all the built-in
    art (enrolled prints, a --decks folder), else "" (a card measured so was said as one
    measured with the shipped art)."""
    prints = prints_read(report)
    stand_ins = report.get("stand_ins") or []
    if not prints and not stand_ins:
        return ""
    said = f", decks read against prints of {', '.join(prints)}" if prints else ""
    return said + (f", {', '.join(stand_ins)} never counted" if stand_ins else "")


def render_card(
    *,
    recipe: dict[str, Any],
    run_dir: Path,
    reports: dict[str, dict[str, Any]],
    notes: str,
    identity_run: Path | None = None,
    identity_networks: Sequence[Path] = (),
) -> str:
    lines = [
        "# blitzcam card detector — model card",
        "",
        "An ultralytics YOLO oriented-box (OBB) detector with two classes: `back` (the visible "
        "part of the drawing on a card back, any deck, any art) and `face` (a face-up card, never "
        "counted). Deck identity is decided afterwards, against enrolled reference backs, by "
        "the identity network described below, not by this model.",
        "",
        "## Files",
        "",
        "| file | use | sha256 |",
        "| --- | --- | --- |",
        f"| `{DETECTOR_ONNX.name}` | inference (OpenVINO or ONNX Runtime; input 1×3×"
        f"{recipe['export_hw'][0]}×{recipe['export_hw'][1]}) | `{sha256_of(DETECTOR_ONNX)}` |",
        f"| `{DETECTOR_PT.name}` | fine-tuning with ultralytics (a pickle: load only this "
        f"file, from this repository) | `{sha256_of(DETECTOR_PT)}` |",
        *(
            [
                f"| `{DETECTOR_INT8.name}` | the ONNX quantized to int8, head in float "
                "(`models/quantize.py`): faster, a little less right; `--model` to use it | "
                f"`{sha256_of(DETECTOR_INT8)}` |"
            ]
            if DETECTOR_INT8.is_file()
            else []
        ),
        "",
        "## How it was made",
        "",
        command_line("blitzcam train", recipe, SHIPPED.as_dict()),
        f"- Data generated by `blitzcam dataset generate --n {recipe['scenes']} --seed "
        f"{recipe['data_seed']} --holdout`.",
        f"- Model yaml: `{recipe['model_yaml']}` (from the ultralytics package, trained from "
        "scratch: no pretrained weights).",
        f"- Training data: {recipe['scenes']} synthetic scenes (80 % train, 10 % val, 10 % test), "
        f"each scaled to {recipe['canonical_width']} px wide and cut into "
        f"{recipe['crops_per_scene']} crops of {recipe['crop_size']}×{recipe['crop_size']} px "
        "centred on cards, so cards keep the pixel size they have at inference.",
        f"- imgsz {recipe['crop_size']}, batch {recipe['batch']}, epochs {recipe['epochs']} "
        f"(completed: {stage_epochs(run_dir / 'train')}), seed {recipe['seed']}.",
        *(
            [
                f"- Stage 2 (refine): from stage 1's best weights, {recipe['refine_epochs']} "
                f"epochs (completed: {stage_epochs(run_dir / 'refine')}) on crops of "
                f"{recipe['scenes']} fresh scenes (`--seed {recipe['refine_data_seed']}`), "
                f"AdamW lr {recipe['refine_lr0']} decaying tenfold, no warm-up.",
            ]
            if recipe.get("refine_epochs")
            else []
        ),
        *(
            [
                f"- Stage 3 (extend): from stage 2's best weights, on crops of "
                f"{recipe['extend_scenes']} fresh scenes (`--seed {recipe['extend_data_seed']}`) "
                f"for a budget of {recipe['extend_hours']} h (ultralytics `time`, which sets "
                f"the epochs from the measured epoch time: {stage_epochs(run_dir / 'extend')} "
                f"epochs), batch {recipe['extend_batch']}, AdamW lr {recipe['extend_lr0']} "
                "decaying twentyfold, no warm-up, mosaic off for the last 2 epochs.",
            ]
            if recipe.get("extend_hours")
            else []
        ),
        *(
            [
                f"- Stage 4 (harden): from the previous stage's best weights, "
                f"{recipe['harden_epochs']} epochs (completed: {stage_epochs(run_dir / 'harden')}) "
                f"on crops of {recipe['harden_scenes']} fresh scenes "
                f"(`--seed {recipe['harden_data_seed']}`), up to {recipe['harden_share']:.0%} of "
                "each scene's crops centred on that stage's own mistakes there (a box read on no "
                "card of its class, a card no box counts; `models/mining.py`), AdamW lr "
                f"{recipe['harden_lr0']} decaying tenfold, no warm-up, no mosaic.",
            ]
            if recipe.get("harden_epochs")
            else []
        ),
        *(
            [
                f"- Stage 5 (more): from the previous stage's best weights, on crops of "
                f"{recipe['more_scenes']} fresh scenes (`--seed {recipe['more_data_seed']} "
                f"--late-rounds {recipe['more_late_share']}"
                f"{' --wide-art' if recipe.get('more_wide_art') else ''}`: that share of them a "
                "big game's late rounds"
                f"{', random art of the wider families too' if recipe.get('more_wide_art') else ''}"
                f") for a budget of {recipe['more_hours']} h (ultralytics `time`: "
                f"{stage_epochs(run_dir / 'more')} epochs), batch {recipe['more_batch']}, "
                f"AdamW lr {recipe['more_lr0']} decaying twentyfold, no warm-up, mosaic off for "
                "the last 2 epochs.",
            ]
            if recipe.get("more_hours")
            else []
        ),
        *_went_on_from_lines(run_dir),
        *wall_time_lines(run_dir),
        f"- Export: ONNX opset 17, fixed input {recipe['export_hw'][1]}×{recipe['export_hw'][0]} "
        "(a 16:9 frame resized to 1280 wide and letterboxed).",
        "",
        "## Measured",
        "",
    ]
    for title, report in reports.items():
        det = report["detector"]
        lines += [
            f"### {title}",
            "",
            f"{report['scenes']} scenes (`blitzcam evaluate --data {report['data']} "
            f"--split {report['split']}"
            + (" --in-play" if report.get("in_play") == "each scene's own decks" else "")
            + f"`{_decks_said(report)}), operating confidence {report['operating_conf']}"
            + (f", boxes suppressed above IoU {report['nms_iou']}" if "nms_iou" in report else "")
            + (
                f", doubted boxes read from {report['doubted_from']} joining a counted pile "
                f"above {report['join_alike']}"
                if joins_doubted(report)
                else ""
            )
            + ":",
            "",
            "| metric | value |",
            "| --- | --- |",
            f"| precision / recall / mAP50, back | {_pct(det['back']['precision'])} / "
            f"{_pct(det['back']['recall'])} / {_pct(det['back']['mAP50'])} |",
            f"| precision / recall / mAP50, face | {_pct(det['face']['precision'])} / "
            f"{_pct(det['face']['recall'])} / {_pct(det['face']['mAP50'])} |",
            f"| scenes counted exactly, every deck | {_pct(report['scene_exact_rate'])} |",
            "| … and as many backs left unknown as backs of no known deck | "
            f"{_pct(report['scene_exact_rate_with_unknown'])} |",
            f"| … with built-in art only ({report['scenes_builtin_art']} scenes) | "
            f"{_pct(report['scene_exact_rate_builtin_art'])} |",
            "| … with random art nobody enrolled | "
            f"{_pct(report['scene_exact_rate_random_art'])} |",
            "| … had every counted box on a labelled back got that back's deck (boxes on no back "
            f"keep their decision) | {_pct(report['scene_exact_rate_if_identity_right'])} |",
            f"| mean absolute count error per deck on the table or counted | "
            f"{_num(report['mean_abs_count_error'], '.3f')} |",
            f"| face-up cards counted as a deck | {report['face_up_counted']} |",
            f"| mean time per scene while scoring (boxes read from {SCORING_CONF}, not the "
            f"counting path's {report['doubted_from']}: more to identify; "
            "`benchmarks/count_bench.py` times the path) | "
            f"{_num(report['ms_per_scene'], '.0f', ' ms')} |",
            "",
        ]
    if identity_run is not None:
        lines += identity_section(identity_run, identity_networks)
    lines += ["## Limits and notes", "", notes.strip(), ""]
    return "\n".join(lines)


def _reject_stage_lines(recipe: dict[str, Any]) -> list[str]:
    """The identity recipe's second stage, when it has one (older runs have none)."""
    if not recipe.get("reject_steps"):
        return []
    return [
        f'- Then {recipe["reject_steps"]} steps more from those weights ("reject"): the same '
        "loss plus a hinge that pushes each random design's drawings under "
        f"{recipe['reject_line']} similarity to every built-in deck (weight "
        f"{recipe['reject_weight']}), with {100 * recipe['hard_share']:.0f} % of each step's "
        f"random designs drawn from the {recipe['hard_pool']} nearest a built-in deck (re-mined "
        f"every {recipe['mine_every']} steps from {recipe['mine_queries']} drawings of each); "
        f"AdamW lr {recipe['reject_lr']}, cosine to zero.",
        *_negative_lines(recipe),
        *_attract_lines(recipe),
    ]


def _refine_stage_lines(recipe: dict[str, Any]) -> list[str]:
    """The identity recipe's third stage, when it has one (older runs have none)."""
    if not recipe.get("refine_steps"):
        return []
    return [
        f'- Then {recipe["refine_steps"]} steps more from those weights ("refine"): the reject '
        "stage's loss"
        + (
            f" (its rejection hinge weighted {recipe['refine_reject_weight']})"
            if recipe.get("refine_reject_weight") is not None
            else ""
        )
        + " and mining, with "
        f"{100 * recipe['refine_occluded_share']:.0f} % of each step's drawings (never the "
        "references"
        + ("" if recipe.get("refine_builtin_augmented", True) else ", nor the eight decks'")
        + ") given a pencil, pen or fingertip across them and "
        f"{100 * recipe['refine_faded_share']:.0f} % faded 25–70 % towards the paper, half of "
        "those under a glare spot"
        + _small_clause(recipe.get("refine_small_share", 0.0))
        + " (`models/identity_augment.py`); AdamW lr "
        f"{recipe['refine_lr']}, cosine to zero; random streams of its own, so it starts from "
        "the reject stage's weights alone.",
    ]


def _input_lines(recipe: dict[str, Any]) -> list[str]:
    """The ink-gain layer and the occluded and faded drawings, when the run had them (older runs
    have neither)."""
    lines = []
    if recipe.get("ink_gain", 1.0) > 1.0:
        lines.append(
            "- The network's first layer (no weights; `ink_gain_layer`) stretches each drawing's "
            f"ink away from the paper by up to {recipe['ink_gain']}×, so a faint drawing reaches "
            "the darkness of a well-printed one; it is part of the ONNX export."
        )
    occluded, faded = recipe.get("occluded_share", 0.0), recipe.get("faded_share", 0.0)
    if occluded or faded:
        lines.append(
            f"- Of each step's drawings (never the references), {100 * occluded:.0f} % get a "
            f"pencil, pen or fingertip drawn across them and {100 * faded:.0f} % are faded "
            "25–70 % towards the paper, half of those under a glare spot "
            "(`models/identity_augment.py`, a random stream of their own)."
        )
    small = recipe.get("small_share", 0.0)
    if small:
        lines.append(
            f"- Of each step's drawings (never the references), {100 * small:.0f} % are shrunk to "
            "a far card's 6–20 pixels, half of those JPEG-compressed at that size, and "
            "stretched back (`models/identity_augment.py: shrunk`)."
        )
    return lines


def _small_clause(share: float) -> str:
    """The refine stage's shrunk drawings, when it had them."""
    if not share:
        return ""
    return (
        f", and {100 * share:.0f} % shrunk to a far card's 6–20 pixels and stretched back "
        "(`shrunk`)"
    )


def _attract_lines(recipe: dict[str, Any]) -> list[str]:
    """The reject stage's pull towards each drawing's own design, when it has one."""
    if not recipe.get("attract_weight"):
        return []
    return [
        "- Each reject step also pulls every drawing's similarity to its own design up to "
        f"{recipe['attract_line']} (a hinge, weight {recipe['attract_weight']}).",
    ]


def _negative_lines(recipe: dict[str, Any]) -> list[str]:
    """The reject stage's drawings of no deck, when it has them (older runs have none)."""
    if not recipe.get("negatives_per_step"):
        return []
    seeds = ", ".join(str(s) for s in recipe["negative_seeds"])
    return [
        f"- Each reject step also holds {recipe['negatives_per_step']} drawings of no deck under "
        "that line to every design of the step (weight "
        f"{recipe.get('negative_weight', 1.0)}): the shipped detector's boxes (confidence ≥ "
        f"{NEGATIVE_CONF}) on no labelled back, and the middles of face-up cards, in "
        f"{recipe['negative_scenes']} generator scenes of each seed {seeds} (`--holdout`; "
        "neither model trained on them; `models/identity_negatives.py`).",
    ]


def _identity_hardware(run_dir: Path) -> str:
    """Where the identity network trained: the device `scripts/gpu_identity.py` wrote down in
    the run (device.json), else this machine's shared CPU."""
    device = run_dir / "device.json"
    if device.is_file():
        return str(json.loads(device.read_text(encoding="utf-8"))["device"])
    return "the CPU, 2 cores shared with other work"


def data_line(recipe: dict[str, Any]) -> str:
    """Where the identity network's training drawings came from."""
    late = (
        f" and from {recipe['late_scenes']} scenes of a big game's late rounds (seed "
        f"{recipe['late_seed']}: 6-8 decks of 25-40 cards laid out tight)"
        if recipe.get("late_scenes")
        else ""
    )
    wide = ", the wider families (`--wide-art`) included" if recipe.get("wide_art") else ""
    return (
        f"- Data: drawings cut from {recipe['scenes_per_seed']} generator scenes for each seed "
        f"{', '.join(str(s) for s in recipe['data_seeds'])} (random art of every family but "
        f"the holdout one{wide}){late}, each back cut along its label box disturbed like a "
        "detector's box (half of them snapped to the ink as the counting path does), paired "
        "with its design drawn flat at reference size and cut into the variants enrollment "
        "makes."
    )


def _one_network_lines(recipe: dict[str, Any]) -> list[str]:
    """The card's opening of the identity section when the shipped ONNX is one network."""
    return [
        "A small CNN (3 stages of two 3×3 convolutions, widths "
        f"{'/'.join(str(w) for w in recipe['widths'])}, then 128 → {recipe['dim']}) that maps a "
        f"back's drawing, cut along its box to {PATCH}×{PATCH} px and white-balanced on the "
        "paper, to a unit vector. A back belongs to the enrolled deck whose reference drawing "
        "(in any quarter turn) is nearest by cosine similarity, or to none below the 'unknown' "
        "line (`vision/identify.py: UNKNOWN_BELOW`). It never learned the eight decks as "
        "classes: it learned which drawings are the same drawing, over thousands of random "
        "designs, so enrolled art it never saw works without retraining.",
        "",
        "| file | use | sha256 |",
        "| --- | --- | --- |",
        f"| `{IDENTITY_ONNX.name}` | inference (OpenVINO or ONNX Runtime; "
        f"input n×3×{PATCH}×{PATCH}) | "
        f"`{sha256_of(IDENTITY_ONNX)}` |",
        f"| `{IDENTITY_PT.name}` | fine-tuning (state dict + recipe; a pickle: load only this "
        f"file, from this repository) | `{sha256_of(IDENTITY_PT)}` |",
    ]


def _joined_lines(recipe: dict[str, Any], onnx: Path, networks: Sequence[Path]) -> list[str]:
    """The card's opening of the identity section when the shipped ONNX joins `networks`
    (their .pt files, the first the one whose run the section describes), as
    `models/identity_average.py` joins them."""
    from blitzcam.models.identity_average import joined_metadata

    count, lift = joined_metadata(onnx)
    if count != len(networks):
        raise ValueError(
            f"{onnx} joins {count} identity network(s), but {len(networks)} were named: "
            "name each network's .pt file, the first one's first"
        )
    widths, dim = "/".join(str(w) for w in recipe["widths"]), recipe["dim"]
    files = " ".join(str(path) for path in networks)
    return [
        f"{count} small CNNs (each 3 stages of two 3×3 convolutions, widths {widths} for the "
        f"first, then 128 → {dim}) that map a back's drawing, cut along its box to "
        f"{PATCH}×{PATCH} px and white-balanced on the paper, to a unit vector each; the "
        f"shipped ONNX runs all {count} and joins their vectors "
        "(`models/identity_average.py`), so that the likeness of two drawings is the mean of "
        f"the networks' cosines, lifted back to one network's scale (`{lift:.3f} × mean + "
        f"{1 - lift:.3f}`). A back belongs to the enrolled deck whose reference drawing (in "
        "any quarter turn) is nearest by that likeness, or to none below the 'unknown' line "
        "(`vision/identify.py: UNKNOWN_BELOW`). They never learned the eight decks as classes: "
        "they learned which drawings are the same drawing, over thousands of random designs, "
        "so enrolled art they never saw works without retraining.",
        "",
        "| file | use | sha256 |",
        "| --- | --- | --- |",
        f"| `{onnx.name}` | inference (OpenVINO or ONNX Runtime; input n×3×{PATCH}×{PATCH}, "
        f"output the {count} networks' unit vectors and the lift's constant) | "
        f"`{sha256_of(onnx)}` |",
        *(
            f"| `{path.name}` | network {k} of {count}, fine-tuning (state dict + recipe; a "
            f"pickle: load only this file, from this repository) | `{sha256_of(path)}` |"
            for k, path in enumerate(networks, start=1)
        ),
        "",
        f"- Joined by `python -m blitzcam.models.identity_average {files} --out "
        f"{onnx.parent}` (lift {lift:.4f}, fitted as that module says). The section below is "
        "the first network's run.",
    ]


def identity_section(run_dir: Path, networks: Sequence[Path] = ()) -> list[str]:
    """The identity network's part of the card, from its run folder (report.json, timing).

    `networks`: the .pt files of the networks the shipped ONNX joins, the run's own first
    (empty: the shipped ONNX is that one network alone). ValueError when the shipped ONNX
    joins another number of networks than that, so the card never calls it one network when
    it runs several."""
    from blitzcam.models.identity_average import networks_joined

    report = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    recipe, val = report["recipe"], report["validation"]
    seconds = train_seconds(run_dir)
    if networks:
        opening = _joined_lines(recipe, IDENTITY_ONNX, networks)
    elif (count := networks_joined(IDENTITY_ONNX)) > 1:
        raise ValueError(
            f"{IDENTITY_ONNX} joins {count} identity networks: name their .pt files "
            "(--identity-networks)"
        )
    else:
        opening = _one_network_lines(recipe)
    lines = [
        "# blitzcam identity network",
        "",
        *opening,
        "",
        "## How it was made",
        "",
        command_line("blitzcam train-identity", recipe, asdict(IdentityRecipe())),
        data_line(recipe),
        f"- Training: {recipe['steps']} steps of {recipe['designs_per_step']} designs (the eight "
        f"decks in every step) × {recipe['queries_per_design']} drawings, softmax over the "
        f"designs with margin {recipe['margin']} and scale {recipe['scale']}, AdamW lr "
        f"{recipe['lr']} one-cycle, seed {recipe['seed']}.",
        *_input_lines(recipe),
        *_reject_stage_lines(recipe),
        *_refine_stage_lines(recipe),
        f"- Wall time: {seconds / 60:.0f} min on {_identity_hardware(run_dir)}.",
        "",
        f"## Measured on drawings of the holdout family ({recipe['val_scenes']} scenes, seed "
        f"{recipe['val_seed']})",
        "",
        "Per drawing, for each 'unknown' line: built-in backs given their own deck, built-in "
        "backs given another deck, random-art backs (nothing enrolled for them) left unknown, "
        "and random-art backs given their own design once that scene's designs are enrolled.",
        "",
        "| line | " + " | ".join(val["builtin_right"]) + " |",
        "| --- |" + " --- |" * len(val["builtin_right"]),
    ]
    for key, row in val.items():
        lines.append(f"| {key} | " + " | ".join(f"{100 * v:.2f} %" for v in row.values()) + " |")
    return [*lines, ""]


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description="write models/MODEL_CARD.md from a run")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("reports", nargs="+", help="TITLE=REPORT.json from `blitzcam evaluate`")
    parser.add_argument("--notes", type=Path, required=True, help="a markdown file of limits")
    parser.add_argument(
        "--identity-run",
        type=Path,
        default=None,
        help="the identity network's run folder (report.json, train_seconds.json)",
    )
    parser.add_argument(
        "--identity-networks",
        type=Path,
        nargs="+",
        default=(),
        metavar="PT",
        help="the .pt files of the networks the shipped identity ONNX joins, the run's own "
        "first (models/identity_average.py)",
    )
    args = parser.parse_args(argv)
    reports = {}
    for item in args.reports:
        title, _, path = item.partition("=")
        reports[title] = json.loads(Path(path).read_text(encoding="utf-8"))
    from blitzcam.models.run_record import saved_recipe

    # (fields added since the run, filled in as resuming takes them: else said as "None")
    recipe = saved_recipe(args.run_dir)
    if recipe is None:
        raise SystemExit(f"{args.run_dir / 'recipe.json'}: no recipe this code can read")
    try:
        text = render_card(
            recipe=recipe,
            run_dir=args.run_dir,
            reports=reports,
            notes=args.notes.read_text(encoding="utf-8"),
            identity_run=args.identity_run,
            identity_networks=args.identity_networks,
        )
    except ValueError as exc:  # the networks named are not the ones the shipped file joins
        parser.error(str(exc))
    MODEL_CARD.write_text(text, encoding="utf-8")
    print(f"wrote {MODEL_CARD}")


if __name__ == "__main__":
    main()
