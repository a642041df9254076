"""Run folders (models/run_kind.py): which run a folder holds, and when a training command may
start or go on in it; through the CLI, refused before any scene is made or drawing cut."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from blitzcam.cli import main
from blitzcam.errors import UserError
from blitzcam.models.recipe import SHIPPED
from blitzcam.models.run_kind import DETECTOR_STAGES, check_run_start, run_kind


def _identity_recipe() -> dict[str, object]:
    from blitzcam.models.identity_network import IdentityRecipe

    return asdict(IdentityRecipe())


def test_the_detector_stages_it_knows_are_every_stage_a_recipe_can_have() -> None:
    from dataclasses import replace

    from blitzcam.models.stages import stages

    every = replace(SHIPPED, harden_epochs=1, more_hours=0.1)
    assert {stage.name for stage in stages(every)} == set(DETECTOR_STAGES)


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda d: None, None),
        (lambda d: (d / "scenes").mkdir(), None),  # generated scenes alone are no run
        (lambda d: (d / "recipe.json").write_text(json.dumps(SHIPPED.as_dict())), "detector"),
        (lambda d: (d / "recipe.json").write_text(json.dumps(_identity_recipe())), "identity"),
        (lambda d: (d / "recipe.json").write_text("{garbage"), "unreadable"),
        (lambda d: (d / "recipe.json").write_text("[1, 2]"), "unreadable"),
        (lambda d: (d / "last.pt").write_bytes(b"weights"), "identity"),
        (lambda d: (d / "refine" / "weights").mkdir(parents=True), "detector"),
    ],
)
def test_a_folder_says_which_run_it_holds(tmp_path: Path, make, kind: str | None) -> None:
    make(tmp_path)
    assert run_kind(tmp_path) == kind


def test_a_run_starts_only_where_it_throws_nothing_away(tmp_path: Path) -> None:
    check_run_start(tmp_path, "detector", resume=False)  # an empty folder: a new run
    with pytest.raises(UserError, match=r"holds no detector run to go on with: check --run"):
        check_run_start(tmp_path, "detector", resume=True)
    (tmp_path / "recipe.json").write_text(json.dumps(SHIPPED.as_dict()))
    check_run_start(tmp_path, "detector", resume=True)
    # a start refused before its first step (its data unusable) left only its records: it may
    # start over (it was "a run already", and resuming it with good data was refused too)
    check_run_start(tmp_path, "detector", resume=False)
    (tmp_path / "train" / "weights").mkdir(parents=True)  # it trained: that is kept
    with pytest.raises(UserError, match=r"holds a detector run already: --resume goes on"):
        check_run_start(tmp_path, "detector", resume=False)
    check_run_start(tmp_path, "detector", resume=False, other_kinds_only=True)
    identity = tmp_path / "identity"
    identity.mkdir()
    (identity / "last.pt").write_bytes(b"")
    with pytest.raises(UserError, match=r"holds an identity run already"):  # (was "a identity")
        check_run_start(identity, "identity", resume=False)
    for resume in (False, True):
        with pytest.raises(UserError, match=r"holds a detector run \(`blitzcam train`\), not an? "):
            check_run_start(tmp_path, "identity", resume=resume)
    (tmp_path / "recipe.json").write_text("{garbage")
    with pytest.raises(UserError, match=r"recipe\.json: cannot be read as a training recipe"):
        check_run_start(tmp_path, "detector", resume=True)


def test_a_run_is_not_started_among_files_of_no_run(tmp_path: Path) -> None:
    # (`--run ~/Documents`: the run's scenes, crops and records were mixed in; review)
    (tmp_path / "taxes.pdf").write_bytes(b"mine")
    (tmp_path / "photos").mkdir()
    for kind in ("detector", "identity"):
        with pytest.raises(UserError, match=r"holds photos and 1 more, and no run: its files "
                                            r"would be mixed in"):  # fmt: skip
            check_run_start(tmp_path, kind, resume=False)  # type: ignore[arg-type]
    # ... where a run was started and stopped (its first record written), it may start over
    (tmp_path / "data.json").write_text('{"scenes": null}')
    check_run_start(tmp_path, "detector", resume=False)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / ".directory").write_text("a file manager's")  # (hidden files are no one's work)
    check_run_start(hidden, "identity", resume=False)
    # ... and drawings linked in from another run, to be taken up (as the fifth network's were)
    (hidden / "drawings-val-seed3-200.npz").symlink_to(tmp_path / "taxes.pdf")
    check_run_start(hidden, "identity", resume=False)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["train", "--resume"], "holds no detector run to go on with"),
        (["train-identity", "--resume"], "holds no identity run to go on with"),
    ],
)
def test_resume_with_no_run_is_refused(
    tmp_path: Path, argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a mistyped --run with --resume started a new run, saying so only in passing)
    assert main([*argv, "--run", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


def test_a_run_started_again_without_resume_is_refused_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a second `blitzcam train` in a run folder deleted its stages' weights and began again)
    (tmp_path / "recipe.json").write_text(json.dumps(SHIPPED.as_dict()))
    best = tmp_path / "train" / "weights" / "best.pt"
    best.parent.mkdir(parents=True)
    best.write_bytes(b"hours of training")
    assert main(["train", "--run", str(tmp_path), "--no-ship"]) == 2
    assert "holds a detector run already" in capsys.readouterr().err
    assert best.read_bytes() == b"hours of training"
    # ... and the identity network's command keeps off it
    assert main(["train-identity", "--run", str(tmp_path), "--no-ship"]) == 2
    assert "holds a detector run (`blitzcam train`), not an identity one" in capsys.readouterr().err
    assert (tmp_path / "recipe.json").read_text() == json.dumps(SHIPPED.as_dict())


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the lock is POSIX's flock")
@pytest.mark.parametrize(
    ("argv", "command"),
    [(["train", "--resume"], "blitzcam train"), (["train-identity"], "blitzcam train-identity")],
)
def test_a_run_folder_another_run_is_using_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], command: str
) -> None:
    # (a second `train --resume` started over in the first one's folder and deleted its weights;
    # the first died in a traceback, the folder left holding both runs' work; review)
    from blitzcam.models.run_kind import this_run_alone

    (tmp_path / "recipe.json").write_text(json.dumps(SHIPPED.as_dict()))
    with this_run_alone(tmp_path, command):  # the first run, still going
        assert main([*argv, "--run", str(tmp_path), "--no-ship"]) == 2
        assert capsys.readouterr().err.endswith(
            f"{tmp_path}: a training command is running in it already (`blitzcam train` or "
            "`train-identity`): one at a time in a run folder; wait for it to end, or stop it "
            f"first ({command} not started)\n"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["recipe.json"]  # nothing touched
    with this_run_alone(tmp_path, command):  # let go once that run ended: taken again
        pass


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the lock is POSIX's flock")
def test_a_run_folder_whose_filesystem_locks_nothing_is_used_unlocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a network folder without flock: ENOLCK was a traceback; the diff's review)
    import errno
    import fcntl

    from blitzcam.models.run_kind import this_run_alone

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with this_run_alone(tmp_path, "blitzcam train"):
        ran = True
    assert ran


def test_an_identity_checkpoint_of_another_recipe_is_refused_before_any_drawing_is_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch

    torch.save({"net": {}, "recipe": _identity_recipe(), "step": 50}, tmp_path / "last.pt")
    argv = ["train-identity", "--run", str(tmp_path), "--resume", "--late-scenes", "3"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "trained with another recipe (--late-scenes 0 there, 3 now)" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.pt"]


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--resume"],
        ["train", "--from-shipped"],  # no stage after the shipped ones (a review's case)
        ["train-identity", "--resume"],
    ],
)
def test_a_refused_run_leaves_no_folder_it_made(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "runs" / "new"
    assert main([*argv, "--run", str(run)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not run.exists()


@pytest.mark.parametrize("command", ["train", "train-identity"])
def test_a_scene_dataset_given_as_the_run_folder_is_refused_untouched(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # (train wrote its records into the dataset, then refused it as "not empty (pass
    # --overwrite)", an option it has not; the dataset then read as a detector run)
    (tmp_path / "scenes").mkdir()
    (tmp_path / "data.yaml").write_text("path: .\n")
    assert main([command, "--run", str(tmp_path), "--no-ship"]) == 2
    err = capsys.readouterr().err
    # (train-identity, which has no --data, was told to give it as --data; training-cli review)
    advice = "give it as --data, and another folder as --run" if command == "train" else "give another as --run"
    assert f"holds a scene dataset (`blitzcam dataset generate`), not a run: {advice}\n" in err
    assert err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.yaml", "scenes"]


def test_a_run_folder_that_cannot_be_written_is_said_in_a_line(tmp_path: Path) -> None:
    # (a read-only --run: a traceback from the first record written there)
    from blitzcam.errors import UserError
    from blitzcam.models.run_record import DATA_FILE, first_stage_scenes

    (tmp_path / DATA_FILE).mkdir()  # (as a file it cannot be written)
    with pytest.raises(UserError, match=rf"{DATA_FILE}: cannot write it \("):
        first_stage_scenes(tmp_path, None, resume=False)


def test_a_run_folder_whose_generated_scenes_are_a_dataset_is_still_a_run(tmp_path: Path) -> None:
    # (a detector run generates its scenes into scenes/ of its own: that dataset is not the run)
    from blitzcam.models.run_kind import check_run_start, is_scene_dataset

    (tmp_path / "scenes" / "scenes").mkdir(parents=True)
    (tmp_path / "scenes" / "data.yaml").write_text("path: .\n")
    (tmp_path / "recipe.json").write_text(json.dumps(SHIPPED.as_dict()))
    assert not is_scene_dataset(tmp_path) and is_scene_dataset(tmp_path / "scenes")
    check_run_start(tmp_path, "detector", resume=True)  # (refuses nothing)


def test_resume_of_a_run_stopped_before_its_first_step_says_what_it_made_is_used_again(
    tmp_path: Path,
) -> None:
    # (train-identity stopped while cutting drawings: --resume refused, the cutting said lost)
    from blitzcam.errors import UserError
    from blitzcam.models.run_kind import SHIP_FILE, check_run_start

    (tmp_path / SHIP_FILE).write_text('{"no_ship": true}')
    with pytest.raises(UserError) as bare:
        check_run_start(tmp_path, "identity", resume=True)
    assert "used again" not in str(bare.value)
    (tmp_path / "drawings-seed1-1500.npz").write_bytes(b"")
    with pytest.raises(UserError, match=r"leave out --resume to start one \(the scenes or drawings it has made so far are used again\)"):
        check_run_start(tmp_path, "identity", resume=True)
    check_run_start(tmp_path, "identity", resume=False)  # (a start takes the folder)


def test_resume_in_a_folder_that_cannot_be_listed_is_said_in_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from blitzcam.errors import UserError
    from blitzcam.models.run_kind import check_run_start

    def unlisted(self: Path) -> object:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", unlisted)
    with pytest.raises(UserError, match="holds no identity run to go on with"):
        check_run_start(tmp_path, "identity", resume=True)
