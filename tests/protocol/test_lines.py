"""Line framing and read timeouts of protocol/lines.py, with and without polling the
socket before sleeping (``spin_seconds``, what the dealer does for players in other
processes)."""

import asyncio
import socket
import threading
import time

import pytest

from pokerbot.protocol.lines import MAX_LINE, LineTooLong, open_line_connection

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(30)]


@pytest.fixture(params=[0.0, 0.002], ids=["sleep", "spin"])
def spin(request):
    return request.param


async def pair(spin=0.0):
    """A LineConnection client and the raw server-side writer."""
    accepted: asyncio.Future = asyncio.get_running_loop().create_future()

    async def handle(reader, writer):
        accepted.set_result(writer)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    conn = await open_line_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    conn.spin_seconds = spin
    return server, conn, await accepted


async def test_lines_split_across_and_within_segments(spin):
    server, conn, w = await pair(spin)
    w.write(b"one\r\ntw")
    await w.drain()
    assert await conn.readline(1.0) == b"one\r\n"
    w.write(b"o\nthree\n")
    assert await conn.readline(1.0) == b"two\n" and await conn.readline(1.0) == b"three\n"
    w.close()
    assert await conn.readline(1.0) == b""
    server.close()


async def test_timeout_is_not_restarted_by_partial_data(spin):
    server, conn, w = await pair(spin)
    start = time.monotonic()

    async def dribble():
        for _ in range(6):
            w.write(b"x")  # never a whole line
            await asyncio.sleep(0.1)

    task = asyncio.create_task(dribble())
    with pytest.raises(TimeoutError):
        await conn.readline(0.3)
    assert time.monotonic() - start < 0.5
    await task
    conn.close()
    server.close()


async def test_overlong_line(spin):
    server, conn, w = await pair(spin)
    w.write(b"y" * (MAX_LINE + 10))
    await w.drain()
    with pytest.raises(LineTooLong):
        await conn.readline(2.0)
    conn.close()
    server.close()


async def test_spin_reads_lines_a_peer_in_another_thread_sends_while_it_polls():
    # A peer outside the event loop (as a player process is): its lines come in while
    # readline polls, split across writes, then end of stream during a poll.
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def peer():
        s, _ = listener.accept()
        with s:
            for chunk in (b"a\r\n", b"b", b"c\n", b"d\ne\n"):
                time.sleep(0.002)
                s.sendall(chunk)
            time.sleep(0.002)

    thread = threading.Thread(target=peer)
    thread.start()
    conn = await open_line_connection("127.0.0.1", port)
    conn.spin_seconds = 0.05  # longer than the peer's pauses: the lines come in during polls
    got = [await conn.readline(2.0) for _ in range(5)]
    thread.join()
    assert got == [b"a\r\n", b"bc\n", b"d\n", b"e\n", b""]
    conn.close()
    listener.close()
