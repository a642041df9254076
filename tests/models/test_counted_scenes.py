"""Scenes whose truth is counts: a counts.csv beside photos, the app's kept captures."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from blitzcam.game.decks import DECK_NAMES
from blitzcam.models.counted_scenes import (
    CountedScene,
    LeftOut,
    capture_scenes,
    counts_file_scenes,
    has_captures,
    has_counts_file,
)
from blitzcam.models.evaluation import SceneDataError
from blitzcam.ui.capture_store import capture_record, capture_stem, save_capture

# --- counts.csv ----------------------------------------------------------------------------


def _photos(folder: Path, text: str, *images: str, encoding: str = "utf-8") -> Path:
    for name in images:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"a photo")  # (read only when counted)
    path = folder / "counts.csv"
    path.write_text(text, encoding=encoding)
    return path


def test_a_counts_file_gives_each_photo_its_counts_and_decks(tmp_path: Path) -> None:
    path = _photos(
        tmp_path,
        "image,green-pump,red-plow,face-up\n"
        "a.jpg,12,0,1\n"
        "\n"  # (blank lines: a spreadsheet's)
        "sub/b.jpg, 7 ,9,\n",
        "a.jpg",
        "sub/b.jpg",
    )
    assert has_counts_file(tmp_path) and not has_captures(tmp_path)
    a, b = counts_file_scenes(path, DECK_NAMES)
    assert a == CountedScene(
        "a.jpg", (tmp_path / "a.jpg",), {"green-pump": 12}, ("green-pump", "red-plow"), 1
    )
    # face-up left empty: not counted for that photo, not none
    assert (b.name, b.counts, b.face_up) == ("sub/b.jpg", {"green-pump": 7, "red-plow": 9}, None)


def test_a_deck_not_in_a_photos_game_is_no_candidate_there(tmp_path: Path) -> None:
    # photos of several game nights in one file: a deck marked - was not in that photo's game
    path = _photos(
        tmp_path,
        "image,green-pump,red-plow,blue-pump\na.jpg,3,-,0\nb.jpg,-,5, - \n",
        "a.jpg",
        "b.jpg",
    )
    a, b = counts_file_scenes(path, DECK_NAMES)
    assert (a.counts, a.decks) == ({"green-pump": 3}, ("green-pump", "blue-pump"))
    assert (b.counts, b.decks) == ({"red-plow": 5}, ("red-plow",))


@pytest.mark.parametrize(
    ("text", "delimiter"),
    [
        ("\ufeffimage;green-pump\na.jpg;3\n", "semicolon and a byte-order mark"),
        ("Image\tGreen-Pump\na.jpg\t3\n".replace("Green-Pump", "green-pump"), "tab"),
        ("image,green-pump,Face Up\r\na.jpg,3,0\r\n", "CRLF, face-up spelt otherwise"),
        ("image;Green Pump;;\r\na.jpg;3;;\r\n", "Excel's empty columns, a deck's name as typed"),
        ("image,green-pump\ra.jpg,3\r", "CR line ends: Excel's CSV (Macintosh)"),
        ("\nsep=;\nimage;green-pump\na.jpg;3\n", "a blank line, Excel's sep= line"),
    ],
)
def test_a_spreadsheets_ways_of_saving_a_csv_read_alike(
    tmp_path: Path, text: str, delimiter: str
) -> None:
    (scene,) = counts_file_scenes(_photos(tmp_path, text, "a.jpg"), DECK_NAMES)
    assert scene.counts == {"green-pump": 3}, delimiter


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "counts.csv: empty; expected a header 'image,<deck>,...'"),
        ("image,green-pump\n", "counts.csv: a header and no photo under it"),
        ("photo,green-pump\na.jpg,1\n", "line 1: the first column must be 'image', not 'photo'"),
        ("image,gren pump\na.jpg,1\n", "line 1: column 2, 'gren pump', is no deck (known: "),
        ("image,red-plow,red-plow\na.jpg,1,1\n", "line 1: column 3, red-plow, is there twice"),
        ("image,face-up\na.jpg,1\n", "line 1: no deck's column"),
        ("image,red-plow\na.jpg,1,2\n", "line 2: 3 fields; the header has 2"),
        ("image,red-plow\n,1\n", "line 2: no image named in the first column"),
        ("image,red-plow\nb.jpg,1\n", "line 2: b.jpg: no such file"),
        ("image,red-plow\na.jpg,1\n./a.jpg,2\n", "line 3: ./a.jpg is on line 2 already"),
        ("image,red-plow\na.jpg,\n", "line 2, red-plow: empty (write 0 for none, - for not in"),
        ("image,red-plow,face-up\na.jpg,-,1\n", "line 2: every deck is - (none in play)"),
        ("image,red-plow\na.jpg,-1\n", "line 2, red-plow: '-1' is not a whole number of cards"),
        ("image,red-plow,face-up\na.jpg,1,-\n", "line 2, face-up: '-' is not a whole number"),
        ("image,red-plow\na.jpg,2.5\n", "line 2, red-plow: '2.5' is not a whole number"),
        ("image,red-plow\na.jpg,٣\n", "line 2, red-plow: '٣' is not a whole number"),
        # (a typo; thousands of digits were int()'s traceback)
        ("image,red-plow\na.jpg,41\n", "line 2, red-plow: 41 is more than the 40 cards there"),
        ("image,red-plow\na.jpg,1" + "0" * 5000 + "\n", "red-plow: 100000000000... is more than"),
        ("image,red-plow,face-up\na.jpg,1,321\n", "face-up: 321 is more than the 320 cards"),
        ("image,red-plow\na.jpg," + "1" * 200_000 + "\n", "line 2: not CSV (field larger than"),
    ],
)
def test_a_bad_counts_file_is_said_in_a_line_naming_where(
    tmp_path: Path, text: str, said: str
) -> None:
    path = _photos(tmp_path, text, "a.jpg")
    with pytest.raises(SceneDataError) as caught:
        counts_file_scenes(path, DECK_NAMES)
    message = str(caught.value)
    assert message.startswith(str(path)) and said in message and "\n" not in message


def test_a_counts_file_that_is_not_text_or_a_folder_for_a_photo_is_said(tmp_path: Path) -> None:
    (tmp_path / "counts.csv").write_bytes(b"image,red-plow\n\xff\xfe,1\n")  # (cp1252: Excel's)
    with pytest.raises(SceneDataError, match=r'counts.csv: not UTF-8 text \(byte 15\); save it '
                       r'as "CSV UTF-8"'):
        counts_file_scenes(tmp_path / "counts.csv", DECK_NAMES)
    (tmp_path / "dir").mkdir()
    path = _photos(tmp_path, "image,red-plow\ndir,1\n")
    with pytest.raises(SceneDataError, match="line 2: dir: not a file"):
        counts_file_scenes(path, DECK_NAMES)


def test_an_enrolled_decks_column_is_read_when_the_profile_knows_it(tmp_path: Path) -> None:
    path = _photos(tmp_path, "image,grandmas-deck\na.jpg,4\n", "a.jpg")
    (scene,) = counts_file_scenes(path, (*DECK_NAMES, "grandmas-deck"))
    assert scene.counts == {"grandmas-deck": 4} and scene.decks == ("grandmas-deck",)


# --- the app's captures --------------------------------------------------------------------

TAKEN = datetime(2026, 12, 5, 20, 15, 3, 123456, tzinfo=timezone(timedelta(hours=1)))
PLAYERS = [
    {"name": "Ann", "deck": "green-pump", "team": None},
    {"name": "Bob", "deck": "red-plow", "team": None},
]


def _keep(
    folder: Path,
    step: str,
    shots: int,
    confirmed: dict[str, dict[str, int]],
    proposed: dict[str, dict[str, int]] | None = None,
    *,
    taken_at: datetime = TAKEN,
    players: list[dict] = PLAYERS,
) -> list[Path]:
    """A round's step kept as the app keeps it (ui/capture_store.py, round_flow.RoundFlow.keep_captures)."""
    frame = np.zeros((8, 8, 3), np.uint8)
    kept = []
    for shot in range(1, shots + 1):
        record = capture_record(
            step=step,
            shot=shot,
            shots_in_step=shots,
            confirmed=confirmed,
            players=players,
            outlines=[],
            taken_at=taken_at,
            proposed=proposed,
        )
        kept.append(save_capture(folder, capture_stem(taken_at, step, shot), frame, [], record))
    return kept


