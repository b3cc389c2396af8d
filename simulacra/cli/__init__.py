"""The `simulacra` command. Thin: each subcommand calls the library and prints the result."""

from __future__ import annotations

import signal
import sys
import threading

from simulacra.cli.app import cli
from simulacra.diskfull import command_failed, is_disk_full
from simulacra.errors import UserError
from simulacra.llm.interface import ModelOutputError
from simulacra.text import printable


def main(argv: list[str] | None = None) -> None:
    import click

    previous = _sigterm_as_ctrl_c()
    try:
        code = cli.main(args=argv, prog_name="simulacra", standalone_mode=False)
    except UserError as e:
        _fail(str(e), 2)
    except ModelOutputError as e:
        # Answers received so far are in the replay cache; a run keeps its last checkpoint.
        _fail(f"{e} (a run continues with `simulacra run --resume DIR`)", 1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except click.UsageError as e:  # a bad argument: one line naming it, like a UserError
        _fail(e.format_message() + (f" (see {e.ctx.command_path} --help)" if e.ctx else ""), 2)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        print("aborted", file=sys.stderr)
        sys.exit(1)
    except Exception as e:
        if not is_disk_full(e):
            raise
        _fail(str(command_failed(e)), 2)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    # Without standalone mode click returns exit codes instead of raising them.
    if isinstance(code, int) and code:
        sys.exit(code)


def _sigterm_as_ctrl_c():
    """SIGTERM (what timeout, systemd and docker stop send) stops a command as Ctrl-C does:
    a run checkpoints at a step boundary, a half-made run is removed. The handler it
    replaces, to restore; None where signals cannot be handled (not the main thread)."""

    def interrupt(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, interrupt)


def _fail(message: str, code: int) -> None:
    # Messages quote what the user typed or a file held: never let it drive the terminal.
    print(f"error: {printable(' '.join(message.split()))}", file=sys.stderr)
    sys.exit(code)
