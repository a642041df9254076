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

import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

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
    """In a worker: Ctrl+C is the parent's to handle (and one held while it started, dropped)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def spawned_pool(
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[object, ...] = (),
) -> Pool:
    """A pool of `workers` spawned processes that ignore Ctrl+C, then run `initializer`.

    An initializer runs only once the worker has imported numpy, OpenCV and the module of the
    job, a second or more: a Ctrl+C in that time would print the worker's KeyboardInterrupt
    traceback. So SIGINT is held (blocked) in this thread while the workers start; each
    inherits the block through exec and keeps it until `ignore_ctrl_c` drops it. A Ctrl+C held
    here meanwhile is taken as the pool is returned, not lost."""
    context = multiprocessing.get_context("spawn")  # no forked copies of a torch process
    with _ctrl_c_held():
        return context.Pool(workers, initializer=_start_worker, initargs=(initializer, initargs))


def _start_worker(initializer: Callable[..., object] | None, initargs: tuple[object, ...]) -> None:
    ignore_ctrl_c()
    if initializer is not None:
        initializer(*initargs)


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """SIGINT blocked in this thread while inside (held to its end, then taken); where signal
    masks are not (Windows), nothing changes."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    # (its first start unblocks SIGINT on its way out: started first, it leaves the block be)
    resource_tracker.ensure_running()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


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
