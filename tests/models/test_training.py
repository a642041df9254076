"""The training path end to end, tiny: generate -> crops -> train 1 epoch -> ONNX -> count."""

from __future__ import annotations

import csv
import itertools
import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from blitzcam.cli import main
from blitzcam.models.recipe import SHIPPED, Recipe
from tests.models.planted import Planted, was_run


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from blitzcam.datasets.generate import GenerateRequest, generate_dataset
    from blitzcam.models.training import export_onnx, train

    root = tmp_path_factory.mktemp("train")
    scenes = root / "scenes"
    generate_dataset(GenerateRequest(out=scenes, n=20, seed=5, res=(1280, 720), workers=1,
                                     progress=False))
    # every stage, tiny: stages 2-5 generate their own 12 scenes from their own seeds;
    # stage 3's and 5's time budgets (4 s) end them within their first epoch; of stage 4's two
    # crops a scene, one is on stage 3's mistakes where it made some; half of stage 5's scenes
    # are late rounds
    recipe = replace(SHIPPED, epochs=1, batch=4, crops_per_scene=2, export_hw=(320, 576),
                     scenes=12, refine_epochs=1, extend_scenes=12, extend_batch=4,
                     extend_hours=4 / 3600, harden_scenes=12, harden_epochs=1, more_scenes=12,
                     more_batch=4, more_hours=4 / 3600, more_late_share=0.5)
    weights = train(recipe, scenes_dir=scenes, run_dir=root / "run", resume=False, workers=2,
                    log=lambda _: None)
    assert weights.parent.parent.name == "more", weights  # the last stage's weights
    onnx = export_onnx(weights, recipe, root / "model.onnx")
    return scenes, onnx


@pytest.mark.slow
def test_a_trained_model_exports_and_runs_in_the_counting_pipeline(trained: tuple[Path, Path]) -> None:
    from blitzcam.files import sha256_of
    from blitzcam.vision.pipeline import CountingPipeline

    scenes, onnx = trained
    run = scenes.parent / "run"
    # (each named by the scenes it was cut from too: ten hex digits of their generator.json)
    assert len(list(run.glob("crops-320px-2x-seed0-??????????/data.yaml"))) == 1
    assert len(list(run.glob("refine-crops-320px-2x-seed0-??????????/data.yaml"))) == 1
    assert len(list(run.glob("harden-crops-320px-2x-seed0-??????????-hard0.5-*/data.yaml"))) == 1
    refined = list(csv.DictReader((run / "refine" / "results.csv").open()))
    assert [int(row["epoch"]) for row in refined] == [1]
    generated = json.loads((run / "refine-scenes" / "generator.json").read_text())
    assert generated["seed"] == SHIPPED.refine_data_seed
    generated = json.loads((run / "extend-scenes" / "generator.json").read_text())
    assert generated["seed"] == SHIPPED.extend_data_seed
    generated = json.loads((run / "harden-scenes" / "generator.json").read_text())
    assert generated["seed"] == SHIPPED.harden_data_seed
    generated = json.loads((run / "more-scenes" / "generator.json").read_text())
    assert (generated["seed"], generated["late_rounds"]) == (SHIPPED.more_data_seed, 0.5)
    # stage 3's mistakes on stage 4's train and val scenes, one entry per scene, named by the
    # weights mined
    (path,) = run.glob("harden-mistakes-*.json")
    assert sha256_of(run / "extend" / "weights" / "best.pt")[:12] in path.name
    mistakes = json.loads(path.read_text())
    images = run / "harden-scenes" / "images"
    assert sorted(mistakes) == sorted(
        f"{split}/{p.stem}" for split in ("train", "val") for p in (images / split).glob("*.jpg"))
    # in the frame the crops are cut from: the scene at the canonical width
    centres = np.array([c for cs in mistakes.values() for c in cs]).reshape(-1, 2)
    assert ((centres > -50) & (centres < (1280 + 50, 720 + 50))).all()
    for stage in ("train", "refine", "extend", "harden", "more"):
        finished = json.loads((run / stage / "finished.json").read_text())
        assert finished["epochs"] >= 1 and finished["device"].endswith("CPU"), (stage, finished)
    pipeline = CountingPipeline.from_defaults(model_path=onnx)
    assert pipeline.detector.names == ("back", "face")
    assert tuple(pipeline.detector.info.imgsz) == (320, 576)
    result = pipeline(np.full((720, 1280, 3), 128, np.uint8))
    assert set(result.counts) >= {"green-pump", "red-plow"}


@pytest.mark.slow
def test_each_stage_starts_from_the_previous_stages_weights(trained: tuple[Path, Path]) -> None:
    import torch

    scenes, _ = trained
    run = scenes.parent / "run"

    def weights(stage: str) -> torch.Tensor:
        # our own checkpoints, written by the fixture's training
        model = torch.load(run / stage / "weights" / "best.pt", weights_only=False)["model"]
        kernels = [p for p in model.parameters() if p.ndim == 4]  # the convolutions' kernels
        return torch.cat([p.float().flatten() for p in kernels])

    chain = [weights(stage) for stage in ("train", "refine", "extend", "harden", "more")]
    # one short epoch at a low learning rate moves the weights a little; re-initialised
    # weights (ultralytics' pretrained=False) would be uncorrelated with the stage before
    for before, after in itertools.pairwise(chain):
        assert torch.corrcoef(torch.stack([before, after]))[0, 1] > 0.9


