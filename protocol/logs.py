"""Structured logging: JSON lines through structlog.

Programs (dealer, player, match runner) call ``configure`` once; library code only
calls ``structlog.get_logger(...)``. Events below the configured level cost one
method call, so per-action events are logged at debug level.

The lines go to standard error unless ``POKERBOT_LOG_STREAM=stdout`` (the container
image sets it, for log collectors that read a container's standard output).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO, cast

import structlog

LEVELS = ("debug", "info", "warning", "error")
#: Where the lines go when ``configure`` is not given a stream: ``stderr`` (default) or ``stdout``.
STREAM_ENV = "POKERBOT_LOG_STREAM"
STREAMS = ("stderr", "stdout")


class _Current:
    """Writes to whatever ``sys.stderr`` / ``sys.stdout`` is at the time (test
    runners swap them)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, text: str) -> int:
        return getattr(sys, self.name).write(text)

    def flush(self) -> None:
        getattr(sys, self.name).flush()


def stream_from_env() -> str:
    """``stderr`` or ``stdout``, from POKERBOT_LOG_STREAM (default and unset: stderr).
    An unknown value is reported on standard error and stderr is used: a typo in a
    deployment's environment must not stop the bot."""
    value = os.environ.get(STREAM_ENV, "").strip().lower() or "stderr"
    if value not in STREAMS:
        print(
            f"pokerbot: {STREAM_ENV}={os.environ[STREAM_ENV]!r} is not one of {', '.join(STREAMS)}; logging to stderr",
            file=sys.stderr,
            flush=True,
        )
        return "stderr"
    return value


def configure(level: str = "info", stream: TextIO | None = None) -> None:
    """JSON lines with an ISO timestamp and the level, to ``stream`` (default: the
    current standard error, or standard output when POKERBOT_LOG_STREAM=stdout).
    Every line is flushed as it is written, so a container's log collector sees it
    at once."""
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, got {level!r}")
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        # _Current has the two methods structlog's PrintLogger calls, write and flush
        logger_factory=structlog.PrintLoggerFactory(file=stream or cast(TextIO, _Current(stream_from_env()))),
        cache_logger_on_first_use=True,
    )


def log_enabled(logger, level: str) -> bool:
    """Whether ``logger`` emits ``level``: lets hot loops skip building arguments."""
    try:
        return bool(logger.is_enabled_for(getattr(logging, level.upper())))
    except AttributeError:  # a logger without level filtering logs everything
        return True
