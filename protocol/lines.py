"""Line-framed TCP for the ACPC protocol, on asyncio's low-level Protocol interface.

One ``LineConnection`` per socket: incoming bytes are split into lines as they arrive
(several lines per segment and lines split over segments both work; ``\\r\\n`` and
``\\n`` both end a line), queued, and handed out by ``readline``. This is leaner than
asyncio's StreamReader, which matters at thousands of messages per second.
"""

from __future__ import annotations

import asyncio
import collections
import os
import socket
import time

MAX_LINE = 1 << 16


class LineTooLong(Exception):
    """The peer sent more than MAX_LINE bytes without a line ending."""


class LineConnection(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._buffer = b""
        self._lines: collections.deque[bytes] = collections.deque()
        self._waiter: asyncio.Future | None = None
        self._eof = False
        self._overlong = False
        self._fd = -1
        self.spin_seconds = 0.0
        # Kept, not looked up per line: asyncio.get_running_loop() makes a getpid()
        # system call each time, one of the costlier parts of a message on a VM.
        self._loop = asyncio.get_running_loop()
        self.connected: asyncio.Future = self._loop.create_future()

    # -- asyncio.Protocol
    def connection_made(self, transport) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            self._fd = sock.fileno()
            # one short line at a time: send it now, no Nagle delay
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        if not self.connected.done():
            self.connected.set_result(self)

    def data_received(self, data: bytes) -> None:
        buf = self._buffer + data if self._buffer else data
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            self._lines.append(buf[start : end + 1])
            start = end + 1
        self._buffer = buf[start:]
        if len(self._buffer) > MAX_LINE:
            self._buffer = b""
            self._overlong = True
        self._wake()

    def eof_received(self) -> bool:
        self._eof = True
        self._wake()
        return False

    def connection_lost(self, exc) -> None:
        self._eof = True
        self._wake()

    def _wake(self) -> None:
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    # -- API
    async def readline(self, timeout: float | None = None) -> bytes:
        """The next line with its ending; b"" at end of stream (a partial last line is
        dropped). Raises ``LineTooLong`` once for an over-long line, ``TimeoutError``
        when no whole line came within ``timeout`` seconds (a timer only while waiting;
        partial data does not restart the clock)."""
        deadline = None
        if not self._lines and self.spin_seconds > 0.0:
            self._spin()
        while not self._lines:
            if self._overlong:
                self._overlong = False
                raise LineTooLong(f"line longer than {MAX_LINE} bytes")
            if self._eof:
                return b""
            loop = self._loop
            if timeout is not None and deadline is None:
                deadline = loop.time() + max(timeout, 0.0)
            self._waiter = waiter = loop.create_future()
            timer = None if deadline is None else loop.call_at(deadline, _expire, waiter)
            try:
                await waiter
            finally:
                self._waiter = None
                if timer is not None:
                    timer.cancel()
        return self._lines.popleft()

    def _spin(self) -> None:
        """Read the socket without blocking until a whole line is in or spin_seconds
        have passed. The bytes go through ``data_received`` as the transport's would
        (they come after everything the transport has read, so the order holds); end
        of stream and errors are left for the transport to find on its next read."""
        if self._fd < 0 or self._eof:
            return
        end = time.perf_counter() + self.spin_seconds
        while True:
            try:
                data = os.read(self._fd, 65536)
            except (BlockingIOError, InterruptedError):
                if time.perf_counter() >= end:
                    return
                os.sched_yield()  # a player waiting for this CPU may run meanwhile
                continue
            except OSError:
                return
            if not data:
                return
            self.data_received(data)
            if self._lines or self._overlong:
                return

    def write(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            raise ConnectionError("connection closed")
        self.transport.write(data)

    def is_closing(self) -> bool:
        return self.transport is None or self.transport.is_closing()

    def buffered_output(self) -> int:
        return 0 if self.transport is None else self.transport.get_write_buffer_size()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def _expire(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


async def open_line_connection(host: str, port: int) -> LineConnection:
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_connection(LineConnection, host, port)
    return proto
