"""The one driver run as the commands run it, for tests: the audit's JSON document and the
session tables of some paths, with any runner (this process by default)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from ofc_audit.audit.driver import InProcess, Runner, open_sources, session_tables, write_audit
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import HistoryParseError
from ofc_audit.session.tables import SessionTables


def audit_document(paths: Sequence[str], ruleset: Ruleset, runner: Runner | None = None) -> str:
    """The ``ofc-audit audit --json`` document of the paths."""
    runner = runner if runner is not None else InProcess()
    out = io.StringIO()
    with open_sources(paths, runner.stdin) as sources:
        write_audit(sources, ruleset, out, "json", runner)
    return out.getvalue()


def tables_of(paths: Sequence[str], ruleset: Ruleset, runner: Runner | None = None,
              rejections: list[HistoryParseError] | None = None) -> SessionTables:
    """Every session table of the paths (``ofc-audit session``'s)."""
    runner = runner if runner is not None else InProcess()
    with open_sources(paths, runner.stdin) as sources:
        return session_tables(sources, ruleset, runner, rejections=rejections)
