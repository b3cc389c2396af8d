"""The text an answer's schema fixes ahead of the model: its keys, a field's lead ("Maria Lopez
is "), the rest of an enum option once its first letters are written, the brackets of a list
of a fixed length.

The batch decoder drafts it (see batch.py): more than half of an answer's tokens are its
JSON's keys and punctuation ("08:00", '": "', '"}, {"level": "'), which the grammar allows
one way only, and each took a forward pass of its own. Drafted, they ride along in the pass
of the token before them. A draft is kept only where it is the token sampled, so what is
written here is a guess in the style of the answer's shape sentence (``{"key": value, ...}``):
a model that writes otherwise loses the drafts, never its answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulacra.llm.schema import LEAD

_BLANK = " \t\n\r"


@dataclass
class _Frame:
    kind: str  # "obj", "arr", "str" (a value), "key" (an object's key), "lit" (number, bool)
    schema: dict
    state: str = "open"  # obj/arr: "open", "comma", "colon" (obj), "val" (obj), "after"
    text: str = ""  # what a string, key or literal holds so far
    escaped: bool = False
    keys: list[str] = field(default_factory=list)  # obj: the keys written
    items: int = 0  # arr: the items begun


class _Reader:
    """Follows one shape of an answer (its references inlined) as its text comes in."""

    def __init__(self, schema: dict) -> None:
        self.schema = schema
        self.stack: list[_Frame] = []
        self.started = False
        self.dead = False
        self.blank = False  # the text so far ends with blanks between tokens of the JSON

    # -- reading ---------------------------------------------------------------------------

    def feed(self, text: str) -> None:
        for char in text:
            if self.dead:
                return
            self._char(char)

    def _char(self, c: str) -> None:
        if not self.stack:
            if self.started or c in _BLANK:
                self.blank = c in _BLANK
                self.dead = not self.blank
                return
            self.started = True
            self._begin(c, self.schema)
            return
        top = self.stack[-1]
        if top.kind in ("str", "key"):
            self._in_string(top, c)
        elif top.kind == "lit":
            if c in ",}]" or c in _BLANK:
                self.stack.pop()
                self._char(c)
            else:
                top.text += c
        elif c in _BLANK:
            self.blank = True
        else:
            self.blank = False
            if top.kind == "obj":
                self._in_object(top, c)
            else:
                self._in_array(top, c)

    def _in_string(self, top: _Frame, c: str) -> None:
        if top.escaped:
            top.text, top.escaped = top.text + c, False
        elif c == "\\":
            top.escaped = True
        elif c != '"':
            top.text += c
        else:
            self.stack.pop()
            self.blank = False
            if top.kind == "key":
                owner = self.stack[-1]
                self.dead = top.text not in _properties(owner.schema)
                owner.keys.append(top.text)
                owner.state = "colon"

    def _in_object(self, top: _Frame, c: str) -> None:
        if top.state in ("open", "comma") and c == '"':
            self.stack.append(_Frame("key", top.schema))
        elif top.state == "colon" and c == ":":
            top.state = "val"
        elif top.state == "val":
            top.state = "after"
            self._begin(c, _properties(top.schema).get(top.keys[-1], {}))
        elif top.state == "after" and c == ",":
            top.state = "comma"
        elif top.state in ("open", "after") and c == "}":
            self.stack.pop()
        else:
            self.dead = True

    def _in_array(self, top: _Frame, c: str) -> None:
        if top.state in ("open", "after") and c == "]":
            self.stack.pop()
        elif top.state == "after" and c == ",":
            top.state = "comma"
        elif top.state in ("open", "comma"):
            top.state, top.items = "after", top.items + 1
            self._begin(c, top.schema.get("items", {}))
        else:
            self.dead = True

    def _begin(self, c: str, schema: dict) -> None:
        if c == '"':
            self.stack.append(_Frame("str", schema))
        elif c == "{":
            self.stack.append(_Frame("obj", schema))
        elif c == "[":
            self.stack.append(_Frame("arr", schema))
        else:
            self.stack.append(_Frame("lit", schema, text=c))

    # -- what must come next ---------------------------------------------------------------

    def ahead(self) -> str:
        if self.dead:
            return ""
        if not self.stack:
            return "" if self.started else self._start(self.schema)
        text = self._ahead_of(len(self.stack) - 1)
        if self.blank:
            text = text.lstrip(_BLANK)
        return text

    def _ahead_of(self, n: int) -> str:
        top = self.stack[n]
        if top.kind == "lit":
            return ""
        if top.kind == "key":
            return self._key_rest(self.stack[n - 1], top.text)
        if top.kind == "str":
            options = [o for o in _options(top.schema) if o.startswith(top.text)]
            if len(options) == 1:
                return options[0][len(top.text) :] + '"' + self._after_value(n - 1)
            if options:
                return _common_prefix(options)[len(top.text) :]
            lead = top.schema.get(LEAD, "")
            return lead[len(top.text) :] if lead.startswith(top.text) else ""
        if top.kind == "obj":
            next_keys = self._next_keys(top)
            if top.state in ("open", "comma"):
                # An object may close where no key is required; after a comma a key must come.
                must = top.state == "comma" or next_keys[:1] == _required(top.schema)[:1]
                if len(next_keys) != 1 or not must:
                    return ""
                return " " * (top.state == "comma") + '"' + self._key_rest(top, "")
            if top.state == "colon":
                return ":" + self._value_start(top)
            if top.state == "val":
                return self._value_start(top)
        if top.kind == "arr" and top.state in ("open", "comma"):
            if top.state == "comma" or top.schema.get("minItems", 0) > 0:
                return " " * (top.state == "comma") + self._start(top.schema.get("items", {}))
            return ""
        return self._after_value(n)

    def _after_value(self, n: int) -> str:
        """What follows a value just completed inside frame ``n`` (the root when -1)."""
        if n < 0:
            return ""
        frame = self.stack[n]
        if frame.kind == "obj":
            following = self._next_keys(frame)
            if not following:
                return "}" + self._after_value(n - 1)
            if len(following) == 1 and following[0] in _required(frame.schema):
                return ', "' + self._key_rest(frame, "")
            return ""
        if frame.kind == "arr":
            lowest = frame.schema.get("minItems", 0)
            highest = frame.schema.get("maxItems")
            if frame.items < lowest:
                return ", " + self._start(frame.schema.get("items", {}))
            if highest is not None and frame.items >= highest:
                return "]" + self._after_value(n - 1)
        return ""

    def _next_keys(self, obj: _Frame) -> list[str]:
        """The keys that may come next: the next required one, else any optional one left
        (the grammar writes the required keys first, each shape's in its order)."""
        order = _key_order(obj.schema)
        required = _required(obj.schema)
        written = len(obj.keys)
        if written < len(required):
            return [order[written]]
        last = order.index(obj.keys[-1]) if obj.keys else -1
        return order[last + 1 :]

    def _key_rest(self, obj: _Frame, written: str) -> str:
        keys = [k for k in self._next_keys(obj) if k.startswith(written)]
        if len(keys) != 1:
            return _common_prefix(keys)[len(written) :] if keys else ""
        sub = _properties(obj.schema)[keys[0]]
        return keys[0][len(written) :] + '":' + self._value_start_of(sub)

    def _value_start(self, obj: _Frame) -> str:
        return self._value_start_of(_properties(obj.schema).get(obj.keys[-1], {}))

    def _value_start_of(self, schema: dict) -> str:
        return " " + self._start(schema)

    def _start(self, schema: dict) -> str:
        """The first characters of any value of ``schema``."""
        if "anyOf" in schema or "oneOf" in schema:
            return ""
        kind = schema.get("type")
        options = _options(schema)
        if options:
            return '"' + _common_prefix(options)
        if kind == "string":
            return '"' + schema.get(LEAD, "")
        if kind == "object":
            # The first key, where one is required: the order _next_keys follows.
            first = _key_order(schema)[:1]
            if not first or first[0] not in _required(schema):
                return "{"
            sub = _properties(schema)[first[0]]
            return '{"' + first[0] + '":' + self._value_start_of(sub)
        if kind == "array":
            if schema.get("minItems", 0) > 0:
                return "[" + self._start(schema.get("items", {}))
            return "["
        return ""


class FixedText:
    """What an answer of one schema must hold next, given what it holds so far."""

    def __init__(self, schema: dict) -> None:
        self.schema = schema
        inlined = _inlined(schema, schema)
        self.shapes = inlined.get("anyOf") or inlined.get("oneOf") or [inlined]

    def reader(self) -> Ahead:
        return Ahead([_Reader(shape) for shape in self.shapes])


class Ahead:
    """One answer's reader: ``feed`` it the text as it is written; ``text`` is what every
    shape the answer can still take writes next (blanks at its end left to the model's next
    word, which carries its own)."""

    def __init__(self, readers: list[_Reader]) -> None:
        self._readers = readers

    def feed(self, text: str) -> None:
        for reader in self._readers:
            reader.feed(text)
        alive = [r for r in self._readers if not r.dead]
        self._readers = alive

    def text(self) -> str:
        if not self._readers:
            return ""
        return _common_prefix([r.ahead() for r in self._readers]).rstrip(_BLANK)


def _inlined(root: dict, schema: dict, within: tuple[str, ...] = ()) -> dict:
    """``schema`` with every ``#/$defs/`` reference replaced by what it names, once, so that
    reading an answer never resolves one again. A definition that holds itself reads as any
    value (nothing fixed) where it recurs."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in within:
            return {}
        target = root.get("$defs", {}).get(name, {})
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        within = (*within, name)
    done = dict(schema)
    if isinstance(schema.get("properties"), dict):
        done["properties"] = {k: _inlined(root, v, within) for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        done["items"] = _inlined(root, schema["items"], within)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            done[key] = [_inlined(root, s, within) for s in schema[key]]
    return done


def _properties(schema: dict) -> dict[str, dict]:
    return schema.get("properties", {})


def _key_order(schema: dict) -> list[str]:
    """An object's keys in the order the grammar writes them: required first, each group in
    the schema's order."""
    names, required = list(_properties(schema)), _required(schema)
    return [k for k in names if k in required] + [k for k in names if k not in required]


def _required(schema: dict) -> list[str]:
    return list(schema.get("required", []))


def _options(schema: dict) -> list[str]:
    if "const" in schema and isinstance(schema["const"], str):
        return [schema["const"]]
    return [o for o in schema.get("enum", []) if isinstance(o, str)]


def _common_prefix(texts: list[str]) -> str:
    if not texts:
        return ""
    first, last = min(texts), max(texts)
    n = 0
    while n < len(first) and first[n] == last[n]:
        n += 1
    return first[:n]
