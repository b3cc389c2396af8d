"""Phrases: the short texts that reach the model without being prompts of their own — the
queries memories are retrieved by and the sentences memories are written in.

They live in a ``phrases.toml`` beside the code that uses them, one table per module, each
value a Jinja2 text or a list of them, so they can be tuned like the prompt templates.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from simulacra.errors import UserError
from simulacra.textfile import parse_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FILE = "phrases.toml"

_env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)


@dataclass(frozen=True)
class Phrases:
    path: Path
    section: str
    table: dict[str, str | list[str]]

    def text(self, key: str, **variables: Any) -> str:
        source = self._get(key)
        if not isinstance(source, str):
            raise UserError("expected a text", file=self.path, field=f"{self.section}.{key}")
        return self._render(key, source, variables)

    def raw(self, key: str, **variables: Any) -> str:
        """The text as rendered, not stripped: where a variable's own blanks at its end must
        stay (a model's words, a text cut at a bound), as when it was an f-string."""
        source = self._get(key)
        if not isinstance(source, str):
            raise UserError("expected a text", file=self.path, field=f"{self.section}.{key}")
        return self._render(key, source, variables, strip=False)

    def texts(self, key: str, **variables: Any) -> list[str]:
        sources = self._get(key)
        if not isinstance(sources, list):
            raise UserError(
                "expected a list of texts", file=self.path, field=f"{self.section}.{key}"
            )
        return [self._render(key, s, variables) for s in sources]

    def _get(self, key: str) -> str | list[str]:
        if key not in self.table:
            raise UserError("missing phrase", file=self.path, field=f"{self.section}.{key}")
        return self.table[key]

    def _render(
        self, key: str, source: str, variables: dict[str, Any], *, strip: bool = True
    ) -> str:
        try:
            text = _compiled(source).render(**variables)
            return text.strip() if strip else text
        except jinja2.UndefinedError as e:
            raise UserError(
                f"phrase variable missing: {e.message}",
                file=self.path,
                field=f"{self.section}.{key}",
            ) from None


@cache
def _compiled(source: str) -> jinja2.Template:
    return _env.from_string(source)


def phrases_beside(module_file: str, section: str) -> Phrases:
    """The table ``section`` of the ``phrases.toml`` in the calling module's directory."""
    path = Path(module_file).resolve().with_name(FILE)
    table = _load(path).get(section)
    if not isinstance(table, dict):
        raise UserError("missing table", file=path, field=section)
    return Phrases(path, section, table)


@cache
def _load(path: Path) -> dict:
    try:
        return parse_toml(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"not valid TOML: {e}", file=path) from None
