"""Tidying of the model's free phrases: an activity that reads after "<name> is" and an
object's state that reads after "the <thing> is".

Grammars keep only the shape of these phrases (a grammar that forced an -ing verb made capable
models write "drinkscoffeeing"); the words are the model's, and these rules turn "drinks
coffee", "Maria is drinking coffee" or a phrase cut at its bound into one that reads well.
"""

from __future__ import annotations

import re

_LEADING = re.compile(r"^(?:[A-Z][\w'.-]*\s+){0,3}(?:is|are|was|will be)\s+", re.UNICODE)
# A pronoun for a subject: "I turn off the stove", "she stops and waits", "I'm calling for help".
_PRONOUN = re.compile(r"^(?:I|I'm|I am|[Hh]e|[Ss]he|[Tt]hey|[Ww]e)(?:'s|'re| is| are)?\s+(?=[a-z])")
# A subject with a modal before a bare verb: "Isabella will start decorating the cafe" (a run
# turned it into "isabellaing will start…"), "she wants to read".
_MODAL = re.compile(
    r"^(?:(?:[A-Z][\w'.-]*\s+){1,3}|(?:[Hh]e|[Ss]he|[Tt]hey|[Ww]e)\s+)"
    r"(?:will|would|can|could|should|may|might|must|is going to|plans to|wants to)\s+(?=[a-z])"
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
# A step written as what the activity involves, the decompose answer's first field: "preparing
# for the exam involves reviewing notes" (a morning run) is "reviewing notes".
_INVOLVES = re.compile(r"^.+? (?:involves|includes|means) (?=[a-z]+ing\b)")
# Qwen models slip into Chinese mid-phrase ("putting on袜", a morning run): CJK characters.
_FOREIGN = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_VOWELS = "aeiou"
# Two things to choose from, as a run's "taking notes or making observations": one is done.
_CHOICE = re.compile(r",? or (?=[a-z]+ing\b)")
# A timetable at the end: "continuing decorating the cafe from 8:10 to 10:0" (a morning run).
# The schedule already says when; the phrase is shown as what they are doing now.
_HOUR = r"(?:\d{1,2}(?:[:.]\d{0,2})?\s*(?:[ap]\.?m\.?)?|midnight|noon)"
_SPAN = re.compile(
    rf"[\s,]*\(?(?:from|between)?\s*{_HOUR}\s*(?:to|until|till|and|-|–)\s*{_HOUR}\)?$"
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
# notes and", a verb whose object was cut: "taking a break and then reads", or a word cut to
# its first letter: "decorated with red, h" (morning runs).
_CUT = re.compile(
    r"(?:[ ,]+(?:and|or|(?:and|or) is|then [a-z]+s|then|with|the|a|an|of|to|for|by|such as"
    r"|as well as|(?:in|at|into|on) (?:a|an|the|her|his|their)|[b-z]))+[ ,]*$|[ ,]+$"
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


def as_activity(phrase: str, bound: int | None = None) -> str:
    """ "Maria Lopez is drinking coffee", "Drinks coffee." or "drink coffee" -> "drinking
    coffee". ``bound``: the field's length limit, so a phrase cut there is tidied."""
    text = _finished(_one_language(" ".join(phrase.split()).rstrip(".!")), bound)
    span = _SPAN.search(text)
    if span and span.start() and re.search(r"\d[:.]|[ap]\.?m", span.group()):  # a clock
        text = text[: span.start()]
    text = _CUT.sub("", _DURATION.sub("", text)) or text
    text = _LEADING.sub("", text)
    text = _MODAL.sub("", text)
    text = _PRONOUN.sub("", text)
    text = _SUBJECT.sub("", text)  # "Isabella Rodriguez opens the cafe" -> "opens the cafe"
    text = _SEQUENCE.sub("", text)
    text = _INVOLVES.sub("", text)
    choice = _CHOICE.search(text)
    if choice and text.split(" ", 1)[0].endswith("ing"):
        text = text[: choice.start()]
    if not text:
        return phrase.strip() or "doing something"
    text = text.removeprefix("to ")  # "to stream games": a run showed "toing stream games"
    first, _, rest = text.partition(" ")
    word = first.lower()
    if word in ("a", "an", "some") and _FOOD & set(re.findall(r"[a-z]+", rest.lower())):
        return f"having {text}"  # "a cup of tea": a run showed "Maria Lopez is a cup of tea"
    if first[:1].isupper() and not _verb_like(first, rest):
        return text  # a name or a place first: not a verb to put in -ing form
    if word in _MEALS or word.removesuffix("s") in _MEALS:
        article = "a " if word in ("meal", "snack") else ""  # "having a meal", "having lunch"
        return f"having {article}{word}{text[len(first) :]}"
    if not word.isalpha() or word.endswith("ing") or word in _NOT_VERBS:
        return word + text[len(first) :] if first.isalpha() else text
    if word.endswith(_NOUN_ENDINGS):
        return f"doing {word}{text[len(first) :]}"  # "physics class", not "physiccing class"
    if _participle(word):
        return f"being {text}"  # "informed by the books": a run showed "informeding by"
    verb = _ing(word)
    second, _, after = rest.removeprefix("and ").partition(" ")
    if rest.startswith("and ") and word.endswith("s") and second.endswith("s") and second.isalpha():
        rest = f"and {_ing(second)} {after}"  # "stops and waits for her": two verbs
    return f"{verb} {rest}".strip()


# "the oven is heating", "bed is being slept in": the thing restated before its state.
_RESTATED = re.compile(r"^(?:(?:the|a|an) )?(?:[a-z'-]+ ){0,3}?(?:is|are) (?=[a-z])")


def as_state(phrase: str, bound: int | None = None) -> str:
    """ "the oven is heating" -> "heating": the state alone, to follow "the <thing> is"."""
    text = _finished(" ".join(phrase.split()), bound)
    text = _RESTATED.sub("", text) or text
    return _CUT.sub("", text) or text


def _verb_like(first: str, rest: str) -> bool:
    """Whether a capitalised first word starts a command ("Opens Hobbs Cafe", "Write in her
    journal") rather than a name ("Maria Lopez and Klaus arrive")."""
    return not rest or rest[:1].islower() or first.lower().endswith("s")


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
_IRREGULAR = {"is": "being", "be": "being", "has": "having", "does": "doing", "goes": "going"}


_BASE_ED = {"bed", "embed", "shed", "shred", "sled", "wed"}


def _participle(word: str) -> bool:
    """ "informed", "tired": not a verb's base form, as "need", "shed" or "embed" are."""
    return word.endswith("ed") and not word.endswith("eed") and word not in _BASE_ED


def _ing(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("ies") and len(verb) > 4:  # studies -> study
        verb = verb[:-3] + "y"
    elif verb.endswith(("ches", "shes", "sses", "xes", "zzes")):
        verb = verb[:-2]
    elif verb.endswith("s") and not verb.endswith("ss") and len(verb) > 3:
        verb = verb[:-1]
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        return verb[:-1] + "ing"
    if _one_syllable_cvc(verb):
        return verb + verb[-1] + "ing"  # run -> running, stop -> stopping
    return verb + "ing"


def _one_syllable_cvc(verb: str) -> bool:
    """A one-syllable verb ending consonant, single vowel, consonant: its last letter doubles
    before -ing (sit, stop, plan, chat), unlike "visit", "open", "read" or "fix"."""
    groups = re.findall(f"[{_VOWELS}]+", verb)
    return (
        len(verb) >= 3
        and len(groups) == 1
        and verb[-1] not in _VOWELS + "wxy"
        and verb[-2] in _VOWELS
        and verb[-3] not in _VOWELS
    )
