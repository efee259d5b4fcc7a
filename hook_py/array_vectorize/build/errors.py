"""The one exception the build backend raises for problems a user can fix."""

from __future__ import annotations


class BuildError(SystemExit):
    """A build error a user can act on: file, line, column, reason and what to do.

    A SystemExit, so that an uncaught one ends the frontend's hook subprocess with the message
    and exit status 1, and no traceback hides it. In-process callers can catch it by name.
    """

    def __init__(self, message: str) -> None:
        super().__init__(f"error: array_vectorize.build: {message}")
        self.message = message

    def __str__(self) -> str:
        return str(self.code)
