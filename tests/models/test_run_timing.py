import json
from pathlib import Path

import pytest

from blitzcam.models.run_timing import TIMING_FILE, RunClock, add_train_seconds, train_seconds


def test_a_run_with_no_record_has_spent_nothing(tmp_path: Path) -> None:
    assert train_seconds(tmp_path) == 0.0


def test_sessions_add_up(tmp_path: Path) -> None:
    add_train_seconds(tmp_path, 600)
    add_train_seconds(tmp_path, 45.5)
    assert train_seconds(tmp_path) == pytest.approx(645.5)
    assert json.loads((tmp_path / TIMING_FILE).read_text()) == {"seconds": 645.5}
    assert [p.name for p in tmp_path.iterdir()] == [TIMING_FILE]  # no partial file left behind


def test_each_lap_adds_the_time_since_the_last_to_every_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, stage = tmp_path / "run", tmp_path / "run" / "stage"
    stage.mkdir(parents=True)
    add_train_seconds(run, 100)  # an earlier session's
    now = iter([10.0, 13.0, 20.0])
    monkeypatch.setattr("blitzcam.models.run_timing.time.monotonic", lambda: next(now))
    clock = RunClock(run, stage)
    clock.lap()
    assert (train_seconds(run), train_seconds(stage)) == (103.0, 3.0)
    clock.lap()
    assert (train_seconds(run), train_seconds(stage)) == (110.0, 10.0)
