"""The terminal the CLI writes to. Piped output is not cut to 80 columns.

Much of what is printed came from users, world files or model answers: control characters in
it are shown as escapes (an ESC would otherwise drive the terminal), and :func:`shown` also
keeps such text from being read as rich markup.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

from simulacra.text import printable


class SafeConsole(Console):
    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(printable(o) if isinstance(o, str) else o for o in objects), **kwargs)


def shown(text: str) -> str:
    """Text from outside the program, ready to go between markup: printable and escaped."""
    return escape(printable(text))


console = SafeConsole(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def warn(text: str) -> None:
    """One line on stderr that the user should see, the command going on."""
    print(f"warning: {printable(' '.join(text.split()))}", file=sys.stderr)
