"""A scripted stand-in for the model, for unit tests of logic. The product never uses it.

Answers are deterministic per template: a script maps a template name to a fixed answer, a
list of answers given in turn, or a function of the request. Templates without a script get
the simplest answer the schema admits (first option, shortest text), so any code path runs.
A function answers from ``request.variables`` (what the template was rendered with) and the
schema, not from the prompt's wording, so that rewording a template breaks no test.
"""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from simulacra.llm.completion import Completion, Request

Script = dict[str, Any] | list[Any] | Callable[[Request], Any]


class ScriptedModel:
    """A :class:`~simulacra.llm.completion.Completer` that plays back scripted answers."""

    identity = "scripted"

    def __init__(self, scripts: dict[str, Script] | None = None) -> None:
        self.scripts: dict[str, Script] = dict(scripts or {})
        self.requests: list[Request] = []
        self._turn: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()  # agents may think in parallel

    def calls(self, template: str) -> list[Request]:
        return [r for r in self.requests if r.template == template]

    def complete(self, request: Request) -> Completion:
        script = self.scripts.get(request.template)
        with self._lock:
            self.requests.append(request)
            turn = self._turn[request.template]
            self._turn[request.template] += 1
        if callable(script):
            answer = script(request)
        elif isinstance(script, list):
            answer = script[min(turn, len(script) - 1)]
        elif script is not None:
            answer = script
        elif request.schema is not None:
            answer = simplest(request.schema, request.schema)
        else:
            answer = "ok"
        if answer is None and request.schema is not None:
            answer = simplest(request.schema, request.schema)
        # A string is the answer's text as is (raw JSON for a structured request).
        text = answer if isinstance(answer, str) else json.dumps(answer)
        n_prompt = len((request.system + request.user).split())
        return Completion(text, n_prompt, 0, len(text.split()), 0.0)


def simplest(node: dict, root: dict) -> Any:
    """The smallest value a JSON schema admits (first enum option, one-character text...)."""
    while "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    if "enum" in node:
        return node["enum"][0]
    if "const" in node:
        return node["const"]
    if "anyOf" in node:
        return simplest(node["anyOf"][0], root)
    kind = node.get("type")
    if kind == "object":
        return {k: simplest(v, root) for k, v in node.get("properties", {}).items()}
    if kind == "array":
        return [simplest(node["items"], root) for _ in range(node.get("minItems", 0))]
    if kind == "string":
        if "pattern" in node:  # activity phrases, prose and lines (simulacra.llm.schema)
            tries = ("doing something", "Something.", "x" * 4)
            return next(t for t in tries if re.match(node["pattern"], t))
        return "x" * max(1, node.get("minLength", 1))
    if kind in ("integer", "number"):
        return node.get("minimum", 0)
    if kind == "boolean":
        return False
    return None
