"""Scoring scenes on their counts alone: photos with a counts.csv, the app's captures."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from blitzcam.models.count_evaluation import (
    count_outcome,
    counts_report_table,
    evaluate_counts,
    summarize_counts,
)
from blitzcam.models.counted_scenes import CountedScene, LeftOut
from blitzcam.models.evaluation import report_json


def _scene(name: str, counts: dict[str, int], **kwargs) -> CountedScene:
    decks = kwargs.pop("decks", tuple(counts))
    return CountedScene(name, (Path(f"{name}.jpg"),), counts, decks, **kwargs)


def test_a_scene_is_exact_when_every_known_deck_is_and_unknown_backs_do_not_count() -> None:
    scene = _scene("a", {"green-pump": 12, "red-plow": 3})
    right = count_outcome(
        scene, {"green-pump": 12, "red-plow": 3, "blue-pump": 0}, face_up_found=0, unknown=4
    )
    assert right.exact and right.counted == {"green-pump": 12, "red-plow": 3, "unknown": 4}
    wrong = count_outcome(scene, {"green-pump": 11, "blue-pump": 1}, face_up_found=0, unknown=0)
    assert not wrong.exact
    assert wrong.decks_off() == {
        "blue-pump": {"counted": 1, "true": 0},
        "green-pump": {"counted": 11, "true": 12},
        "red-plow": {"counted": 0, "true": 3},
    }


def test_the_summary_scores_decks_cards_face_up_and_the_apps_count_when_taken() -> None:
    outcomes = [
        # right now, and right when taken
        count_outcome(
            _scene("r1", {"green-pump": 10}, face_up=1, proposed={"green-pump": 10}),
            {"green-pump": 10},
            face_up_found=1,
            unknown=0,
        ),
        # right now, wrong then (the players corrected 9 to 10)
        count_outcome(
            _scene("r2", {"green-pump": 10}, face_up=0, proposed={"green-pump": 9}),
            {"green-pump": 10},
            face_up_found=1,
            unknown=2,
        ),
        # wrong now (a red plow taken for a green pump), right then
        count_outcome(
            _scene("r3", {"green-pump": 4, "red-plow": 6}, proposed={"green-pump": 4, "red-plow": 6}),
            {"green-pump": 5, "red-plow": 5},
            face_up_found=0,
            unknown=0,
        ),
    ]
    report = summarize_counts(outcomes)
    assert report["scenes"] == 3 and report["scene_exact_rate"] == pytest.approx(2 / 3)
    assert report["per_deck"]["green-pump"] == {
        "scenes": 3,
        "exact_rate": pytest.approx(2 / 3),
        "mean_abs_error": pytest.approx(1 / 3),
    }
    assert "unknown" not in report["per_deck"]  # (no truth to score it against)
    assert report["mean_abs_count_error"] == pytest.approx(2 / 4)  # 0, 0, 1 and 1 over 4
    assert report["cards_counted"] == {"true": 30, "over": 1, "under": 1}
    # face-up said for two scenes (the third's left empty), found right in one
    assert report["scenes_with_face_up_said"] == 2
    assert report["face_up_found_exact_rate"] == 0.5
    assert report["when_taken"] == {
        "scenes": 3,
        "exact_then": 2,
        "exact_now": 2,
        "right_now_wrong_then": ["r2"],
        "wrong_now_right_then": ["r3"],
    }
    # the backs counted to no deck, which no count can say: r2's two
    assert report["backs_counted_to_no_deck"] == 2
    assert report["scene_exact_rate_none_unknown"] == pytest.approx(1 / 3)
    assert report["exact_with_backs_of_no_deck"] == [
        {"scene": "r2", "images": ["r2.jpg"], "unknown": 2}
    ]
    assert report["inexact_detail"] == [
        {
            "scene": "r3",
            "images": ["r3.jpg"],
            "decks_off": {
                "green-pump": {"counted": 5, "true": 4},
                "red-plow": {"counted": 5, "true": 6},
            },
            "unknown": 0,
        }
    ]


def test_photos_without_the_apps_count_have_no_when_taken_part() -> None:
    outcome = count_outcome(_scene("a", {"red-plow": 2}), {"red-plow": 2}, face_up_found=0, unknown=0)
    assert "when_taken" not in summarize_counts([outcome])
    assert np.isnan(summarize_counts([])["scene_exact_rate"])


class _Pipeline:
    """Counts each image as its name says: `frames` maps a frame's first pixel to counts."""

    known_decks = ("green-pump", "red-plow", "blue-pump")

    def __init__(
        self, counts_of: dict[int, dict[str, int]], stand_ins: tuple[str, ...] = ()
    ) -> None:
        self.counts_of = counts_of
        self.calls: list[tuple[int, tuple[str, ...] | None]] = []
        countable = tuple(name for name in self.known_decks if name not in stand_ins)
        self.profile = SimpleNamespace(
            names=self.known_decks,
            origins=("built-in",) * 3,
            stand_ins=stand_ins,
            countable=lambda: countable,
        )
        self.detector = SimpleNamespace(path=Path("model.onnx"), engine="onnxruntime")

    def __call__(self, frame: np.ndarray, *, in_play=None) -> SimpleNamespace:
        key = int(frame[0, 0, 0])
        self.calls.append((key, None if in_play is None else tuple(in_play)))
        return SimpleNamespace(
            counts=self.counts_of[key], face_up=1, unknown=0, timing_ms={"total": 10.0}
        )


