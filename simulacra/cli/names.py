"""Residents named on the command line: by full name, or an unambiguous first name."""

from __future__ import annotations

from simulacra.errors import UserError


def match_name(text: str, names: list[str]) -> str:
    """A resident by full name, or by an unambiguous first name or prefix."""
    lowered = text.strip().lower()
    exact = [n for n in names if n.lower() == lowered]
    found = exact or [n for n in names if n.lower().startswith(lowered)]
    if len(found) == 1:
        return found[0]
    raise UserError(
        f"{'several residents match' if found else 'no resident named'} {text!r}",
        field="AGENT",
        fix=f"residents: {', '.join(found or names)}",
    )
