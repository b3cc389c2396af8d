"""Scripted answers that make smallville-3 behave plausibly without a language model:
Isabella works at Hobbs Cafe and invites whoever she meets to her party, Maria studies at
the cafe, Klaus reads in the library. Used by the simulation tests and to record the viewer's
test fixture (tests/fixtures/run-smallville-3).

The answers come from the variables each template was rendered with and from the answer's
schema, never from the prompt's wording, so rewording a template breaks none of them. (The
stand-in model server is told no variables: there they fall back to plain answers.)"""

from __future__ import annotations

import re
from typing import Any

from simulacra import gametime
from simulacra.llm.completion import Request

PARTY = "I'm throwing a Valentine's Day party at Hobbs Cafe on February 14th from 5pm to 7pm."

ROUTINE = {
    "Isabella Rodriguez": "working at the counter of Hobbs Cafe",
    "Maria Lopez": "studying physics at Hobbs Cafe",
    "Klaus Mueller": "reading about gentrification in the library",
}
PLACE_WORDS = {"Hobbs Cafe": "Hobbs Cafe: cafe", "library": "library", "breakfast": "kitchen"}


def who(request: Request) -> str:
    """Who is thinking: the name the template was rendered with."""
    return request.variables.get("name", "")


def texts(items: Any) -> list[str]:
    """The texts of lines or memories, whether objects with a text, tables or strings."""
    found = []
    for item in items or ():
        text = item.get("text") if isinstance(item, dict) else getattr(item, "text", item)
        found.append(str(text))
    return found


def enum(request: Request, field: str) -> list:
    return schema_enum(request.schema, field)


def schema_enum(schema: dict, field: str) -> list:
    """The options of ``field``; "morning.time" names the time of a list's items."""
    node = schema
    for name in field.split("."):
        node = _deref(schema, node)
        node = _deref(schema, node.get("items", node))["properties"][name]
    return _deref(schema, node)["enum"]


def _deref(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def day_plan(request: Request) -> dict:
    routine = ROUTINE.get(who(request), "going about the day")
    wake = enum(request, "wake_up")
    woken = wake[len(wake) // 2]  # the usual time, in the middle of the options

    # In the hour after the wake-up's: the morning routine fills only its own hour.
    wished = {
        "morning": [(f"{int(woken[:2]) + 1:02d}:00", routine)],
        "afternoon": [("12:00", "having lunch"), ("13:00", routine)],
        "evening": [("18:00", "relaxing at home")],
    }
    answer: dict[str, Any] = {"wake_up": woken}
    for part, items in wished.items():
        if part not in request.schema["properties"]:
            continue  # a part of the day the habits take whole
        offered = enum(request, f"{part}.time")
        # The first time free at or after the one wished (no habit's hours are offered).
        answer[part] = []
        for when, activity in items:
            last = answer[part][-1]["time"] if answer[part] else ""
            free = [t for t in offered if t >= when and t > last]
            if free:
                answer[part].append({"time": free[0], "activity": activity})
        answer[part] = answer[part] or [{"time": offered[-1], "activity": items[-1][1]}]
    # The hours the habits name (plan.habit_times): the routine, as the habits would have it;
    # today's events as the grammar writes them.
    for key, node in request.schema["properties"].items():
        if gametime.HHMM.match(key):
            answer[key] = _deref(request.schema, node).get("const", routine)
    return answer


def event_item(request: Request) -> dict:
    """Every event of the day at the party's hour."""
    return {"time": "17:00", "activity": "at the party at Hobbs Cafe"}


def schedule(request: Request) -> dict:
    """The plan, hour by hour: the item in force at each hour the schema asks (the wake-up's
    hour, the morning routine, is not asked), else the resident's routine."""
    properties = request.schema["properties"]
    routine = ROUTINE.get(who(request), "going about the day")
    variables = request.variables
    in_force = dict(gametime.in_force(variables.get("outline", ()), list(properties)))
    # The hours the plan's items begin in are fixed by the schema (a server's request
    # carries no variables).
    return {h: p.get("const", in_force.get(h, routine)) for h, p in properties.items()}


def decompose(request: Request) -> dict:
    activity = request.variables.get("activity", "going about the day")
    return {"involves": activity, "steps": [{"activity": activity, "minutes": 15}] * 3}


def act(request: Request) -> dict:
    # What is done and the block it is a part of, both: "sitting down" for reading in the
    # library sits down in the library.
    variables = request.variables
    activity = f"{variables.get('activity', '')} {variables.get('purpose') or ''}".strip()
    places = enum(request, "place")
    wanted = [w for key, w in PLACE_WORDS.items() if key.lower() in activity.lower()]
    fitting = [p for p in places if any(w in p for w in wanted)] or places
    # Of those, the thing whose name shares most words with the activity: the places come in
    # a fixed order, not by relevance.
    words = set(re.findall(r"[a-z]+", activity.lower()))
    chosen = max(fitting, key=lambda p: len(words & set(re.findall(r"[a-z]+", p.split(": ")[-1]))))
    return {"kind_of_place": "a place for it", "place": chosen}


def event(request: Request) -> dict:
    """A thing's state: the first it can be in."""
    return {"object_state": enum(request, "object_state")[0]}


def decide(request: Request) -> dict:
    answer = {"thought": "nothing new", "emergency": "no"}
    if "talk_to" in request.schema["properties"]:
        people = enum(request, "talk_to")
        answer["talk_to"] = people[0] if who(request) == "Isabella Rodriguez" else people[-1]
    return {**answer, "instead": "carrying on", "minutes": 5}


def respond(request: Request) -> dict:
    if who(request) == "Isabella Rodriguez":
        return line(request, f"Good to see you! {PARTY} Will you come?", end=False)
    return line(request, "I'd love to come to your Valentine's Day party!", end=True)


def line(request: Request, says: str, *, end: bool) -> dict:
    """A line, with what it heard first where there is one to answer, and whether it ends the
    talk where a line may."""
    offered = request.schema["properties"]
    answer = {"heard": "what was said"} if "heard" in offered else {}
    if "topic" in offered:  # an opening: the first event it knows of, as a host would
        answer["topic"] = offered["topic"]["enum"][0]
    return {**answer, "says": says, **({"end": end} if "end" in offered else {})}


def after_chat(request: Request) -> dict:
    if any("Valentine" in line for line in texts(request.variables.get("lines"))):
        return {
            "for_planning": "the Valentine's Day party at Hobbs Cafe on February 14th, 5pm",
            "memo": "looking forward to the party",
        }
    return {"for_planning": "nothing new", "memo": "a pleasant chat"}


def rate(request: Request) -> dict:
    memories = request.variables.get("memories")
    if memories is None:  # the stand-in server: as many as the schema asks for
        memories = [""] * request.schema["properties"]["ratings"]["minItems"]
    return {
        "ratings": [
            {"level": "important" if "party" in memory.lower() else "minor"} for memory in memories
        ]
    }


SCRIPTS = {
    "day_plan": day_plan,
    "event_item": event_item,
    "hourly_schedule": schedule,
    "decompose": decompose,
    "act": act,
    "event": event,
    "decide": decide,
    "respond": respond,
    "after_chat": after_chat,
    "importance": rate,
}