def _read(path: Path) -> SimpleNamespace:
    return SimpleNamespace(frame=np.full((4, 4, 3), int(path.stem[-1]), np.uint8))


def test_a_steps_shots_are_summed_in_play_is_the_scenes_decks_and_unknown_decks_left_out() -> None:
    pipeline = _Pipeline({1: {"green-pump": 3, "red-plow": 0}, 2: {"green-pump": 4, "red-plow": 2}})
    step = CountedScene(
        "round-dutch",
        (Path("s1"), Path("s2")),
        {"green-pump": 7, "red-plow": 2},
        ("green-pump", "red-plow"),
        proposed={"green-pump": 7, "red-plow": 1},
    )
    enrolled_elsewhere = _scene("x1", {"grandmas-deck": 5})
    report = evaluate_counts(
        [step, enrolled_elsewhere],
        pipeline=pipeline,
        read_picture=_read,
        in_play=True,
        data=Path("captures"),
        kind="captures",
        left_out=[LeftOut("old-blitz", "shot 2 of 2 is gone")],
    )
    assert pipeline.calls == [(1, ("green-pump", "red-plow")), (2, ("green-pump", "red-plow"))]
    assert report["scenes"] == 1 and report["images"] == 2 and report["scene_exact_rate"] == 1.0
    assert report["ms_per_scene"] == 20.0
    assert report["left_out"] == [
        {"scene": "old-blitz", "why": "shot 2 of 2 is gone"},
        {"scene": "x1", "why": "grandmas-deck is no deck blitzcam knows here"},
    ]
    assert report["when_taken"]["right_now_wrong_then"] == ["round-dutch"]
    assert report["in_play"] == "each scene's own decks"
    json.loads(report_json(report))  # strict JSON
    table = counts_report_table(report)
    assert "1 scene (2 images) from captures: the app's captures" in table
    assert "counted right when taken (the app's count, before any correction): 0 of 1; now: 1" in table
    assert "  right now, wrong then: round-dutch" in table
    assert "left out, not scored: 2\n  old-blitz: shot 2 of 2 is gone" in table


def test_every_deck_is_a_candidate_without_in_play_and_misses_are_listed() -> None:
    pipeline = _Pipeline({1: {"green-pump": 2, "red-plow": 1, "blue-pump": 0}})
    report = evaluate_counts(
        [_scene("photo1", {"green-pump": 3})],
        pipeline=pipeline,
        read_picture=_read,
        in_play=False,
        data=Path("photos"),
        kind="photos",
    )
    assert pipeline.calls == [(1, None)]
    table = counts_report_table(report)
    assert "scenes counted exactly (each deck's count right): 0.00%" in table
    assert "inexact scenes: known decks off (counted of true)\n  photo1: green-pump 2 of 3, red-plow 1 of 0" in table
    assert "cards on the tables: 3; counted over: 1, under: 1" in table
    # a report read back from its JSON (nulls for nothing measured) makes the same table
    assert counts_report_table(json.loads(report_json(report))) == table


