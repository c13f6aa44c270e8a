"""The one place where errors become messages and exit statuses (docs/CLI.md).

Library code raises the typed errors of :mod:`ofc_audit.common.errors` (and a few of its
own, listed in :func:`exit_status`) and never prints or exits; every command runs inside
:class:`Command`, whose :meth:`~Command.invoke` turns each into ``ofc-audit: error: ...``
on standard error and its status. Output cut by a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
from typing import Any, NoReturn

import typer
import typer.core

from ..common.errors import OfcAuditError

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Command",
    "Terminated",
    "exit_status",
    "fail",
    "finish",
    "CANNOT_GROW",
    "StandardOutputFull",
    "interrupted",
    "output_full_message",
    "quiet_broken_pipe",
    "stdout_gone",
]

#: 0 all good; 1 the input has violations, mismatches or rejected hands; 2 usage error,
#: unreadable file or no hand history found (docs/CLI.md).
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
#: Standard output was closed by its reader (128 + SIGPIPE, as a shell reports a command
#: that SIGPIPE ended).
EXIT_BROKEN_PIPE = 141
#: Ctrl-C (128 + SIGINT; typer's status for a ``KeyboardInterrupt``).
EXIT_INTERRUPTED = 130


class Terminated(BaseException):
    """SIGTERM or SIGHUP came (:func:`ofc_audit.cli.app.main`'s handler raises it where the
    command is; ``signum`` says which): a ``BaseException``, as ``KeyboardInterrupt``, so
    that no ``except Exception`` takes it for an error of the input, and every ``finally``
    and ``with`` on the way out runs (workers stopped, temporary files removed, an import
    rolled back). The command then ends with 128 + ``signum``."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)


def exit_status(error: BaseException) -> int | None:
    """The exit status of an error the library raises for people, None for any other
    (a bug: its traceback is shown)."""
    from ..game.cards import CardError
    from ..game.typed_board import TypedBoardError

    if isinstance(error, OfcAuditError | CardError | TypedBoardError):
        return EXIT_USAGE
    # Only a command that imported the simulator can have raised its error; importing it
    # here would build its tables at the end of every other command (0.13 s CPU).
    simulator = sys.modules.get(f"{__package__.rsplit('.', 1)[0]}.simulate.simulator")
    if simulator is not None and isinstance(error, simulator.SimulationError):
        return EXIT_USAGE
    return None


#: What a write fails with when its file cannot grow: the disk or the user's quota full, the
#: limit on a file's size reached.
CANNOT_GROW = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class StandardOutputFull(OSError):
    """A write to standard output that failed because its file cannot grow (``ofc-audit
    audit --json ... > out.json`` on a full disk): raised by the command's standard output
    (:func:`ofc_audit.cli.app.main`), so that it is never taken for another file's. It was
    a traceback and exit 1 (as if the hands had findings), from every command."""


def output_full_message(error: OSError) -> str:
    return f"cannot write standard output: {error.strerror}; what was written is incomplete"


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C (SIGINT): a ``KeyboardInterrupt``, or what DuckDB makes
    of one that comes while it runs a query (it takes the signal itself and raises
    ``RuntimeError("Query interrupted")``, ``duckdb.InterruptException``, or an error whose
    cause or message is the ``KeyboardInterrupt`` it met in a Python callback). Without this,
    Ctrl-C during an archive's query printed a traceback and exited 1."""
    duckdb = sys.modules.get("duckdb")
    interrupt = getattr(duckdb, "InterruptException", None) if duckdb is not None else None
    duckdb_error = getattr(duckdb, "Error", None) if duckdb is not None else None
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, KeyboardInterrupt):
            return True
        if interrupt is not None and isinstance(current, interrupt):
            return True
        if type(current) is RuntimeError and str(current) == "Query interrupted":
            return True
        if duckdb_error is not None and isinstance(current, duckdb_error) \
                and "KeyboardInterrupt" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Say what is wrong on standard error and leave with ``code``."""
    typer.echo(f"ofc-audit: error: {message}", err=True)
    raise typer.Exit(code)


def finish(code: int, exit_zero: bool = False) -> NoReturn:
    """Leave with docs/CLI.md's exit status; --exit-zero turns 'findings' (1) into 0."""
    raise typer.Exit(EXIT_OK if exit_zero and code == EXIT_FINDINGS else code)


def stdout_gone() -> None:
    """Standard output's reader is gone (``| head``): later writes, the interpreter's last
    flush among them, go nowhere instead of ending in an error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's runner): nothing is flushed there at exit


def quiet_broken_pipe() -> NoReturn:
    """Leave quietly when standard output was closed: nothing more can be said there, and
    nothing is wrong with the input."""
    stdout_gone()
    raise typer.Exit(EXIT_BROKEN_PIPE)


class _PlainArgument(typer.core.TyperArgument):
    """An argument shown as a manual page shows it: ``PATH...`` in the usage line and in
    the Arguments list (typer's own is ``{PATH}...`` and ``PATH <list[str]>``, the Python
    type, which means nothing to someone typing a command)."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    def _rich_display_name(self) -> str:
        return self.display_name_raw + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


class Command(typer.core.TyperCommand):
    """Every command of ``ofc-audit``: its arguments shown plainly (:class:`_PlainArgument`;
    typer builds its own argument class and has no option to choose another), and the
    error boundary around its run."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is typer.core.TyperArgument:
                param.__class__ = _PlainArgument

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            quiet_broken_pipe()
        except Exception as error:
            if interrupted(error):
                raise KeyboardInterrupt from None  # typer: exit 130, quietly
            if isinstance(error, StandardOutputFull):
                stdout_gone()  # what is still buffered cannot be written either
                fail(output_full_message(error))
            code = exit_status(error)
            if code is None:
                raise
            fail(str(error), code)
