"""The ``ofc-audit`` command line: the typer app and its commands."""

from .app import app, main

__all__ = ["app", "main"]
