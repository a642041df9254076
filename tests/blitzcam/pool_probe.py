"""Imported by a spawned worker before its initializer runs (the initializer is named from here):
what Ctrl+C does in a worker at that point, read by tests/blitzcam/test_worker_pool.py."""

from __future__ import annotations

import signal

HELD_AT_START = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def nothing() -> None:
    """An initializer: only names this module, so the worker imports it first."""


def state(_: object) -> tuple[bool, bool, bool]:
    """Whether SIGINT was held as the worker started, and whether it is ignored and no longer
    held once the worker runs jobs."""
    now_held = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return HELD_AT_START, signal.getsignal(signal.SIGINT) == signal.SIG_IGN, not now_held
