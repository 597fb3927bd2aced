"""The progress line: counts, rate, ETA, throttling, terminal and plain output."""

import doctest
import io

import pytest

from pokerbot.bot import progress
from pokerbot.bot.progress import ProgressBar


def test_doctests():
    assert doctest.testmod(progress).failed == 0


def test_plain_output_prints_at_intervals_and_at_the_end():
    out = io.StringIO()
    bar = ProgressBar(1000, "hands", label="m", stream=out, tty=False, plain_interval=30.0, start=0.0)
    bar.update(100, "x", now=1.0)  # first update draws
    bar.update(200, "y", now=20.0)  # within 30 s of the last line: nothing
    bar.update(500, "z", now=31.5)
    bar.finish(now=60.0)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("m: 100/1,000 hands (10 %), 100.0 hands/s, ETA 9s, x")
    # 500 done in 31.5 s: 500 more take 31.5 s
    assert lines[1] == "m: 500/1,000 hands (50 %), 15.9 hands/s, ETA 32s, z"
    assert lines[2].endswith("1m00s, z") and "ETA" not in lines[2]
    assert "\r" not in out.getvalue()


def test_terminal_output_redraws_one_line_and_ends_it():
    out = io.StringIO()
    bar = ProgressBar(10, "s", label="training", stream=out, tty=True, redraw=0.0, start=0.0)
    bar.update(5, "1,000 iterations", now=5.0)
    bar.write("checkpoint written")
    bar.update(10, now=10.0)
    bar.finish(now=10.0)
    text = out.getvalue()
    assert text.endswith("\n") and text.count("\n") == 2  # the message and the final line
    assert "\r\x1b[2K" in text and "checkpoint written\n" in text
    last = text.rstrip("\n").rsplit("\r\x1b[2K", 1)[1]
    assert "10/10 s (100 %)" in last and "1,000 iterations" in last
    assert "s/s" not in text  # a time budget has no rate of its own


def test_done_is_clamped_and_total_must_be_positive():
    out = io.StringIO()
    bar = ProgressBar(10, "hands", stream=out, tty=False, plain_interval=0, start=0.0)
    bar.update(25, now=1.0)
    assert "10/10 hands (100 %)" in out.getvalue()
    with pytest.raises(ValueError, match="positive total"):
        ProgressBar(0, "hands")


def test_the_rate_and_eta_follow_the_recent_pace():
    out = io.StringIO()
    bar = ProgressBar(1000, "hands", stream=out, tty=False, plain_interval=0, start=0.0, window=60.0)
    bar.update(600, now=10.0)  # fast at first: 60 hands/s
    for t in range(20, 200, 10):  # then 1 hand/s
        bar.update(600 + (t - 10), now=float(t))
    last = out.getvalue().splitlines()[-1]
    # at t = 190: 780 done, the last 60 s at 1 hand/s: 220 left take 3m40s
    assert last.startswith("780/1,000 hands (78 %), 1.0 hands/s, ETA 3m40s")
    bar.finish(now=200.0)  # the final line gives the whole run's rate
    assert out.getvalue().splitlines()[-1] == "780/1,000 hands (78 %), 3.9 hands/s, 3m20s"


def test_a_phase_first_reported_midway_counts_its_rate_from_that_report(monkeypatch):
    """The card abstraction reports a round first after thousands of boards, and MCCFR
    after its first 10 s: that work is not squeezed into the instant the bar appears
    (which showed millions of boards per second and an ETA of 0 s)."""
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    out = io.StringIO()
    phases = progress.PhasedProgress(stream=out, tty=False, plain_interval=0)
    phases("MCCFR", 10, 3000, "s", "")
    assert "ETA" not in out.getvalue()  # no pace known yet
    clock[0] += 30.0
    phases("MCCFR", 40, 3000, "s", "")
    # 30 s of training in 30 s: 2,960 s left
    assert out.getvalue().splitlines()[-1] == "MCCFR: 40/3,000 s (1 %), ETA 49m20s"


def test_phased_progress_logs_the_seconds_since_it_was_made(monkeypatch):
    """Training and improvement messages carry the time since the command started."""
    clock = [50.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    out = io.StringIO()
    phases = progress.PhasedProgress(stream=out, tty=False, plain_interval=0)
    clock[0] += 12.34
    phases.log("flop: fitting 200 centres")
    assert out.getvalue() == "[   12.3 s] flop: fitting 200 centres\n"
