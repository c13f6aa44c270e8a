"""The errors library code raises for people to read: one small hierarchy.

Library code raises these and never prints or exits; the command line turns each kind into
its message and exit status in one place (:mod:`ofc_audit.cli.errors`). Each message is a
whole sentence about the input or the request, without the ``ofc-audit: error:`` prefix.
"""

from __future__ import annotations

__all__ = [
    "CannotWrite",
    "EngineError",
    "NoHistoryFound",
    "OfcAuditError",
    "UnreadableInput",
    "UsageError",
]


class OfcAuditError(Exception):
    """Something the user can fix: a bad request, an input that cannot be read."""


class UsageError(OfcAuditError, ValueError):
    """The request cannot be done as asked: a bad option value, an unknown name or id."""


class NoHistoryFound(OfcAuditError):
    """Nothing in the paths looks like a hand history: no file, only empty files, or only
    files with no hand header anywhere (the message says where it looked)."""


class UnreadableInput(OfcAuditError):
    """A file (or standard input) that cannot be read."""

    @classmethod
    def of(cls, error: OSError, what: str = "input") -> UnreadableInput:
        """The error for an ``OSError`` met while reading, naming its file."""
        return cls(f"cannot read {error.filename or what}: {error.strerror or error}")


class CannotWrite(OfcAuditError):
    """A file or folder the command was asked to write cannot be written."""

    @classmethod
    def of(cls, error: OSError, what: str) -> CannotWrite:
        """The error for an ``OSError`` met while writing ``what``."""
        return cls(f"cannot write {error.filename or what}: {error.strerror or error}")


class EngineError(OfcAuditError, RuntimeError):
    """A runner cannot run (workers died, a scheduler cannot be reached, a file changed while
    it was read, an optional dependency is missing)."""
