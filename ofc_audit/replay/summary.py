"""The SUMMARY comparison: each recorded field against the replay's result (mismatches)."""

from __future__ import annotations

from ..history.records import SummaryEntry
from .results import Mismatch, PlayerResult
from .state import HandState


class SummaryComparison(HandState):
    """The SUMMARY comparison: each recorded field against the replay's result (mismatches)."""

    def _compare_summary(self, players: list[PlayerResult]) -> list[Mismatch]:
        summary = self.hand.summary
        if summary is None:
            return []
        by_name = {p.name: p for p in players}
        mismatches: list[Mismatch] = []
        for entry in summary.entries:
            p = by_name.get(entry.player)
            if p is None:
                continue
            result = p.result
            fouled = None if result is None else result.fouled
            royalties = None if result is None else result.royalties.total
            # Each field is compared only when both sides are known (the site's fouled flag
            # and Fantasyland count are always "recorded": absent means no).
            if (
                (fouled is not None and entry.fouled != fouled)
                or (
                    entry.royalties is not None
                    and royalties is not None
                    and entry.royalties != royalties
                )
                or (
                    entry.points is not None
                    and p.points is not None
                    and entry.points != p.points
                )
                or (entry.stack_before is not None and entry.stack_before != p.stack_before)
                or (
                    entry.stack_after is not None
                    and p.stack_after is not None
                    and entry.stack_after != p.stack_after
                )
                or (p.fantasyland_next_known and entry.fantasyland_next != p.fantasyland_next)
            ):
                mismatches.extend(self._entry_mismatches(entry, p, royalties))
        return mismatches

    @staticmethod
    def _entry_mismatches(
        entry: SummaryEntry, p: PlayerResult, royalties: int | None
    ) -> list[Mismatch]:
        """Every field of one SUMMARY entry that differs, in docs/CLI.md's order."""
        checks: list[tuple[str, int | bool | None, int | bool | None, bool]] = [
            ("fouled", entry.fouled, p.fouled, p.fouled is not None),
            (
                "royalties",
                entry.royalties,
                royalties,
                entry.royalties is not None and royalties is not None,
            ),
            (
                "points",
                entry.points,
                p.points,
                entry.points is not None and p.points is not None,
            ),
            (
                "stack_before",
                entry.stack_before,
                p.stack_before,
                entry.stack_before is not None,
            ),
            (
                "stack_after",
                entry.stack_after,
                p.stack_after,
                entry.stack_after is not None and p.stack_after is not None,
            ),
            (
                "fantasyland_next",
                entry.fantasyland_next,
                p.fantasyland_next,
                p.fantasyland_next_known,
            ),
        ]
        return [
            Mismatch(entry.player, name, recorded, computed, entry.line)
            for name, recorded, computed, comparable in checks
            if comparable and recorded != computed
        ]
