"""How much of one text another holds, word for word: what tells an echo from a reply, and a
kept plan from a reworded one."""

from __future__ import annotations

import difflib
import re
import unicodedata
from functools import cache

from lemminflect import getAllLemmas


def sentences(text: str) -> list[str]:
    """``text`` cut after each ".", "!" or "?" that a space follows."""
    return re.split(r"(?<=[.!?])\s+", text)


# Typographic apostrophes read as the plain one: "I’m" lost its apostrophe to the ASCII
# below and was "im", not "i m", and the host's "I’m sorry, I didn’t hear what you said",
# Maria's line before it in curly quotes, was no echo (party seed 3i).
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def bare_words(text: str) -> list[str]:
    """``text``'s words, lower case, without punctuation ("Valentine's" is two) or accents
    (the 1.5B writes "Hobbs Café" and "Hobbs Cafe" alike), whatever its apostrophes."""
    text = text.translate(_APOSTROPHES)
    plain = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", " ", plain).split()


def base_words(text: str) -> list[str]:
    """``text``'s bare words, each in its dictionary form ("showered" and "showering" are
    "shower", "had" is "have"): the same words said in another tense or number read alike."""
    return [base_word(word) for word in bare_words(text)]


@cache
def base_word(word: str) -> str:
    """A lower-case word in its dictionary form (a verb's, else a noun's), or as it is."""
    lemmas = getAllLemmas(word)
    for kind in ("VERB", "AUX", "NOUN"):
        if lemmas.get(kind):
            return lemmas[kind][0]
    return word


def bare_text(text: str) -> str:
    """``text``'s bare words, one space apart: what a pattern of words is matched against."""
    return " ".join(bare_words(text))


def mostly_in(words: list[str], other: list[str], share: float) -> bool:
    """Whether at least ``share`` of ``words`` are ``other``'s, in their order."""
    blocks = difflib.SequenceMatcher(None, words, other, autojunk=False).get_matching_blocks()
    return sum(b.size for b in blocks) >= share * len(words)


def longest_run(words: list[str], other: list[str]) -> int:
    """How many words in a row ``words`` and ``other`` share at most."""
    match = difflib.SequenceMatcher(None, words, other, autojunk=False)
    return match.find_longest_match(0, len(words), 0, len(other)).size