@pytest.mark.slow
def test_evaluate_reports_on_the_scenes(trained: tuple[Path, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    scenes, onnx = trained
    report_path = tmp_path / "report.json"
    code = main(["evaluate", "--data", str(scenes), "--split", "test", "--model", str(onnx),
                 "--json", str(report_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "scenes counted exactly" in out
    report = json.loads(report_path.read_text())
    assert report["scenes"] == len(list((scenes / "scenes" / "test").glob("*.json")))
    assert 0.0 <= report["scene_exact_rate"] <= 1.0
    assert set(report["detector"]) == {"back", "face", "all"}
    # the sweep of the identity "unknown" line agrees with the counts at the operating line
    from blitzcam.vision.identify import CONSENSUS_LINK, SAME_DECK_LINK, UNKNOWN_BELOW
    from blitzcam.vision.pipeline import COUNT_IOU

    assert report["consensus_link"] == CONSENSUS_LINK
    assert report["same_deck_link"] == SAME_DECK_LINK and report["nms_iou"] == COUNT_IOU
    assert f"above: {CONSENSUS_LINK}" in out
    from blitzcam.vision.identify import LONE_ALIKE, SECOND_LOOK_ALIKE

    assert report["lone_alike"] == LONE_ALIKE
    assert f"join a decided group alike above {LONE_ALIKE}" in out
    assert report["second_look"] == SECOND_LOOK_ALIKE
    assert f"its best cut is alike above {SECOND_LOOK_ALIKE}" in out
    from blitzcam.vision.identify import READ_SCALES

    assert report["read_scales"] == list(READ_SCALES)
    assert "each drawing read " in out
    from blitzcam.vision.identify import NEAR_LINE_ALIKE, NEAR_LINE_FROM

    assert (report["near_line_from"], report["near_line_alike"]) == (NEAR_LINE_FROM,
                                                                     NEAR_LINE_ALIKE)  # fmt: skip
    assert f"(from {NEAR_LINE_FROM}: above {NEAR_LINE_ALIKE})" in out
    from blitzcam.vision.onnx_session import ENGINES

    assert report["engine"] in ENGINES and f"({report['engine']})" in out
    sweep = report["exact_rate_by_unknown_below"]
    assert sweep[str(UNKNOWN_BELOW)] == report["scene_exact_rate"]
    assert all(0.0 <= rate <= 1.0 for rate in sweep.values())
    assert report["in_play"] == "every deck of the profile"
    # each inexact scene's mistakes, in the JSON and the table (models/mistakes.py)
    details = report["inexact_detail"]
    assert [d["scene"] for d in details] == report["inexact_scenes"]
    assert all(d["cause"] in ("detector", "identification") for d in details)
    assert ("inexact scenes: known decks off" in out) == bool(details)
    # generated scenes say what they were made under: every scene is in each slice once
    light = report["exact_by_condition"]["light"]
    assert sum(row["scenes"] for row in light.values()) == report["scenes"]
    exact = round(report["scene_exact_rate"] * report["scenes"])
    assert sum(row["exact"] for row in light.values()) == exact
    assert "scenes exact by what they were made under" in out and "  light       " in out
    from blitzcam.vision.tiling import ZOOM_BELOW, ZOOM_SIZED_FROM

    assert (report["zoom_below"], report["sized_from"]) == (ZOOM_BELOW, ZOOM_SIZED_FROM)
    assert report["tiles_read"] >= report["scenes_read_in_tiles"] >= 0
    assert (
        f"scenes read again in tiles, their backs under {ZOOM_BELOW} network pixels (judged by "
        f"the backs from confidence {ZOOM_SIZED_FROM}): "
    ) in out
    # the recipe's scenes are 16:9, as the network input is: none is worth turning
    assert report["turn_to_fill"] is True and report["scenes_read_turned"] == 0
    assert "scenes read turned a quarter, filling the network input better so: 0" in out
    # each scene decided among its own decks, at the in-play line
    from blitzcam.vision.identify import UNKNOWN_BELOW_IN_PLAY

    # (and on the other engine, which the report names)
    code = main(["evaluate", "--data", str(scenes), "--split", "test", "--model", str(onnx),
                 "--in-play", "--engine", "onnxruntime", "--json", str(report_path)])
    capsys.readouterr()
    report = json.loads(report_path.read_text())
    assert code == 0 and report["in_play"] == "each scene's own decks"
    assert report["engine"] == "onnxruntime"
    assert report["unknown_below"] == UNKNOWN_BELOW_IN_PLAY
    assert report["exact_rate_by_unknown_below"][str(UNKNOWN_BELOW_IN_PLAY)] == report[
        "scene_exact_rate"
    ]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["train", "--epochs", "0"], "--epochs must be a positive number, got 0"),
        (["train", "--scenes", "-3"], "--scenes must be a positive number, got -3"),
        (["train", "--scenes", "2"], "--scenes must be from 3 (a tenth of them validate) to 1,000,000, got 2"),
        # (over the generator's most: a traceback once its stage began, hours into the run)
        (["train", "--scenes", "2000000"], "--scenes must be from 3 (a tenth of them validate) to 1,000,000"),
        (["train", "--more-hours", "1", "--more-scenes", "2000000"], "--more-scenes must be from 3"),
        (["train", "--data", "/nonexistent/scenes"], "--data /nonexistent/scenes: no such folder"),
        (["train", "--device", "gpu"], "--device must be cpu or a CUDA device index"),
        (["train", "--device", "²"], "--device must be cpu or a CUDA device index"),
        (["train", "--workers", "0"], "--workers must be a positive number, got 0"),
        (["train", "--more-hours", "-1"], "--more-hours must be a positive number, got -1.0"),
        # 0 is the default said ("default 0: none"): no stage 5, so nothing of its may be given
        (["train", "--more-hours", "0", "--more-scenes", "500"], "--more-scenes: stage 5 trains only with a budget"),
        (["train", "--more-hours", "1", "--more-lr0", "1e308"],
         "--more-lr0 must be a learning rate of at most 0.1, got 1e+308 (the recipe's is 0.0005)"),
        (["train", "--more-hours", "nan"], "--more-hours must be a positive number, got nan"),
        (["train", "--more-hours", "inf"], "--more-hours must be a positive number, got inf"),
        (["train", "--more-hours", "1", "--more-scenes", "2"], "--more-scenes must be from 3"),
        (["train", "--more-scenes", "500"], "--more-scenes: stage 5 trains only with a budget"),
        (["train", "--more-wide-art"], "--more-wide-art: stage 5 trains only with a budget"),
        (["train", "--more-lr0", "0.001"], "--more-lr0: stage 5 trains only with a budget"),
        (["train", "--more-hours", "1", "--more-lr0", "-1"],
         "--more-lr0 must be a positive number, got -1.0"),
        (["train", "--from-shipped", "--epochs", "3", "--more-hours", "1"],
         "--epochs: settings of the first stage, which --from-shipped does not train"),
        (["train", "--from-shipped", "--data", "/tmp", "--scenes", "9"],
         "--data, --scenes: settings of the first stage"),
        (["evaluate", "--data", "/nonexistent/scenes"], "--data /nonexistent/scenes: no such folder"),
        (["evaluate", "--data", "/"], "/: no labelled scenes: not a `blitzcam dataset generate`"),
        # a report that could not be written is found out before the run, not after it
        (["evaluate", "--json", "/nonexistent/folder/r.json"], "no such folder /nonexistent/folder"),
        (["evaluate", "--json", "/"], "--json /: is a folder"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv: list[str], fragment: str,
                                           capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # a check that lets one through trains there, not in the checkout's runs/detector
    monkeypatch.setattr("blitzcam.paths.runs_root", lambda: tmp_path / "runs")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err


def test_a_run_folder_or_report_that_cannot_be_is_one_line_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (`--run` naming a file was a FileExistsError traceback; a report naming a loop of links
    # was found out only after the whole evaluation)
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling.json"  # (found out after the whole run, as the next one)
    dangling.symlink_to(tmp_path / "gone" / "r.json")
    for argv, fragment in [
        (["train", "--run", str(a_file)], f"--run {a_file}: cannot use it as a folder"),
        (["train-identity", "--run", str(a_file)], f"--run {a_file}: cannot use it as a folder: it is a file"),
        # ("File exists": of a folder that was not there)
        (["train", "--run", str(a_file / "run")], f"cannot use it as a folder: {a_file} is a file, not a folder"),
        (["evaluate", "--json", str(loop)], f"--json {loop}: a loop of links"),
        (["evaluate", "--json", str(dangling)], f"--json {dangling}: a link to "),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert fragment in err and err.count("\n") == 1, err
    assert a_file.read_text() == "not a folder"



def test_a_run_folder_linked_to_a_drive_not_plugged_in_is_refused_and_nothing_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (the link's folders were made under the mount point, on the system's disk, and a
    # refused --resume left them; so did a refused run two folders deep)
    unplugged = tmp_path / "media" / "usb"
    for command in ("train", "train-identity"):
        (tmp_path / "run").unlink(missing_ok=True)
        (tmp_path / "run").symlink_to(unplugged / "runs")
        assert main([command, "--run", str(tmp_path / "run"), "--resume", "--trial"]) == 2
        err = capsys.readouterr().err
        assert (f"--run {tmp_path / 'run'}: cannot use it as a folder: a link to {unplugged / 'runs'}"
                ", in no folder that is there (a drive not plugged in?)") in err, err
        assert not (tmp_path / "media").exists()
    # a folder on the way that is such a link (`runs` on the drive: `runs/identity` made there)
    (tmp_path / "runs").symlink_to(unplugged / "runs")
    assert main(["train-identity", "--run", str(tmp_path / "runs" / "identity"), "--trial"]) == 2
    assert f"{tmp_path / 'runs'} is a link to {unplugged / 'runs'}, in no folder" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "media").exists()
    deep = tmp_path / "a" / "b" / "run"
    assert main(["train", "--run", str(deep), "--resume", "--trial"]) == 2
    assert "holds no detector run to go on with" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()
    # a link made on purpose to where a run is to be, its folder there, is taken
    (tmp_path / "media").mkdir()
    (tmp_path / "run").unlink()
    (tmp_path / "run").symlink_to(tmp_path / "media" / "runs")
    from blitzcam.paths import run_folder

    assert run_folder(tmp_path / "run", "--run") == tmp_path / "media" / "runs"
    assert (tmp_path / "media" / "runs").is_dir()


def test_a_report_file_the_system_will_not_let_be_written_is_said_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a read-only file: refused only after the whole evaluation; root writes any mode, so the
    # system's refusal is stood in for)
    import errno
    import os

    report = tmp_path / "r.json"
    report.write_text("{}")
    real_open = os.open

    def refusing(path, flags, *args):
        if Path(path) == report and flags & os.O_WRONLY:
            raise PermissionError(errno.EPERM, "Operation not permitted", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing)
    monkeypatch.setattr("blitzcam.paths.runs_root", lambda: tmp_path / "runs")  # (a check let through: no run)
    assert main(["evaluate", "--json", str(report)]) == 2
    err = capsys.readouterr().err
    assert f"--json {report}: cannot write it: Operation not permitted" in err
    assert report.read_text() == "{}"


RESUMABLE = """
import sys
from dataclasses import replace
from pathlib import Path
from blitzcam.models.recipe import SHIPPED
from blitzcam.models.training import train
recipe = replace(SHIPPED, epochs=3, batch=4, crops_per_scene=1, refine_epochs=0, extend_hours=0,
                 harden_epochs=0)
train(recipe, scenes_dir=Path(sys.argv[1]), run_dir=Path(sys.argv[2]), resume=sys.argv[3] == "1",
      workers=0)
"""


@pytest.mark.slow
def test_an_interrupted_run_resumes_from_its_last_checkpoint(
    trained: tuple[Path, Path], tmp_path: Path
) -> None:
    import csv
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    from blitzcam.models.run_kind import FINISHED_FILE
    from blitzcam.models.run_timing import train_seconds

    scenes, _ = trained
    run_dir = tmp_path / "run"
    script = tmp_path / "train.py"
    script.write_text(RESUMABLE)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    first = subprocess.Popen([sys.executable, str(script), str(scenes), str(run_dir), "0"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = run_dir / "train" / "results.csv"
    last = run_dir / "train" / "weights" / "last.pt"
    from blitzcam.errors import UserError
    from blitzcam.models.training import _checkpoint

    def whole() -> bool:  # written to its end (ultralytics writes it in place, not atomically)
        try:
            return last.is_file() and bool(_checkpoint(last))
        except UserError:
            return False

    deadline = time.monotonic() + 240
    while not whole() and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)  # interrupted after its first epoch
    first.wait()
    assert last.is_file()
    before = list(csv.DictReader(results.open()))
    assert 1 <= len(before) < 3
    # the killed session's time was kept with its checkpoint, for the run and for the stage
    killed_after = train_seconds(run_dir)
    assert killed_after > 0
    assert train_seconds(run_dir / "train") == pytest.approx(killed_after)
    # resumed in another folder (a run copied back from a GPU machine, or moved): it trains
    # there, on its own crops; the checkpoint's paths once made it train the old folder
    import shutil

    moved = tmp_path / "moved"
    shutil.move(run_dir, moved)
    # ... with only its checkpoint (a fresh GPU machine): its crops are cut again, the same
    (crops,) = moved.glob("crops-*/data.yaml")
    labels = {p.name: p.read_bytes() for p in (crops.parent / "labels").rglob("*.txt")}
    shutil.rmtree(crops.parent)
    subprocess.run([sys.executable, str(script), str(scenes), str(moved), "1"], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    assert not run_dir.exists()
    assert {p.name: p.read_bytes() for p in (crops.parent / "labels").rglob("*.txt")} == labels
    run_dir, results = moved, moved / "train" / "results.csv"
    assert train_seconds(run_dir) > killed_after
    finished = json.loads((run_dir / "train" / FINISHED_FILE).read_text())
    assert finished["seconds"] == pytest.approx(train_seconds(run_dir / "train"))
    after = list(csv.DictReader(results.open()))
    assert [int(row["epoch"]) for row in after] == [1, 2, 3]
    # continued where it stopped: the epochs done before are kept as they were, not redone
    assert after[: len(before)] == before


@pytest.mark.parametrize("no_ship", [False, True])
def test_a_run_from_the_shipped_weights_never_replaces_them(
    no_ship: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `train --from-shipped --more-hours H` without --no-ship put unmeasured weights in models/,
    # over the very file it went on from (which recipe.py's digest and the model card name)
    import blitzcam.models.training as training

    exported: list[Path] = []
    monkeypatch.setattr(training, "train", lambda recipe, **kw: tmp_path / "best.pt")
    monkeypatch.setattr(training, "calibration_scenes", lambda run_dir: [])
    monkeypatch.setattr(training, "ship", lambda weights, recipe, target, calibration: (
        exported.append(target) or {k: target / k for k in ("pt", "onnx", "int8")}))  # fmt: skip
    run = tmp_path / "run"
    argv = ["train", "--from-shipped", "--more-hours", "0.1", "--run", str(run)]
    assert main(argv + (["--no-ship"] if no_ship else [])) == 0, capsys.readouterr().err
    assert exported == [run.resolve() / "export"]

def _trained_nowhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[list[Recipe], list[Path]]:
    """`blitzcam train` with nothing trained, generated or exported: the recipes it would
    train and the folders it would export into, as lists that fill as it runs."""
    import blitzcam.models.run_kind as run_kind
    import blitzcam.models.run_record as run_record
    import blitzcam.models.training as training

    trained: list[Recipe] = []
    exported: list[Path] = []
    monkeypatch.setattr(run_kind, "check_run_start", lambda *a, **kw: None)
    monkeypatch.setattr(run_record, "first_stage_scenes", lambda *a, **kw: None)
    monkeypatch.setattr(training, "train", lambda recipe, **kw: trained.append(recipe) or tmp_path / "best.pt")
    monkeypatch.setattr(training, "calibration_scenes", lambda run_dir: [])
    monkeypatch.setattr(training, "ship", lambda weights, recipe, target, calibration: (
        exported.append(target) or {k: target / k for k in ("pt", "onnx", "int8")}))  # fmt: skip
    return trained, exported


def test_train_runs_no_more_workers_than_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (`--workers 40` started forty interpreters to cut four scenes' crops, on two cores)
    import os

    import blitzcam.models.training as training

    _trained_nowhere(monkeypatch, tmp_path)
    given: list[int] = []
    monkeypatch.setattr(training, "train", lambda recipe, **kw: given.append(kw["workers"]) or tmp_path / "best.pt")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert main(["train", "--trial", "--run", str(tmp_path / "run"), "--workers", "40"]) == 0
    assert given == [2]
    assert "note: --workers 40: this machine has 2 cores; 2 used" in capsys.readouterr().err
    # the default, on one core: one used, and no note of an option nobody typed (a review)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert main(["train", "--trial", "--run", str(tmp_path / "run3")]) == 0
    assert given[-1] == 1 and "--workers" not in capsys.readouterr().err
    assert main(["train", "--trial", "--run", str(tmp_path / "run2"), "--workers", "3"]) == 0
    assert given[-1] == 1
    assert "this machine has 1 core; 1 used" in capsys.readouterr().err


def test_a_trial_trains_every_stage_tiny_and_keeps_its_weights_in_its_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (the smallest run took 20 minutes and 2 GB: stage 3 generated its 8,000 scenes whatever
    # the first stages' options)
    from blitzcam.models.recipe import TRIAL
    from blitzcam.models.stages import stages

    trained, exported = _trained_nowhere(monkeypatch, tmp_path)
    run = tmp_path / "run"
    assert main(["train", "--trial", "--run", str(run)]) == 0, capsys.readouterr().err
    assert trained == [TRIAL] and exported == [run.resolve() / "export"]
    # its next steps measure the run's own detector (the hint scored the shipped one), and say
    # it is not to be shipped (they said how to ship it; first-hour review)
    said = capsys.readouterr().out.splitlines()[-1]
    export = run.resolve() / "export"
    assert said.startswith(f"next: `blitzcam evaluate --model {export / 'onnx'} --data DIR")
    assert "to ship it" not in said and "is not to be shipped" in said
    assert [stage.name for stage in stages(TRIAL)] == [stage.name for stage in stages(SHIPPED)]
    assert max(stage.scenes for stage in stages(TRIAL)) <= 20 and TRIAL.extend_hours <= 1 / 60
    # an option given is over the trial's own
    assert main(["train", "--trial", "--epochs", "2", "--run", str(tmp_path / "two")]) == 0
    assert trained[-1] == replace(TRIAL, epochs=2)
    assert main(["train", "--trial", "--from-shipped", "--more-hours", "0.1"]) == 2
    assert "--trial trains every stage from the first" in capsys.readouterr().err


def test_an_interrupted_run_says_how_to_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import blitzcam.models.training as training

    _trained_nowhere(monkeypatch, tmp_path)

    def interrupted(recipe: Recipe, *, run_dir: Path, **_: object) -> Path:
        if begun:  # (its recipe is written as its first stage begins)
            (run_dir / "recipe.json").write_text(json.dumps(recipe.as_dict()))
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "train", interrupted)
    for begun, said in ((False, ""), (True, ": the same command with --resume goes on")):
        run = tmp_path / f"run-{begun}"
        assert main(["train", "--trial", "--run", str(run)]) == 130
        assert capsys.readouterr().err == f"blitzcam train: interrupted{said}\n"
    # before the run began, --resume refuses it as no run (the hint would have sent one there)
    from blitzcam.models.run_kind import run_kind

    assert run_kind(tmp_path / "run-False") is None


def test_a_run_killed_by_sigterm_says_how_to_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (`kill` or `timeout` mid-stage exited 143 without a word, where Ctrl+C said how to go
    # on; review). The handler is called as the signal would call it: a real SIGTERM sent to
    # the test's own process, after torch's tests, took the whole run down in CI.
    import signal

    import blitzcam.models.training as training

    _trained_nowhere(monkeypatch, tmp_path)
    before = signal.getsignal(signal.SIGTERM)

    def killed(recipe: Recipe, *, run_dir: Path, **_: object) -> Path:
        (run_dir / "recipe.json").write_text(json.dumps(recipe.as_dict()))
        signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
        raise AssertionError("SIGTERM did not stop the run")

    monkeypatch.setattr(training, "train", killed)
    assert main(["train", "--trial", "--run", str(tmp_path / "run")]) == 143
    said = capsys.readouterr().err
    assert said == "blitzcam train: terminated: the same command with --resume goes on\n"
    assert signal.getsignal(signal.SIGTERM) is before  # (put back)


def test_resume_goes_on_with_the_run_s_own_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a run started with --scenes 3 --epochs 1 --batch 2 was refused a plain --resume ("pass
    # the same options"): each had to be typed again
    import json

    trained, _ = _trained_nowhere(monkeypatch, tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    started = replace(SHIPPED, scenes=3, epochs=1, batch=2)
    (run / "recipe.json").write_text(json.dumps(started.as_dict()))
    assert main(["train", "--run", str(run), "--resume", "--no-ship"]) == 0, capsys.readouterr().err
    assert trained == [started]
    # an option given over it is the run's to refuse when it differs (as before)
    assert main(["train", "--run", str(run), "--resume", "--no-ship", "--epochs", "1"]) == 0
    assert trained[-1] == started
    # a new run takes the shipped recipe, whatever the folder held
    assert main(["train", "--run", str(run), "--no-ship"]) == 0
    assert trained[-1] == SHIPPED


@pytest.mark.parametrize(
    ("model_yaml", "why"),
    [
        ("yolo11n-obb.pt", "a weights file's name a download"),  # (it was: github.com)
        ("../models/x.yaml", "is not the name of a model yaml"),
        ("yolo11q-obb.yaml", "the ultralytics package has no such model yaml"),
        # (a number: "model_yaml must be text", test_run_record's)
    ],
)
def test_a_run_whose_recipe_names_no_model_yaml_of_the_package_is_refused_before_training(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], model_yaml, why
) -> None:
    # (an edited recipe.json's "yolo11n-obb.pt" made `train --resume` ask GitHub for the weights:
    # ultralytics downloads a weights file's name whatever YOLO_OFFLINE says; training-cli review)
    import json

    trained, _ = _trained_nowhere(monkeypatch, tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    (run / "recipe.json").write_text(json.dumps({**SHIPPED.as_dict(), "model_yaml": model_yaml}))
    assert main(["train", "--run", str(run), "--resume", "--no-ship"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"blitzcam train: error: {run / 'recipe.json'}: model_yaml {model_yaml!r}")
    assert why in err and len(err.strip().splitlines()) == 1
    assert trained == []


@pytest.mark.parametrize("errno_name", ["EACCES", "EROFS"])
def test_a_run_folder_that_takes_no_writing_is_said_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], errno_name
) -> None:
    # (resumed in a folder made read-only since, ultralytics' PermissionError writing
    # train/args.yaml, or the export's best.onnx, ended in a traceback; training-cli review)
    import errno

    import blitzcam.models.training as training

    _trained_nowhere(monkeypatch, tmp_path)
    args_yaml = tmp_path / "run" / "train" / "args.yaml"
    code = getattr(errno, errno_name)

    def refused(recipe, **kw):
        raise OSError(code, os.strerror(code), str(args_yaml))

    monkeypatch.setattr(training, "train", refused)
    assert main(["train", "--run", str(tmp_path / "run"), "--no-ship"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"blitzcam train: error: {args_yaml}: cannot use it ({os.strerror(code)}): a run goes on "
        "with --resume once its folder can be written\n"
    )
    # a file of no run (--data's scenes unreadable) is said plainly: no run to resume there
    scenes = tmp_path / "scenes" / "images" / "train"

    def unreadable(recipe, **kw):
        raise OSError(code, os.strerror(code), str(scenes))

    monkeypatch.setattr(training, "train", unreadable)
    assert main(["train", "--run", str(tmp_path / "run"), "--no-ship"]) == 2
    assert capsys.readouterr().err == (
        f"blitzcam train: error: {scenes}: cannot use it ({os.strerror(code)})\n"
    )
    from blitzcam.commands import train_identity

    assert train_identity._train_identity.__wrapped__  # (train-identity's writes said alike)
    # another OSError is no such refusal, and is not said as one
    monkeypatch.setattr(training, "train", lambda recipe, **kw: (_ for _ in ()).throw(OSError(errno.EIO, "I/O")))
    with pytest.raises(OSError, match="I/O"):
        main(["train", "--run", str(tmp_path / "run"), "--no-ship"])


def test_the_trial_keeps_the_stages_off_by_default_tiny_too() -> None:
    # (`train --trial --more-hours H` generated stage 5's 12,000 scenes, some 34 minutes and
    # 2.6 GB; training-cli review)
    from blitzcam.models.recipe import TRIAL

    assert (TRIAL.harden_scenes, TRIAL.more_scenes, TRIAL.more_batch) == (20, 20, 4)
    scenes = [value for field, value in TRIAL.as_dict().items() if field.endswith("scenes")]
    assert max(scenes) == 20


def test_a_run_started_with_no_ship_keeps_to_its_folder_when_resumed_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (`train --no-ship`, then `train --resume` as the README showed it, put the run's weights
    # over the shipped ones)
    from blitzcam.models import MODELS_DIR

    _, exported = _trained_nowhere(monkeypatch, tmp_path)
    run = tmp_path / "run"
    assert main(["train", "--run", str(run), "--no-ship"]) == 0
    capsys.readouterr()
    assert main(["train", "--run", str(run), "--resume"]) == 0
    assert capsys.readouterr().out.startswith(f"{run.resolve()}: started with --no-ship, so its result stays in the run folder\n")
    assert exported == [run.resolve() / "export"] * 2
    # a run started to ship ships when resumed (a run from before the record: as given)
    other = tmp_path / "other"
    assert main(["train", "--run", str(other)]) == 0
    (run / "ship.json").unlink()
    assert main(["train", "--run", str(other), "--resume"]) == 0
    assert main(["train", "--run", str(run), "--resume"]) == 0
    assert exported[2:] == [MODELS_DIR] * 3


def test_a_trial_resumed_without_trial_is_a_trial_still(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (resumed without --trial it was said "started with --no-ship" and told how to ship the
    # trial's detector; training review)
    from blitzcam.models.recipe import TRIAL

    _, exported = _trained_nowhere(monkeypatch, tmp_path)
    run = tmp_path / "run"
    assert main(["train", "--trial", "--run", str(run)]) == 0
    (run / "recipe.json").write_text(json.dumps(TRIAL.as_dict()))  # (as `train` writes it)
    capsys.readouterr()
    assert main(["train", "--run", str(run), "--resume"]) == 0
    out = capsys.readouterr().out
    assert "ship it" not in out and "not to be shipped" in out and "--no-ship" not in out
    assert exported == [run.resolve() / "export"] * 2
    # ... started with an option too (its recipe no longer the trial's): as ship.json records
    # it (diff review)
    other = tmp_path / "other"
    assert main(["train", "--trial", "--epochs", "2", "--run", str(other)]) == 0
    (other / "recipe.json").write_text(json.dumps(replace(TRIAL, epochs=2).as_dict()))
    capsys.readouterr()
    assert main(["train", "--run", str(other), "--resume"]) == 0
    out = capsys.readouterr().out
    assert "ship it" not in out and "not to be shipped" in out


def test_a_resume_with_another_recipe_is_refused_before_it_says_where_its_result_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # ("started with --no-ship, so its result stays in the run folder", then the refusal)
    from blitzcam.models.recipe import SHIPPED

    _, exported = _trained_nowhere(monkeypatch, tmp_path)
    run = tmp_path / "run"
    assert main(["train", "--run", str(run), "--no-ship"]) == 0
    (run / "recipe.json").write_text(json.dumps(SHIPPED.as_dict()))  # (as `train` writes it)
    capsys.readouterr()
    assert main(["train", "--run", str(run), "--resume", "--epochs", "3"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "resumed with another recipe than its recipe.json (epochs" in err
    assert exported == [run.resolve() / "export"]


def test_a_full_disk_while_training_is_one_line_saying_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a checkpoint's save on a full disk was a traceback; training review)
    import errno

    import blitzcam.models.training as training

    _trained_nowhere(monkeypatch, tmp_path)

    def full(recipe, **kw):
        raise OSError(errno.ENOSPC, "No space left on device", "best.pt")

    monkeypatch.setattr(training, "train", full)
    run = tmp_path / "run"
    assert main(["train", "--trial", "--run", str(run)]) == 1
    err = capsys.readouterr().err
    assert err == (
        "blitzcam train: error: training stopped: No space left on device (best.pt); make room, "
        "then run the same command with --resume: it goes on from what was saved, or says what "
        "to do\n"
    )


@pytest.mark.slow
def test_the_stage_5_gpu_script_starts_a_run_on_a_fresh_machine_and_goes_on_with_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (it asked to go on from the shipped weights with --resume in an empty folder, refused
    # since 794671b: the one lent call would have ended in a second; review)
    import importlib.util

    from blitzcam.models import training

    spec = importlib.util.spec_from_file_location(
        "gpu_detector_more", Path(__file__).parents[2] / "scripts" / "gpu_detector_more.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    trained: list[bool] = []
    monkeypatch.setattr(training, "train", lambda *a, resume, **k: trained.append(resume))
    run = tmp_path / "detector-run"
    script.main([str(run), "0.001", "12", "cpu", "1"])  # a fresh machine's empty folder
    script.main([str(run), "0.001", "12", "cpu", "1"])  # a warm machine's, or RESUME_FROM's
    assert trained == [True, True] and (run / "extend" / "finished.json").is_file()


def test_stage_5_trains_from_the_shipped_weights(tmp_path: Path) -> None:
    # the path a lent GPU runs (scripts/gpu_detector_more.sh), tiny, on the CPU
    import torch

    from blitzcam.models import DETECTOR_PT
    from blitzcam.models.run_record import go_on_from_shipped
    from blitzcam.models.training import train

    # (the recipe's batch of 64 holds every crop: one batch, one optimizer step; ultralytics
    # steps once every 64 images, so a batch of 4 would not have stepped in the 4 s)
    recipe = replace(SHIPPED, more_hours=4 / 3600, more_scenes=12)
    run = tmp_path / "run"
    go_on_from_shipped(run, recipe, DETECTOR_PT, resume=False)
    lines: list[str] = []
    weights = train(recipe, scenes_dir=None, run_dir=run, resume=True, workers=1, log=lines.append)
    assert weights == run.resolve() / "more" / "weights" / "best.pt"
    assert [line for line in lines if "complete" in line] == [
        f"stage {name} is complete" for name in ("train", "refine", "extend")]
    generated = json.loads((run / "more-scenes" / "generator.json").read_text())
    assert (generated["n"], generated["late_rounds"]) == (12, SHIPPED.more_late_share)
    finished = json.loads((run / "more" / "finished.json").read_text())
    assert finished["epochs"] == 1 and "shipped" not in finished

    def kernels(path: Path) -> torch.Tensor:  # our own checkpoints: the shipped one, this run's
        model = torch.load(path, weights_only=False)["model"]
        return torch.cat([p.float().flatten() for p in model.parameters() if p.ndim == 4])

    before, after = kernels(DETECTOR_PT), kernels(weights)
    assert not torch.equal(before, after)  # trained ...
    assert torch.corrcoef(torch.stack([before, after]))[0, 1] > 0.9  # ... from the shipped ones


def test_resuming_a_run_whose_every_stage_is_done_leaves_only_the_export(tmp_path: Path) -> None:
    # the export after training (calibration scenes, ONNX, int8) is what a kill then stops:
    # --resume refused ("nothing to resume"), and a run without it trained everything again
    import torch

    from blitzcam.models.run_kind import FINISHED_FILE
    from blitzcam.models.stages import stages
    from blitzcam.models.training import train

    for stage in stages(SHIPPED):
        (tmp_path / stage.name / "weights").mkdir(parents=True)
        (tmp_path / stage.name / FINISHED_FILE).write_text("{}")
        torch.save({"epoch": -1}, tmp_path / stage.name / "weights" / "best.pt")
    lines: list[str] = []
    weights = train(SHIPPED, scenes_dir=None, run_dir=tmp_path, resume=True, log=lines.append)
    assert weights == tmp_path.resolve() / stages(SHIPPED)[-1].name / "weights" / "best.pt"
    assert any("only the export is left" in line for line in lines)


@pytest.mark.parametrize("damage", ["cut", "gone"])
def test_a_finished_stage_whose_weights_are_damaged_is_said_not_a_traceback(
    tmp_path: Path, damage: str
) -> None:
    # the next stage or the export took them: a traceback advising to download yolo26n.pt
    # (and a file not there is one ultralytics' loader would download; review)
    import torch

    from blitzcam.errors import UserError
    from blitzcam.models.run_kind import FINISHED_FILE
    from blitzcam.models.stages import stages
    from blitzcam.models.training import train

    for stage in stages(SHIPPED):
        (tmp_path / stage.name / "weights").mkdir(parents=True)
        (tmp_path / stage.name / FINISHED_FILE).write_text("{}")
        torch.save({"epoch": -1}, tmp_path / stage.name / "weights" / "best.pt")
    last = tmp_path.resolve() / stages(SHIPPED)[-1].name  # (the weights the export takes)
    best = last / "weights" / "best.pt"
    if damage == "cut":
        best.write_bytes(best.read_bytes()[:100])
    else:
        best.unlink()
    with pytest.raises(UserError) as caught:
        train(SHIPPED, scenes_dir=None, run_dir=tmp_path, resume=True, log=lambda _: None)
    said = str(caught.value)
    assert said.startswith(f"{last / 'weights' / ('best.pt' if damage == 'cut' else 'last.pt')}: ")
    assert said.endswith(f"delete the folder {last} and run with --resume: stage {last.name} trains again")


@pytest.mark.slow
def test_ship_puts_the_weights_and_their_export_into_models(
    trained: tuple[Path, Path], tmp_path: Path
) -> None:
    from blitzcam.files import sha256_of
    from blitzcam.models.quantize import calibration_images
    from blitzcam.models.training import ship
    from blitzcam.vision.detector import Detector

    scenes, _ = trained
    weights = scenes.parent / "run" / "harden" / "weights" / "best.pt"
    calibration = calibration_images(scenes)[:4]
    shipped = ship(weights, replace(SHIPPED, export_hw=(320, 576)), tmp_path, calibration)
    assert sha256_of(shipped["pt"]) == sha256_of(weights)
    assert tuple(Detector(shipped["onnx"]).info.imgsz) == (320, 576)
    int8 = Detector(shipped["int8"])  # the counting path's: the float export's metadata kept
    assert (int8.info.imgsz, int8.names) == (Detector(shipped["onnx"]).info.imgsz, ("back", "face"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "blitzcam-obb-int8.onnx", "blitzcam-obb.onnx", "blitzcam-obb.pt"]


@pytest.mark.parametrize("failing", ["export", "quantization"])
def test_a_failed_step_leaves_the_shipped_files_as_they_were(
    failing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from blitzcam.models import quantize, training

    old = {"blitzcam-obb.pt": b"old weights", "blitzcam-obb.onnx": b"old export",
           "blitzcam-obb-int8.onnx": b"old int8"}
    for name, data in old.items():
        (tmp_path / name).write_bytes(data)
    weights = tmp_path / "best.pt"
    weights.write_bytes(b"new weights")

    def failing_export(weights: Path, recipe: object, out: Path) -> Path:
        out.write_bytes(b"half an export")
        raise RuntimeError("export failed")

    def failing_quantization(fp32: Path, out: Path, images: object) -> Path:
        out.write_bytes(b"half an int8")
        raise RuntimeError("calibration failed")

    if failing == "export":
        monkeypatch.setattr(training, "export_onnx", failing_export)
    else:
        monkeypatch.setattr(training, "export_onnx", lambda w, r, out: out.write_bytes(b"new"))
        monkeypatch.setattr(quantize, "quantize_detector", failing_quantization)
    expected = "export failed" if failing == "export" else "calibration failed"
    with pytest.raises(RuntimeError, match=expected):
        training.ship(weights, SHIPPED, tmp_path, [])
    assert {name: (tmp_path / name).read_bytes() for name in old} == old
    # no staged file left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*old, "best.pt"])


def test_a_run_folder_with_other_scenes_is_refused_not_trained_on(tmp_path: Path) -> None:
    import json

    from blitzcam.errors import UserError
    from blitzcam.models.training import generated_scenes

    scenes = tmp_path / "scenes"
    scenes.mkdir()
    (scenes / "data.yaml").write_text("path: .\n")
    (scenes / "generator.json").write_text(json.dumps({"n": 3, "seed": 1, "holdout": True}))
    assert generated_scenes(scenes, 3, 1) == scenes  # made as asked: used as it is
    for n, seed, said in ((4, 1, "n 3, not n 4"), (3, 2, "seed 1, not seed 2")):
        with pytest.raises(UserError, match=rf"made with {said}: use another run folder"):
            generated_scenes(scenes, n, seed)
    # a late-round set of the same n and seed is not the recipe's scenes either
    late = {"n": 3, "seed": 1, "holdout": True, "late_rounds": 1.0}
    (scenes / "generator.json").write_text(json.dumps(late))
    with pytest.raises(UserError, match=r"made with late_rounds 1.0, not late_rounds 0.0:"):
        generated_scenes(scenes, 3, 1)
    # nor is one of the same n and seed drawn from the wider art families, nor the other way
    (scenes / "generator.json").write_text(json.dumps({**late, "late_rounds": 0.0,
                                                       "wide_art": True}))  # fmt: skip
    with pytest.raises(UserError, match=r"made with wide_art True, not wide_art False:"):
        generated_scenes(scenes, 3, 1)
    assert generated_scenes(scenes, 3, 1, wide_art=True) == scenes
    (scenes / "generator.json").write_text(json.dumps({"n": 3, "seed": 1, "holdout": True}))
    with pytest.raises(UserError, match=r"made with wide_art False, not wide_art True:"):
        generated_scenes(scenes, 3, 1, wide_art=True)
    (scenes / "generator.json").write_text("{broken")
    with pytest.raises(UserError, match=r"its generator\.json cannot be read, so these may not be"):
        generated_scenes(scenes, 3, 1)


def test_generating_the_recipes_scenes_says_so_on_stderr_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `blitzcam evaluate --json -` without --data generates them first: a line on stdout came
    # before the report, and the JSON could not be parsed
    import blitzcam.datasets.generate as generate
    from blitzcam.models.training import generated_scenes

    asked = []
    monkeypatch.setattr(generate, "generate_dataset", asked.append)
    generated_scenes(tmp_path / "scenes", 3, 1)
    out, err = capsys.readouterr()
    assert len(asked) == 1 and out == "" and "generating 3 scenes (seed 1)" in err


def test_a_checkpoint_of_a_completed_training_is_known(tmp_path: Path) -> None:
    import torch

    from blitzcam.models.training import _checkpoint, _training_completed

    for state, completed in (
        ({"epoch": 9, "optimizer": {"state": {}}}, False),  # mid-training: resume it
        ({"epoch": -1, "optimizer": None}, True),  # stripped at the end by ultralytics
        ({"epoch": 9, "optimizer": None}, True),
    ):
        torch.save(state, tmp_path / "last.pt")
        assert _training_completed(_checkpoint(tmp_path / "last.pt")) is completed


def test_a_checkpoint_cut_short_foreign_or_planted_is_one_line_and_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a truncated last.pt was a traceback; a dict without an epoch counted as a finished
    # stage; a crafted one ran its code when --resume loaded it
    import torch

    from blitzcam.errors import UserError
    from blitzcam.models.training import _checkpoint

    monkeypatch.chdir(tmp_path)
    last = tmp_path / "last.pt"
    torch.save({"epoch": 3, "optimizer": None, "pad": list(range(1000))}, last)
    last.write_bytes(last.read_bytes()[:300])
    with pytest.raises(UserError, match=r"last\.pt: not a checkpoint this run can resume"):
        _checkpoint(last)
    torch.save({"weights": [1, 2]}, last)
    with pytest.raises(UserError, match=r"last\.pt: not an ultralytics training checkpoint"):
        _checkpoint(last)
    torch.save({"epoch": 3, "optimizer": Planted()}, last)
    with pytest.raises(UserError, match="delete it to start the stage again") as refused:
        _checkpoint(last)
    # (ultralytics' "ERROR ❌️ <the path again> ... Use an official Ultralytics model", advice
    # for its own user, is left out of the reason; training-cli review)
    said = str(refused.value)
    assert "ERROR" not in said and "Use an official" not in said and said.count(str(last)) == 1
    assert not was_run(tmp_path)
    # a best.pt the stage saved along the way can be resumed: said before deleting, which
    # takes it along (the advice alone threw away a stage's best epoch)
    torch.save({"epoch": 7, "optimizer": None}, tmp_path / "best.pt")
    with pytest.raises(UserError, match=r"best\.pt, saved after epoch 8, can be resumed instead: "
                       r"copy it over last\.pt; or delete it to start the stage again from its "
                       r"first epoch \(its best\.pt goes too\)$"):  # fmt: skip
        _checkpoint(last)
    for best in ({"epoch": -1, "optimizer": None}, {"epoch": 3, "optimizer": Planted()}):
        torch.save(best, tmp_path / "best.pt")  # stripped at a stage's end; planted
        with pytest.raises(UserError, match=r"last\.pt: not a checkpoint .*\); delete it to start"):
            _checkpoint(last)
    assert not was_run(tmp_path)


def test_a_finished_stage_s_weights_cut_short_are_told_the_way_to_train_it_again(tmp_path: Path) -> None:
    # a full disk at the stage's last save: taken as done by its results.csv, its best.pt cut
    # short was told to delete a finished.json that was not there, and then the same again
    # (training review); the folder deleted, --resume trains the stage from its start
    import torch

    from blitzcam.errors import UserError
    from blitzcam.models.training import _finished_weights
    from blitzcam.offline import import_ultralytics

    import_ultralytics()  # (as `train` has: offline first)
    stage = tmp_path / "train"
    (stage / "weights").mkdir(parents=True)
    best = stage / "weights" / "best.pt"
    torch.save({"epoch": -1, "optimizer": None, "pad": list(range(1000))}, best)
    best.write_bytes(best.read_bytes()[:300])
    with pytest.raises(UserError, match=rf"best\.pt: stage train's weights do not load .*; "
                       rf"delete the folder {stage} and run with --resume: stage train trains "
                       r"again$"):  # fmt: skip
        _finished_weights(stage)


def test_a_resumed_stage_trains_on_the_crops_of_its_own_run_folder(tmp_path: Path) -> None:
    from blitzcam.errors import UserError
    from blitzcam.models.training import _crops_here

    stage = tmp_path / "copy" / "train"
    crops = tmp_path / "copy" / "crops-320-abc" / "data.yaml"
    started = {"data": "/gpu/run/crops-320-abc/data.yaml", "save_dir": "/gpu/run/train"}
    with pytest.raises(UserError, match=r"the crops it trained on \(.*copy/crops-320-abc"):
        _crops_here({"epoch": 2, "train_args": started}, stage, stage / "last.pt")
    crops.parent.mkdir(parents=True)
    # cut by an earlier release: its data.yaml names the folder it was cut in
    crops.write_text('path: "/gpu/run/crops-320-abc"\ntrain: images/train\nval: images/val\n')
    assert _crops_here({"epoch": 2, "train_args": started}, stage, stage / "last.pt") == crops
    assert crops.read_text() == "train: images/train\nval: images/val\n"  # found beside it
    # crops from outside the run folder (another dataset) stay where they are
    outside = tmp_path / "elsewhere" / "data.yaml"
    outside.parent.mkdir()
    outside.write_text("path: .\n")
    args = {"data": str(outside), "save_dir": "/gpu/run/train"}
    assert _crops_here({"epoch": 2, "train_args": args}, stage, stage / "last.pt") == outside
    with pytest.raises(UserError, match="names no training data"):
        _crops_here({"epoch": 2}, stage, stage / "last.pt")


@pytest.mark.parametrize("inside", [True, False])
def test_a_resumed_stage_refuses_a_dataset_file_that_would_run_code(tmp_path: Path, inside: bool) -> None:
    # ultralytics runs a data.yaml's download: entry as Python where a split is missing: a run
    # folder copied from elsewhere ran what its crops' file said (security review)
    from blitzcam.errors import UserError
    from blitzcam.models.training import _crops_here

    stage = tmp_path / "run" / "train"
    crops = (tmp_path / "run" if inside else tmp_path / "elsewhere") / "crops-320-abc" / "data.yaml"
    crops.parent.mkdir(parents=True)
    planted = "train: images/train\nval: images/val\ndownload: open('x', 'w').write('ran')\n"
    crops.write_text(planted)
    started = {"data": str(crops), "save_dir": str(tmp_path / "run" / "train")}
    with pytest.raises(UserError, match=r"data\.yaml: holds download, which no dataset of blitzcam's does"):
        _crops_here({"epoch": 2, "train_args": started}, stage, stage / "last.pt")
    assert crops.read_text() == planted  # (left as it was, for whoever looks into it)
    crops.write_text("- a list\n")
    with pytest.raises(UserError, match=r"not a dataset file \(no keys and values in it\)"):
        _crops_here({"epoch": 2, "train_args": started}, stage, stage / "last.pt")
    crops.write_text("train: [unclosed\n")
    with pytest.raises(UserError, match="not a dataset file a stage can resume on"):
        _crops_here({"epoch": 2, "train_args": started}, stage, stage / "last.pt")


def test_a_resumed_stage_whose_crops_are_gone_makes_them_again(tmp_path: Path) -> None:
    from blitzcam.errors import UserError
    from blitzcam.models.training import _crops_here

    stage = tmp_path / "run" / "more"
    crops = tmp_path / "run" / "more-crops-320-abc" / "data.yaml"
    started = {"data": "/gpu/run/more-crops-320-abc/data.yaml", "save_dir": "/gpu/run/more"}
    calls = []

    def remake() -> Path:
        calls.append(1)
        crops.parent.mkdir(parents=True, exist_ok=True)
        crops.write_text("train: images/train\nval: images/val\n")
        return crops

    checkpoint = {"epoch": 2, "train_args": started}
    assert _crops_here(checkpoint, stage, stage / "last.pt", remake) == crops and calls == [1]
    assert _crops_here(checkpoint, stage, stage / "last.pt", remake) == crops and calls == [1]
    crops.unlink()  # made again under another name (another recipe): still a clear refusal
    with pytest.raises(UserError, match="the crops it trained on"):
        _crops_here(checkpoint, stage, stage / "last.pt", lambda: tmp_path / "other.yaml")


def test_crops_are_named_by_the_scenes_they_are_cut_from(tmp_path: Path) -> None:
    from blitzcam.models.training import _crops_dir

    a, b = tmp_path / "a", tmp_path / "b"
    for folder, seed in ((a, 1), (b, 2)):
        folder.mkdir()
        (folder / "generator.json").write_text(f'{{"n": 4, "seed": {seed}}}')
    assert _crops_dir(tmp_path, SHIPPED, "", a) != _crops_dir(tmp_path, SHIPPED, "", b)
    # named by what the scenes were made with, not where they lie: the same scenes elsewhere
    # reuse the crops
    same = tmp_path / "elsewhere" / "a"
    same.mkdir(parents=True)
    (same / "generator.json").write_text((a / "generator.json").read_text())
    assert _crops_dir(tmp_path, SHIPPED, "", same) == _crops_dir(tmp_path, SHIPPED, "", a)


def test_a_resume_that_fails_is_a_failure_not_a_finished_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ultralytics

    from blitzcam.models import training

    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "last.pt").write_bytes(b"")
    monkeypatch.setattr(training, "_checkpoint", lambda _path: {"epoch": 2})
    monkeypatch.setattr(training, "_training_completed", lambda _state: False)
    monkeypatch.setattr(training, "_crops_here", lambda *_args: tmp_path / "data.yaml")
    raised: list[str] = []

    class FakeYOLO:
        def __init__(self, _weights: str) -> None:
            pass

        def add_callback(self, *_args: object) -> None:
            pass

        def train(self, **_kwargs: object) -> None:
            raise AssertionError(raised[-1])

    monkeypatch.setattr(ultralytics, "YOLO", FakeYOLO)

    def fit() -> None:
        training._fit(tmp_path, True, lambda _save: None, lambda _line: None, lambda: None)

    raised.append("labels missing in the crops")
    with pytest.raises(AssertionError, match="labels missing"):
        fit()
    raised.append("last.pt training to 10 epochs is finished, nothing to resume.")
    fit()  # its last epoch was saved before it was stopped: the stage is done


def test_a_fresh_stage_removes_an_earlier_runs_weights(tmp_path: Path, monkeypatch) -> None:
    # killed before its first checkpoint, a new run's --resume found the old run's finished
    # last.pt and took it for this run's result
    pytest.importorskip("ultralytics")
    from blitzcam.models import training

    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "last.pt").write_bytes(b"an earlier run's")
    (tmp_path / "results.csv").write_text("epoch\n1\n")
    started = []

    def start(_on_save) -> None:
        started.append(sorted(p.name for p in tmp_path.rglob("*")))

    training._fit(tmp_path, False, start, lambda _line: None, lambda: None)
    assert started == [[]]  # nothing of the earlier run when this one starts


def test_a_dataset_without_its_validation_split_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it was a FileNotFoundError traceback after recipe.json and half the crops were written
    from blitzcam.cli import main

    (tmp_path / "scenes" / "images" / "train").mkdir(parents=True)
    (tmp_path / "scenes" / "labels" / "train").mkdir(parents=True)
    run = tmp_path / "run"
    assert main(["train", "--data", str(tmp_path / "scenes"), "--run", str(run)]) == 2
    assert "not a scene dataset (no images/val folder)" in capsys.readouterr().err
    assert not run.exists()
    # a dataset of two scenes has the folder, and no scene in it
    from blitzcam.datasets.generate import GenerateRequest, generate_dataset

    two = generate_dataset(GenerateRequest(out=tmp_path / "two", n=2, seed=1, workers=1,
                                           progress=False))  # fmt: skip
    assert main(["train", "--data", str(two), "--run", str(run)]) == 2
    assert "its val split holds no scenes (a dataset of fewer than 3 has no val split)" in (
        capsys.readouterr().err
    )
    assert not run.exists()


def test_an_unfinished_dataset_or_one_of_other_pictures_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a stopped `dataset generate` (its scenes, no data.yaml: evaluate refused it) was trained
    # on without a word; a dataset of .png scenes was said to hold no scenes
    from blitzcam.cli import main

    part = tmp_path / "part"
    for folder in ("scenes/train", "images/train", "images/val", "labels/train", "labels/val"):
        (part / folder).mkdir(parents=True)
    (part / "images" / "train" / "000000.jpg").write_bytes(b"")
    (part / "images" / "val" / "000001.jpg").write_bytes(b"")
    run = tmp_path / "run"
    assert main(["train", "--data", str(part), "--run", str(run)]) == 2
    assert f"{part}: no data.yaml: an unfinished dataset" in capsys.readouterr().err
    own = tmp_path / "own"
    for folder in ("images/train", "images/val", "labels/train", "labels/val"):
        (own / folder).mkdir(parents=True)
    (own / "images" / "train" / "a.png").write_bytes(b"")
    assert main(["train", "--data", str(own), "--run", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{own / 'images' / 'train'}: no .jpg scene (a.png is there): training reads" in err
    assert err.count("\n") == 1 and not run.exists()


def test_crops_name_no_root_so_a_moved_run_finds_them(tmp_path: Path) -> None:
    # the crops' data.yaml named its absolute folder: a run copied back from a GPU machine
    # resumed against the machine's paths
    import yaml

    from blitzcam.models.crop_dataset import build_crop_dataset

    old = tmp_path / "crops"
    old.mkdir()
    (old / "data.yaml").write_text('path: "/gpu/run/crops"\ntrain: images/train\n')
    assert build_crop_dataset(tmp_path / "scenes", old, SHIPPED) == old / "data.yaml"
    data = yaml.safe_load((old / "data.yaml").read_text())
    assert "path" not in data and data["train"] == "images/train" and data["names"]


def test_a_cuda_device_torch_does_not_see_is_refused_before_any_scene(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (scenes were generated and crops cut, then ultralytics failed with a traceback)
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["train", "--device", "0", "--run", str(tmp_path), "--no-ship"]) == 2
    err = capsys.readouterr().err
    assert "--device 0: no such CUDA device here (torch sees 0)" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_plain_evaluate_leaves_a_training_run_s_own_scenes_alone(tmp_path: Path, monkeypatch) -> None:
    # after `train --scenes 5` in the default run folder, plain `evaluate` was refused ("made
    # with n 5 ... delete this one"), and after `train --data X` it made its 1,000 scenes in
    # that run's folder (review)
    from blitzcam.commands import evaluate
    from blitzcam.errors import UserError
    from blitzcam.models import training
    from blitzcam.models.recipe import SHIPPED
    from blitzcam.models.stages import stages

    asked: list[str] = []
    recipe_run: list[bool] = [False]

    def recipe_scenes(run_dir: Path, recipe, stage=None) -> Path:
        asked.append(run_dir.name)
        if run_dir.name == "detector" and not recipe_run[0]:
            raise UserError(f"{run_dir}: its scenes were made with n 5, not n 1000")
        return run_dir / "scenes"

    monkeypatch.setattr(training, "recipe_scenes", recipe_scenes)
    assert evaluate._default_data(tmp_path) == tmp_path / "evaluate" / "scenes"
    assert asked == ["evaluate"]  # (no run's scenes: none looked at, none made there)
    made = tmp_path / "detector" / f"{stages(SHIPPED)[0].prefix}scenes"
    made.mkdir(parents=True)
    (made / "data.yaml").write_text("names: {0: back, 1: face}\n")
    asked.clear()
    assert evaluate._default_data(tmp_path) == tmp_path / "evaluate" / "scenes"
    assert asked == ["detector", "evaluate"]
    recipe_run[0] = True  # the run's scenes are the recipe's: used, not made again
    assert evaluate._default_data(tmp_path) == tmp_path / "detector" / "scenes"


def test_a_planted_best_pt_beside_a_stage_s_last_is_refused_before_resuming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # last.pt was loaded safely, but at the stage's end ultralytics read best.pt again with
    # pickle's full loader (strip_optimizer): a best.pt put in the run folder ran its code
    # (review)
    import torch

    from blitzcam.errors import UserError
    from blitzcam.models.training import _fit

    monkeypatch.chdir(tmp_path)
    weights = tmp_path / "stage" / "weights"
    weights.mkdir(parents=True)
    torch.save({"epoch": 3, "optimizer": {"state": {}}}, weights / "last.pt")
    torch.save({"epoch": 3, "model": Planted()}, weights / "best.pt")
    started = []
    with pytest.raises(UserError, match=r"best\.pt: not a checkpoint this run wrote \(.*\): loaded at "
                       r"the stage's end, it could run code; delete it"):  # fmt: skip
        _fit(tmp_path / "stage", resume=True, start=started.append, log=lambda _: None,
             on_save=lambda: None)  # fmt: skip
    assert not was_run(tmp_path) and not started
