"""models/run_record.py: what a detector run folder records (recipe.json, data.json, the shipped stages a run goes on from)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from blitzcam.models.recipe import SHIPPED


def test_a_run_goes_on_from_the_shipped_weights_as_their_finished_stages(tmp_path: Path) -> None:
    from blitzcam.files import sha256_of
    from blitzcam.models import DETECTOR_PT
    from blitzcam.models.recipe import SHIPPED_STAGES
    from blitzcam.models.run_record import go_on_from_shipped
    from blitzcam.models.stages import stage_epochs, stage_finished, stages
    from blitzcam.models.training import _best_weights

    recipe = replace(SHIPPED, more_hours=0.1, more_scenes=500)
    run = tmp_path / "run"
    go_on_from_shipped(run, recipe, DETECTOR_PT, resume=False)
    train, refine, extend, more = stages(recipe)
    for stage in (train, refine, extend):
        assert stage_finished(run / stage.name, stage)
        assert stage_epochs(run / stage.name) == SHIPPED_STAGES[stage.name]["epochs"]
    assert not stage_finished(run / "more", more)
    assert sha256_of(_best_weights(run / "extend")) == sha256_of(DETECTOR_PT)  # stage 5's start
    go_on_from_shipped(run, recipe, DETECTOR_PT, resume=True)  # again, resumed: as it was
    assert sha256_of(_best_weights(run / "extend")) == sha256_of(DETECTOR_PT)


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"more_hours": 0.0}, "no stage after the shipped weights' to train"),
        ({"epochs": 20}, "their stages' settings stay theirs (epochs changed)"),
        ({"extend_lr0": 0.01, "crop_size": 416}, "(crop_size, extend_lr0 changed)"),
        ({"refine_epochs": 0}, "do not begin with the shipped weights' (train, refine, extend)"),
    ],
)
def test_going_on_from_the_shipped_weights_keeps_their_recipe(
    tmp_path: Path, change: dict, fragment: str
) -> None:
    from blitzcam.errors import UserError
    from blitzcam.models import DETECTOR_PT
    from blitzcam.models.run_record import go_on_from_shipped

    recipe = replace(SHIPPED, **{"more_hours": 0.1, **change})
    with pytest.raises(UserError, match=re.escape(fragment)):
        go_on_from_shipped(tmp_path / "run", recipe, DETECTOR_PT, resume=False)
    assert not (tmp_path / "run").exists()  # nothing written


def test_going_on_from_other_weights_or_into_a_run_of_its_own_is_refused(tmp_path: Path) -> None:
    from blitzcam.errors import UserError
    from blitzcam.models import DETECTOR_PT
    from blitzcam.models.run_kind import FINISHED_FILE
    from blitzcam.models.run_record import go_on_from_shipped

    recipe = replace(SHIPPED, more_hours=0.1)
    other = tmp_path / "other.pt"
    other.write_bytes(DETECTOR_PT.read_bytes() + b"more")  # other bytes
    with pytest.raises(UserError, match="not the shipped detector's weights"):
        go_on_from_shipped(tmp_path / "a", recipe, other, resume=False)
    ours = tmp_path / "ours"
    (ours / "train").mkdir(parents=True)
    (ours / "train" / FINISHED_FILE).write_text('{"seconds": 5, "device": "x", "epochs": 1}')
    for resume in (False, True):  # (--resume would not mend it: said at once)
        with pytest.raises(UserError, match="stage train is a training of this run's own"):
            go_on_from_shipped(ours, recipe, DETECTOR_PT, resume=resume)
    went_on = tmp_path / "went-on"
    go_on_from_shipped(went_on, recipe, DETECTOR_PT, resume=False)
    with pytest.raises(UserError, match="holds a run already: --resume goes on with it"):
        go_on_from_shipped(went_on, recipe, DETECTOR_PT, resume=False)
    assert json.loads((ours / "train" / FINISHED_FILE).read_text())["seconds"] == 5  # untouched
    assert not (ours / "refine").exists()
    # (a review's case) a run of its own stopped before its first stage's folder: refused
    # before anything is written, else a plain --resume later took the shipped stages as its own
    early = tmp_path / "early"
    (early / "scenes").mkdir(parents=True)
    (early / "recipe.json").write_text(json.dumps(SHIPPED.as_dict()))
    with pytest.raises(UserError, match=r"holds a run of another recipe \(its recipe\.json: more_hours 0\.0 there, \d"):
        go_on_from_shipped(early, recipe, DETECTOR_PT, resume=True)
    assert sorted(p.name for p in early.iterdir()) == ["recipe.json", "scenes"]


def test_going_on_from_the_shipped_weights_resumes_only_a_run_and_starts_only_in_an_empty_folder(
    tmp_path: Path,
) -> None:
    # (`train --run TYPO --from-shipped --resume` started a new stage 5 of 12,000 scenes; a
    # folder of the user's own files was said to "hold a run already")
    from blitzcam.errors import UserError
    from blitzcam.models import DETECTOR_PT
    from blitzcam.models.run_record import go_on_from_shipped

    recipe = replace(SHIPPED, more_hours=0.1)
    with pytest.raises(UserError, match=r"--resume: .*typo holds no run to go on with"):
        go_on_from_shipped(tmp_path / "typo", recipe, DETECTOR_PT, resume=True)
    assert not (tmp_path / "typo").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    for resume in (False, True):
        with pytest.raises(UserError, match=r"(not empty, and holds no run|holds no run to go)"):
            go_on_from_shipped(mine, recipe, DETECTOR_PT, resume=resume)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_a_run_resumes_only_with_its_own_recipe_and_a_fresh_one_forgets_old_time(
    tmp_path: Path,
) -> None:
    import json

    from blitzcam.errors import UserError
    from blitzcam.models.run_record import open_run
    from blitzcam.models.run_timing import TIMING_FILE

    open_run(tmp_path, SHIPPED, resume=False)
    assert json.loads((tmp_path / "recipe.json").read_text())["epochs"] == SHIPPED.epochs
    open_run(tmp_path, SHIPPED, resume=True)  # the same recipe: fine
    with pytest.raises(UserError, match=r"another recipe than its recipe\.json \(batch 16 there, 8 now; epochs 14 there, 20 now\): resume without"):
        open_run(tmp_path, replace(SHIPPED, epochs=20, batch=8), resume=True)
    assert json.loads((tmp_path / "recipe.json").read_text())["epochs"] == SHIPPED.epochs
    (tmp_path / TIMING_FILE).write_text('{"seconds": 99}')
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / TIMING_FILE).write_text('{"seconds": 7200}')  # a stage's own clock
    open_run(tmp_path, replace(SHIPPED, epochs=20), resume=False)  # a new run in the folder
    assert not (tmp_path / TIMING_FILE).exists()
    assert not (tmp_path / "train" / TIMING_FILE).exists()
    assert json.loads((tmp_path / "recipe.json").read_text())["epochs"] == 20


def test_a_run_whose_recipe_json_predates_a_field_resumes_with_its_default(
    tmp_path: Path,
) -> None:
    # a field added to the recipe later (more_wide_art) is not in the recipe.json of a run
    # started before: it was trained with the field's default, and resumes as it was
    import json

    from blitzcam.errors import UserError
    from blitzcam.models.run_record import open_run

    saved = json.loads(json.dumps(SHIPPED.as_dict()))
    del saved["more_wide_art"]
    (tmp_path / "recipe.json").write_text(json.dumps(saved))
    open_run(tmp_path, SHIPPED, resume=True)
    assert "more_wide_art" not in json.loads((tmp_path / "recipe.json").read_text())
    with pytest.raises(UserError, match=r"another recipe than its recipe\.json \(more_wide_art False there, True now\)"):
        open_run(tmp_path, replace(SHIPPED, more_wide_art=True), resume=True)
    # a run from before stage 5 existed (none of its fields) resumes with that stage off
    # (it was refused as resumed with another recipe, no option given; training review)
    before_5 = {k: v for k, v in json.loads(json.dumps(SHIPPED.as_dict())).items()
                if not k.startswith("more_")}  # fmt: skip
    from blitzcam.models.run_record import recipe_of_run

    # ... and one from before stage 4 as well, with both off (diff review)
    before_4 = {k: v for k, v in before_5.items() if not k.startswith("harden_")}
    for before in (before_5, before_4):
        (tmp_path / "recipe.json").write_text(json.dumps(before))
        resumed = recipe_of_run(tmp_path)
        assert resumed is not None and resumed.more_hours == 0 and resumed.harden_epochs == 0
        open_run(tmp_path, resumed, resume=True)
        open_run(tmp_path, SHIPPED, resume=True)  # (the shipped recipe, no option given)
    # a field this code does not know (a newer blitzcam's run) is said so, not "resume without
    # the options that change it"
    (tmp_path / "recipe.json").write_text(json.dumps({**before_5, "later_hours": 1.0}))
    with pytest.raises(UserError, match=r"recipe\.json: holds fields this blitzcam does not know \(later_hours\): started by a newer"):
        open_run(tmp_path, SHIPPED, resume=True)
    # a field older still is not taken as today's default: a run from before stage 3 existed
    # resumed would have trained it, and the card (reading recipe.json) left it out
    for field in [k for k in saved if k.startswith("extend_")]:
        del saved[field]
    (tmp_path / "recipe.json").write_text(json.dumps(saved))
    with pytest.raises(UserError, match=r"another recipe than its recipe\.json \(extend_batch None there, 64 now; extend_data_seed None there, "):
        open_run(tmp_path, SHIPPED, resume=True)


def test_a_resumed_run_trains_on_the_scenes_it_was_started_on(tmp_path: Path) -> None:
    # (`train --resume --data OTHER` was taken without a word, and crops cut again where gone
    # would have been of the other scenes)
    from blitzcam.errors import UserError
    from blitzcam.models.run_record import first_stage_scenes

    ours, other = tmp_path / "ours", tmp_path / "other"
    run = tmp_path / "run"
    run.mkdir()
    assert first_stage_scenes(run, ours, resume=False) == ours
    assert first_stage_scenes(run, None, resume=True) == ours.resolve()
    assert first_stage_scenes(run, ours, resume=True) == ours.resolve()
    with pytest.raises(UserError, match=rf"--data {other}: this run was started on {ours}"):
        first_stage_scenes(run, other, resume=True)
    first_stage_scenes(run, None, resume=False)  # a new run on the recipe's own scenes
    with pytest.raises(UserError, match=r"started on its own generated scenes; resume it without"):
        first_stage_scenes(run, ours, resume=True)
    assert first_stage_scenes(run, None, resume=True) is None
    legacy = tmp_path / "legacy"  # a run of an earlier release recorded none: taken as given
    legacy.mkdir()
    assert first_stage_scenes(legacy, ours, resume=True) == ours
    assert first_stage_scenes(legacy, None, resume=True) == ours.resolve()


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("export_hw", 736, "export_hw must be a list of 2 whole numbers, got 736"),
        ("export_hw", [736, 1280.5], "export_hw must be a list of 2 whole numbers, got [736, 1280.5]"),
        ("export_hw", None, "export_hw must be a list of 2 whole numbers, got null"),
        ("epochs", "40", 'epochs must be a whole number, got "40"'),
        ("epochs", True, "epochs must be a whole number, got true"),
        ("refine_lr0", "0.1", 'refine_lr0 must be a number, got "0.1"'),
        ("more_wide_art", 1, "more_wide_art must be true or false, got 1"),
        ("model_yaml", 11, "model_yaml must be text, got 11"),
    ],
)
def test_a_hand_edited_recipe_json_of_the_wrong_kind_is_one_line(
    tmp_path: Path, field: str, value: object, said: str
) -> None:
    # (`"export_hw": 736` was a traceback as the resume began; `"epochs": "40"` was taken;
    # typing review)
    from blitzcam.errors import UserError
    from blitzcam.models.run_record import recipe_of_run

    saved = json.loads(json.dumps(SHIPPED.as_dict()))
    (tmp_path / "recipe.json").write_text(json.dumps({**saved, field: value}))
    with pytest.raises(UserError) as refused:
        recipe_of_run(tmp_path)
    assert str(refused.value) == f"{tmp_path / 'recipe.json'}: {said}"
    (tmp_path / "recipe.json").write_text(json.dumps({**saved, "refine_lr0": 1}))  # (a number)
    assert recipe_of_run(tmp_path).refine_lr0 == 1
