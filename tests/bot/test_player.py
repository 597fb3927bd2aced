"""The player program's exit status and its shutdown on SIGTERM / SIGINT."""

import asyncio
import contextlib
import json
import os
import signal
import sys
import textwrap

import pytest

from pokerbot.bot.players.acpc_player import play
from pokerbot.bot.players.bots import CallStrategy
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(60)

OUR_TURN = "MATCHSTATE:0:0:c:8s2h|"  # the opponent called; seat 0 to act
NOT_OUR_TURN = "MATCHSTATE:0:0::8s2h|"  # seat 1 acts first
FINISHED = "MATCHSTATE:0:0:cr14979c/r19588c/cc/r19702f:8s2h|/7hAdTd/4s/Kc"


class Dealer:
    """A scripted dealer on 127.0.0.1 port 0 for one player: it records the lines the
    player sends, and the test decides what to send and when to close."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.connected = asyncio.Event()
        self.eof = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None
        self._new_line = asyncio.Event()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader, writer) -> None:
        self.writer = writer
        self.connected.set()
        try:
            while line := await reader.readline():
                self.received.append(line)
                self._new_line.set()
        except ConnectionError:
            pass
        self.eof.set()

    async def wait_lines(self, n: int, timeout: float = 30) -> None:
        async with asyncio.timeout(timeout):
            while len(self.received) < n:
                self._new_line.clear()
                await self._new_line.wait()

    async def greeted(self) -> None:
        """Wait for the player to connect and send its version line."""
        async with asyncio.timeout(30):
            await self.connected.wait()
        await self.wait_lines(1)

    def send(self, *lines: str) -> None:
        self.writer.write("".join(l + "\r\n" for l in lines).encode())

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.server.close()


async def _start(*args: str, **env: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "POKERBOT_LOG_STREAM": "stderr", **env},
    )


async def _finish(proc: asyncio.subprocess.Process, timeout: float = 20) -> tuple[int, str, str]:
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return proc.returncode, out.decode(), err.decode()


async def _stop(proc: asyncio.subprocess.Process, sig: signal.Signals, dealer: Dealer) -> tuple[int, str]:
    """Send ``sig`` to the player and wait for it to exit and its connection to close:
    (exit status, stderr)."""
    proc.send_signal(sig)
    code, _, err = await _finish(proc)
    async with asyncio.timeout(10):
        await dealer.eof.wait()
    return code, err


def _events(text: str) -> list[dict]:
    return [json.loads(l) for l in text.splitlines() if l.startswith("{")]


@pytest.mark.asyncio
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_stop_signal_while_waiting_closes_the_connection_and_exits_0(sig):
    dealer = Dealer()
    port = await dealer.start()
    proc = await _start(
        "-m", "pokerbot.bot.cli", "play", "127.0.0.1", str(port), "--strategy", "call", "--log-level", "info"
    )
    try:
        await dealer.greeted()
        dealer.send(OUR_TURN)
        await dealer.wait_lines(2)  # our reply; now the player waits for the dealer
        code, err = await _stop(proc, sig, dealer)
    finally:
        dealer.close()
    assert code == 0, err
    assert dealer.received == [b"VERSION:2.0.0\r\n", (OUR_TURN + ":c\r\n").encode()]  # no fold, nothing more
    stopped = [e for e in _events(err) if e["event"] == "stopped"]
    assert stopped and stopped[0]["signal"] == sig.name and stopped[0]["hand_in_progress"] is True
    assert "Traceback" not in err


SLOW_PLAYER = textwrap.dedent("""
    import sys, time
    from pokerbot.bot.players.acpc_player import play
    from pokerbot.protocol.betting import CALL
    from pokerbot.protocol.dealer import run_event_loop
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.protocol.logs import configure

    class Slow:
        name = "slow"
        def act(self, ms):
            print("acting", flush=True)
            time.sleep(1.5)
            return CALL
        def hand_over(self, ms):
            pass

    configure("info")
    sys.exit(run_event_loop(play("127.0.0.1", int(sys.argv[1]), bundled_game("holdem.nolimit.2p"), Slow())))
""")


@pytest.mark.asyncio
async def test_sigterm_during_a_decision_sends_it_whole_then_exits_0():
    dealer = Dealer()
    port = await dealer.start()
    proc = await _start("-c", SLOW_PLAYER, str(port))
    try:
        await dealer.greeted()
        dealer.send(OUR_TURN)
        async with asyncio.timeout(30):
            assert await proc.stdout.readline() == b"acting\n"
        code, err = await _stop(proc, signal.SIGTERM, dealer)  # in the middle of act()
    finally:
        dealer.close()
    assert code == 0, err
    assert dealer.received == [b"VERSION:2.0.0\r\n", (OUR_TURN + ":c\r\n").encode()]
    assert [e["signal"] for e in _events(err) if e["event"] == "stopped"] == ["SIGTERM"]


@contextlib.asynccontextmanager
async def _playing(strategy):
    """play() here with ``strategy`` as a task, against a scripted dealer: (the dealer,
    the task); the task is cancelled on leaving."""
    dealer = Dealer()
    port = await dealer.start()
    task = asyncio.create_task(play("127.0.0.1", port, HUNL, strategy, connect_timeout=10))
    try:
        yield dealer, task
    finally:
        task.cancel()


async def _play_against(lines: list[str]) -> int:
    """Run play() here against a dealer that sends ``lines`` and closes."""
    async with _playing(CallStrategy()) as (dealer, task), asyncio.timeout(20):
        await dealer.greeted()
        dealer.send(*lines)
        await asyncio.sleep(0.1)
        dealer.close()
        return await task


@pytest.mark.asyncio
async def test_exit_status_0_when_the_dealer_closes_after_a_finished_hand():
    assert await _play_against([NOT_OUR_TURN, FINISHED]) == 0


@pytest.mark.asyncio
@pytest.mark.parametrize("lines", [[NOT_OUR_TURN], []], ids=["mid-hand", "before-first-hand"])
async def test_exit_status_1_when_the_dealer_closes_early(lines):
    assert await _play_against(lines) == 1


@pytest.mark.asyncio
async def test_exit_status_1_on_an_unparseable_state():
    assert await _play_against(["MATCHSTATE:0:0:bogus"]) == 1


@pytest.mark.asyncio
async def test_signal_handlers_are_removed_after_play():
    before = signal.getsignal(signal.SIGTERM)
    assert await _play_against([NOT_OUR_TURN, FINISHED]) == 0
    assert signal.getsignal(signal.SIGTERM) == before


@pytest.mark.asyncio
async def test_a_strategy_that_raises_still_replies_with_a_call():
    class Broken(CallStrategy):
        name = "broken"

        def act(self, ms):
            raise ZeroDivisionError("a bug")

    async with _playing(Broken()) as (dealer, task), asyncio.timeout(20):
        await dealer.greeted()
        dealer.send(OUR_TURN)
        await dealer.wait_lines(2)
        assert dealer.received[1] == (OUR_TURN + ":c\r\n").encode()
        dealer.send(FINISHED)
        await asyncio.sleep(0.1)
        dealer.close()
        assert await task == 0
