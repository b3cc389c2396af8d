"""Tidying of the model's free phrases: an activity that reads after "<name> is" and an
object's state that reads after "the <thing> is".

Grammars keep only the shape of these phrases (a grammar that forced an -ing verb made capable
models write "drinkscoffeeing"); the words are the model's, and these rules turn "drinks
coffee", "Maria is drinking coffee" or a phrase cut at its bound into one that reads well.
Each rule is named (see repairs.py and docs/repairs.md), so a run logs what it rewrote. Verb
forms come from lemminflect's English dictionary, not from rules of our own.
"""

from __future__ import annotations

import re
from functools import cache

from lemminflect import getAllLemmas, getAllLemmasOOV, getInflection

from simulacra.llm.repairs import repair, rule

_LEADING = re.compile(r"^(?:[A-Z][\w'.-]*\s+){0,3}(?:is|are|was|will be)\s+", re.UNICODE)
# A pronoun for a subject: "I turn off the stove", "she stops and waits", "I'm calling for help".
_PRONOUN = re.compile(r"^(?:I|I'm|I am|[Hh]e|[Ss]he|[Tt]hey|[Ww]e)(?:'s|'re| is| are)?\s+(?=[a-z])")
# A subject with a modal before a bare verb: "Isabella will start decorating the cafe" (a run
# turned it into "isabellaing will start…"), "she wants to read".
# Or a modal alone: "may occasionally assist customers" became "maying occasionally assist
# customers" (party seed 3, stop 69).
_MODAL = re.compile(
    r"^(?:(?:(?:[A-Z][\w'.-]*\s+){1,3}|(?:[Hh]e|[Ss]he|[Tt]hey|[Ww]e)\s+)"
    r"(?:will|would|can|could|should|may|might|must|is going to|plans to|wants to)"
    r"|(?:[Ww]ill|[Ww]ould|[Cc]an|[Cc]ould|[Ss]hould|[Mm]ay|[Mm]ight|[Mm]ust))\s+(?=[a-z])"
)
# A subject of one to three capitalised words before a verb in the third person.
_SUBJECT = re.compile(r"^(?:[A-Z](?![a-z]*ing\b)[\w'.-]*\s+){1,3}(?=[a-z]+s\b)")
# A step written as a step of a list: "then pours milk into her cup" (a morning run showed
# "thenning pours milk"), "starting by getting dressed".
_SEQUENCE = re.compile(
    r"^(?:(?:then|finally|after that|afterwards|also)[, ]+"
    r"|(?:starts?|starting|begins?|beginning|ends?|ending) by )+",
    re.IGNORECASE,
)
# Qwen models slip into Chinese mid-phrase ("putting on袜", a morning run): CJK characters.
_FOREIGN = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
# Two things to choose from, as a run's "taking notes or making observations": one is done.
_CHOICE = re.compile(r",? or (?=[a-z]+ing\b)")
# A timetable at the end: "continuing decorating the cafe from 8:10 to 10:0" (a morning run).
# The schedule already says when; the phrase is shown as what they are doing now.
_HOUR = r"(?:\d{1,2}(?:[:.]\d{0,2})?\s*(?:[ap]\.?m\.?)?|midnight|noon)"
# With the days it holds on, as a habit says it: "from 09:00 to 13:00 on weekdays".
_SPAN = re.compile(
    rf"[\s,]*\(?(?:from|between)?\s*{_HOUR}\s*(?:to|until|till|and|-|–)\s*{_HOUR}\)?"
    r"(?:\s+(?:on\s+\w+days|on\s+weekends|every\s+day|daily))?$",
    re.I,
)
# A duration at the end ("putting on makeup, in about 10"): a step has its own minutes.
# Or one cut at the bound after its number, with the clause it ends ("listening to some
# classical music and takes a 10", "sitting in a chair in the library and reads a 30-").
_DURATION = re.compile(
    r"[\s,]*\b(?:in|for|within|about)\s+(?:about\s+)?\d+(?:\s*(?:-|to)\s*\d+)?"
    r"(?:\s*(?:minutes?|mins?|hours?|hrs?))?$"
    r"|(?:[\s,]+(?:and|then)\s+[a-z]+)?[\s,]+(?:a|an)\s+\d+-?$"
)
# A phrase cut at its bound: "serving drinks and food to customers and friends, and",
# "preparing her breakfast, such as eggs, toast, and coffee, in a", a state "filled with
# notes and", a verb whose object was cut: "taking a break and then reads", or a list's word
# cut to its first letter: "decorated with red, h" (morning runs), but not "vitamin d".
_CUT = re.compile(
    r"(?:[ ,]+(?:and|or|(?:and|or) is|then [a-z]+s|then|with|the|a|an|of|to|for|by|such as"
    r"|as well as|(?:in|at|into|on) (?:a|an|the|her|his|their)"
    # A word cut at its hyphen: Klaus "writing their research paper on gentrification and
    # low-" for three hours (party run of seed 1, stop 81).
    r"|[a-z]+-)|,\s*[b-z])+[ ,]*$|[ ,]+$"
    # "the effects of gentrification in" (the rest was Chinese, party run of seed 2); not
    # a particle after an -ing verb ("logging in").
    r"|(?<!ing) (?:in|at|from|into)$"
)


