"""Structured logging: JSON lines through structlog.

Programs (dealer, player, match runner) call ``configure`` once; library code only
calls ``structlog.get_logger(...)``. Events below the configured level cost one
method call, so per-action events are logged at debug level.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog

LEVELS = ("debug", "info", "warning", "error")


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure(level: str = "info", stream: TextIO | None = None) -> None:
    """JSON lines with an ISO timestamp and the level, to ``stream`` (default: the
    current standard error)."""
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, got {level!r}")
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=stream or _CurrentStderr()),
        cache_logger_on_first_use=True,
    )


def log_enabled(logger, level: str) -> bool:
    """Whether ``logger`` emits ``level``: lets hot loops skip building arguments."""
    try:
        return bool(logger.is_enabled_for(getattr(logging, level.upper())))
    except AttributeError:  # a logger without level filtering logs everything
        return True
