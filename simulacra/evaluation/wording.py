"""What a reader would call broken in one phrase or line of a run: the prompts' own text, an
activity that is not a doing, an object state that is not a state, a place not meant for
what is done there, and a dialogue line that answers like an assistant, echoes, or speaks of
the partner as if they were not there. Each check returns why, or None.

Verb forms come from lemminflect's English lexicon (a maintained lemmatiser), not from a list
of endings: "morning" and "something" end in -ing and are not doings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import cache

from lemminflect import getAllLemmas, getInflection

from simulacra.evaluation.checks import plain
from simulacra.evaluation.vocabulary import vocabulary
from simulacra.llm.tidy import is_adverb, is_participle, verb_lemmas
from simulacra.wording import base_word, sentences
from simulacra.world.names import where_said
from simulacra.world.tree import split_address

_WORD = re.compile(r"[a-z][a-z'-]*")
_MIN_DESCRIPTION_WORDS = 4  # shorter ones ("one sentence") are ordinary words


# ----------------------------------------------------------------------------- prompt text


@cache
def _schema_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Field names and field descriptions of every prompt template's answer schema."""
    from simulacra.llm.templates import all_templates

    names: set[str] = set()
    descriptions: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            names.update(k for k in node.get("properties", {}) if re.fullmatch(r"[a-z_]+", k))
            if isinstance(node.get("description"), str):
                descriptions.add(plain(node["description"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for template in all_templates().values():
        try:
            walk(template.schema(**template.example).model_json_schema())
        except Exception:  # noqa: BLE001 (a template whose example builds no schema adds nothing)
            continue
    long = (d for d in descriptions if len(d.split()) >= _MIN_DESCRIPTION_WORDS)
    return tuple(sorted(names)), tuple(sorted(long))


def prompt_text(text: str) -> str | None:
    """The prompt's or the answer schema's own words: "at most 60 chars}", "wake_up",
    '"activity":', "in an emergency, what they do instead", and the preamble's instructions
    ("staying true to who she is and to what she remembers")."""
    from simulacra.llm.templates import echoes_preamble

    t = plain(text)
    for mark in vocabulary().prompt.marks:
        if found := re.search(mark, t):
            return f"prompt text {found.group(0)!r}"
    if echoes_preamble(t):
        return "the preamble's instructions"
    names, descriptions = _schema_words()
    for name in names:
        snake = "_" in name and re.search(rf"\b{name}\b", t)
        if snake or re.search(rf'"{name}"\s*:|^{name}\s*:', t):
            return f"schema field {name!r}"
    for description in descriptions:
        if description in t:
            return f"schema description {description!r}"
    return None


# ----------------------------------------------------------------------------- doings


@cache
def is_ing_verb(word: str) -> bool:
    """A verb's -ing form; an -ing word the lexicon does not know ("vlogging") counts."""
    if not word.endswith("ing"):
        return False
    lemmas = verb_lemmas(word)
    if not lemmas:
        return not getAllLemmas(word)
    return any(word in getInflection(lemma, tag="VBG") for lemma in lemmas)


@cache
def is_s_verb(word: str) -> bool:
    """A verb in its third-person "-s" form ("serves", "drinks")."""
    return any(word in getInflection(lemma, tag="VBZ") for lemma in verb_lemmas(word))


@cache
def is_noun(word: str) -> bool:
    return "NOUN" in getAllLemmas(word)


def starts_with_name(text: str, names: Iterable[str]) -> str | None:
    """The resident whose full or first name ``text`` starts with."""
    for name in names:
        for said in (name, name.split()[0]):
            if re.match(rf"{re.escape(said)}(?![\w])", text.strip(), re.IGNORECASE):
                return name
    return None


_SUBJECTS = {"it", "he", "she", "this", "that", "everything", "everyone"}


def not_doing(activity: str, names: Iterable[str]) -> str | None:
    """An activity that does not read after "<name> is" as something being done: a name
    ("Isabella Rodriguez is Isabella Rodriguez"), a thing ("Klaus Mueller is clothing"), a
    phrase cut short, or two verb forms ("preparing food and serves customers")."""
    words = vocabulary().doing
    if name := starts_with_name(activity, names):
        return f"a name ({name}), not a doing"
    tokens = _WORD.findall(plain(activity))
    if not tokens:
        return "no words"
    # "still writing his paper", "occasionally assisting customers" go on with a doing: read
    # as one, it is one.
    # Not "in the classroom": "in" is an adverb too, and a place's word starts a doing.
    adverb = len(tokens) > 1 and is_adverb(tokens[0]) and is_ing_verb(tokens[1])
    before = tokens[0] in words.lasting or adverb
    first = tokens[1] if before and len(tokens) > 1 else tokens[0]
    if first not in words.starts and not is_ing_verb(first):
        return f"starts with {first!r}, not a verb's -ing form"
    if len(tokens) == 1 and is_noun(first) and first not in words.alone:
        return f"{first!r} alone reads as a thing"
    # "classes at the college from 09:00": a time the word pattern leaves out ends it.
    if tokens[-1] in words.dangling and not re.search(r"\d\s*$", activity):
        return f"cut short after {tokens[-1]!r}"
    for i, word in enumerate(tokens[:-1]):
        if word != "and" or not is_s_verb(tokens[i + 1]) or tokens[i + 1].endswith("ing"):
            continue
        if i > 1 and tokens[i - 2] in _SUBJECTS and is_s_verb(tokens[i - 1]):
            # "to make sure it looks and feels good" (seed 3y): a clause's own two verbs
            continue
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        # A participle after it too: "reading books and articles related to sociology" (3m);
        # or two plurals, then what is done with them: "painting the walls with different
        # colors and patterns using watercolors" (3z).
        listed = (
            i > 0
            and is_noun(tokens[i - 1])
            and tokens[i - 1].endswith("s")
            and is_ing_verb(after or "")
        )
        if (
            after is not None
            and after not in words.after_plural
            and not is_participle(after)
            and not listed
        ):
            return f"two verb forms ('{first} ... and {tokens[i + 1]}')"
    return None


# ----------------------------------------------------------------------------- places


def kinds_of(activity: str) -> list[str]:
    """The kinds of activity (sleeping, eating, washing...) that need a place meant for them."""
    t = plain(activity)
    places = vocabulary().places
    return [kind for kind, p in places.items() if any(re.search(a, t) for a in p.activity)]


def place_for(activity: str, address: str) -> str | None:
    """Sleeping, eating, washing, a screen's pastime or desk work at a place whose room and
    object are meant for none of the kinds the activity is of: "sleeping" at "Dorm: common
    room: sofa", "writing the body of the paper" at a garden shed."""
    kinds = kinds_of(activity)
    if not kinds or not address:
        return None
    parts = split_address(address)
    where = plain(" ".join(parts[1:] or parts))  # the room and the object, not the building
    places = vocabulary().places
    for kind in kinds:
        if any(re.search(rf"\b{re.escape(room)}\b", where) for room in places[kind].rooms):
            return None
    return f"{' and '.join(kinds)} at {': '.join(parts[1:]) or address}"


def said_elsewhere(activity: str, places: Iterable[str], buildings: Sequence[str]) -> str | None:
    """An activity that says in which building it is done ("studying at Hobbs Cafe"), done in
    another: a plan's words whose building was not to be had (closed, since stop 66)."""
    done = [p for p in places if p]
    longest = sorted(buildings, key=len, reverse=True)
    found = where_said(longest).search(activity) if done and longest else None
    if found is None:
        return None
    said = next(b for b in longest if b.lower() in found.group(0).lower())
    if any(split_address(p)[0] == said for p in done):
        return None
    return f"said at {said}, done at {done[-1]}"


def company(activity: str, names: Iterable[str]) -> list[str]:
    """The residents of ``names`` that ``activity`` has there with the one doing it: "eating
    a chocolate cake with Klaus Mueller", "being given a gift by Klaus"."""
    t = plain(activity)
    words = vocabulary().company
    if t.startswith(tuple(f"{w} " for w in words.alone)):
        return []
    before = tuple(f"{w} " for w in words.before_name)
    near = [(n, m) for n in names for m in _named(t, n)]
    return list(dict.fromkeys(n for n, m in near if t[: m.start(2)].endswith(before)))


# ----------------------------------------------------------------------------- states


def not_state(state: str) -> str | None:
    """An object's state that is a thing ("a few plates and utensils on the table") or a
    person's act ("bed is sleeping"), not how the thing is."""
    words = vocabulary().state
    t = plain(state)
    tokens = _WORD.findall(t)
    if not tokens:
        return "no words"
    if tokens[0] in words.things and not any(t.startswith(f) for f in words.fine):
        return f"a thing ({tokens[0]!r} ...), not a state"
    if is_ing_verb(tokens[0]) and set(verb_lemmas(tokens[0])) & set(words.acts):
        return f"a person's act ({tokens[0]!r}), not the thing's state"
    return None


# ----------------------------------------------------------------------------- lines


def assistant_line(text: str) -> str | None:
    """ "I'm sorry, but I don't have experience with gentrification": an assistant's answer."""
    t = plain(text)
    for pattern in vocabulary().line.assistant:
        if found := re.search(pattern, t):
            return f"an assistant's words {found.group(0)!r}"
    return None


def echo(text: str, earlier: Sequence[str]) -> str | None:
    """Most of an earlier line of the conversation said again, its words in order, in any
    tense: "showering, got dressed, and have breakfast at home" after "I woke up at 07:30,
    showered, got dressed, and had breakfast at home" (bench_town, stop 77)."""
    words = vocabulary().line
    mine = _base_words(text)
    for line in earlier:
        theirs = _base_words(line)
        shorter = min(len(mine), len(theirs))
        if shorter < words.echo_words:
            continue
        blocks = SequenceMatcher(None, mine, theirs, autojunk=False).get_matching_blocks()
        if sum(b.size for b in blocks) / shorter >= words.echo_share:
            return f"echoes {line[:80]!r}"
    return None


def mid_sentence(text: str) -> str | None:
    """A line that begins in the middle of a sentence: Klaus, invited to the party, said
    "sociology student at Oak Hill College." (party run of seed 1, stop 81), his identity's
    words without their subject."""
    first = text.lstrip()[:1]
    return f"begins mid-sentence: {text[:40]!r}" if first.isalpha() and first.islower() else None


def asked_back(text: str, before: Sequence[str]) -> str | None:
    """A question handed back ("What about you?") as the whole line, or after a line that
    handed it over: nothing the partner said or asked is answered."""
    said = _sentences(text)
    mine = [s for s in said if _is_asked_back(s)]
    if not mine:
        return None
    if len(said) == len(mine):
        return f"only hands the question back: {mine[0]!r}"
    if before and any(_is_asked_back(s) for s in _sentences(before[-1])):
        return f"hands back the question just asked: {mine[0]!r}"
    return None


def _sentences(text: str) -> list[str]:
    """The sentences of a line, each as the judge reads it (plain, no end mark but "?")."""
    return [s.strip(" .!") for s in sentences(plain(text)) if s.strip(" .!")]


def _is_asked_back(sentence: str) -> bool:
    return any(re.search(p, sentence) for p in vocabulary().line.asked_back)


def _base_words(text: str) -> list[str]:
    """The judge's words of ``text`` ("i'm" is one), each in its dictionary form."""
    return [base_word(word) for word in _WORD.findall(plain(text))]


@cache
def is_past_verb(word: str) -> bool:
    """A verb in its past form ("asked", "said")."""
    return any(word in getInflection(lemma, tag="VBD") for lemma in verb_lemmas(word))


def _named(t: str, name: str) -> list[re.Match]:
    """Mentions of ``name`` (full, or first name alone) in plain text ``t``, each with the
    word before it, a possessive, and the word after it."""
    found = []
    for said in dict.fromkeys((plain(name), plain(name).split()[0])):
        pattern = rf"(?<![\w'])(?:([\w']+) )?({re.escape(said)})(?![\w])('s|')?( [\w']+)?"
        found += list(re.finditer(pattern, t))
    return found


def _spoken_of(match: re.Match) -> bool:
    words = vocabulary().line
    before = match.group(1) or ""
    after = (match.group(4) or "").strip()
    return bool(
        match.group(3)  # a possessive: "Maria's paper"
        or after in words.after_name
        or (after and (is_s_verb(after) or is_past_verb(after)))
        or before in words.before_name
    )


def third_person(text: str, partners: Iterable[str]) -> str | None:
    """The partner spoken of by name while being spoken to: "Maria is right", "Maria's
    paper", "with Klaus", "Maria Lopez then asked"; "Maria, do you..." and "Thanks, Maria"
    are fine."""
    t = plain(text)
    for partner in partners:
        for match in _named(t, partner):
            if _spoken_of(match):
                return f"speaks of {partner} to {partner}: {match.group(0).strip()!r}"
    return None


def own_name(text: str, speaker: str) -> str | None:
    """The speaker's own name in their line, outside an introduction ("I'm Klaus"): the
    model narrating ("Klaus Mueller responded that...") or greeting itself ("Hi, Isabella!")."""
    t = plain(text)
    intros = vocabulary().line.introductions
    for said in dict.fromkeys((plain(speaker), plain(speaker).split()[0])):
        for found in re.finditer(rf"(?<![\w']){re.escape(said)}(?![\w])", t):
            if not any(t[: found.start()].rstrip().endswith(i) for i in intros):
                near = t[max(0, found.start() - 20) : found.end() + 20]
                return f"{speaker} names themself: {near!r}"
    return None


def bad_line(
    text: str, speaker: str, partners: Sequence[str], earlier: Sequence[str]
) -> str | None:
    return (
        assistant_line(text)
        or echo(text, earlier)
        or asked_back(text, earlier[-1:])
        or mid_sentence(text)
        or third_person(text, partners)
        or own_name(text, speaker)
    )