# How near its bound a phrase ends when the bound, not the model, ended it: the grammar
# closes the string when the next word does not fit.
_NEAR_BOUND = 6


def _finished(text: str, bound: int | None) -> str:
    """A list that ran into its bound loses its last item, which was cut short: "setting up
    tables and chairs, preparing food, and ensuring" (a morning run, bound 60)."""
    if bound is None or len(text) < bound - _NEAR_BOUND or ", " not in text:
        return text
    return text.rsplit(", ", 1)[0]


def _whole_words(text: str, bound: int | None) -> str:
    """A phrase that filled its bound loses its last word where the dictionary does not know
    it: the bound cut it ("... setting tables and chairs and placingv", the host's step on the
    13th, party seed 2w). A known word there is kept, whole or not ("low" of "low-income")."""
    if bound is None or len(text) < bound or " " not in text:
        return text
    head, last = text.rsplit(" ", 1)
    return head if not getAllLemmas(last.lower().strip("'-")) else text


def _one_language(text: str) -> str:
    """The phrase up to where the model switched language, less the item it switched in."""
    switch = _FOREIGN.search(text)
    if not switch:
        return text
    head = text[: switch.start()].strip()
    for between in (", ", " and "):
        if between in head:
            return head.rsplit(between, 1)[0]
    return head or text  # nothing before the switch: better its words than none


OTHER_LANGUAGE = rule("phrase.other_language", "the phrase from where it switches language")
CUT_LIST_ITEM = rule("phrase.cut_list_item", "the last item of a list cut at the bound")
CUT_WORD = rule("phrase.cut_word", 'a last word the bound cut, one no dictionary knows: "placingv"')
CUT_END = rule(
    "phrase.cut_end", 'a dangling end: "and", "in a", a bare "in", ", h", a comma, "low-"'
)
CLOCK_SPAN = rule("activity.clock_span", 'a timetable at the end: "from 8:10 to 10:00"')
DURATION = rule("activity.duration", 'a duration at the end: "for 5 minutes", "takes a 10"')
SUBJECT_IS = rule("activity.subject_is", '"Maria Lopez is" before the activity')
MODAL = rule("activity.modal", '"Isabella will", "she wants to" before a bare verb')
PRONOUN = rule("activity.pronoun", '"I", "she", "I\'m" before the verb')
SUBJECT = rule("activity.subject", '"Isabella Rodriguez" before a verb in the third person')
SEQUENCE = rule("activity.sequence", '"then", "finally", "starting by" before a step')
CHOICE = rule("activity.choice", '"or making observations": the second of two choices')
EMPTY = rule("activity.empty", "a phrase the other rules emptied: the model's words back")
TO = rule("activity.to", '"to" before a bare verb')
FOOD = rule("activity.food", '"a cup of tea" -> "having a cup of tea"')
MEAL = rule("activity.meal", '"lunch with Klaus" -> "having lunch with Klaus"')
LOWERCASE = rule("activity.lowercase", "a capital on a first word that is not a name")
NOUN = rule("activity.noun", '"physics class" -> "doing physics class" (by ending)')
NOT_A_VERB = rule("activity.not_a_verb", '"chess" -> "doing chess" (a noun, and no verb)')
PARTICIPLE = rule("activity.participle", '"informed by" -> "being informed by"')
ING = rule("activity.ing", '"drinks coffee" -> "drinking coffee"')
SECOND_VERB = rule("activity.second_verb", '"stops and waits" -> "stopping and waiting"')


def _sub(pattern: re.Pattern[str]):
    return lambda text: pattern.sub("", text)


def _uncut(text: str) -> str:
    """``text`` less its cut end, and less the end that leaves bare: Klaus's "...to write
    about gentrification in low-" lost "low-" and kept "in" (party seed 3h)."""
    while (shorter := _CUT.sub("", text)) != text:
        text = shorter
    return text


