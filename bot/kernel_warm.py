"""The agent's kernels loaded in a background process (``pokerbot warm --progress``)
while a match gets ready (for one, while it trains the quick blueprint), so that its
players start on numba's warm cache. On a fresh machine that process compiles the
kernels; a player that starts while it is still compiling one waits for it and then
loads it (``solver.kernel_cache``), so each kernel is compiled once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import TextIO


class BackgroundWarm:
    """``pokerbot warm`` for solves on ``threads`` (and the lookups of ``blueprint``
    when given), started now in a subprocess; ``status`` says how far it got. With
    ``helpers`` (default: one on a machine of two cores or more) as many more start
    with ``--evaluation-first``: they compile the evaluation's kernels while the first
    compiles the solver's, then load what it compiled."""

    def __init__(self, threads: int = 1, blueprint: str | None = None, helpers: int | None = None) -> None:
        command = [sys.executable, "-m", "pokerbot.bot.cli", "warm", "--progress", "--threads", str(threads)]
        if blueprint is not None:
            command += ["--blueprint", blueprint]
        if helpers is None:
            helpers = 1 if (os.cpu_count() or 1) >= 2 else 0
        self.helpers = [
            subprocess.Popen(
                [*command[:4], "--threads", str(threads), "--evaluation-first"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(helpers)
        ]
        self.stage = "starting"
        self.index = 0
        self.stages = 1
        self.kernel = ""
        self.compiled = 0
        self.done: float | None = None
        self.proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self._errors: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True, name="kernel-warm")
        self._reader.start()
        self._stderr = threading.Thread(target=self._read_errors, daemon=True, name="kernel-warm-errors")
        self._stderr.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None  # opened as a pipe above
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "stage" in msg:
                self.stage, self.index, self.stages, self.kernel = msg["stage"], msg["index"], msg["stages"], ""
            elif "compiling" in msg:
                self.kernel, self.compiled = msg["compiling"], msg["compiled"]
            elif "done" in msg:
                self.done, self.compiled = msg["done"], msg["compiled"]

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None  # opened as a pipe above
        for line in self.proc.stderr:
            self._errors = (self._errors + [line.rstrip()])[-20:]

    def status(self) -> str:
        """Where the warm-up is: its stage, the kernel it compiles and how many so far."""
        what = f"stage {self.index + 1} of {self.stages} ({self.stage})"
        if self.kernel:
            what += f", compiling {self.kernel} ({self.compiled} kernels compiled)"
        return what

    def finished(self) -> bool:
        return self.proc.poll() is not None

    def running_status(self) -> str | None:
        """While it runs: "compiling the agent's kernels: " and ``status``; None once it ended."""
        if self.finished():
            return None
        return f"compiling the agent's kernels: {self.status()}"

    def wait(self, stream: TextIO | None = None) -> bool:
        """Block until the warm-up ends. True when it succeeded; else its last error
        lines go to ``stream`` (default stderr)."""
        self.proc.wait()
        self._reader.join(timeout=5)
        self._stderr.join(timeout=5)
        for helper in self.helpers:  # it only hurries the first one along: its end is the first's
            helper.wait()
        if self.proc.returncode != 0:
            print(
                "pokerbot: loading the agent's kernels failed:",
                *self._errors[-5:],
                sep="\n  ",
                file=stream if stream is not None else sys.stderr,
            )
            return False
        return True

    def close(self, stream: TextIO | None = None) -> None:
        """Stop the warm-up if it still runs (the match ended before it did); if it
        failed, say so on ``stream`` (default stderr)."""
        if self.proc.poll() is not None and self.proc.returncode != 0:
            self._stderr.join(timeout=5)
            print(
                "pokerbot: loading the agent's kernels in the background failed (the players compiled them):",
                *self._errors[-5:],
                sep="\n  ",
                file=stream if stream is not None else sys.stderr,
            )
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for helper in self.helpers:
            if helper.poll() is None:
                helper.kill()
                helper.wait()
