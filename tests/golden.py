"""Golden corpus: every history under sample_histories/ has an expected-results sidecar
(``NAME.expected.json``, the audit JSON of that file alone) next to it.

Regenerate after a deliberate change, then read the diff by hand before committing:

    python -m tests.golden --update
"""

from __future__ import annotations

import argparse
import io
import json
import os
from pathlib import Path
from typing import Any

from ofc_audit.audit import audit_paths, write_audit_json
from ofc_audit.rules import Ruleset

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "sample_histories"


def histories() -> list[Path]:
    return sorted(CORPUS.rglob("*.txt"))


def sidecar(history: Path) -> Path:
    return history.with_name(history.stem + ".expected.json")


def audit_document(history: Path) -> dict[str, Any]:
    """The audit JSON of one file, with the path as seen from the repository's root."""
    relative = history.relative_to(ROOT).as_posix()
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        write_audit_json(audit_paths([relative], Ruleset()), out)
    finally:
        os.chdir(cwd)
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"hands[0].players[1].points": -2, ...}``: the fields a diff names."""
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(flatten(item, f"{prefix}.{key}" if prefix else key))
        return flat or {prefix: {}}
    if isinstance(value, list):
        flat = {}
        for i, item in enumerate(value):
            flat.update(flatten(item, f"{prefix}[{i}]"))
        return flat or {prefix: []}
    return {prefix: value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite every sidecar")
    args = parser.parse_args()
    for history in histories():
        document = audit_document(history)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        path = sidecar(history)
        if args.update:
            path.write_text(text, encoding="utf-8")
        print(f"{'wrote' if args.update else 'checked'} {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
