"""Every bundled history audits exactly as its hand-checked sidecar says, field by field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.golden import ROOT, audit_document, flatten, histories, sidecar


@pytest.mark.parametrize("history", histories(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_history_matches_its_sidecar(history: Path) -> None:
    expected_path = sidecar(history)
    assert expected_path.exists(), (
        f"{expected_path.name} is missing: python -m tests.support.golden --update"
    )
    expected = flatten(json.loads(expected_path.read_text(encoding="utf-8")))
    got = flatten(audit_document(history))
    differences = [
        f"{key}: expected {expected.get(key, '<absent>')!r}, got {got.get(key, '<absent>')!r}"
        for key in sorted(set(expected) | set(got))
        if expected.get(key, object()) != got.get(key, object())
    ]
    assert not differences, "\n".join(differences)


def test_corpus_is_large_enough() -> None:
    assert len(histories()) >= 25