@pytest.mark.parametrize("in_play", [True, False])
def test_a_deck_without_a_reference_is_never_counted_so_its_scenes_are_left_out(
    in_play: bool,
) -> None:
    # (a --decks folder without red-plow's back: counted among the decks in play, a scene of
    # red-plow was the pipeline's traceback; among every deck, its backs were scored as missed,
    # unsaid)
    pipeline = _Pipeline({1: {}, 2: {"green-pump": 4}}, stand_ins=("red-plow",))
    scenes = [
        _scene("with-red", {"green-pump": 3, "red-plow": 2}, decks=("green-pump", "red-plow")),
        # in play with none on the table: counted among the others
        _scene("none-red2", {"green-pump": 4}, decks=("green-pump", "red-plow")),
        _scene("only-red1", {}, decks=("red-plow",)),
    ]
    report = evaluate_counts(
        scenes, pipeline=pipeline, read_picture=_read, in_play=in_play, data=Path("d"), kind="photos"
    )
    red = "the --decks folder holds no back for red-plow: its 2 backs here cannot be counted"
    left = [{"scene": "with-red", "why": red}]
    if in_play:
        none = "none of its decks in play (red-plow) has a back in the --decks folder"
        left.append({"scene": "only-red1", "why": none})
    assert report["left_out"] == left
    assert [name for name, _ in pipeline.calls] == ([2] if in_play else [2, 1])
    assert pipeline.calls[0][1] == (("green-pump",) if in_play else None)
    assert report["scene_exact_rate"] == 1.0


