"""The `simulacra` command. Thin: each subcommand calls the library and prints the result."""

from __future__ import annotations

import sys

from simulacra.cli.app import cli
from simulacra.errors import UserError
from simulacra.llm.interface import ModelOutputError


def main(argv: list[str] | None = None) -> None:
    try:
        code = cli.main(args=argv, prog_name="simulacra", standalone_mode=False)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    except ModelOutputError as e:
        # Answers received so far are in the replay cache; a run keeps its last checkpoint.
        print(f"error: {e} (a run continues with `simulacra run --resume DIR`)", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as e:  # click's own usage errors
        import click

        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(e.exit_code)
        if isinstance(e, click.exceptions.Abort):
            print("aborted", file=sys.stderr)
            sys.exit(1)
        raise
    # Without standalone mode click returns exit codes instead of raising them.
    if isinstance(code, int) and code:
        sys.exit(code)
