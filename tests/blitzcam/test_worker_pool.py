"""blitzcam/worker_pool.py: how the cutting's worker processes and their parent stop."""

from __future__ import annotations

import os
import signal
import sys
import threading

import pytest

from blitzcam.worker_pool import (
    _ctrl_c_held,
    ignore_ctrl_c,
    sigterm_unwinds,
    spawned_pool,
    workers_for,
)


def test_sigterm_raises_system_exit_inside_and_its_handler_is_put_back_after() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as ended, sigterm_unwinds():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0)  # (let the handler run before leaving)
    assert ended.value.code == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is before


def test_off_the_main_thread_nothing_changes() -> None:
    # (signal.signal raises ValueError off the main thread: cutting called from another
    # thread must still run, as `dataset generate`'s did before the helper was shared)
    seen: list[object] = []

    def cut() -> None:
        with sigterm_unwinds():
            seen.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=cut)
    thread.start()
    thread.join()
    assert seen == [signal.getsignal(signal.SIGTERM)]


def test_a_worker_leaves_ctrl_c_to_its_parent() -> None:
    before = signal.getsignal(signal.SIGINT)
    try:
        ignore_ctrl_c()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_workers_are_one_a_core_and_a_job_at_the_most(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (`train --workers 40` started forty interpreters to cut four scenes' crops, on two cores)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert workers_for(40) == 2
    assert capsys.readouterr().err == "note: --workers 40: this machine has 2 cores; 2 used\n"
    assert workers_for(40, 1, said=False) == 1 and capsys.readouterr().err == ""
    assert workers_for(2, 0) == 1 and workers_for(1) == 1 and workers_for(2, 5) == 2
    assert capsys.readouterr().err == ""


def test_inside_one_that_interrupts_sigterm_interrupts_too() -> None:
    # (scene generation's own handler, inside training's, exited 143 unsaid; review). The
    # handlers are called as the signal would call them.
    from blitzcam.errors import Terminated

    with sigterm_unwinds(as_interrupt=True):
        with pytest.raises(Terminated), sigterm_unwinds():
            signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
        with pytest.raises(Terminated):
            signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
    with pytest.raises(SystemExit), sigterm_unwinds():  # (alone: unwound as before)
        signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)


@pytest.mark.skipif(sys.platform == "win32", reason="signal masks are POSIX's")
def test_a_spawned_worker_holds_ctrl_c_from_its_start_until_it_ignores_it() -> None:
    # (an initializer runs once the worker has imported numpy and OpenCV: a Ctrl+C before
    # then printed the worker's KeyboardInterrupt traceback, in 4 of 12 tries of `dataset
    # generate` stopped early)
    from tests.blitzcam import pool_probe

    with spawned_pool(1, pool_probe.nothing) as pool:
        assert pool.map(pool_probe.state, [0]) == [(True, True, True)]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the parent's back


@pytest.mark.skipif(sys.platform == "win32", reason="signal masks are POSIX's")
def test_a_ctrl_c_while_workers_start_is_taken_after_not_lost() -> None:
    # (Python's own handler set here: a suite started in the background inherits Ctrl+C
    # ignored; and sent to this thread, the one that holds it, not to any of the process's)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    held = False
    try:
        with pytest.raises(KeyboardInterrupt), _ctrl_c_held():
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            held = signal.SIGINT in signal.sigpending()  # (not held: raised on the line before)
    finally:
        signal.signal(signal.SIGINT, before)
    assert held
