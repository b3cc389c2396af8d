"""Errors a user can fix. The CLI prints them as one line, never as a traceback."""

from __future__ import annotations

from pathlib import Path


class UserError(Exception):
    """Bad input: a malformed file, an unknown name, a missing model.

    Rendered as ``FILE: FIELD: problem (fix)`` so the user knows where to look and what to do.
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | Path | None = None,
        field: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.problem = problem
        self.file = str(file) if file is not None else None
        self.field = field
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.file, self.field) if p)
        text = f"{where}: {self.problem}" if where else self.problem
        if self.fix:
            text += f" ({self.fix})"
        return " ".join(text.split())  # one line, whatever the parts contain
