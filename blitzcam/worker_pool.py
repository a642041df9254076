"""Worker processes for the CPU-heavy cutting (scenes, crops, drawings), and how they stop.

Ctrl+C reaches every process of the terminal's group at once: a worker that took it printed its
own KeyboardInterrupt traceback, so workers ignore it and leave it to their parent, which stops
them. SIGTERM reaches the parent alone (`kill PID`, a job scheduler's time limit): by default it
ended the parent on the spot, its workers then printed a BrokenPipeError traceback each as they
handed back their next result, and its half-written output folder stayed. Inside
`sigterm_unwinds` it raises SystemExit instead, so the parent's `finally` blocks run: the
workers are terminated, the partial output removed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

# the commands' --workers when none is given: said in a note only when given (a one-core
# machine told of an option nobody typed)
DEFAULT_WORKERS: Final = 2


def workers_for(asked: int, jobs: int | None = None, *, said: bool = True) -> int:
    """The worker processes to start for `--workers asked`: one a core at the most, `said` in a
    note (each is an interpreter of its own with numpy and OpenCV: `--workers 1000` started a
    process a scene, 1.3 GB for ten, and `train --workers 40` forty for four scenes), and no
    more than there are `jobs`."""
    cores = os.cpu_count() or 1
    if asked > cores and said:
        print(
            f"note: --workers {asked}: this machine has {cores} core{'s' if cores != 1 else ''}; "
            f"{cores} used",
            file=sys.stderr,
        )
    return max(1, min(asked, cores, asked if jobs is None else max(jobs, 1)))


def ignore_ctrl_c() -> None:
    """A worker's initializer: Ctrl+C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def sigterm_unwinds(*, as_interrupt: bool = False) -> Iterator[None]:
    """SIGTERM raises SystemExit(143) in the main thread while inside, or with `as_interrupt`
    `errors.Terminated` (unwound and said as Ctrl+C is); elsewhere, where no handler can be
    set, nothing changes. The handler before is put back on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    # (inside one that interrupts, as training's does, so does this one: else scene generation's
    # own exits 143 unsaid where training says how the run goes on)
    as_interrupt = as_interrupt or getattr(previous, "interrupts", False)

    def _raise(signum: int, frame: object) -> None:
        if as_interrupt:
            from blitzcam.errors import Terminated

            raise Terminated
        raise SystemExit(128 + signum)

    _raise.interrupts = as_interrupt  # type: ignore[attr-defined]

    signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
