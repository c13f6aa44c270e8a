"""Progress on standard error: bytes read of the total and the time left while the hands are
read and replayed, then one line per report step.

Shown only where someone may be waiting and nothing is spoiled: on a terminal (a Rich bar,
redrawn in place; ``NO_COLOR`` respected by Rich), or, off a terminal, in a run longer than
ten seconds (a plain line now and then, for logs). Never on standard output, so a
``--json`` document stays whole.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from ..history.reader import HistoryParseError, read_stream
from ..history.records import Hand
from ..history.sources import real_name


def _size(value: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1000
    return f"{value:,.1f} GB"  # pragma: no cover - the loop returns


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class Progress:
    """Progress of one run. ``total`` is the bytes to read (0: unknown, e.g. standard
    input; then hands are counted instead). Feed it :meth:`read` (bytes so far) or
    :meth:`tick` (hands so far), then :meth:`step` for each report step, :meth:`done` at the
    end."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        total: int = 0,
        *,
        every: int = 1000,
        after: float = 10.0,
        interval: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        what: str = "reading and replaying",
        unit: str = "bytes",
    ) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.every = every  # hands between two looks at the clock
        self.after = after  # seconds before a run off a terminal says anything
        self.interval = interval  # seconds between two lines off a terminal
        self.clock = clock
        self.what = what
        self.unit = unit  # what ``total`` counts: "bytes" (fed by read) or "hands" (tick)
        self.start = clock()
        self.tty = _isatty(self.stream)
        self.done_bytes = 0
        self.hands = 0
        self._last_line = self.start
        self._bar: Any = None
        self._task: Any = None
        self._finished = False

    # -- feeding ----------------------------------------------------------------------------

    def read(self, done: int) -> None:
        """``done`` bytes of ``total`` are read."""
        self.done_bytes = done
        self._show()

    def tick(self, hands: int) -> None:
        """``hands`` hands are done (looked at every ``every`` hands)."""
        self.hands = hands
        if self.unit == "hands":
            self.done_bytes = hands
        if hands % self.every == 0:
            self._show()

    def step(self, text: str) -> None:
        """A report step begins (summaries, tables, charts, pages): one line each."""
        self._stop_bar()
        if self.tty or self.clock() - self.start >= self.after:
            self.stream.write(f"ofc-audit: {text}\n")
            self.stream.flush()

    def done(self) -> None:
        self._stop_bar()
        self._finished = True

    # -- showing ----------------------------------------------------------------------------

    def _show(self) -> None:
        if self._finished:
            return
        now = self.clock()
        if self.tty:
            self._draw()
        elif now - self.start >= self.after and now - self._last_line >= self.interval:
            self._last_line = now
            self.stream.write(f"ofc-audit: {self.line(now)}\n")
            self.stream.flush()

    def line(self, now: float | None = None) -> str:
        """The progress as a line of text."""
        elapsed = (self.clock() if now is None else now) - self.start
        if self.total > 0:
            share = min(self.done_bytes / self.total, 1.0)
            left = elapsed * (1 - share) / share if share > 0 else None
            amount = (f"{self.done_bytes:,} of {self.total:,} hands" if self.unit == "hands"
                      else f"{_size(self.done_bytes)} of {_size(self.total)}")
            text = f"{self.what}: {amount} ({share:.0%})"
            if left is not None:
                text += f", about {_duration(left)} left"
            return text
        rate = self.hands / elapsed if elapsed > 0 else 0.0
        return f"{self.what}: {self.hands:,} hands ({rate:,.0f}/s)"

    def _draw(self) -> None:
        if self._bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import (
                Progress as RichProgress,
            )

            console = Console(file=self.stream, stderr=self.stream is sys.stderr)
            if self.total > 0:
                columns: tuple[Any, ...] = (
                    TextColumn("ofc-audit: {task.description}"), BarColumn(),
                    MofNCompleteColumn() if self.unit == "hands" else DownloadColumn(),
                    TimeRemainingColumn())
            else:
                columns = (TextColumn("ofc-audit: {task.description} {task.completed:,.0f} "
                                      "hands"),)
            self._bar = RichProgress(*columns, console=console, transient=False,
                                     refresh_per_second=4)
            self._task = self._bar.add_task(self.what, total=self.total or None)
            self._bar.start()
        self._bar.update(self._task, completed=self.done_bytes if self.total else self.hands)

    def _stop_bar(self) -> None:
        if self._bar is not None:
            if self.total:
                self._bar.update(self._task, completed=self.done_bytes)
            self._bar.stop()
            self._bar = None


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class CountingReader(io.RawIOBase):
    """A binary file that adds what is read from it to a :class:`Progress`."""

    def __init__(self, raw: IO[bytes], progress: Progress, base: int) -> None:
        self.raw = raw
        self.progress = progress
        self.base = base
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer)  # type: ignore[attr-defined]
        if n:
            self.count += n
            self.progress.read(self.base + self.count)
        return int(n or 0)


def total_size(files: Iterable[str]) -> int:
    total = 0
    for file in files:
        if file != "-":
            try:
                total += os.path.getsize(real_name(file))
            except OSError:
                pass
    return total


def metered_hands(files: Iterable[str], progress: Progress) -> Iterator[Hand | HistoryParseError]:
    """``reader.read_hands`` of the files (as :class:`~ofc_audit.audit.inputs.Inputs` lists them,
    ``-`` for standard input), telling ``progress`` the bytes read so far."""
    base = 0
    for file in files:
        if file == "-":
            yield from read_stream(sys.stdin.buffer, "-")
            continue
        with open(real_name(file), "rb", buffering=0) as raw:
            counting = CountingReader(raw, progress, base)
            with io.BufferedReader(counting, 1 << 16) as stream:
                yield from read_stream(stream, file)
            base += counting.count