def as_activity(phrase: str, bound: int | None = None) -> str:
    """ "Maria Lopez is drinking coffee", "Drinks coffee." or "drink coffee" -> "drinking
    coffee". ``bound``: the field's length limit, so a phrase cut there is tidied."""
    text = " ".join(phrase.split()).rstrip(".!")
    text = repair(OTHER_LANGUAGE, text, _one_language)
    text = repair(CUT_LIST_ITEM, text, lambda t: _finished(t, bound))
    text = repair(CUT_WORD, text, lambda t: _whole_words(t, bound))
    span = _SPAN.search(text)
    if span and span.start() and re.search(r"\d[:.]|[ap]\.?m", span.group()):  # a clock
        text = repair(CLOCK_SPAN, text, lambda t: t[: span.start()])
    if _CUT.sub("", _DURATION.sub("", text)):  # else neither: the tail is all there is
        text = repair(DURATION, text, _sub(_DURATION))
        text = repair(CUT_END, text, _uncut)
    text = repair(SUBJECT_IS, text, _sub(_LEADING))
    text = repair(MODAL, text, _sub(_MODAL))
    text = repair(PRONOUN, text, _sub(_PRONOUN))
    text = repair(SUBJECT, text, _sub(_SUBJECT))  # "Isabella Rodriguez opens the cafe"
    text = repair(SEQUENCE, text, _sub(_SEQUENCE))
    choice = _CHOICE.search(text)
    if choice and text.split(" ", 1)[0].endswith("ing"):
        text = repair(CHOICE, text, lambda t: t[: choice.start()])
    if not text:
        return repair(EMPTY, text, lambda _: phrase.strip() or "doing something")
    text = repair(TO, text, lambda t: t.removeprefix("to "))  # a run: "toing stream games"
    first, _, rest = text.partition(" ")
    word = first.lower()
    if word in ("a", "an", "some") and _FOOD & set(re.findall(r"[a-z]+", rest.lower())):
        # "a cup of tea": a run showed "Maria Lopez is a cup of tea"
        return repair(FOOD, text, lambda t: f"having {t}")
    if first[:1].isupper() and not _verb_like(first, rest):
        return text  # a name or a place first: not a verb to put in -ing form
    if word in _MEALS or word.removesuffix("s") in _MEALS:
        article = "a " if word in ("meal", "snack") else ""  # "having a meal", "having lunch"
        return repair(MEAL, text, lambda t: f"having {article}{word}{t[len(first) :]}")
    if not word.isalpha() or word.endswith("ing") or word in _NOT_VERBS:
        text = repair(LOWERCASE, text, lambda t: word + t[len(first) :] if first.isalpha() else t)
        return _one_form(text)
    if is_adverb(word) and verb_lemmas(rest.split(" ", 1)[0]):
        # "quickly finishing her coffee", "occasionally assist customers": the doing is the
        # verb after it ("quicklying" and "occasionallying" by the rule below)
        return f"{word} {as_activity(rest)}"
    if word.endswith(_NOUN_ENDINGS):
        # "physics class", not "physiccing class"
        return repair(NOUN, text, lambda t: f"doing {word}{t[len(first) :]}")
    if _noun_only(word):
        return repair(NOT_A_VERB, text, lambda t: f"doing {word}{t[len(first) :]}")
    if is_participle(word) and (not _past(word) or not rest or rest.startswith("by ")):
        # "informed by the books": a run showed "informeding by"; "sat down" and "left the
        # house" are a past tense, put in the -ing form below
        return repair(PARTICIPLE, text, lambda t: f"being {t}")
    text = repair(ING, text, lambda _: f"{_ing(word)} {rest}".strip())
    second, _, after = rest.removeprefix("and ").partition(" ")
    if rest.startswith("and ") and _third_person(word) and _third_person(second):
        # "stops and waits for her": two verbs
        both = f"{_ing(word)} and {_ing(second)} {after}".strip()
        return repair(SECOND_VERB, text, lambda _: both)
    return _one_form(text)


def _one_form(text: str) -> str:
    """A doing that goes on after "and" in the -ing form too."""
    later = _later_verb(text)
    if later is None:
        return text
    at, verb = later
    return repair(SECOND_VERB, text, lambda t: f"{t[:at]}{_ing(verb)}{t[at + len(verb) :]}")


# After "and <word>s", words that show the "-s" word is a plural noun, not a verb: "preparing
# food and drinks for the party", "making sure the tables and chairs are set up".
_AFTER_NOUN = {
    *("and", "or", "for", "to", "at", "in", "on", "with", "from", "of", "as", "while"),
    *("before", "after", "during", "around", "near", "throughout", "are", "were", "that"),
}


