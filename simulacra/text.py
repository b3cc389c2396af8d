"""Checks for text that comes from users, files and model answers before it is stored or
shown: no control characters in names, and nothing that can drive a terminal when printed."""

from __future__ import annotations

import unicodedata

from simulacra.errors import UserError

# Cc: C0/C1 controls (ESC starts terminal escape sequences). Cf: format characters, among
# them the bidirectional overrides (U+202E) that make a name read backwards; the zero-width
# joiners stay, emoji sequences are made of them. Cs: lone surrogates.
_UNSAFE = {"Cc", "Cf", "Cs"}
_JOINERS = {"\u200c", "\u200d"}
_KEPT = {"\n", "\t"}  # in free text, not in names


def _unsafe(c: str) -> bool:
    return c not in _JOINERS and unicodedata.category(c) in _UNSAFE


def unsafe_characters(text: str, *, keep: set[str] | frozenset[str] = frozenset()) -> list[str]:
    return [c for c in text if c not in keep and _unsafe(c)]


def check_name(value: str) -> str:
    """A name as the world and the prompts use it: one line, printable, no ':'."""
    value = " ".join(value.split())
    if not value:
        raise ValueError("the name is empty")
    bad = unsafe_characters(value)
    if bad:
        raise ValueError(f"the name contains the control character U+{ord(bad[0]):04X}")
    if ":" in value:
        raise ValueError("a name cannot contain ':' (it separates the parts of an address)")
    return value


def check_free_text(value: str, *, one_line: bool = False) -> str:
    """Text from a file that is stored and shown (a post, its author): no control characters,
    as :func:`bounded` requires of what the town stores; newlines and tabs only where
    ``one_line`` is false."""
    bad = unsafe_characters(value, keep=frozenset() if one_line else _KEPT)
    if bad:
        raise ValueError(f"contains the control character U+{ord(bad[0]):04X}")
    return value


def bounded(text: str, limit: int, *, field: str, setting: str) -> str:
    """User text that becomes a memory or an object state: at most ``limit`` characters and
    no control characters, else a one-line error saying which setting holds the limit."""
    bad = unsafe_characters(text, keep=_KEPT)
    if bad:
        raise UserError(
            f"contains the control character U+{ord(bad[0]):04X}",
            field=field,
            fix="remove it",
        )
    if len(text) > limit:
        raise UserError(
            f"{len(text)} characters, more than the {limit} allowed",
            field=field,
            fix=f"shorten it, or raise {setting} in a --config file",
        )
    return text


def printable(text: str) -> str:
    """``text`` made safe for a terminal: control and format characters shown as escapes."""
    if not unsafe_characters(text, keep=_KEPT):
        return text
    return "".join(
        c.encode("unicode_escape", "backslashreplace").decode("ascii")
        if c not in _KEPT and _unsafe(c)
        else c
        for c in text
    )