def test_each_rounds_step_is_a_scene_of_its_shots_with_the_confirmed_counts(
    tmp_path: Path,
) -> None:
    confirmed = {"Ann": {"dutch": 14, "blitz": 3}, "Bob": {"dutch": 9, "blitz": 0}}
    proposed = {"Ann": {"dutch": 13, "blitz": 3}, "Bob": {"dutch": 9, "blitz": 0}}
    dutch = _keep(tmp_path, "dutch", 2, confirmed, proposed)
    blitz = _keep(tmp_path, "blitz", 1, confirmed, proposed)
    later = TAKEN + timedelta(minutes=5)
    _keep(tmp_path, "dutch", 1, confirmed, None, taken_at=later)  # (kept before "proposed" was)
    assert has_captures(tmp_path) and not has_counts_file(tmp_path)
    scenes, left_out = capture_scenes(tmp_path)
    assert left_out == []
    # named by their first shot, in the order they were taken
    assert [s.name for s in scenes] == [
        "20261205-201503-dutch-1",
        "20261205-201503-blitz-1",
        "20261205-202003-dutch-1",
    ]
    dutch_scene, blitz_scene, later_scene = scenes
    assert dutch_scene.images == tuple(dutch) and blitz_scene.images == tuple(blitz)
    assert dutch_scene.counts == {"green-pump": 14, "red-plow": 9}
    assert dutch_scene.proposed == {"green-pump": 13, "red-plow": 9}
    assert blitz_scene.counts == {"green-pump": 3}  # (none of Bob's: a deck with none)
    assert dutch_scene.decks == ("green-pump", "red-plow")  # the round's decks, in play
    assert later_scene.proposed is None


