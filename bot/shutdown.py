"""Stopping on SIGINT or SIGTERM, one way for every long-running command.

The first signal asks the work to stop where it keeps what it has done (a training
run after its batch, with a checkpoint; a Slumbot run between two requests; a player
between two decisions); a second one interrupts at once (KeyboardInterrupt). The
handlers in force before are put back on leaving. Signals reach the main thread only:
elsewhere nothing is installed and the request is never set by a signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Whether a stop was asked (``requested``, by ``signal``). Calling it answers that
    and marks that the work has started asking (``polled``)."""

    def __init__(self) -> None:
        self.requested = False
        self.polled = False
        self.signal: signal.Signals | None = None

    def __call__(self) -> bool:
        self.polled = True
        return self.requested


@contextlib.contextmanager
def stop_on_signals(
    request: StopRequest | None = None,
    announce: Callable[[str], None] | None = None,
    message: str = "stopping (again to stop at once)",
    interrupt_until_polled: bool = False,
) -> Iterator[StopRequest]:
    """Within: ``request`` (a new one by default) set by the first SIGINT or SIGTERM,
    with ``announce(message)``; a second signal raises KeyboardInterrupt, and so does
    the first while the work has not polled yet where ``interrupt_until_polled``."""
    stop = StopRequest() if request is None else request
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum: int, _frame) -> None:
        if stop.requested or (interrupt_until_polled and not stop.polled):
            raise KeyboardInterrupt
        stop.requested = True
        stop.signal = signal.Signals(signum)
        if announce is not None:
            announce(message)

    before = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield stop
    finally:
        for sig, old in before.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def stop_signals_in_loop(callback: Callable[[signal.Signals], None]) -> Iterator[tuple[signal.Signals, ...]]:
    """Within a running asyncio loop: ``callback(signal)`` as a loop callback (never
    inside a coroutine's step) on each SIGINT or SIGTERM. Yields the signals
    installed: none outside the main thread or where the loop has no signal support."""
    loop = asyncio.get_running_loop()
    installed = []
    for sig in STOP_SIGNALS:
        try:
            loop.add_signal_handler(sig, callback, sig)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals
            pass
    try:
        yield tuple(installed)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
