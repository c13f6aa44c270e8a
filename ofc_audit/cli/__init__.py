"""The ``ofc-audit`` command line: the typer app (:mod:`.app`), one module per command
(:mod:`.score`, :mod:`.audit`, :mod:`.session`, :mod:`.simulate`, :mod:`.rules`), the options
they share (:mod:`.options`) and the one error boundary (:mod:`.errors`)."""

# Each module adds its command; ``--help`` lists them in this order.
from . import score, audit, session, simulate, rules, review_command, archive_commands  # noqa: F401, I001
from .app import app, main

__all__ = ["app", "main"]