def test_a_step_that_cannot_be_scored_is_left_out_and_said_why(tmp_path: Path) -> None:
    confirmed = {"Ann": {"dutch": 14, "blitz": 3}, "Bob": {"dutch": 9, "blitz": 0}}
    shot_1, _ = _keep(tmp_path, "dutch", 2, confirmed)
    (tmp_path / "counts" / f"{shot_1.stem}.json").unlink()  # the player tidied one shot away
    _, shot_2 = _keep(tmp_path, "blitz", 2, confirmed)
    shot_2.unlink()  # only its image
    deckless = [*PLAYERS, {"name": "Cy", "deck": None, "team": None}]
    _keep(
        tmp_path,
        "dutch",
        1,
        {**confirmed, "Cy": {"dutch": 2, "blitz": 1}},
        taken_at=TAKEN + timedelta(hours=1),
        players=deckless,
    )
    scenes, left_out = capture_scenes(tmp_path)
    assert scenes == []
    assert left_out == [
        LeftOut("20261205-201503-dutch-2", "shot 1 of 2 is gone or damaged (its counts are the "
                "step's)"),
        LeftOut("20261205-201503-blitz-1", "the image of shot 2, 20261205-201503-blitz-2.jpg, is gone"),
        LeftOut("20261205-211503-dutch-1", "Cy played without a deck: their cards are no deck's"),
    ]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r.pop("confirmed"), "no 'confirmed' field"),
        (lambda r: r.update(step="scores"), "step 'scores' is not one of dutch, blitz"),
        (lambda r: r.update(shot=3), "shot 3 of 2 is not a shot of its step"),
        (lambda r: r.update(shot=True), "shot True of 2 is not a shot of its step"),
        (lambda r: r.update(taken_at="yesterday"), "Invalid isoformat string"),
        (lambda r: r["confirmed"]["Ann"].update(dutch=-1), "confirmed dutch count of 'Ann' is -1"),
        (lambda r: r["proposed"]["Bob"].update(dutch="9"), "proposed dutch count of 'Bob' is '9'"),
        (lambda r: r["proposed"].pop("Bob"), "no 'Bob' field"),
        (lambda r: r["players"].append({"name": 3, "deck": None}), "is not a name and a deck"),
        (lambda r: r.update(confirmed={}), "no player's count is confirmed"),
    ],
)
def test_a_damaged_capture_is_left_out_naming_its_file_and_its_steps_other_shots_too(
    tmp_path: Path, change, said: str
) -> None:
    confirmed = {"Ann": {"dutch": 14, "blitz": 3}, "Bob": {"dutch": 9, "blitz": 0}}
    _keep(tmp_path, "dutch", 2, confirmed, confirmed)
    _keep(tmp_path, "blitz", 1, confirmed, confirmed)
    path = tmp_path / "counts" / "20261205-201503-dutch-1.json"
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))
    scenes, left_out = capture_scenes(tmp_path)
    assert [s.name for s in scenes] == ["20261205-201503-blitz-1"]  # (the rest is scored)
    damaged, step = left_out
    assert damaged.name == path.name and damaged.reason.startswith("not a capture's counts (")
    assert said in damaged.reason
    assert step == LeftOut("20261205-201503-dutch-2", "shot 1 of 2 is gone or damaged (its "
                           "counts are the step's)")


