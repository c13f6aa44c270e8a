"""Runners of the one driver (:mod:`ofc_audit.audit.driver`) beyond this process: worker
processes on this machine (``--jobs N``, :class:`.processes.ProcessPool`) and a Dask cluster
(``--engine dask``, :class:`.dask_engine.DaskRunner`: a local one, or a scheduler given by
address). Runners replay, and run a command's per-hand step in their lanes; what is made of
the results is the driver's and its callers'. They also map a function over items, each a
task of its own (``each``: how ``review`` values its hands, whatever their tables).

Every runner gives the same results on the same input as the driver's loop in this process:
the same audit JSON, the same session tables. Dask is an optional dependency (``pip install
'ofc_audit[dask]'``); nothing here imports it, so ``--jobs`` and the command line work
without it. :func:`require_dask` says how to install it.
"""

from __future__ import annotations

from enum import StrEnum

from ..common.errors import EngineError

__all__ = ["DASK_INSTALL_HINT", "Engine", "EngineError", "EngineUnavailable", "require_dask"]

DASK_INSTALL_HINT = "pip install 'ofc_audit[dask]'"


class Engine(StrEnum):
    """Where the hands are replayed (``--engine``)."""

    LOCAL = "local"
    DASK = "dask"


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
