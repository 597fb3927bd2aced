"""Progress of long work (matches, training, self-improvement): a bar redrawn in place
on a terminal, plain lines at intervals otherwise (logs, CI, pipes).

>>> import io
>>> out = io.StringIO()
>>> bar = ProgressBar(200, "hands", label="match", stream=out, tty=False, plain_interval=0, start=0.0)
>>> bar.update(50, "A +120 ± 300 mbb/hand", now=10.0)
>>> bar.finish("A +80 ± 150 mbb/hand", now=40.0)
>>> print(out.getvalue(), end="")
match: 50/200 hands (25 %), 5.0 hands/s, ETA 30s, A +120 ± 300 mbb/hand
match: 50/200 hands (25 %), 1.2 hands/s, 40s, A +80 ± 150 mbb/hand
"""

from __future__ import annotations

import collections
import math
import shutil
import sys
import time
from typing import TextIO


def format_duration(seconds: float) -> str:
    """``1h02m``, ``4m05s`` or ``17s``.

    >>> format_duration(3725), format_duration(245), format_duration(17.4)
    ('1h02m', '4m05s', '17s')
    """
    s = max(0, int(round(seconds)))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class ProgressBar:
    """Done out of ``total`` ``unit`` (hands, seconds of training, ...), the rate over
    the last ``window`` seconds, the time left at that rate, and a status (e.g. the
    running result with its interval). A recent rate keeps the ETA honest when the work
    changes pace (an evaluation's fast opponents first, slow ones last).

    On a terminal the line is redrawn at most every ``redraw`` seconds; elsewhere a
    plain line is printed every ``plain_interval`` seconds and at the end. Messages
    from ``write`` go above the bar. Output goes to ``stream`` (default stderr), so a
    command's results on stdout stay clean.
    """

    def __init__(
        self,
        total: float,
        unit: str,
        label: str = "",
        stream: TextIO | None = None,
        tty: bool | None = None,
        plain_interval: float = 30.0,
        redraw: float = 0.2,
        start: float | None = None,
        window: float = 120.0,
        done: float = 0.0,
    ) -> None:
        if total <= 0:
            raise ValueError(f"a progress bar needs a positive total, got {total}")
        self.total = float(total)
        self.unit = unit
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.plain_interval = plain_interval
        self.redraw = redraw
        self.start = time.monotonic() if start is None else start
        self.window = window
        self.done = min(max(done, 0.0), self.total)  # already done when the bar starts: not in the rate
        self._samples: collections.deque[tuple[float, float]] = collections.deque([(self.start, self.done)])
        self.status = ""
        self._last_draw = -math.inf
        self._drawn = False

    def update(self, done: float, status: str | None = None, now: float | None = None) -> None:
        """Set the amount done (not an increment) and optionally the status."""
        now = time.monotonic() if now is None else now
        self.done = min(max(done, 0.0), self.total)
        self._samples.append((now, self.done))
        while len(self._samples) > 2 and self._samples[1][0] <= now - self.window:
            self._samples.popleft()  # keep one sample at or before the window's start
        if status is not None:
            self.status = status
        interval = self.redraw if self.tty else self.plain_interval
        if now - self._last_draw >= interval:
            self._draw(now)

    def write(self, message: str) -> None:
        """A line of its own above the bar."""
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[2K")
        self.stream.write(message + "\n")
        self.stream.flush()
        if self.tty and self._drawn:
            self._draw(time.monotonic())

    def finish(self, status: str | None = None, now: float | None = None) -> None:
        """The last line, kept on screen."""
        now = time.monotonic() if now is None else now
        if status is not None:
            self.status = status
        self._draw(now, final=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def line(self, now: float, final: bool = False) -> str:
        """The text of the progress line at time ``now``."""
        elapsed = max(now - self.start, 1e-9)
        t0, d0 = self._samples[0]
        rate = (self.done - d0) / max(now - t0, 1e-9)  # over the recent window
        whole = self.unit in ("s", "seconds")
        count = f"{self.done:,.0f}/{self.total:,.0f} {self.unit}"
        text = f"{count} ({100 * self.done / self.total:.0f} %)"
        if not whole and self.done > 0:
            text += f", {(self.done / elapsed if final else rate):,.1f} {self.unit}/s"
        if final:
            text += f", {format_duration(elapsed)}"
        elif rate > 0:
            text += f", ETA {format_duration((self.total - self.done) / rate)}"
        if self.status:
            text += f", {self.status}"
        return f"{self.label}: {text}" if self.label else text

    def _draw(self, now: float, final: bool = False) -> None:
        self._last_draw = now
        text = self.line(now, final)
        if self.tty:
            width = shutil.get_terminal_size((100, 20)).columns
            bar_width = max(10, min(30, width - len(text) - 4))
            filled = int(round(bar_width * self.done / self.total))
            bar = "█" * filled + "░" * (bar_width - filled)
            self.stream.write(f"\r\x1b[2K{bar} {text}"[: width + 8])
            self._drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


class PhasedProgress:
    """A progress callback ``(phase, done, total, unit, status)`` for work in phases
    (card abstraction, then MCCFR): one bar per phase, the previous one finished when
    the next starts. ``write`` prints a message above the current bar, ``log`` with
    the seconds since the object was made."""

    def __init__(self, stream: TextIO | None = None, tty: bool | None = None, plain_interval: float = 30.0) -> None:
        self.started = time.monotonic()
        self.stream = stream if stream is not None else sys.stderr
        self.tty = tty
        self.plain_interval = plain_interval
        self.phase: str | None = None
        self.bar: ProgressBar | None = None

    def __call__(self, phase: str, done: float, total: float, unit: str, status: str) -> None:
        if phase != self.phase or self.bar is None:
            self.close()
            self.phase = phase
            # the first report of a phase may come after some of its work: the rate (and
            # ETA) count from that report on
            self.bar = ProgressBar(
                total,
                unit,
                label=phase,
                stream=self.stream,
                tty=self.tty,
                plain_interval=self.plain_interval,
                done=done,
            )
        self.bar.update(done, status)

    def write(self, message: str) -> None:
        if self.bar is not None:
            self.bar.write(message)
        else:
            self.stream.write(message + "\n")
            self.stream.flush()

    def log(self, message: str) -> None:
        """``write`` the message after the seconds since the start, as ``[   12.3 s]``."""
        self.write(f"[{time.monotonic() - self.started:7.1f} s] {message}")

    def close(self) -> None:
        """Finish the current bar (if any)."""
        if self.bar is not None:
            self.bar.finish()
        self.bar, self.phase = None, None
