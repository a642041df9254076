"""models/stages.py: the detector's training stages and whether a stage folder says it is done."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from blitzcam.models.recipe import SHIPPED


def test_the_stages_follow_the_recipe() -> None:
    from blitzcam.models.stages import stages

    assert SHIPPED.harden_epochs == 0  # measured and not shipped (MODEL_CARD.md)
    with_harden = replace(SHIPPED, harden_epochs=4)
    assert [s.name for s in stages(with_harden)] == ["train", "refine", "extend", "harden"]
    assert [s.data_seed for s in stages(with_harden)] == [
        SHIPPED.data_seed, SHIPPED.refine_data_seed, SHIPPED.extend_data_seed,
        SHIPPED.harden_data_seed]
    only_first = replace(SHIPPED, refine_epochs=0, extend_hours=0, harden_epochs=0)
    assert [s.name for s in stages(only_first)] == ["train"]
    assert [s.prefix for s in stages(with_harden)] == ["", "refine-", "extend-", "harden-"]
    # only the last stage's crops are centred on mistakes
    assert [s.hard_share for s in stages(with_harden)] == [0, 0, 0, SHIPPED.harden_share]


def test_a_fifth_stage_trains_more_on_scenes_with_late_rounds_when_given_a_budget() -> None:
    from blitzcam.models.stages import stages

    assert SHIPPED.more_hours == 0  # not trained yet (MODEL_CARD.md)
    more = replace(SHIPPED, more_hours=0.1)
    assert [s.name for s in stages(more)] == ["train", "refine", "extend", "more"]
    last = stages(more)[-1]
    assert (last.data_seed, last.scenes, last.prefix) == (
        SHIPPED.more_data_seed, SHIPPED.more_scenes, "more-")
    assert [s.late_share for s in stages(more)] == [0, 0, 0, SHIPPED.more_late_share]
    assert not any(s.wide_art for s in stages(more))  # the wider families: only when asked
    wide = replace(more, more_wide_art=True)
    assert [s.wide_art for s in stages(wide)] == [False, False, False, True]
    args = last.args(more, Path("data.yaml"), Path("run"), workers=2, device="0")
    assert (args["name"], args["time"], args["batch"], args["lr0"]) == (
        "more", 0.1, SHIPPED.more_batch, SHIPPED.more_lr0)
    assert args["pretrained"] is True  # from the stage before's weights


def test_a_stage_is_finished_by_its_own_word_or_by_its_epochs(tmp_path: Path) -> None:
    from blitzcam.models.run_kind import FINISHED_FILE
    from blitzcam.models.stages import stage_finished, stages

    train, _, extend = stages(SHIPPED)
    assert not stage_finished(tmp_path, train)
    rows = "epoch,loss\n" + "".join(f"{e},0.5\n" for e in range(1, SHIPPED.epochs + 1))
    (tmp_path / "results.csv").write_text(rows)
    assert stage_finished(tmp_path, train)  # a run from before finished.json existed
    assert not stage_finished(tmp_path, extend)  # a time budget has no epoch count to reach
    (tmp_path / FINISHED_FILE).write_text("{}")
    assert stage_finished(tmp_path, extend)


def test_an_epoch_written_twice_by_a_resume_counts_once(tmp_path: Path) -> None:
    from blitzcam.models.stages import epochs_done

    header = "epoch,time,train/box_loss\n"
    (tmp_path / "results.csv").write_text(header + "1,5,0.9\n2,9,0.8\n2,4,0.8\n3,8,0.7\n")
    assert epochs_done(tmp_path) == 3
