"""Fixtures of the archive tests: the command line, simulated histories, a hand's text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from ofc_audit.cli.app import app  # noqa: E402
from tests.support.histories import cli_runner  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_histories"


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str


def cli(args: Sequence[str]) -> Run:
    """``ofc-audit ARGS`` in this process: exit status, standard output and error."""
    result = cli_runner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.fixture(scope="session")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ofc-audit simulate --hands 2000 --tables 3``: three tables whose stacks, buttons
    and matches run across many hands."""
    path = tmp_path_factory.mktemp("simulated") / "s.txt"
    run = cli(["simulate", "--hands", "2000", "--tables", "3", "--out", path])
    assert run.code == 0, run.stderr
    return path


@pytest.fixture(scope="session")
def short_simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two tables, 120 hands, some with faults: small enough to import many times."""
    path = tmp_path_factory.mktemp("short") / "short.txt"
    run = cli(["simulate", "--hands", "120", "--tables", "2", "--seed", "5", "--faults", "0.2",
               "--out", path])
    assert run.code == 0, run.stderr
    return path


def hand_starts(data: bytes) -> list[int]:
    """Byte offsets of the lines that start a hand (``OFC Hand`` at a line's start)."""
    starts = []
    at = data.find(b"OFC Hand")
    while at >= 0:
        if at == 0 or data[at - 1:at] == b"\n":
            starts.append(at)
        at = data.find(b"OFC Hand", at + 1)
    return starts


def outputs_of(args: Sequence[str], out: Path | None = None) -> dict[str, bytes | int]:
    """What a command prints (exit status, standard output) and, with ``out``, every file
    it wrote there, by relative path."""
    run = cli(args)
    found: dict[str, bytes | int] = {"exit": run.code, "stdout": run.stdout.encode()}
    if out is not None:
        for path in sorted(out.rglob("*")):
            if path.is_file():
                found[str(path.relative_to(out))] = path.read_bytes()
    return found
