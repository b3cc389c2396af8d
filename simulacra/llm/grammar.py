"""The GBNF an answer is generated under: llama.cpp's JSON-schema converter, with a stricter
string rule and lists whose items' times rise."""

from __future__ import annotations

import json
import re
from functools import cache

from simulacra.llm.schema import RISING

# llama.cpp's converter lets strings hold raw control characters (invalid JSON) and \u escapes
# (4 bytes of budget per character). Answers are single-line text: printable characters, with
# only quote, backslash and slash escapes.
_CHAR_RULE = re.compile(r"^char ::= .*$", re.MULTILINE)
_STRICT_CHAR_RULE = r'char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\/]'


def grammar_text(schema: dict) -> str:
    """GBNF for a JSON schema, built by llama.cpp's converter with a stricter string rule."""
    converter = _converter_class()(
        prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False
    )
    schema = json.loads(json.dumps(schema))  # the converter writes into the schema it reads
    converter.visit(converter.resolve_refs(schema, "stdin"), "")
    return _CHAR_RULE.sub(lambda _: _STRICT_CHAR_RULE, converter.format_grammar())


@cache
def _converter_class() -> type:
    from llama_cpp.llama_grammar import SchemaConverter

    class Converter(SchemaConverter):
        """Where an array names its items' rising field (``x-rising``), each item's value
        there comes after the one before it in the field's options. A JSON schema cannot say
        so, and the 1.5B wrote a day plan's items at one time ("12:00" three times): only the
        last of them would ever happen."""

        def visit(self, schema: dict, name: str) -> str:
            if RISING not in schema:
                return super().visit(schema, name)
            return self._rising(schema, schema[RISING], name or "root")

        def _rising(self, schema: dict, key: str, name: str) -> str:
            item = schema["items"]
            item = self._refs.get(item.get("$ref"), item)
            props = list(item["properties"].items())
            if props[-1][0] != key:
                raise ValueError(f"the rising field {key!r} must be the item's last")
            # The fields before the rising one are written once, whatever the time that
            # follows: the grammar branches only at the time, not along the whole activity.
            keys = [
                f'{self._format_literal(json.dumps(p))} space ":" space '
                + (self.visit(sub, f"{name}-{p}") if p != key else "")
                for p, sub in props
            ]
            opener = self._add_rule(
                f"{name}-open", ('"{" space ' + ' "," space '.join(keys)).rstrip()
            )
            field = props[-1][1]
            while "$ref" in field:
                field = self._refs[field["$ref"]]
            options = field["enum"] if "enum" in field else [field["const"]]  # one: a const
            least, most = schema.get("minItems", 0), schema["maxItems"]

            made: dict[tuple[int, int], str] = {}

            def after(last: int, written: int) -> str:
                """The rule for the rest of the list after ``written`` items, the last of
                them at option ``last``."""
                if (last, written) not in made:
                    ways = ['"]" space'] if written >= least else []
                    left = max(0, least - written - 1)  # items that must still follow
                    later = range(last + 1, len(options) - left)
                    if written < most and later:
                        # One way into the next item, its time a choice at its end: the
                        # grammar follows the item's text once, not once per time.
                        choice = self._add_rule(
                            f"{name}-time-{last + 1}-{written}",
                            " | ".join(
                                f'{self._generate_constant_rule(options[i])} "}}" space '
                                + after(i, written + 1)
                                for i in later
                            ),
                        )
                        comma = '"," space ' if written else ""
                        ways.append(f"{comma}{opener} {choice}")
                    if not ways:
                        raise ValueError(f"{name}: fewer {key} options than its least items")
                    made[last, written] = self._add_rule(
                        f"{name}-after-{last + 1}-{written}", " | ".join(ways)
                    )
                return made[last, written]

            return self._add_rule(name, f'"[" space {after(-1, 0)}')

    return Converter