def test_a_player_who_had_left_the_match_is_not_one_of_the_rounds(tmp_path: Path) -> None:
    # (captures before 2026-12-03 listed every player of the match; the round's counts only
    # those who played it: such a folder was refused whole, "no 'Zed' field")
    confirmed = {"Ann": {"dutch": 14, "blitz": 3}, "Bob": {"dutch": 9, "blitz": 0}}
    left = {"name": "Zed", "deck": "blue-pump", "team": None}
    _keep(tmp_path, "dutch", 1, confirmed, confirmed, players=[*PLAYERS, left])
    (scene,), left_out = capture_scenes(tmp_path)
    assert left_out == [] and scene.decks == ("green-pump", "red-plow")


def test_hidden_files_beside_the_captures_are_not_read(tmp_path: Path) -> None:
    confirmed = {"Ann": {"dutch": 14, "blitz": 3}, "Bob": {"dutch": 9, "blitz": 0}}
    _keep(tmp_path, "dutch", 1, confirmed)
    (tmp_path / "counts" / "._20261205-201503-dutch-1.json").write_bytes(b"\x00\x05\x16\x07")
    assert capture_scenes(tmp_path)[1] == []  # (macOS's, copied to a stick)


def test_a_captures_folder_with_no_capture_is_said(tmp_path: Path) -> None:
    (tmp_path / "counts").mkdir()
    (tmp_path / "images").mkdir()
    with pytest.raises(SceneDataError, match=r"counts: no capture \(\*\.json\) to evaluate on"):
        capture_scenes(tmp_path)
    (tmp_path / "counts" / "x.json").write_text("[1]")
    assert capture_scenes(tmp_path) == (
        [], [LeftOut("x.json", "not a capture's counts (a JSON list, not an object)")]
    )


def test_a_windows_path_and_odd_names_are_found_or_said_in_a_line(tmp_path: Path) -> None:
    (tmp_path / "night 2").mkdir()
    (tmp_path / "night 2" / "t.jpg").write_bytes(b"a photo")
    (tmp_path / "~1.jpg").write_bytes(b"a photo")  # (a name, not a home: Windows' short names)
    path = _photos(tmp_path, "image,red-plow\nnight 2\\t.jpg,1\n~1.jpg,2\n")
    a, b = counts_file_scenes(path, DECK_NAMES)
    assert a.images == (tmp_path / "night 2" / "t.jpg",) and b.images == (tmp_path / "~1.jpg",)
    path = _photos(tmp_path, "image,red-plow\n" + "x" * 300 + ".jpg,1\n")
    with pytest.raises(SceneDataError, match=r"line 2: x+\.jpg: cannot be looked at \(File name"):
        counts_file_scenes(path, DECK_NAMES)
