"""The client side: framing, handshake, replies byte for byte, corrections."""

import asyncio

import pytest
from structlog.testing import capture_logs

from pokerbot.protocol.betting import CALL, FOLD, raise_to
from pokerbot.protocol.client import ClientConnection, ProtocolError, legal_action
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import parse_matchstate

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(30)


async def fake_dealer(chunks: list[bytes], received: list[bytes], pause: float = 0.01):
    """A server that sends ``chunks`` (arbitrary segmentation) and records what the
    client sends, then closes."""

    async def handle(reader, writer):
        received.append(await reader.readline())  # the version line
        for chunk in chunks:
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(pause)
        await asyncio.sleep(0.05)
        try:
            while data := await asyncio.wait_for(reader.readline(), 0.2):
                received.append(data)
        except TimeoutError:
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


LINES = [
    "MATCHSTATE:0:0::8s2h|",
    "MATCHSTATE:0:0:c:8s2h|",
    "MATCHSTATE:0:0:cr14979c/:8s2h|/7hAdTd",
    "MATCHSTATE:0:0:cr14979c/r19588c/cc/r19702f:8s2h|/7hAdTd/4s/Kc",
]


@pytest.mark.asyncio
@pytest.mark.parametrize("ending", ["\r\n", "\n"])
@pytest.mark.parametrize("split", ["whole", "one-segment", "bytewise-ish"])
async def test_framing_and_order(ending, split):
    data = "".join(l + ending for l in ["# a comment from the dealer"] + LINES).encode()
    if split == "whole":
        chunks = [(l + ending).encode() for l in LINES]
    elif split == "one-segment":
        chunks = [data]
    else:
        chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    received: list[bytes] = []
    server, port = await fake_dealer(chunks, received)
    async with server:
        conn = await ClientConnection.connect("127.0.0.1", port, HUNL)
        seen = []
        async for r in conn.states():
            seen.append(r.text)
            assert r.state.to_text() == r.text
        conn.close()
    assert seen == LINES
    assert received[0] == b"VERSION:2.0.0\r\n"


async def reply_to_one_state(line: bytes, action):
    """Connect to a fake dealer that sends ``line``; answer with ``action``. Returns
    what the dealer received after the version line, what was sent, and the client."""
    received: list[bytes] = []
    server, port = await fake_dealer([line], received)
    sent = []
    async with server:
        conn = await ClientConnection.connect("127.0.0.1", port, HUNL)
        async for r in conn.states():
            assert r.state.is_our_turn
            sent.append(conn.send_action(r, action))
        conn.close()
    return received[1:], sent, conn


@pytest.mark.asyncio
async def test_reply_echoes_the_state_byte_for_byte():
    received, sent, _ = await reply_to_one_state(b"MATCHSTATE:0:0:c:8s2h|\r\n", raise_to(14979))
    assert received == [b"MATCHSTATE:0:0:c:8s2h|:r14979\r\n"]


@pytest.mark.asyncio
async def test_illegal_action_is_corrected_and_logged():
    with capture_logs() as logs:
        received, sent, conn = await reply_to_one_state(b"MATCHSTATE:0:0:c:8s2h|\r\n", FOLD)
    assert sent == [CALL]  # fold when checking is free
    assert received == [b"MATCHSTATE:0:0:c:8s2h|:c\r\n"]
    assert logs[0]["event"] == "action_corrected" and logs[0]["wanted"] == "f" and logs[0]["sent"] == "c"
    assert conn.corrections == 1


def test_legal_action_corrections():
    st = parse_matchstate("MATCHSTATE:1:0:r300:|AsKd", HUNL).state
    assert legal_action(st, raise_to(100)) == raise_to(500)
    assert legal_action(st, raise_to(99999)) == raise_to(20000)
    assert legal_action(st, FOLD) == FOLD
    st = parse_matchstate("MATCHSTATE:0:0:r20000:AsKd|", HUNL).state
    assert legal_action(st, raise_to(20000)) == CALL


@pytest.mark.asyncio
async def test_garbage_from_the_dealer_is_a_protocol_error():
    server, port = await fake_dealer([b"MATCHSTATE:0:0:zz:8s2h|\r\n"], [])
    async with server:
        conn = await ClientConnection.connect("127.0.0.1", port, HUNL)
        with pytest.raises(ProtocolError, match="cannot parse"):
            async for _ in conn.states():
                pass
        conn.close()
