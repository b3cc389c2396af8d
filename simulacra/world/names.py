"""Finding a place from the words a person types: a full address, its tail, or a phrase.

``"Lin family's house: kitchen: stove"``, ``"kitchen: stove"``, ``"Lin family's kitchen
stove"`` and ``"stove"`` all name the same object when nothing else matches them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from simulacra.errors import UserError
from simulacra.world.tree import split_address

_FILLER = {"the", "a", "an", "in", "of", "at", "on", "by", "s"}
_SHOWN = 5


def where_said(names: Sequence[str]) -> re.Pattern[str]:
    """Words that say where something is done, for any of ``names``: "at home", "in the Dorm
    for Oak Hill College", "at her home"."""
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(
        rf"\s*\b(?:at|in)\s+(?:(?:the|her|his|their)\s+)?(?:{alternatives})\b", re.IGNORECASE
    )


def words(text: str) -> set[str]:
    """Content words, lower-case, with possessives and filler dropped."""
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"'s\b", " ", text)
    return {w for w in re.findall(r"[a-z0-9]+", text) if w not in _FILLER}


def resolve(text: str, addresses: Sequence[str], *, kind: str = "object") -> str:
    """The one address among ``addresses`` that ``text`` names.

    Tried in turn: the exact address; addresses ending in the parts typed
    (``"kitchen: stove"``); addresses containing every word typed, preferring those whose own
    last part is fully named. Ambiguity or no match is a UserError listing candidates.
    """
    typed = split_address(text)
    if not any(typed):
        raise UserError(f"no {kind} given", fix=f"name the {kind}, e.g. 'Sector: Arena: Object'")
    lowered = [[p.lower() for p in split_address(a)] for a in addresses]
    wanted = [p.lower() for p in typed]

    exact = [a for a, parts in zip(addresses, lowered, strict=True) if parts == wanted]
    if exact:
        return exact[0]
    tail = [
        a for a, parts in zip(addresses, lowered, strict=True) if parts[-len(wanted) :] == wanted
    ]
    if len(tail) == 1:
        return tail[0]

    query = words(text)
    matches = [a for a in addresses if query and query <= words(a)]
    if len(matches) == 1:
        return matches[0]
    named = [a for a in matches if words(split_address(a)[-1]) <= query]
    if len(named) == 1:
        return named[0]
    if matches:
        shown = (named or matches)[:_SHOWN]
        more = len(named or matches) - len(shown)
        listing = "; ".join(f'"{a}"' for a in shown) + (f" and {more} more" if more else "")
        raise UserError(
            f'"{text}" matches {len(named or matches)} {kind}s: {listing}',
            fix='add the room or building, or give the full address "Sector: Arena: Object"',
        )
    close = difflib.get_close_matches(text, addresses, n=_SHOWN, cutoff=0.4)
    if not close:
        last = {split_address(a)[-1]: a for a in addresses}
        close = [last[n] for n in difflib.get_close_matches(typed[-1], list(last), n=_SHOWN)]
    if close:
        how = "did you mean " + " or ".join(f'"{a}"' for a in close) + "?"
    else:
        how = "`simulacra world objects WORLD` lists every place"
    raise UserError(f'no {kind} matches "{text}"', fix=how)
