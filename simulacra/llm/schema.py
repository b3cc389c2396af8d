"""Answer schemas: bounded fields, run-time enums, the shape sentence a prompt ends with, and
the worst-case token count of an answer (so ``max_tokens`` never cuts a valid answer short)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from enum import Enum
from functools import lru_cache, partial
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model


# A plain question answered before a decision: small models decide better after it. (No
# docstring: a schema's description would replace the field's own in the shape sentence.)
class YesNo(str, Enum):
    YES = "yes"
    NO = "no"


class Answer(BaseModel):
    """Base of every answer schema: no extra keys, fields in the order the prompt names them."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def text(max_length: int, description: str | None = None) -> Any:
    """A bounded, non-empty string field type."""
    return Annotated[str, Field(min_length=1, max_length=max_length, description=description)]


# An object's state is a few plain lowercase words ("brewing coffee", "being slept in"), never a
# copy of a place name.
STATE_PATTERN = r"^[a-z][a-z ,'-]{1,%d}$"


def activity_phrase(
    max_length: int, description: str = 'what they are doing, e.g. "brewing coffee"'
) -> Any:
    """A bounded activity phrase that reads after "<name> is", e.g. "brewing coffee".

    The words are the model's: a grammar that forced an -ing verb first made capable models
    glue words into "drinkscoffeeing". The phrase is free and bounded; afterwards
    :func:`as_activity` turns "drinks coffee" or "Maria is drinking coffee" into the -ing form.
    """
    return Annotated[
        str,
        Field(min_length=3, max_length=max_length, description=description),
        AfterValidator(partial(as_activity, bound=max_length)),
    ]


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
# Qwen models slip into Chinese mid-phrase ("putting on袜", a morning run): CJK characters.
_FOREIGN = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_VOWELS = "aeiou"
_CLOCK = re.compile(r"\d\d:\d\d")
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


def state_phrase(max_length: int, description: str = "a few lowercase words"):
    """An object's state that reads after "the <thing> is"; :func:`as_state` tidies it."""
    return Annotated[
        str,
        Field(
            min_length=2,
            max_length=max_length,
            pattern=STATE_PATTERN % (max_length - 1),
            description=description,
        ),
        AfterValidator(partial(as_state, bound=max_length)),
    ]


def one_of(options: Sequence[Any]) -> Any:
    """A field type admitting exactly ``options`` (place names, people present, indices...)."""
    unique = tuple(dict.fromkeys(options))
    if not unique:
        raise ValueError("a choice needs at least one option")
    return Literal[unique]  # type: ignore[valid-type]


def choice_model(options: Sequence[str]) -> type[Answer]:
    return create_model("Choice", __base__=Answer, choice=(one_of(options), ...))


@lru_cache(maxsize=512)
def _schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema())  # keep field order: the grammar follows it


def json_schema(model: type[BaseModel]) -> dict:
    """The JSON schema of ``model``; every string and array in it must be bounded."""
    schema = json.loads(_schema_text(model))
    _check_bounded(schema, schema, model.__name__)
    return schema


def _deref(node: dict, root: dict) -> dict:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = root["$defs"][name]
    return node


def _check_bounded(node: dict, root: dict, where: str) -> None:
    node = _deref(node, root)
    if "enum" in node or "const" in node:
        return
    kind = node.get("type")
    if kind == "string" and "maxLength" not in node:
        raise TypeError(f"{where}: unbounded string; give it a max_length")
    if kind == "array":
        if "maxItems" not in node:
            raise TypeError(f"{where}: unbounded list; give it a max_length")
        _check_bounded(node["items"], root, where + "[]")
    if kind == "object":
        for name, sub in node.get("properties", {}).items():
            _check_bounded(sub, root, f"{where}.{name}")
    for sub in node.get("anyOf", []):
        _check_bounded(sub, root, where)


def max_answer_tokens(schema: dict) -> int:
    """Tokens enough for the longest answer the grammar admits.

    Every token carries at least one byte, so a byte bound is a token bound. String characters
    count 4 bytes (UTF-8 worst case); separators allow one optional space.
    """
    return _max_bytes(schema, schema) + 8


def _max_bytes(node: dict, root: dict) -> int:
    node = _deref(node, root)
    if "enum" in node:
        return max(len(json.dumps(v).encode()) for v in node["enum"]) + 1
    if "const" in node:
        return len(json.dumps(node["const"]).encode()) + 1
    if "anyOf" in node:
        return max(_max_bytes(sub, root) for sub in node["anyOf"])
    kind = node.get("type")
    if kind == "string":
        return 4 * node["maxLength"] + 3
    if kind == "integer":
        return 21
    if kind == "number":
        return 32
    if kind == "boolean":
        return 6
    if kind == "null":
        return 5
    if kind == "array":
        return 3 + node["maxItems"] * (_max_bytes(node["items"], root) + 2)
    if kind == "object":
        props = node.get("properties", {})
        return 3 + sum(len(json.dumps(k)) + 4 + _max_bytes(v, root) for k, v in props.items())
    raise TypeError(f"unsupported schema node {node}")


def shape_sentence(schema: dict) -> str:
    """The closing line of every structured prompt: what the JSON must look like."""
    return "Answer with JSON only, in exactly this shape:\n" + _shape(schema, schema)


def _shape(node: dict, root: dict, description: str | None = None) -> str:
    description = node.get("description", description)
    node = _deref(node, root)
    description = node.get("description", description)
    if "enum" in node:
        return _enum_shape(node["enum"], description)
    if "const" in node:
        return json.dumps(node["const"], ensure_ascii=False)
    kind = node.get("type")
    if kind == "object":
        fields = ", ".join(
            f"{json.dumps(k)}: {_shape(v, root)}" for k, v in node.get("properties", {}).items()
        )
        return "{" + fields + "}"
    if kind == "array":
        item = _shape(node["items"], root)
        lo, hi = node.get("minItems", 0), node["maxItems"]
        if hi == 1:
            return f"[{item}]" if lo == 1 else f"[{item}] (or [] for none)"
        count = f"exactly {hi}" if lo == hi else f"{lo} to {hi}"
        return f"[{item}, ...] ({count} items)"
    if kind == "string":
        what = description or "text"
        return f'"<{what}, at most {node["maxLength"]} characters>"'
    if kind == "boolean":
        return f"<{description + ': ' if description else ''}true or false>"
    if kind in ("integer", "number"):
        return f"<{description or kind}>"
    return "<value>"


def _enum_shape(options: list, description: str | None) -> str:
    label = f"{description}: " if description else ""
    ints = [o for o in options if isinstance(o, int)]
    if len(ints) == len(options) and ints == list(range(min(ints), max(ints) + 1)):
        return f"<{label}integer {min(ints)}-{max(ints)}>"
    if len(options) > 8 and all(isinstance(o, str) and _CLOCK.fullmatch(o) for o in options):
        return f'<{label}from "{options[0]}" to "{options[-1]}", on the hour or half hour>'
    if len(options) > 8:
        return f"<{label}one of the options listed above, written exactly>"
    return (
        "<"
        + label
        + "one of "
        + ", ".join(json.dumps(o, ensure_ascii=False) for o in options)
        + ">"
    )
