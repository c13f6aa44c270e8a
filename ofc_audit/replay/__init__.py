"""The replay engine: every hand of a history replayed as a state machine.

Each action is checked and then applied to the hand's state; a broken rule becomes a
:class:`~ofc_audit.replay.results.Finding` with its rule id and the engine goes on, so one history
yields every finding, never only the first. Hands of one table are replayed in file order
with a :class:`TableState` that carries what crosses hands: the button, stacks, Fantasyland
qualifications, busted and sat-out players.

The code of a rule id is in the module of its family; each family is a class over the
shared hand state (``state.HandState``) and builds on the families it calls:

* ``streets``: deal and action order (R-DEAL, R-ACT-1, R-ACT-4), and the fast path for clean
  streets, which shares its rule checks with the full path (``state.is_the_deal``,
  ``state.rows_fit``);
* ``placements``: a placement against its deal and the rows (R-ACT-2, R-ACT-3), SHOWDOWN;
* ``fantasyland``: Fantasyland (R-FL-1, R-FL-2, R-FL-3, R-FL-5);
* ``match``: match and button (R-MATCH, R-FL-4);
* ``settlement``: stacks and settlement (R-SETTLE), the result and the next table state;
* ``timing``: time-outs, disconnections and sit-outs (R-TIME);
* ``summary``: the SUMMARY comparison (mismatches);
* ``incomplete``: a history cut off (missing, not a fault);
* ``hand``: :class:`HandReplay`, the families in the hand's order; ``replayer``:
  :class:`Replayer`, hands in file order.

R-CARD-2/3 (a card seen once, jokers only in their deck) is ``HandState._see``, which every
family uses.
"""

from ..game.automatic import automatic_placement
from .fantasyland import allowed_fantasyland_counts
from .hand import HandReplay
from .replayer import Replayer, replay_hands
from .state import FL_PLACED, TableState, _OffTheFastPath, fits, is_the_deal, rows_fit

__all__ = [
    "FL_PLACED",
    "HandReplay",
    "Replayer",
    "TableState",
    "_OffTheFastPath",
    "allowed_fantasyland_counts",
    "automatic_placement",
    "fits",
    "is_the_deal",
    "replay_hands",
    "rows_fit",
]
