"""Prompts that fit the context by construction.

A template may name list variables (``fit = ["memories"]`` in its TOML) whose items are
context, best first: retrieved memories, recent resolutions. Items are added while the prompt
and room for the answer fit the model's context, so no stored memory, however many or long,
can make a prompt impossible. The other variables are the task itself and are never cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

# Room kept for the answer when fitting. Answers are bounded by their schema; the worst case
# (every character 4 bytes) is far above what a model writes, so fitting keeps this much and
# the backend gives an answer all the room that is left.
ANSWER_ROOM = 512
# A memory longer than this (stored before there were bounds at the door, or by a library
# caller) is shortened in prompts rather than crowding out every other memory.
LONGEST_ITEM = 2000


def shortened_to_fit(
    variables: dict[str, Any], names: Sequence[str], fits: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """``variables`` with the lists named in ``names`` cut to the longest prefix that fits
    (all of them when they fit; none when even that does not, and the backend says why)."""
    lists = {
        n: [_shortened(item) for item in variables[n]]
        for n in names
        if isinstance(variables.get(n), list)
    }
    variables = {**variables, **lists}
    if not lists or fits(variables):
        return variables

    def first(n: int) -> dict[str, Any]:
        return {**variables, **{name: items[:n] for name, items in lists.items()}}

    low, high = 0, max(len(items) for items in lists.values())  # high does not fit
    while high - low > 1:
        middle = (low + high) // 2
        if fits(first(middle)):
            low = middle
        else:
            high = middle
    return first(low)


def _shortened(item: Any) -> Any:
    if isinstance(item, str) and len(item) > LONGEST_ITEM:
        return item[: LONGEST_ITEM - 1].rstrip() + "…"
    return item
