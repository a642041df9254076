"""`blitzcam match --json`: one JSON document on standard output for every action, for scripts;
and the exit code a script retries on (a database another program held)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from blitzcam.cli import main


def run(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    code, out, err = run(*argv, capsys=capsys)
    assert code == 0, err
    return json.loads(out), err


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "m.sqlite3")
    code, _, err = run("match", "--db", path, "new", "-p", "Ann=green-pump@North",
                       "-p", "Bob=red-buggy@South", "--target", "30", capsys=capsys)  # fmt: skip
    assert code == 0, err
    return path


def test_new_says_the_match_its_standings_and_its_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "m.sqlite3")
    # (a script parsed "started match N" from the text)
    document, err = run_json("match", "--db", path, "--json", "new", "-p", "Ann=green-pump",
                             "-p", "Bob=Red-Buggy", capsys=capsys)  # fmt: skip
    assert err == ""
    assert document == {
        "match": 1,
        "standings": {"round_scores": [], "totals": {"Ann": 0, "Bob": 0}, "status": "in-progress",
                      "winners": []},
        "match_file": {"target": 75, "variant": "standard", "rounds": [],
                       "players": [{"name": "Ann", "deck": "green-pump"},
                                   {"name": "Bob", "deck": "red-buggy"}]},
    }  # fmt: skip


@pytest.mark.parametrize("where", ["before", "after"])
def test_json_is_taken_before_the_action_or_after_it(
    db: str, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["match", "--db", db, "add", "Ann=12/0", "Bob=9/4"]
    argv.insert(argv.index("add") + (where == "after") * 3, "--json")
    document, _ = run_json(*argv, capsys=capsys)
    assert document["match"] == 1
    assert document["standings"]["round_scores"] == [{"Ann": 12, "Bob": 1}]
    assert document["standings"]["team_totals"] == {"North": 12, "South": 1}
    assert document["match_file"]["rounds"] == [
        {"Ann": {"dutch": 12, "blitz": 0}, "Bob": {"dutch": 9, "blitz": 4}}
    ]


def test_a_round_that_decides_the_match_says_so(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    run("match", "--db", db, "add", "Ann=20/0", "Bob=3/0", capsys=capsys)
    document, _ = run_json("match", "--db", db, "--json", "add", "Ann=12/0", "Bob=2/0", capsys=capsys)
    assert (document["standings"]["status"], document["standings"]["winners"]) == ("won", ["North"])


def test_undo_gives_the_round_it_took_and_the_command_that_puts_it_back(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    run("match", "--db", db, "add", "Ann=12/0", "Bob=9/4", capsys=capsys)
    document, _ = run_json("match", "--db", db, "--json", "undo", capsys=capsys)
    assert document["deleted_round"] == {
        "number": 1, "tallies": {"Ann": {"dutch": 12, "blitz": 0}, "Bob": {"dutch": 9, "blitz": 4}}
    }  # fmt: skip
    assert document["match_file"]["rounds"] == []
    words = shlex.split(document["put_back"])
    assert words[:2] == ["blitzcam", "match"]
    assert run("match", *words[2:], capsys=capsys)[0] == 0  # (the --db it names is ours)
    again, _ = run_json("match", "--db", db, "--json", "show", capsys=capsys)
    assert again["standings"]["round_scores"] == [{"Ann": 12, "Bob": 1}]


def test_a_round_deleted_before_the_last_has_no_command_to_put_it_back(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run("match", "--db", db, "add", "Ann=1/0", "Bob=2/0", capsys=capsys)
    run("match", "--db", db, "add", "Ann=3/0", "Bob=4/0", capsys=capsys)
    document, _ = run_json("match", "--db", db, "--json", "delete-round", "1", capsys=capsys)
    assert document["deleted_round"]["number"] == 1 and document["put_back"] is None
    assert document["standings"]["round_scores"] == [{"Ann": 3, "Bob": 4}]


@pytest.mark.parametrize(
    ("action", "seen"),
    [
        (["edit", "1", "Bob=10/0"], lambda d: d["standings"]["totals"] == {"Ann": 12, "Bob": 10}),
        (["settings", "--target", "50"], lambda d: d["match_file"]["target"] == 50),
        (["player", "Bob", "--name", "Rob"], lambda d: "Rob" in d["standings"]["totals"]),
        (["join", "Cy", "--deck", "blue-plow", "--team", "North"],
         lambda d: d["match_file"]["players"][2] == {"name": "Cy", "deck": "blue-plow",
                                                     "team": "North", "joined": 1}),
        (["show"], lambda d: d["standings"]["round_scores"] == [{"Ann": 12, "Bob": 1}]),
    ],
)  # fmt: skip
def test_every_action_on_a_match_prints_its_document(
    db: str, action: list[str], seen, capsys: pytest.CaptureFixture[str]
) -> None:
    run("match", "--db", db, "add", "Ann=12/0", "Bob=9/4", capsys=capsys)
    document, _ = run_json("match", "--db", db, "--json", *action, capsys=capsys)
    assert document["match"] == 1 and seen(document)


def test_leave_and_rejoin_print_their_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.sqlite3")
    run("match", "--db", db, "new", "-p", "Ann=green-pump", "-p", "Bob=red-buggy", "-p", "Cy=blue-plow",
        capsys=capsys)  # fmt: skip
    run("match", "--db", db, "add", "Ann=12/0", "Bob=9/4", "Cy=1/1", capsys=capsys)
    document, _ = run_json("match", "--db", db, "--json", "leave", "Bob", capsys=capsys)
    assert document["match_file"]["players"][1]["left"] == 1
    document, _ = run_json("match", "--db", db, "rejoin", "Bob", "--json", capsys=capsys)
    assert "left" not in document["match_file"]["players"][1]


def test_notes_stay_on_standard_error(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    # a count the game hardly leaves is noted, as without --json, and the document stays whole
    document, err = run_json("match", "--db", db, "--json", "add", "Ann=30/8", "Bob=9/0", capsys=capsys)
    assert document["standings"]["totals"]["Ann"] == 14
    assert err.startswith("note: ") and "check the counts" in err


def test_list_says_each_match_and_when(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from blitzcam.game.store import MatchStore
    from tests.game.factories import match_of

    db = tmp_path / "m.sqlite3"
    with MatchStore(db, clock=lambda: datetime(2026, 12, 2, 14, 55, tzinfo=UTC)) as store:
        store.create_match(match_of())
    document, _ = run_json("match", "--db", str(db), "--json", "list", capsys=capsys)
    (only,) = document["matches"]
    assert document["unreadable"] == 0
    assert only["match"] == 1 and only["rounds"] == 0 and only["status"] == "in-progress"
    assert only["started"] == only["changed"] == "2026-12-02T14:55:00+00:00"  # (UTC, not local)
    assert [p["playing"] for p in only["players"]] == [True] * len(only["players"])
    assert [p["team"] for p in only["players"]] == [None] * len(only["players"])  # (always there)


def test_list_without_a_store_is_an_empty_list(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(tmp_path))
    assert run_json("match", "--json", "list", capsys=capsys) == ({"matches": [], "unreadable": 0}, "")


def test_list_counts_a_damaged_match_names_it_on_standard_error_and_exits_1(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    run("match", "--db", db, "add", "Ann=5/0", "Bob=3/1", capsys=capsys)
    run("match", "--db", db, "new", "-p", "Cy=blue-plow", "-p", "Di=red-plow", capsys=capsys)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tallies SET dutch = 99 WHERE match_id = 1")
    code, out, err = run("match", "--db", db, "--json", "list", capsys=capsys)
    document = json.loads(out)
    assert code == 1 and document["unreadable"] == 1
    assert [m["match"] for m in document["matches"]] == [2]
    assert err.startswith("error: match 1 in ")


def test_a_list_date_of_no_zone_is_said_in_utc() -> None:
    # (a hand-edited date: the store reads it as UTC, as SQLite does)
    from blitzcam.commands.match_json import match_list_document
    from blitzcam.game.rules import score_match
    from blitzcam.game.store import MatchSummary
    from tests.game.factories import match_of

    match = match_of()
    summary = MatchSummary(1, datetime(2026, 1, 2, 3, 4), datetime(9999, 12, 31, 23, 59, tzinfo=UTC),
                           match.players, 0, score_match(match))  # fmt: skip
    (listed,) = match_list_document([summary], unreadable=0)["matches"]
    assert (listed["started"], listed["changed"]) == ("2026-01-02T03:04:00+00:00", "9999-12-31T23:59:00+00:00")


def test_delete_gives_the_match_it_deleted(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    run("match", "--db", db, "add", "Ann=5/0", "Bob=3/1", capsys=capsys)
    document, _ = run_json("match", "--db", db, "--json", "delete", "1", capsys=capsys)
    assert document["deleted"] == 1
    assert document["match_file"]["rounds"] == [{"Ann": {"dutch": 5, "blitz": 0}, "Bob": {"dutch": 3, "blitz": 1}}]


def test_a_match_that_breaks_the_rules_deleted_gives_its_file_as_stored(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # (it was null, "too damaged to read", though `export --as-stored` reads it: the only copy
    # of exactly the match that needed one; diff review)
    import sqlite3

    run("match", "--db", db, "add", "Ann=5/0", "Bob=3/1", capsys=capsys)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tallies SET dutch = 99 WHERE match_id = 1 AND seat = 0")
    document, _ = run_json("match", "--db", db, "--json", "delete", "1", capsys=capsys)
    assert document["deleted"] == 1
    assert document["match_file"]["rounds"] == [{"Ann": {"dutch": 99, "blitz": 0}, "Bob": {"dutch": 3, "blitz": 1}}]


def test_a_match_too_damaged_to_read_deleted_has_no_file_to_give(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE players SET sat_out = 'nonsense' WHERE match_id = 1")
    assert run_json("match", "--db", db, "--json", "delete", "1", capsys=capsys)[0] == {
        "deleted": 1, "match_file": None
    }  # fmt: skip


def test_export_says_what_it_wrote_and_import_what_it_stored(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run("match", "--db", db, "add", "Ann=5/0", "Bob=3/1", capsys=capsys)
    file = tmp_path / "copy.json"
    document, _ = run_json("match", "--db", db, "--json", "export", str(file), capsys=capsys)
    assert document == {"match": 1, "file": str(file), "format": "json"}
    imported, _ = run_json("match", "--db", db, "--json", "import", str(file), capsys=capsys)
    assert imported["match"] == 2
    assert imported["match_file"] == json.loads(file.read_text(encoding="utf-8"))


def test_export_to_standard_output_refuses_json(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    # (its standard output is the file itself: a document around it would be neither)
    code, out, err = run("match", "--db", db, "--json", "export", "-", "--format", "csv", capsys=capsys)
    assert (code, out) == (2, "")
    assert err.endswith("--json: `export -` writes the match file itself to standard output (--format json)\n")


def test_summarize_takes_json_and_prints_what_it_always_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "m.json"
    file.write_text(json.dumps({"players": [{"name": "Ann", "deck": "green-pump"},
                                            {"name": "Bob", "deck": "red-buggy"}],
                                "rounds": [{"Ann": {"dutch": 3, "blitz": 0},
                                            "Bob": {"dutch": 1, "blitz": 1}}]}), encoding="utf-8")  # fmt: skip
    plain = run("match", "summarize", str(file), capsys=capsys)
    assert run("match", "--json", "summarize", str(file), capsys=capsys) == plain
    assert run("match", "summarize", str(file), "--json", capsys=capsys) == plain


def test_a_refusal_prints_no_document(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run("match", "--db", db, "--json", "add", "Ann=41/0", "Bob=1/0", capsys=capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1


def test_a_database_held_past_the_wait_exits_75_to_be_tried_again(
    db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (it was 2, as for a refused round: a script could not tell "try again" from "wrong")
    import sqlite3
    from contextlib import closing

    import blitzcam.game.store_file as store_module
    from blitzcam.errors import BUSY

    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 300)
    with closing(sqlite3.connect(db, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")
        code, out, err = run("match", "--db", db, "--json", "add", "Ann=5/0", "Bob=1/1", capsys=capsys)
        other.execute("ROLLBACK")
    assert (code, out, BUSY) == (75, "", 75)
    assert err.rstrip().endswith("nothing was saved")
    assert run("match", "--db", db, "add", "Ann=5/0", "Bob=1/1", capsys=capsys)[0] == 0
