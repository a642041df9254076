"""The `blitzcam` console script: the CLI, imported here so that a Ctrl+C while it loads is
said as any other interrupt, not a traceback (the console script imports only this module)."""

from __future__ import annotations


def main() -> int:
    try:
        from blitzcam.cli import main as run
    except KeyboardInterrupt:
        import sys

        print("blitzcam: interrupted", file=sys.stderr)
        return 130
    return run()
