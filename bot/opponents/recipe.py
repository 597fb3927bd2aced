"""A build as a list of steps, each a few commands, resumable: a step that finished
leaves a marker naming what it ran, so running the build again skips it (and redoes
it, and the steps after it, when its commands changed). Each step's output goes to a
log of its own; a failing step stops the build with its log's last lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from pokerbot.bot.progress import format_duration


class BuildError(RuntimeError):
    """A build that cannot go on: a failed step (its log named) or a bad input."""


@dataclass(frozen=True)
class Step:
    """``commands`` (argument lists, run in order in ``cwd``, with ``env`` added to the
    environment) that do ``what``; ``estimate`` the seconds they take on 2 cores (for
    the ETA); ``progress(log text)`` how far a running step is, in [0, 1], if it can
    tell."""

    name: str
    commands: list[list[str]]
    what: str
    cwd: str = "."
    env: dict[str, str] = field(default_factory=dict)
    estimate: float = 60.0
    progress: Callable[[str], float | None] | None = None

    @property
    def identity(self) -> str:
        """What the marker records: the commands and their environment."""
        text = json.dumps({"commands": self.commands, "env": self.env, "cwd": self.cwd}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def marker_path(out: str, index: int, step: Step) -> str:
    return os.path.join(out, "steps", f"{index:02d}-{step.name.replace(' ', '-')}.done")


def done(out: str, index: int, step: Step) -> bool:
    """Whether the step finished with the same commands."""
    path = marker_path(out, index, step)
    if not os.path.exists(path):
        return False
    with open(path) as f:
        try:
            return json.load(f).get("identity") == step.identity
        except ValueError:
            return False


def run_steps(out: str, steps: Sequence[Step], stream: TextIO | None = None, tail: int = 20) -> dict[str, float]:
    """Run the steps not yet done (a step whose commands changed is redone, and every
    step after it); returns the seconds each step took this time. Logs in
    ``out/logs``; progress on ``stream`` (default stderr): a line per step and one
    every 30 s with the time taken and, from the estimate, the time left."""
    stream = stream if stream is not None else sys.stderr
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    os.makedirs(os.path.join(out, "steps"), exist_ok=True)
    seconds: dict[str, float] = {}
    redo = False
    for i, step in enumerate(steps, 1):
        if not redo and done(out, i, step):
            print(f"[{i}/{len(steps)}] {step.name}: done earlier", file=stream)
            continue
        redo = True  # what follows a redone step depends on it
        marker = marker_path(out, i, step)
        if os.path.exists(marker):
            os.remove(marker)
        log = os.path.join(out, "logs", f"{i:02d}-{step.name.replace(' ', '-')}.log")
        print(f"[{i}/{len(steps)}] {step.name}: {step.what} (about {format_duration(step.estimate)} on 2 cores)",
              file=stream, flush=True)  # fmt: skip
        t0 = time.monotonic()
        with open(log, "w") as f:
            for command in step.commands:
                f.write("$ " + " ".join(command) + "\n")
                f.flush()
                status = run_logged(command, step, f, log, stream, t0)
                if status != 0:
                    raise BuildError(
                        f"step {step.name!r} failed (exit status {status}) in {command[0]}; its log: {log}\n"
                        + last_lines(log, tail)
                    )
        seconds[step.name] = time.monotonic() - t0
        with open(marker, "w") as f:
            json.dump({"identity": step.identity, "seconds": round(seconds[step.name], 1), "at": time.time()}, f)
        print(f"[{i}/{len(steps)}] {step.name}: done in {format_duration(seconds[step.name])}", file=stream, flush=True)
    return seconds


def run_logged(command: list[str], step: Step, log: TextIO, log_path: str, stream: TextIO, t0: float) -> int:
    """Run one command of ``step`` with its output in ``log``; a progress line every 30 s."""
    env = {**os.environ, **step.env}
    try:
        proc = subprocess.Popen(command, cwd=step.cwd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    except OSError as e:
        raise BuildError(f"step {step.name!r}: cannot run {command[0]}: {e}") from None
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(30.0):
            elapsed = time.monotonic() - t0
            share = None
            if step.progress is not None:
                with open(log_path, errors="replace") as f:
                    share = step.progress(f.read())
            if share is not None and share > 0:
                left = f", about {format_duration(elapsed / share - elapsed)} left ({share:.0%})"
            else:
                left = f", about {format_duration(max(0.0, step.estimate - elapsed))} left by the estimate"
            print(f"    {step.name}: {format_duration(elapsed)}{left}", file=stream, flush=True)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        proc.wait()
        raise
    finally:
        stop.set()


def last_lines(path: str, count: int) -> str:
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-count:])
