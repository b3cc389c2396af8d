"""`simulacra prompts eval`: every template's cases, run against a model and scored.

A case is a ``[[case]]`` table in a template file: variables laid over the template's
``[example]``, and checks on the parsed answer. A check names a field of the answer (a dotted
path such as ``ratings.1``; ``*`` is the whole answer as text; ``values`` is every value of the
answer's top level; a ``*`` inside a path is every item of a list, so ``plan.*.activity`` is
the activities of a plan, told apart by what is done, not when) and one test on it:

    is, is_not, one_of        the value equals / differs from / is among the given
    starts_with               the text starts with one of the given
    mentions, avoids          the text (case-insensitive) contains any / none of the words
    between = [lo, hi]        a number or an "HH:MM" time within bounds, inclusive
    greater_than = "FIELD"    a number greater than another field's
    distinct_at_least = N     a list (or ``values``) holds at least N different texts
    shorter_than = N          the text has fewer than N characters: one that fills a
                              field's bound of N was cut there
    max_share = F             no text fills more than the share F of a list
    cites_support = true      reflection insights: each shares a content word with a
                              statement it cites
    differs_from = "VAR"      the text is not a copy of a variable (the last line said, say)
    timed = [lo, hi, WORDS]   a list of {time, activity}: an item in force at some time from
                              lo to hi mentions one of the words (the evening's stream)

The grammar guarantees the shape; these checks measure the meaning, so a prompt change is
judged by numbers rather than by one good-looking answer.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from simulacra.errors import UserError
from simulacra.llm.interface import LanguageModel, ModelOutputError
from simulacra.llm.templates import PromptTemplate

Failure = str | None  # why a check failed, or None when it passed


@dataclass(frozen=True)
class CaseCheck:
    field: str
    kind: str
    arg: Any

    def describe(self) -> str:
        return f"{self.field} {self.kind} {json.dumps(self.arg, ensure_ascii=False)}"


@dataclass(frozen=True)
class Case:
    template: PromptTemplate
    name: str
    variables: dict[str, Any]
    checks: tuple[CaseCheck, ...]


@dataclass
class CaseResult:
    case: Case
    sample: int
    answer: dict[str, Any] | None
    failures: list[str]
    repairs: list[str] = field(default_factory=list)  # the rules that rewrote the answer

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class TemplateScore:
    name: str
    results: list[CaseResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def rate(self) -> float:
        return self.passed / len(self.results) if self.results else 0.0

    @property
    def repairs(self) -> Counter[str]:
        """What the answers needed rewritten, per rule (see repairs.py)."""
        return Counter(rule for r in self.results for rule in r.repairs)


def likely_range(passed: int, total: int) -> tuple[float, float]:
    """The 95% Wilson interval of a pass rate. With three samples per case the true rate can
    lie far from the measured one (a `decide` prompt scored 77% and 83% on the same seeds with
    only its grammar's form changed), so two scores whose ranges overlap may differ by chance."""
    if not total:
        return 0.0, 1.0
    z = 1.96
    rate = passed / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total))
    half /= 1 + z * z / total
    return max(0.0, centre - half), min(1.0, centre + half)


def score_cell(passed: int, total: int) -> str:
    """A pass rate as the table prints it: "83% (25/30, 66–93%)"."""
    low, high = likely_range(passed, total)
    rate = passed / total if total else 0.0
    return f"{rate:.0%} ({passed}/{total}, {low * 100:.0f}–{high:.0%})"


def cases_of(template: PromptTemplate) -> list[Case]:
    cases = []
    for i, raw in enumerate(template.cases, start=1):
        where = f"case {i}"
        if not isinstance(raw.get("name"), str):
            raise UserError("a case needs a name", file=template.path, field=where)
        variables = {**template.example, **raw.get("vars", {})}
        checks = tuple(_parse_check(c, template, f"{where} ({raw['name']})") for c in raw["check"])
        cases.append(Case(template, raw["name"], variables, checks))
    return cases


def _parse_check(raw: dict[str, Any], template: PromptTemplate, where: str) -> CaseCheck:
    kinds = [k for k in raw if k != "field"]
    if "field" not in raw or len(kinds) != 1 or kinds[0] not in CHECKS:
        raise UserError(
            f"a check needs a field and one of {', '.join(CHECKS)}",
            file=template.path,
            field=where,
        )
    return CaseCheck(raw["field"], kinds[0], raw[kinds[0]])


