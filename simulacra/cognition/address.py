"""How a line of a conversation names the two who talk: a name in a line said to someone
may only call them ("Klaus, are you coming?", "Thanks, Klaus!"), and one's own name only
introduce oneself ("I'm Klaus Mueller"). Any other use of either name is a small model that
lost track of who speaks to whom: "help Maria Lopez plan the decorations" said to Maria,
"I'm glad to meet Klaus Mueller" said by Klaus, "Isabella Rodriguez looks forward to it"
said by Isabella (party runs of seeds 1p, 3v and 3w).

The test is where a name stands, not which words surround it: set off by punctuation on both
sides, or after a greeting, it calls someone; anywhere else it speaks of them. An earlier
test listed the words that make a name an object ("with", "for", "invite", ...) and missed
every verb it did not list ("help Maria Lopez", "asked Maria Lopez about").
"""

from __future__ import annotations

import difflib
import re

# Words after which a name calls its bearer, with or without a comma: "Hello Klaus!", "Thank
# you Maria for coming", "Nice to meet you Klaus".
_GREETING = re.compile(
    r"(?:^|[^\w'])(?:hi|hello|hey|dear|thanks|thank you|sorry|yes|no|oh|well|welcome|bye|"
    r"goodbye|good (?:morning|afternoon|evening|night)|(?:meet|see) you|congratulations)"
    r"[\s,]*$",
    re.IGNORECASE,
)
_SET_OFF_BEFORE = re.compile(r"(?:^|[,.!?;:\u2014-])\s*$")
_SET_OFF_AFTER = re.compile(r"\s*(?:[,.!?;:\u2014-]|$)")
# Before one's own name, the words that introduce oneself: "I'm Klaus", "my name is Klaus".
_INTRODUCTION = re.compile(r"\b(?:i'm|i am|my name is|this is|it's|call me)\s*$", re.IGNORECASE)
# After it: "Klaus Mueller here."
_HERE = re.compile(r"\s+here\b", re.IGNORECASE)


def _mentions(words: str, person: str) -> list[re.Match[str]]:
    """Where ``person`` is named in ``words``: the whole name, or the first name alone."""
    called = rf"(?:{re.escape(person)}|{re.escape(person.split()[0])})"
    return list(re.finditer(rf"(?<![\w']){called}(?!\w)", words, flags=re.IGNORECASE))


def _calls(words: str, name: re.Match[str]) -> bool:
    before, after = words[: name.start()], words[name.end() :]
    if _GREETING.search(before):
        return True
    return bool(_SET_OFF_BEFORE.search(before) and _SET_OFF_AFTER.match(after))


def speaks_of(words: str, person: str) -> bool:
    """``person`` named in ``words`` other than to call them: "an event with Klaus Mueller",
    "Klaus's paper", "I hope Klaus is coming", said to Klaus."""
    return any(not _calls(words, name) for name in _mentions(words, person))


def names_self(words: str, speaker: str) -> bool:
    """The speaker's own name in their line, other than to introduce themselves: called by
    it ("I'm studying physics, Klaus Mueller") or spoken of ("Klaus is writing all day")."""
    return any(
        not _INTRODUCTION.search(words[: name.start()]) and not _HERE.match(words[name.end() :])
        for name in _mentions(words, speaker)
    )


def introduces(words: str, speaker: str) -> bool:
    """The speaker's own name said to introduce themselves: "I'm Klaus Mueller"."""
    return any(_INTRODUCTION.search(words[: name.start()]) for name in _mentions(words, speaker))


def unnamed(words: str, *people: str) -> str:
    """``words`` without the names of ``people``, whole or first names alone."""
    for person in people:
        for name in reversed(_mentions(words, person)):
            words = words[: name.start()] + words[name.end() :]
    return words


# A word this like a name, and no more than a letter longer or shorter, is that name misspelt:
# "Isabelle" for Isabella, "Marie" for Maria, "Müller" (as "Mueller") for Mueller.
_LIKE_A_NAME = 0.8
_CAPITALISED = re.compile(r"(?<![\w'])[A-Z][^\W\d_]+")
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def misspells(words: str, *people: str) -> bool:
    """A name of one of ``people`` spelt otherwise in ``words``: "Hello, I'm Isabelle", said
    by Isabella, "Hello, Marie", said to Maria, "Mr. Müller", to Klaus (party seed 3g)."""
    names = {part for person in people for part in person.split()}
    for said in {m[0] for m in _CAPITALISED.finditer(words)} - names:
        spelt = said.lower().translate(_UMLAUTS)
        for name in names:
            if (
                spelt[0] == name[0].lower()
                and abs(len(spelt) - len(name)) <= 1
                and difflib.SequenceMatcher(None, spelt, name.lower()).ratio() >= _LIKE_A_NAME
            ):
                return True
    return False
