"""The local engine behind the same calls as the Dask one: this process, streaming, in file
order. It is the reference that :mod:`ofc_audit.engines.dask_engine` must match."""

from __future__ import annotations

import io
from collections.abc import Sequence

from ..audit.driver import audit_paths, write_audit_json
from ..game.ruleset import Ruleset
from ..session.tables import SessionTables, build_tables


def session_tables(paths: Sequence[str], ruleset: Ruleset) -> SessionTables:
    """Every session table of the files (``ofc-audit session``'s tables)."""
    return build_tables(audit_paths(paths, ruleset))


def audit_document(paths: Sequence[str], ruleset: Ruleset) -> str:
    """The ``ofc-audit audit --json`` document of the files."""
    out = io.StringIO()
    write_audit_json(audit_paths(paths, ruleset), out)
    return out.getvalue()
