"""Engines that run an audit: ``local`` (this process, streaming; the reference) and ``dask``
(a Dask cluster: a local one, or a scheduler given by address).

Both give the same results on the same input: the same audit JSON, the same session tables
(:class:`ofc_audit.session.tables.SessionTables`), summarised by the same pandas functions.
Dask is an
optional dependency (``pip install 'ofc_audit[dask]'``); nothing here imports it, so the
local engine and the CLI work without it. :func:`require_dask` says how to install it.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["DASK_INSTALL_HINT", "Engine", "EngineError", "EngineUnavailable", "require_dask"]

DASK_INSTALL_HINT = "pip install 'ofc_audit[dask]'"


class Engine(StrEnum):
    """Where the hands are replayed (``--engine``)."""

    LOCAL = "local"
    DASK = "dask"


class EngineError(RuntimeError):
    """The engine cannot run (its message is for people; the CLI exits with status 2)."""


class EngineUnavailable(EngineError):
    """The engine's optional dependencies are not installed."""


def require_dask() -> None:
    """Raise :class:`EngineUnavailable`, naming the install command, unless Dask (with its
    DataFrame support) and ``distributed`` can be imported."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as error:
        raise EngineUnavailable(
            f"the dask engine needs Dask and distributed, which are not installed "
            f"({error}); install them with: {DASK_INSTALL_HINT}"
        ) from None
