"""What ``ofc-audit audit`` prints for people about each hand (without ``--json``)."""

from __future__ import annotations

from ..replay.results import HandResult
from .explain import hand_findings, hand_line


def audit_hand_text(result: HandResult) -> str:
    """A hand's line and the lines of its findings, without the last line end (a runner's
    hand renderer: a module-level function, so a plan holding it can travel to a worker)."""
    return "\n".join([hand_line(result), *hand_findings(result)])
