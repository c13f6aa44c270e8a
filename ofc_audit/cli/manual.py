"""Writes, or checks, the pages of the manual that are generated from the code: ``docs/CLI.md``
(from this command line's own command tree and the JSON it prints) and ``docs/RULES.md``
(from the rulebook and the presets). Run it from the repository's root::

    python -m ofc_audit.cli.manual            # write docs/CLI.md and docs/RULES.md
    python -m ofc_audit.cli.manual --check    # exit 1, naming each page that is out of date

The rest of ``docs/`` (the format, the rulings) is written by hand.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..present.manual import ManualError, cli_manual, rules_manual
from .app import app

__all__ = ["generated_pages", "main"]


def generated_pages(root: Path) -> dict[str, str]:
    """The generated pages by their path under ``root`` (the repository), as they should be
    now."""
    return {"docs/CLI.md": cli_manual(app, root), "docs/RULES.md": rules_manual()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ofc_audit.cli.manual",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a page differs from what it should be")
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="the repository (default: the current folder)")
    args = parser.parse_args(argv)
    try:
        pages = generated_pages(args.root)
    except ManualError as error:
        print(f"manual: error: {error}", file=sys.stderr)
        return 2
    stale = []
    for name, text in pages.items():
        path = args.root / name
        current = path.read_text("utf-8") if path.is_file() else None
        if current == text:
            continue
        stale.append(name)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {name}", file=sys.stderr)
    if args.check and stale:
        print(f"manual: out of date: {', '.join(stale)} (python -m ofc_audit.cli.manual "
              "writes them)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
