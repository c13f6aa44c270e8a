"""``benchmarks/compare.py`` runs at once share their inputs in ``--data`` and never each
other's half-built inputs or outputs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _compare() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("compare", BENCHMARKS / "compare.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_each_run_builds_an_input_in_a_folder_of_its_own(tmp_path: Path) -> None:
    compare = _compare()
    folder = tmp_path / "mix_10"
    first, second = compare._part(folder), compare._part(folder)
    assert first != second and first.parent == second.parent == tmp_path
    (first / "a.txt").write_text("first")
    (second / "a.txt").write_text("second")
    assert compare._publish(first, folder) == folder
    # The second run finds the input built by the first: its own copy goes, the first stays.
    assert compare._publish(second, folder) == folder
    assert (folder / "a.txt").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mix_10"]