def evaluate(
    model: LanguageModel,
    templates: Iterable[PromptTemplate],
    *,
    samples: int = 1,
    seed: int = 42,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[TemplateScore]:
    """Run every case ``samples`` times; cases of one template run together, so the template's
    shared prefix stays in llama.cpp's KV cache."""
    scores = []
    for template in templates:
        score = TemplateScore(template.name)
        for case in cases_of(template):
            for sample in range(samples):
                result = run_case(model, case, sample, seed + sample)
                score.results.append(result)
                if on_result is not None:
                    on_result(result)
        if score.results:
            scores.append(score)
    return scores


def run_case(model: LanguageModel, case: Case, sample: int, seed: int) -> CaseResult:
    variables = dict(case.variables)
    identity = variables.pop("identity", "")
    try:
        answer: BaseModel = case.template.ask(
            model, identity=identity, agent=variables.get("name"), seed=seed, **variables
        )
    except ModelOutputError as e:
        return CaseResult(case, sample, None, [f"no valid answer: {e}"])
    data = answer.model_dump(by_alias=True, mode="json")
    log = getattr(model, "log", None)  # the call's entry lists what its rules rewrote
    entry = log.last if log is not None else None
    repairs = [r["rule"] for r in (entry or {}).get("repairs", ())]
    failures = []
    for check in case.checks:
        why = CHECKS[check.kind](_get(data, check.field), check.arg, data, case.variables)
        if why:
            failures.append(f"{check.field}: {why}")
    copied = _SHAPE_WORDS.search(json.dumps(data, ensure_ascii=False))
    if copied:  # every case checks this: it is nonsense whatever the template
        failures.append(f"*: copies the answer's shape ({copied.group(0)!r})")
    return CaseResult(case, sample, data, failures, repairs)


# The words of a placeholder in the prompt's shape sentence, copied into an answer.
_SHAPE_WORDS = re.compile(r"at most \d+ characters|characters>")


def _get(data: dict[str, Any], path: str) -> Any:
    if path == "*":
        return json.dumps(data, ensure_ascii=False)
    if path == "values":
        return list(data.values())
    head, _, rest = path.partition(".*.")
    value: Any = data
    for part in head.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return [_get(item, rest) for item in value] if rest else value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _words(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _number(value: Any) -> float:
    if isinstance(value, str) and re.fullmatch(r"\d{1,2}:\d{2}", value):
        hours, minutes = value.split(":")
        return int(hours) * 60 + int(minutes)
    return float(value)


def _is(value, arg, *_) -> Failure:
    return None if value == arg else f"is {value!r}, wanted {arg!r}"


def _is_not(value, arg, *_) -> Failure:
    return None if value != arg else f"is {value!r}"


def _one_of(value, arg, *_) -> Failure:
    return None if value in arg else f"{value!r} is none of {arg}"


def _starts_with(value, arg, *_) -> Failure:
    text = _text(value)
    return None if any(text.startswith(a) for a in _words(arg)) else f"{text!r} starts otherwise"


def _mentions(value, arg, *_) -> Failure:
    text = _text(value).lower()
    return None if any(w.lower() in text for w in _words(arg)) else f"mentions none of {arg}"


def _avoids(value, arg, *_) -> Failure:
    text = _text(value).lower()
    found = [w for w in _words(arg) if w.lower() in text]
    return f"mentions {found}" if found else None


def _between(value, arg, *_) -> Failure:
    lo, hi = arg
    ok = _number(lo) <= _number(value) <= _number(hi)
    return None if ok else f"{value} is outside {lo}-{hi}"


def _greater_than(value, arg, data, _) -> Failure:
    other = _get(data, arg)
    return None if _number(value) > _number(other) else f"{value} is not above {arg} ({other})"


def _normalised(values: list[Any]) -> list[str]:
    return [" ".join(_text(v).lower().split()) for v in values]


def _distinct_at_least(value, arg, *_) -> Failure:
    n = len(set(_normalised(value)))
    return None if n >= arg else f"only {n} different, wanted {arg}"


def _shorter_than(value, arg, *_) -> Failure:
    n = len(_text(value))
    return None if n < arg else f"{n} characters, cut at its bound of {arg}"


def _max_share(value, arg, *_) -> Failure:
    items = _normalised(value)
    text, count = Counter(items).most_common(1)[0]
    share = count / len(items)
    return None if share <= arg else f"{text!r} fills {share:.0%} (at most {arg:.0%})"


_STOP = {
    *("about", "after", "again", "their", "there", "these", "those", "which", "while", "with"),
    *("would", "could", "should", "being", "other", "into", "from", "have", "that", "this"),
    *("what", "when", "where", "your", "they", "them", "then", "than", "very", "much"),
}


def _content_words(text: str, ignore: set[str]) -> set[str]:
    words = {w for w in re.findall(r"[a-z]{4,}", text.lower())}
    return words - _STOP - ignore


def _cites_support(value, arg, data, variables) -> Failure:
    memories = variables.get("memories", [])
    ignore = set(re.findall(r"[a-z]+", str(variables.get("name", "")).lower()))
    for item in value:
        cited = [memories[n - 1] for n in item["because"] if 0 < n <= len(memories)]
        mine = _content_words(item["insight"], ignore)
        if not any(mine & _content_words(m, ignore) for m in cited):
            return f"{item['insight']!r} shares nothing with what it cites {item['because']}"
    return None


def _differs_from(value, arg, data, variables) -> Failure:
    other = variables.get(arg)
    if isinstance(other, list) and other:
        other = other[-1].get("text") if isinstance(other[-1], dict) else other[-1]
    same = _normalised([value]) == _normalised([other])
    return f"repeats {arg}" if same else None


def _timed(value, arg, *_) -> Failure:
    lo, hi, words = arg
    items = sorted(value, key=lambda item: _number(item["time"]))
    starts = [_number(item["time"]) for item in items]
    for i, item in enumerate(items):
        # Items that start at one time hold it together: none ends where another begins.
        ends = next((s for s in starts[i + 1 :] if s > starts[i]), 24 * 60)
        in_force = starts[i] <= _number(hi) and ends > _number(lo)
        if in_force and _mentions(item, words) is None:
            return None
    return f"nothing from {lo} to {hi} mentions any of {words}"


CHECKS: dict[str, Callable[[Any, Any, dict, dict], Failure]] = {
    "is": _is,
    "is_not": _is_not,
    "one_of": _one_of,
    "starts_with": _starts_with,
    "mentions": _mentions,
    "avoids": _avoids,
    "between": _between,
    "greater_than": _greater_than,
    "distinct_at_least": _distinct_at_least,
    "shorter_than": _shorter_than,
    "max_share": _max_share,
    "cites_support": _cites_support,
    "differs_from": _differs_from,
    "timed": _timed,
}