def _later_verb(text: str) -> tuple[int, str] | None:
    """Where a doing goes on with a verb in another form after "and", and the verb: "working
    on a research paper and takes breaks to rest", "seating at a table in the coffee shop and
    starts reviewing" (party seed 3m: three of the thirteen items its day judge found). Not a
    plural noun (followed by a preposition, or a participle: "books and articles related to
    it"), not the end (what follows a verb shows it is one), and not a clause's own two verbs
    ("so it looks and feels good")."""
    if not text.split(" ", 1)[0].endswith("ing"):
        return None
    for found in re.finditer(r"(\S+) and ([a-z]+) ([\w'-]+)", text):
        before, verb, after = found.groups()
        if _third_person(before) or after in _AFTER_NOUN or not _third_person(verb):
            continue
        if after[:1].isupper() or is_participle(after):
            continue
        return found.start(2), verb
    return None


def _verb_like(first: str, rest: str) -> bool:
    """Whether a capitalised first word starts a command ("Opens Hobbs Cafe", "Write in her
    journal") rather than a name ("Maria Lopez and Klaus arrive", "Hobbs Cafe opening")."""
    return not rest or rest[:1].islower() or _third_person(first.lower())


# First words that are not verbs to put in -ing form ("at the cafe", "on a walk").
_NOT_VERBS = {
    *("at", "on", "in", "with", "out", "off", "away", "busy", "asleep", "awake", "home"),
    *("no", "not", "nothing", "none", "free", "still", "the", "a", "an", "her", "his", "their"),
    *("first", "next", "last"),
}
# Nouns a phrase may start with ("physics class", "homework"), by endings no verb has.
_NOUN_ENDINGS = (
    *("ics", "tion", "sion", "ness", "ity", "ogy"),
    *("class", "homework", "housework", "yoga"),
)
_MEALS = {"breakfast", "brunch", "lunch", "dinner", "supper", "coffee", "tea", "snack", "meal"}
# After "a cup of", not first: "water the plants" is a verb.
_FOOD = _MEALS | {"water", "juice", "milk", "cereal", "toast", "sandwich", "salad", "soup"}


@cache
def verb_lemmas(word: str) -> tuple[str, ...]:
    """The verbs ``word`` is a form of, by the dictionary: none for "chess" or "Hobbs"."""
    return getAllLemmas(word, upos="VERB").get("VERB", ())


@cache
def noun_forms(word: str) -> frozenset[str]:
    """``word`` and its noun's other number, by the dictionary (by lemminflect's rules for a
    word it lacks): "bookshelves" -> bookshelf, "bench" -> benches, "boxes" -> box."""
    nouns = (
        getAllLemmas(word, upos="NOUN").get("NOUN") or getAllLemmasOOV(word, upos="NOUN")["NOUN"]
    )
    return frozenset((word, *nouns, *(p for n in nouns for p in getInflection(n, tag="NNS"))))


def is_adverb(word: str) -> bool:
    """An adverb by the dictionary, and no verb: "quickly", not "still" (to still a voice).
    The day judge reads a doing after one too."""
    return not verb_lemmas(word) and "ADV" in getAllLemmas(word)


def _noun_only(word: str) -> bool:
    """A noun the dictionary knows, in its own form, and no verb: "chess", "yoga" (a rule of
    our own made "chessing"). A word it does not know ("skypes") may still be a verb."""
    return not verb_lemmas(word) and word in getAllLemmas(word, upos="NOUN").get("NOUN", ())


def _lemma(word: str) -> str:
    lemmas = verb_lemmas(word) or getAllLemmasOOV(word, upos="VERB")["VERB"]
    return word if word in lemmas else lemmas[0]  # "feed" is a form of "fee" too


def _ing(word: str) -> str:
    """ "studies" -> "studying", "stop" -> "stopping", "is" -> "being", "skypes" -> "skyping"
    (a word the dictionary does not have is inflected by lemminflect's own rules)."""
    return getInflection(_lemma(word), tag="VBG")[0]


def _third_person(word: str) -> bool:
    """ "opens", "studies": a verb in the third person singular, by the dictionary (by rules,
    "Hobbs" would be one)."""
    return any(word in getInflection(lemma, tag="VBZ") for lemma in verb_lemmas(word))


def _past(word: str) -> bool:
    """ "went", "sat": a verb's simple past, by the dictionary."""
    return any(word in getInflection(lemma, tag="VBD") for lemma in verb_lemmas(word))


def is_participle(word: str) -> bool:
    """ "informed", "tired", "written": a past participle, not a verb's base form as "need",
    "shed" or "read" are."""
    lemmas = verb_lemmas(word)
    return word not in lemmas and any(word in getInflection(v, tag="VBN") for v in lemmas)
