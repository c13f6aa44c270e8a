"""ofc_audit: audit, replay, score and settle Open Face Chinese Poker hand histories."""

__version__ = "0.1.0"
