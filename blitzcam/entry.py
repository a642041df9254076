"""The `blitzcam` console script: the CLI, imported here so that a Ctrl+C while it loads is
said as any other interrupt, not a traceback (the console script imports only this module);
and the process's end, where the app leaves a camera's thread inside OpenCV."""

from __future__ import annotations

import contextlib
import os
import sys


def main() -> int:
    try:
        from blitzcam.cli import main as run
    except KeyboardInterrupt:
        print("blitzcam: interrupted", file=sys.stderr)
        return 130
    code = run()
    end_past_a_camera(code)
    return code


def end_past_a_camera(code: int) -> None:
    """End the process now, with `code`, when the app has left a camera's or stream's thread
    inside OpenCV (`ui.app.inside_a_camera`: an open nobody answers is not waited for): its
    return into an interpreter shutting down aborted the process (SIGABRT, a core dump). By
    now the CLI has said what it had to, however the app ended (a second Ctrl+C as it shut
    down, a store error), and the app has saved and closed everything."""
    app = sys.modules.get("blitzcam.ui.app")  # (only a command that ran the app loaded it)
    if app is None or not app.inside_a_camera():
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # (closed, or its reader gone)
            stream.flush()
    os._exit(code)
