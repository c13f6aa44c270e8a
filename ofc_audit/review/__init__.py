"""The play review (docs/REVIEW.md): what each placement cost, exact where the cards allow.

numba is imported only when values are computed (:mod:`ofc_audit.review.kernels`)."""

from .fantasyland import best_fantasyland_setting, setting_value
from .position import (
    CandidateValue,
    Evaluation,
    Placement,
    Position,
    PositionError,
    candidates,
)
from .rollout import evaluate, is_exact, played_index

__all__ = [
    "CandidateValue",
    "Evaluation",
    "Placement",
    "Position",
    "PositionError",
    "best_fantasyland_setting",
    "candidates",
    "evaluate",
    "is_exact",
    "played_index",
    "setting_value",
]
