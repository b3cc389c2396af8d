"""Game time: the simulated clock's datetimes, written the way prompts and users read them."""

from __future__ import annotations

from datetime import date, datetime

from simulacra.errors import UserError


def describe(t: datetime) -> str:
    """``Monday February 13, 2023, 07:30``."""
    return f"{t:%A %B} {t.day}, {t.year}, {t:%H:%M}"


def day(t: date) -> str:
    """``Monday February 13, 2023``."""
    return f"{t:%A %B} {t.day}, {t.year}"


def parse(text: str, *, field: str = "time") -> datetime:
    """``2023-02-13 07:30`` or ``2023-02-13T07:30``."""
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(
            f"not a date and time: {text!r}", field=field, fix="write it like 2023-02-13 07:30"
        ) from None
