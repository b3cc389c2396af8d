"""The terminal the CLI writes to. Piped output is not cut to 80 columns."""

from __future__ import annotations

import sys

from rich.console import Console

console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
