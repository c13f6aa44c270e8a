"""The ``ofc-audit`` typer app: the root (``--version``, ``--help``, shell completion) and
the entry point. Each command is a module of this package (score, audit, session, simulate,
rules) that adds itself to :data:`app`; errors become messages and exit statuses in
:mod:`ofc_audit.cli.errors`."""

from __future__ import annotations

import io
import select
import signal
import sys
from typing import Annotated, Any

import typer

from .errors import (
    CANNOT_GROW,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    StandardOutputFull,
    Terminated,
    output_full_message,
    stdout_gone,
)

__all__ = ["GETTING_STARTED", "app", "main", "package_version"]

app = typer.Typer(
    name="ofc-audit",
    help="Audit, replay, score and settle Open Face Chinese Poker hand histories.",
    # --install-completion and --show-completion: bash, zsh, fish, PowerShell.
    add_completion=True,
    pretty_exceptions_enable=False,
    # Plain help, laid out like a manual page: flags read as flags (--json, not
    # "--json <bool>"), and the Examples blocks keep their lines.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)

GETTING_STARTED = (
    "Getting started: ofc-audit session sample_histories/  (who won, who owes whom, and "
    "reports/report.html)"
)


def package_version() -> str:
    """The installed distribution's version, or the source tree's when not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ofc_audit")
    except PackageNotFoundError:
        from .. import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ofc-audit {package_version()}")
        raise typer.Exit(EXIT_OK)


@app.callback(invoke_without_command=True, epilog=GETTING_STARTED)
def root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True,
                     help="Print the version (ofc-audit X.Y.Z) and exit."),
    ] = False,
) -> None:
    """Audit, replay, score and settle Open Face Chinese Poker hand histories.

    Every command has its own --help with examples, e.g. ofc-audit session --help.
    """
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(EXIT_OK)


def main() -> None:
    """The console script (and ``python -m ofc_audit``). SIGTERM (``kill``, ``timeout``, a
    service stopped) and SIGHUP (the terminal closed, a dropped SSH session) stop the
    command as Ctrl-C does: its workers stopped, what it was writing removed (a long
    session's temporary tables are gigabytes), an import rolled back; it then ends with
    128 + the signal's number (143, 129), as a shell shows a command that the signal ended,
    as Ctrl-C ends with 130."""
    _whole_writes()
    for stop in STOP_SIGNALS:
        signal.signal(stop, _terminate)
    signal.signal(signal.SIGINT, _interrupt)
    try:
        # One name in every usage line, however it was started (console script or -m).
        app(prog_name="ofc-audit")
    except Terminated as stopped:
        # What is still buffered is not waited for: a reader that stopped reading would
        # keep a stopped command alive.
        stdout_gone()
        _ignore_stop_signals()
        raise SystemExit(128 + stopped.signum) from None
    except SystemExit as ending:
        # Stopped by a signal (watch ends with 0 on one), or by Ctrl-C taken by DuckDB.
        if _stopping or ending.code == EXIT_INTERRUPTED:
            _ignore_stop_signals()
        raise
    finally:
        _flush()


def _whole_writes() -> None:
    """Standard output that writes every byte it is given and says when its file cannot
    grow (:class:`~ofc_audit.cli.errors.StandardOutputFull`), buffered as it was. Under
    ``python -u`` or ``PYTHONUNBUFFERED`` (set in many container images) standard output is
    the file itself, and a write that the system took only part of (a disk that fills up,
    a file size limit) lost the rest without a word: ``ofc-audit audit --json ... >
    out.json`` ended with 0 and a cut document."""
    out = sys.stdout
    if out is None:
        # Closed (``ofc-audit rules >&-``): every command writes there (a summary at least),
        # and each ended in a traceback at its first write or at the end.
        sys.stderr.write("ofc-audit: error: standard output is closed: nowhere to write "
                         "(give it a file, or /dev/null)\n")
        raise SystemExit(EXIT_USAGE)
    if not isinstance(out, io.TextIOWrapper):
        return  # not the interpreter's own (a test's runner): left as it is
    buffer = out.buffer
    raw = buffer if isinstance(buffer, io.FileIO) else getattr(buffer, "raw", None)
    if not isinstance(raw, io.FileIO):
        return
    out.flush()
    # A file object of its own on the same descriptor: the interpreter's standard output,
    # closed when it ends, must not close this one's under it.
    whole = _StandardOutput(io.FileIO(raw.fileno(), "wb", closefd=False))
    if buffer is raw:
        sys.stdout = io.TextIOWrapper(whole, encoding=out.encoding, errors=out.errors,
                                      line_buffering=out.line_buffering, write_through=True)
    else:
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(whole), encoding=out.encoding,
                                      errors=out.errors, line_buffering=out.line_buffering)


class _StandardOutput(io.RawIOBase):
    """Standard output's file, written whole: each write repeated with what the system did
    not take; a file that cannot grow raises :class:`StandardOutputFull`."""

    def __init__(self, raw: io.FileIO) -> None:
        super().__init__()
        self._raw = raw

    name = "<stdout>"

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._raw.fileno()

    def isatty(self) -> bool:
        return self._raw.isatty()

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        written = 0
        while written < len(view):
            try:
                done = self._raw.write(view[written:])
            except BrokenPipeError:
                raise  # its reader has gone: the boundary ends quietly
            except OSError as error:
                if error.errno in CANNOT_GROW:
                    raise StandardOutputFull(error.errno, error.strerror) from None
                raise
            if done is None:  # a non-blocking descriptor that is full for now
                select.select([], [self._raw], [])
                continue
            written += done
        return written


#: The signals that stop a command with its clean-up (Ctrl-C's SIGINT: :func:`_interrupt`).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


_stopping: list[int] = []  # the signal being handled, once one came


def _terminate(signum: int, frame: object) -> None:
    # Once: a second signal (``timeout`` sends SIGTERM to the command, then to its whole
    # process group) must not cut the clean-up of the first short. The handler stays (set
    # to SIG_IGN here, a signal already pending raised "Signal 15 ignored due to race
    # condition" in the middle of the clean-up).
    if _stopping:
        return
    _stopping.append(signum)
    raise Terminated(signum)


def _interrupt(signum: int, frame: object) -> None:
    # Ctrl-C as Python's own handler takes it (KeyboardInterrupt: typer's exit 130), but
    # once: pressed again while the command stops (its workers, its temporary files, an
    # import rolled back), it cut that clean-up short wherever it was, and the command
    # ended by the signal (-2) after a page of "Exception ignored ... KeyboardInterrupt".
    if _stopping:
        return
    _stopping.append(signum)
    raise KeyboardInterrupt


def _ignore_stop_signals() -> None:
    """The clean-up is done: a stop signal that comes now is ignored, as the handler ignores
    a second one. Left to the handler, one that came while the interpreter ends (``timeout``
    signals the command and then its process group; a busy machine can let the second come
    that late) ended the command by the signal, not with 128 + it: the interpreter's last
    steps give a signal it handles its default action back, but leave an ignored one
    ignored. (``signal.signal`` runs the handler for a signal already pending first: it
    returns, the command being stopped already.) Ctrl-C's SIGINT likewise."""
    for stop in (*STOP_SIGNALS, signal.SIGINT):
        signal.signal(stop, signal.SIG_IGN)


def _flush() -> None:
    """What is still buffered for a reader that has gone must not end in a traceback."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_gone()
        raise SystemExit(EXIT_BROKEN_PIPE) from None
    except StandardOutputFull as error:
        # The last of a short output, held in the buffer until now (``rules > full/x``).
        stdout_gone()
        sys.stderr.write(f"ofc-audit: error: {output_full_message(error)}\n")
        raise SystemExit(EXIT_USAGE) from None
