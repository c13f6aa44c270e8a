"""``ofc-audit watch``: import a folder's history files as they are written.

What is in the folder is imported first; then each batch of changes that watchfiles reports
(new files, files written to) is imported the same way. Files are read as ``growing``: a
last hand is imported once it is whole (it ends with a line end and is not cut before its
end), so a site that writes a hand in several pieces loses nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from ..common.errors import UnreadableInput
from .importer import Importer, ImportReport, RenderText
from .schema import ArchiveBusy


def watch(folder: str, connect: Callable[[], duckdb.DuckDBPyConnection], ruleset: Any,
          render_text: RenderText, on_report: Callable[[ImportReport], None], *,
          stop: threading.Event | None = None, debounce_ms: int = 200,
          on_ready: Callable[[], None] | None = None,
          on_busy: Callable[[str], None] | None = None) -> None:
    """Import ``folder`` now and after each change until ``stop`` is set (or the process
    is interrupted). The archive is opened for each import and closed after, so other
    commands can read it between changes. ``on_report`` gets each import's report when it
    read anything. While another process has the archive open (a report reading it), the
    import waits: ``on_busy`` is told why once, and the import is tried again every half
    second until it goes through."""
    from watchfiles import watch as changes

    waiting = False  # an import is due, the archive was busy

    def run(paths: list[str]) -> None:
        nonlocal waiting
        try:
            con = connect()
        except ArchiveBusy as busy:
            if not waiting and on_busy is not None:
                on_busy(str(busy))
            waiting = True
            return
        waiting = False
        try:
            report = Importer(con, ruleset, render_text, growing=True).import_paths(paths)
        finally:
            con.close()
        if report.read or report.held:
            on_report(report)

    ready = False
    # yield_on_timeout: the first (empty) batch says the watcher is running; the first
    # import comes then, so a file written meanwhile is either in it or in a later batch.
    # An empty batch comes every rust_timeout too: a waiting import is tried again then.
    for batch in changes(folder, stop_event=stop, debounce=debounce_ms, rust_timeout=500,
                         yield_on_timeout=True):
        if not Path(folder).is_dir():
            # Removed or renamed: nothing more can come; watching on said nothing for good.
            raise UnreadableInput(f"{folder}: the folder is gone (removed or renamed while "
                                  f"it was watched); what was imported stays in the archive")
        if not ready:
            run([folder])
            ready = True
            if on_ready is not None:
                on_ready()
        elif waiting or any(Path(path).is_file() for _, path in batch):
            # The folder again, as the first import read it: unchanged files are skipped
            # by their size and time, so only what changed is read.
            run([folder])
