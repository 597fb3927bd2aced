"""The shared stop-signal helper: first signal asks, second interrupts, handlers put back."""

import asyncio
import os
import signal
import threading

import pytest

from pokerbot.bot.shutdown import StopRequest, stop_on_signals, stop_signals_in_loop


def test_the_first_signal_asks_the_second_interrupts_and_the_handlers_come_back():
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    said = []
    with pytest.raises(KeyboardInterrupt):
        with stop_on_signals(announce=said.append, message="stopping") as stop:
            os.kill(os.getpid(), signal.SIGTERM)
            assert stop.requested and stop.signal == signal.SIGTERM and said == ["stopping"]
            assert not stop.polled and stop() is True and stop.polled
            os.kill(os.getpid(), signal.SIGINT)
            pytest.fail("a second signal should have interrupted")
    assert {sig: signal.getsignal(sig) for sig in before} == before


def test_a_signal_before_the_work_polls_interrupts_at_once_when_asked_to():
    with pytest.raises(KeyboardInterrupt):
        with stop_on_signals(interrupt_until_polled=True) as stop:
            os.kill(os.getpid(), signal.SIGINT)
    assert not stop.requested
    with stop_on_signals(StopRequest(), interrupt_until_polled=True) as stop:
        assert stop() is False
        os.kill(os.getpid(), signal.SIGINT)
        assert stop() is True and stop.signal == signal.SIGINT


def test_outside_the_main_thread_nothing_is_installed():
    before = signal.getsignal(signal.SIGINT)
    seen = []

    def worker() -> None:
        with stop_on_signals() as stop:
            seen.append(signal.getsignal(signal.SIGINT))
            seen.append(stop.requested)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [before, False]


def test_in_a_loop_each_signal_becomes_a_loop_callback_and_the_handlers_are_removed():
    got = []

    async def main() -> tuple:
        done = asyncio.Event()

        def on_signal(sig: signal.Signals) -> None:
            got.append(sig)
            done.set()

        with stop_signals_in_loop(on_signal) as installed:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.wait_for(done.wait(), 10)
        return installed

    before = signal.getsignal(signal.SIGTERM)
    assert asyncio.run(main()) == (signal.SIGINT, signal.SIGTERM)
    assert got == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) == before
