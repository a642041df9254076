"""The one exception type the CLI turns into a one-line message and an exit code."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the person or their files: shown as one line, never as a traceback."""

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code
