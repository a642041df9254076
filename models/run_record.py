"""What a detector run folder records about itself: the recipe it was started with
(recipe.json), the scenes its first stage was given (data.json), and, for a run going on from
the shipped weights, the stages those weights went through."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from blitzcam.files import copy_file_atomic, sha256_of, write_text_atomic
from blitzcam.models.recipe import (
    SHIPPED,
    SHIPPED_STAGES,
    SHIPPED_WEIGHTS_SHA256,
    Recipe,
    model_yaml_problem,
)
from blitzcam.models.run_kind import DATA_FILE, FINISHED_FILE, run_kind
from blitzcam.models.run_timing import TIMING_FILE
from blitzcam.models.stages import stages


def open_run(run_dir: Path, recipe: Recipe, *, resume: bool) -> None:
    """A fresh run writes its recipe and forgets the time of any run before it in the folder; a
    resumed one must be asked for the recipe it was started with (its finished stages, and
    ultralytics' resumed one, keep theirs, and the model card reads recipe.json), else
    UserError (`refuse_another_recipe`)."""
    if not resume:  # the run's total and each stage's own
        for timing in (run_dir / TIMING_FILE, *run_dir.glob(f"*/{TIMING_FILE}")):
            timing.unlink(missing_ok=True)

    path = run_dir / "recipe.json"
    if resume and refuse_another_recipe(run_dir, recipe):
        return
    write_text_atomic(path, json.dumps(recipe.as_dict(), indent=2))


def refuse_another_recipe(run_dir: Path, recipe: Recipe) -> bool:
    """UserError where the run in `run_dir` was started with another recipe than `recipe` (or
    one a newer blitzcam wrote); whether its recipe.json holds `recipe` (False: none readable).
    Asked before a resumed run says anything of itself, and again as it opens."""
    from blitzcam.errors import UserError

    path = run_dir / "recipe.json"
    if unknown := unknown_recipe_fields(run_dir):
        raise UserError(
            f"{path}: holds fields this blitzcam does not know ({', '.join(unknown)}): started "
            "by a newer blitzcam? resume it with that one, or start a new run folder"
        )
    if not path.is_file():
        return False
    changed = _recipe_changes(run_dir, recipe)
    if changed:
        raise UserError(
            f"{run_dir}: resumed with another recipe than its recipe.json ("
            f"{'; '.join(changed)}): resume without the options that change it, or start "
            "a new run folder"
        )
    return changed is not None


def _recipe_changes(run_dir: Path, recipe: Recipe) -> list[str] | None:
    """Each field in which `recipe` differs from the run's recipe.json, said with both values
    (None: no readable one)."""
    wanted = json.loads(json.dumps(recipe.as_dict()))  # tuples as the file holds them: lists
    before = saved_recipe(run_dir)
    if before is None:
        return None
    return [
        f"{key} {before.get(key)} there, {wanted.get(key)} now"
        for key in sorted(wanted.keys() | before.keys())
        if before.get(key) != wanted.get(key)
    ]


def saved_recipe(run_dir: Path) -> dict[str, Any] | None:
    """A run's recipe.json as a dict, fields added since filled in (None: no readable one)."""
    try:
        saved = json.loads((run_dir / "recipe.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {**BEFORE_ADDED, **saved} if isinstance(saved, dict) else None


def unknown_recipe_fields(run_dir: Path) -> list[str]:
    """The fields of a run's recipe.json this code does not know (a newer blitzcam's run)."""
    saved = saved_recipe(run_dir) or {}
    return sorted(set(saved) - {field.name for field in dataclasses.fields(Recipe)})


def recipe_of_run(run_dir: Path) -> Recipe | None:
    """The recipe a run was started with, which `--resume` goes on with unless told otherwise
    (a resume had to repeat every option the run was started with); None where the folder
    holds none this code can read (then the options given, over the shipped recipe)."""
    saved = saved_recipe(run_dir)
    if saved is None:
        return None
    try:
        recipe = Recipe(**saved)
    except TypeError:  # a field this code does not know, or lacks one it needs
        return None
    problem = _mistyped_field(recipe) or model_yaml_problem(recipe.model_yaml)
    if problem is not None:  # (an edited recipe.json: trained from, it was a download)
        from blitzcam.errors import UserError

        raise UserError(f"{run_dir / 'recipe.json'}: {problem}")
    return replace(recipe, export_hw=tuple(recipe.export_hw))


def _mistyped_field(recipe: Recipe) -> str | None:
    """The first field of a recipe read from a run's recipe.json whose value is not of its
    field's kind, in words (None: each is): a hand-edited `"export_hw": 736` was a traceback
    as the resume began, and `"epochs": "40"` was taken as it was."""
    for field in dataclasses.fields(Recipe):
        value, default = getattr(recipe, field.name), field.default
        if isinstance(default, bool):
            kind, fits = "true or false", isinstance(value, bool)
        elif isinstance(default, int):
            kind, fits = "a whole number", isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(default, float):
            kind = "a number"
            fits = isinstance(value, int | float) and not isinstance(value, bool)
        elif isinstance(default, tuple):
            kind = f"a list of {len(default)} whole numbers"
            fits = (
                isinstance(value, list | tuple)
                and len(value) == len(default)
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            )
        else:
            kind, fits = "text", isinstance(value, str)
        if not fits:
            return f"{field.name} must be {kind}, got {json.dumps(value)}"
    return None


# fields added to the recipe after runs had written their recipe.json, with the value that
# keeps what those runs did (not today's default, which for a stage's budget turns it on).
# Stage 5's (66d0518, 2026-12-04): off, as it was before there was one (a run from before it
# was refused as "resumed with another recipe", no option given)
BEFORE_ADDED: Final[dict[str, Any]] = {
    # stage 4's (bdc55c6, 2026-12-01): off, as before it
    "harden_epochs": 0,
    "harden_scenes": 1500,
    "harden_data_seed": 2029,
    "harden_lr0": 0.0002,
    "harden_share": 0.5,
    "more_hours": 0.0,
    "more_scenes": 12000,
    "more_data_seed": 2030,
    "more_late_share": 0.25,
    "more_wide_art": False,
    "more_batch": 64,
    "more_lr0": 0.0005,
}


def first_stage_scenes(run_dir: Path, given: Path | None, *, resume: bool) -> Path | None:
    """The scene dataset stage 1 trains on: `given` (recorded for a new run), or, resumed, the
    one the run was started with (None: the recipe's own, generated). UserError when a resumed
    run is given another: its checkpoints and crops are of the first (its crops, cut again
    where gone, would silently be of the other). A run of an earlier release, which recorded
    none, takes `given` as it is."""
    from blitzcam.errors import UserError

    record = run_dir / DATA_FILE
    if resume and record.is_file():
        try:
            started = json.loads(record.read_text(encoding="utf-8"))["scenes"]
            started = None if started is None else Path(started)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            why = f"{record}: cannot be read ({exc}): the run's data is unknown"
            raise UserError(why) from None
        if given is not None and given.resolve() != started:
            raise UserError(
                f"--data {given}: this run was started on "
                f"{started or 'its own generated scenes'}; resume it without --data"
            )
        return started
    if not resume or given is not None:
        scenes = None if given is None else str(given.resolve())
        try:
            write_text_atomic(record, json.dumps({"scenes": scenes}))
        except OSError as exc:  # (a read-only --run: the first thing written there)
            raise UserError(f"{record}: cannot write it ({exc.strerror or exc})") from None
    return given


def go_on_from_shipped(run_dir: Path, recipe: Recipe, weights: Path, *, resume: bool) -> None:
    """Make `run_dir` a run whose first stages are those the shipped weights went through
    (SHIPPED_STAGES, finished, those weights the last one's best), so that `train(...,
    resume=True)` trains only the recipe's stages after them, from those weights.

    UserError, before anything is written, when `weights` are not the shipped ones (the record
    is of those), when the recipe changes a setting of theirs or has no stage after them, or
    when the folder holds a run already (unless `resume`) or a run of its own."""
    from blitzcam.errors import UserError

    if sha256_of(weights) != SHIPPED_WEIGHTS_SHA256:
        raise UserError(
            f"{weights}: not the shipped detector's weights (sha256 {SHIPPED_WEIGHTS_SHA256[:12]}"
            "…), whose stages a run going on from them records; check out models/ as shipped"
        )
    shipped, plan = list(SHIPPED_STAGES), [stage.name for stage in stages(recipe)]
    if plan[: len(shipped)] != shipped:
        raise UserError(
            f"the recipe's stages ({', '.join(plan)}) do not begin with the shipped weights' "
            f"({', '.join(shipped)})"
        )
    after = plan[len(shipped) :]
    if not after:
        raise UserError(
            "no stage after the shipped weights' to train: give stage 5 a budget (--more-hours)"
        )
    ours, theirs = recipe.as_dict(), SHIPPED.as_dict()
    changed = sorted(
        k for k in ours if ours[k] != theirs[k] and not k.startswith(tuple(f"{n}_" for n in after))
    )
    if changed:
        raise UserError(
            "going on from the shipped weights, their stages' settings stay theirs "
            f"({', '.join(changed)} changed): only the settings of the stages after them may differ"
        )
    for name in shipped:
        finished = run_dir / name / FINISHED_FILE
        if (run_dir / name).exists() and _shipped_mark(finished) != SHIPPED_WEIGHTS_SHA256:
            raise UserError(
                f"{run_dir}: stage {name} is a training of this run's own, not the shipped "
                "weights': use another run folder"
            )
    changed = _recipe_changes(run_dir, recipe)
    if changed:  # (said before anything is written: a run of its own stopped before stage 1)
        raise UserError(
            f"{run_dir}: holds a run of another recipe (its recipe.json: {'; '.join(changed)}): "
            "use another run folder"
        )
    held = run_kind(run_dir) is not None
    if held and not resume:
        raise UserError(
            f"{run_dir}: holds a run already: --resume goes on with it, or use another run folder"
        )
    if not held and resume:  # (a mistyped --run started a new stage 5 of 12,000 scenes)
        raise UserError(
            f"--resume: {run_dir} holds no run to go on with: check --run, or leave out --resume "
            "to start one"
        )
    if not held and run_dir.is_dir() and any(run_dir.iterdir()):
        raise UserError(
            f"{run_dir}: not empty, and holds no run: use an empty or new run folder (its "
            "files stay as they are)"
        )
    for name in shipped:
        (run_dir / name / "weights").mkdir(parents=True, exist_ok=True)
        record = {**SHIPPED_STAGES[name], "shipped": SHIPPED_WEIGHTS_SHA256}
        write_text_atomic(run_dir / name / FINISHED_FILE, json.dumps(record))
    best = run_dir / shipped[-1] / "weights" / "best.pt"
    if not best.is_file() or sha256_of(best) != SHIPPED_WEIGHTS_SHA256:
        copy_file_atomic(weights, best)


def _shipped_mark(finished: Path) -> str | None:
    """The shipped weights' digest a stage's finished.json names (None: a stage of its own)."""
    try:
        mark = json.loads(finished.read_text(encoding="utf-8")).get("shipped")
    except (OSError, ValueError, AttributeError):
        return None
    return mark if isinstance(mark, str) else None