def test_a_deck_without_a_reference_in_a_decks_folder_is_said_by_evaluate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from blitzcam.cli import main
    from blitzcam.datasets.art import export_backs

    decks = tmp_path / "decks"
    export_backs(decks)
    (decks / "red-buggy.png").unlink()
    (tmp_path / "counts.csv").write_text(
        "image,red-buggy,yellow-bucket,green-pump,yellow-buggy\n"
        f"{DEMO / 'table-2.jpg'},24,27,9,21\n"
        f"{DEMO / 'table-4.jpg'},0,0,0,0\n"
    )
    argv = ["evaluate", "--data", str(tmp_path), "--decks", str(decks), "--in-play"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert (f"  {DEMO / 'table-2.jpg'}: the --decks folder holds no back for red-buggy: its 24 "
            "backs here cannot be counted") in captured.out
    assert "1 scene (1 image)" in captured.out


def test_nothing_left_to_score_is_an_error_not_an_empty_report() -> None:
    from blitzcam.models.evaluation import SceneDataError

    with pytest.raises(SceneDataError, match=r"^captures: no scene to score: 2 left out, the "
                       r"first r1-dutch: shot 1 of 2 is gone$"):
        evaluate_counts(
            [_scene("x1", {"grandmas-deck": 5})],
            pipeline=_Pipeline({}),
            read_picture=_read,
            in_play=False,
            data=Path("captures"),
            kind="captures",
            left_out=[LeftOut("r1-dutch", "shot 1 of 2 is gone")],
        )


# --- `blitzcam evaluate --data` on photos and captures, the shipped models ------------------

DEMO = Path(__file__).parents[2] / "datasets" / "demo"
# the generator's truth of the demo tables that the shipped models count exactly (its README)
TABLE_1 = {"green-pump": 2, "red-buggy": 30, "yellow-bucket": 8, "blue-plow": 10, "blue-pump": 4,
           "yellow-buggy": 15, "green-bucket": 5, "red-plow": 25}
TABLE_2 = {"green-pump": 9, "red-buggy": 24, "yellow-bucket": 27, "yellow-buggy": 21}
TABLE_3 = {"green-pump": 38, "red-buggy": 21, "blue-plow": 15, "red-plow": 3}


def test_photos_with_a_counts_file_are_counted_and_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from blitzcam.cli import main

    decks = list(TABLE_1)
    wrong = {**TABLE_2, "green-pump": 10}  # the counts file says one more than the table holds
    rows = [
        ",".join(["image", *decks, "face-up"]),
        ",".join([str(DEMO / "table-1.jpg"), *(str(TABLE_1[d]) for d in decks), "3"]),
        ",".join([str(DEMO / "table-2.jpg"), *(str(wrong.get(d, 0)) for d in decks), ""]),
    ]
    (tmp_path / "counts.csv").write_text("\n".join(rows) + "\n")
    assert main(["evaluate", "--data", str(tmp_path), "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert f"2 scenes (2 images) from {tmp_path}: photos and their counts.csv" in out
    assert "scenes counted exactly (each deck's count right): 50.00%" in out
    assert f"  {DEMO / 'table-2.jpg'}: green-pump 9 of 10\n" in out
    assert "face-up cards found as many as said: 100.00% of 1 scenes" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["kind"] == "photos" and report["cards_counted"]["under"] == 1


def test_the_apps_captures_are_scored_against_the_counts_the_players_confirmed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # kept by the app's own writer: a Dutch pile step of one shot the players corrected, and
    # a Blitz pile step of two shots whose counts the app summed
    import cv2

    from blitzcam.cli import main
    from blitzcam.ui.capture_store import capture_record, capture_stem, save_capture

    players = [{"name": f"P{i}", "deck": deck, "team": None} for i, deck in enumerate(TABLE_1)]
    blitz = {d: TABLE_2.get(d, 0) + TABLE_3.get(d, 0) for d in TABLE_1}
    confirmed = {p["name"]: {"dutch": TABLE_1[p["deck"]], "blitz": blitz[p["deck"]]} for p in players}
    proposed = {**confirmed, "P0": {"dutch": TABLE_1["green-pump"] + 1, "blitz": blitz["green-pump"]}}
    taken = datetime(2026, 12, 5, 21, 0, 0, tzinfo=UTC)
    for step, tables in (("dutch", ["table-1.jpg"]), ("blitz", ["table-2.jpg", "table-3.jpg"])):
        for shot, table in enumerate(tables, start=1):
            record = capture_record(step=step, shot=shot, shots_in_step=len(tables),
                                    confirmed=confirmed, players=players, outlines=[],
                                    taken_at=taken, proposed=proposed)
            frame = cv2.imread(str(DEMO / table))
            save_capture(tmp_path, capture_stem(taken, step, shot), frame, [], record)
    # (without --in-play: captures are counted among the round's decks, as the app counted
    # them; among every deck, "now" was weighed against a "then" counted otherwise)
    assert main(["evaluate", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "2 scenes (3 images)" in out and "the app's captures" in out
    assert "decks: each scene's own decks" in out
    assert "scenes counted exactly (each deck's count right): 100.00%" in out
    assert "counted right when taken (the app's count, before any correction): 1 of 2; now: 2" in out
    assert "  right now, wrong then: 20261205-210000-dutch-1\n" in out


def test_a_photo_that_does_not_decode_is_left_out_and_the_rest_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (found half-way through a long run, it threw the run's work away)
    from blitzcam.cli import main

    (tmp_path / "cut.jpg").write_bytes((DEMO / "table-3.jpg").read_bytes()[:5000])
    decks = list(TABLE_3)
    rows = [",".join(["image", *decks]),
            ",".join([str(DEMO / "table-3.jpg"), *(str(TABLE_3[d]) for d in decks)]),
            ",".join(["cut.jpg", *(str(TABLE_3[d]) for d in decks)])]
    (tmp_path / "counts.csv").write_text("\n".join(rows) + "\n")
    # (as `count`, the run fails for it: exit 1, the report printed all the same)
    assert main(["evaluate", "--data", str(tmp_path), "--in-play"]) == 1
    out = capsys.readouterr().out
    assert "1 scene (1 image)" in out and "scenes counted exactly (each deck's count right): 100.00%" in out
    assert f"left out, not scored: 1\n  cut.jpg: {tmp_path / 'cut.jpg'}: cannot decode" in out
    assert "WARNING: pictures that do not decode, left out of every figure (the run fails): 1 (cut.jpg)" in out


def test_a_photo_folder_with_a_scenes_folder_is_still_photos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (taken for an unfinished generated dataset: "no data.yaml", the counts.csv unread)
    from blitzcam.cli import main

    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "t.jpg").write_bytes((DEMO / "table-3.jpg").read_bytes())
    decks = list(TABLE_3)
    rows = [",".join(["image", *decks]),
            ",".join(["scenes/t.jpg", *(str(TABLE_3[d]) for d in decks)])]
    (tmp_path / "counts.csv").write_text("\n".join(rows) + "\n")
    assert main(["evaluate", "--data", str(tmp_path)]) == 0
    assert "photos and their counts.csv" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("make", "args", "said"),
    [
        (lambda d: None, [], "no labelled scenes: not a `blitzcam dataset generate` dataset"),
        (lambda d: (d / "counts.csv").write_text("image,green-pump\n"), ["--split", "test"],
         "--split test: {d} is not a generated dataset (no splits)"),
        (lambda d: (d / "counts.csv").write_text("image,green-pump\nx.jpg,1\n"), [],
         "{d}/counts.csv, line 2: x.jpg: no such file"),
    ],
)
def test_a_folder_evaluate_cannot_score_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make, args, said: str
) -> None:
    from blitzcam.cli import main

    make(tmp_path)
    assert main(["evaluate", "--data", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err
    assert said.format(d=tmp_path) in err and err.count("\n") == 1
