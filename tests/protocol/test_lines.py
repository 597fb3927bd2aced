"""Line framing and read timeouts of protocol/lines.py."""

import asyncio
import time

import pytest

from protocol.lines import MAX_LINE, LineTooLong, open_line_connection

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(30)]


async def pair():
    """A LineConnection client and the raw server-side writer."""
    accepted: asyncio.Future = asyncio.get_running_loop().create_future()

    async def handle(reader, writer):
        accepted.set_result(writer)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    conn = await open_line_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    return server, conn, await accepted


async def test_lines_split_across_and_within_segments():
    server, conn, w = await pair()
    w.write(b"one\r\ntw")
    await w.drain()
    assert await conn.readline(1.0) == b"one\r\n"
    w.write(b"o\nthree\n")
    assert await conn.readline(1.0) == b"two\n" and await conn.readline(1.0) == b"three\n"
    w.close()
    assert await conn.readline(1.0) == b""
    server.close()


async def test_timeout_is_not_restarted_by_partial_data():
    server, conn, w = await pair()
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


async def test_overlong_line():
    server, conn, w = await pair()
    w.write(b"y" * (MAX_LINE + 10))
    await w.drain()
    with pytest.raises(LineTooLong):
        await conn.readline(2.0)
    conn.close()
    server.close()
