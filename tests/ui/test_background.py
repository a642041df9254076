"""ui/background.py: work off the window's thread, its outcome handed back on it."""

from __future__ import annotations

import threading

import pytest

from blitzcam.ui.background import BackgroundJob, Outcome


def test_the_outcome_comes_back_on_the_window_thread(qtbot) -> None:
    job = BackgroundJob()
    ran_in: list[threading.Thread] = []
    got: list[tuple[Outcome, threading.Thread]] = []
    job.done.connect(lambda outcome: got.append((outcome, threading.current_thread())))

    def work() -> int:
        ran_in.append(threading.current_thread())
        return 42

    job.start(work)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [(Outcome(value=42), threading.main_thread())]
    assert ran_in and ran_in[0] is not threading.main_thread()
    assert not job.busy


def test_an_exception_is_handed_back_not_raised(qtbot) -> None:
    job = BackgroundJob()
    got: list[Outcome] = []
    job.done.connect(got.append)
    failure = OSError("disk full")

    def work() -> None:
        raise failure

    job.start(work)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got[0].error is failure and got[0].value is None


def test_one_job_at_a_time(qtbot) -> None:
    job = BackgroundJob()
    release = threading.Event()
    got: list[Outcome] = []
    job.done.connect(got.append)
    job.start(lambda: release.wait(10))
    assert job.busy
    with pytest.raises(RuntimeError, match="already running"):
        job.start(lambda: None)
    release.set()
    assert job.wait(5)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert not job.busy and got == [Outcome(value=True)]
    job.start(lambda: "again")  # free once its outcome is handed back
    qtbot.waitUntil(lambda: len(got) == 2, timeout=5000)
    assert got[1] == Outcome(value="again")


def test_a_job_whose_owner_was_deleted_ends_without_an_error_in_its_thread(qtbot) -> None:
    # (an enrollment past the quit's wait: its window deleted, "Signal source has been
    # deleted" in the thread as it ended)
    import shiboken6

    errors: list[BaseException | None] = []
    before, threading.excepthook = threading.excepthook, lambda hook: errors.append(hook.exc_value)
    try:
        job = BackgroundJob()
        go = threading.Event()
        job.start(lambda: go.wait(5), name="enrolling")
        thread = job._thread
        shiboken6.delete(job)
        go.set()
        thread.join(5)
        assert not thread.is_alive() and errors == []
    finally:
        threading.excepthook = before
