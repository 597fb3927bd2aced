"""pokerbot web without a browser: the page's files and nothing else, the table over the
WebSocket, refused moves that change nothing, reloads, two tabs, a dying bot."""

import asyncio
import contextlib
import json
import math
import os
import signal

import pytest

pytest.importorskip("aiohttp", reason="the web extra is not installed")

from aiohttp.test_utils import TestClient, TestServer

from pokerbot.bot.web.server import ActionRefused, WebServer, verify_move
from pokerbot.protocol.betting import CALL, FOLD, BettingState, apply_betting, raise_to
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import parse_state_line

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(120)


def test_moves_the_rules_refuse_say_why():
    s = BettingState(HUNL, 0)  # the button to act preflop: call 50 or raise to 200..20000
    assert verify_move(s, {"action": "fold"}) == FOLD
    assert verify_move(s, {"action": "call"}) == CALL
    assert verify_move(s, {"action": "raise", "amount": 200}) == raise_to(200)
    assert verify_move(s, {"action": "raise", "amount": 20000.0}) == raise_to(20000)
    for bad, words in [
        ({"action": "raise", "amount": 199}, "between 200 and 20,000"),
        ({"action": "raise", "amount": 20001}, "between 200 and 20,000"),
        ({"action": "raise", "amount": 250.5}, "whole chips"),
        ({"action": "raise", "amount": "300"}, "amount"),
        ({"action": "raise", "amount": True}, "amount"),
        ({"action": "raise", "amount": math.nan}, "amount"),
        ({"action": "raise"}, "amount"),
        ({"action": "check-raise"}, "unknown action"),
        ({}, "unknown action"),
    ]:
        with pytest.raises(ActionRefused, match=words):
            verify_move(s, bad)
    checked = apply_betting(BettingState(HUNL, 0), "c")  # the big blind may check: no fold
    with pytest.raises(ActionRefused, match="nothing to fold"):
        verify_move(checked, {"action": "fold"})
    allin = apply_betting(BettingState(HUNL, 0), "r20000")
    with pytest.raises(ActionRefused, match="no raise"):
        verify_move(allin, {"action": "raise", "amount": 20000})


def test_a_move_out_of_turn_or_before_the_bot_started_is_refused(tmp_path):
    from pokerbot.bot.web.server import Sitting

    sitting = Sitting(HUNL, "holdem.nolimit.2p", "call", 10, 1, str(tmp_path))
    with pytest.raises(ActionRefused, match="still starting"):
        sitting.act(0, {"action": "call"})
    sitting.status = "playing"  # a hand in play, the bot to act: no decision of ours is open
    with pytest.raises(ActionRefused, match="not your turn"):
        sitting.act(0, {"action": "call"})
    sitting.status = "over"
    with pytest.raises(ActionRefused, match="no hand"):
        sitting.act(0, {"action": "call"})


@contextlib.asynccontextmanager
async def served(tmp_path, strategy="call", hands=20, seed=5):
    """A web server for one sitting and a test client of it, closed on leaving."""
    server = WebServer(HUNL, "holdem.nolimit.2p", strategy, hands, seed, str(tmp_path))
    client = TestClient(TestServer(server.app()))
    await client.start_server()
    try:
        yield server, client
    finally:
        await client.close()


async def table(ws, until=lambda t: True, timeout=60.0):
    """The next table message that satisfies ``until`` (errors are returned too)."""
    async with asyncio.timeout(timeout):
        while True:
            msg = json.loads((await ws.receive()).data)
            if msg["type"] == "error" or until(msg):
                return msg


def my_turn(t):
    return t.get("legal") is not None and t["status"] == "playing"


async def first_decision(client):
    """A page's socket, and the first table on it where the person is to act."""
    ws = await client.ws_connect("/ws")
    return ws, await table(ws, my_turn)


@pytest.mark.asyncio
async def test_only_the_page_s_own_files_are_served(tmp_path):
    async with served(tmp_path) as (_, client):
        page = await client.get("/")
        assert page.status == 200 and "<canvas" in await page.text()
        for path in ("/static/app.js", "/static/style.css"):
            assert (await client.get(path)).status == 200
        for path in ("/static/web.py", "/static/../web.py", "/page/index.html", "/etc/passwd", "/static/"):
            assert (await client.get(path)).status == 404, path


@pytest.mark.asyncio
async def test_a_sitting_through_the_socket_refused_moves_change_nothing(tmp_path):
    async with served(tmp_path) as (server, client):
        ws, t = await first_decision(client)
        lo, hi = t["legal"]["raise"]
        for move, words in [
            ({"action": "raise", "amount": hi + 1}, "between"),
            ({"action": "raise", "amount": lo - 1}, "between"),
            ({"action": "bet"}, "unknown action"),
        ]:
            await ws.send_str(json.dumps({"type": "act", "seq": t["seq"], **move}))
            err = await table(ws)
            assert err["type"] == "error" and words in err["message"]
        await ws.send_str("not json")
        assert "JSON" in (await table(ws))["message"]
        await ws.send_str(json.dumps({"type": "act", "seq": t["seq"] - 1, "action": "call"}))
        assert "already made" in (await table(ws))["message"]
        assert server.sitting.table()["seq"] == t["seq"]  # nothing was sent: the same decision is open
        # a double click: the first is taken, the second refused
        await ws.send_str(json.dumps({"type": "act", "seq": t["seq"], "action": "call"}))
        await ws.send_str(json.dumps({"type": "act", "seq": t["seq"], "action": "call"}))
        refused = 0
        # call down every hand against `call` until three hands are over, one with an all-in
        shoved = False
        while len(server.sitting.finished) < 3:
            t = await table(ws, my_turn)
            if t["type"] == "error":
                refused += 1
                continue
            if not shoved and t["legal"]["raise"]:
                move = {"action": "raise", "amount": t["legal"]["raise"][1]}
                shoved = True
            else:
                move = {"action": "call"}
            await ws.send_str(json.dumps({"type": "act", "seq": t["seq"], **move}))
        assert refused >= 1 and shoved
        results = [h.chips for h in server.sitting.finished]
        # the page's results are the dealer's: the log says the same for the person's seat
        with open(server.sitting.log_path) as f:
            logged = [parse_state_line(line.strip(), HUNL) for line in f if line.startswith("STATE:")]
        assert len(logged) >= 3
        for hand, chips in zip(logged, results):
            assert hand.values[hand.names.index("you")] == chips
        assert any(abs(c) == 20000 for c in results)  # the all-in was called and shown down
        shown = [h for h in server.sitting.finished if abs(h.chips) == 20000]
        assert shown[0].bot_cards is not None and len(shown[0].board) == 5
        download = await client.get("/history.log")
        assert download.status == 200 and "STATE:" in await download.text()


@pytest.mark.asyncio
async def test_a_reload_resumes_the_hand_and_a_second_tab_cannot_act_twice(tmp_path):
    async with served(tmp_path) as (server, client):
        ws, t = await first_decision(client)
        await ws.close()  # the page is closed mid-hand: nothing waits on it
        await asyncio.sleep(0.3)
        assert server.sitting.table()["seq"] == t["seq"]
        first, second = await client.ws_connect("/ws"), await client.ws_connect("/ws")
        a, b = await table(first, my_turn), await table(second, my_turn)
        assert a["seq"] == b["seq"] == t["seq"] and a["you"]["cards"] == t["you"]["cards"]
        await first.send_str(json.dumps({"type": "act", "seq": a["seq"], "action": "call"}))
        newer = await table(first, lambda m: m["seq"] > a["seq"])
        assert newer["type"] == "table"
        await second.send_str(json.dumps({"type": "act", "seq": a["seq"], "action": "fold"}))
        err = await table(second, lambda m: False)
        assert err["type"] == "error" and "already made" in err["message"]
        assert not any(h.chips and h.betting.startswith("f") for h in server.sitting.finished)


@pytest.mark.asyncio
async def test_a_dying_bot_ends_the_sitting_with_a_message_and_a_new_one_plays(tmp_path):
    async with served(tmp_path) as (server, client):
        ws, t = await first_decision(client)
        await ws.send_str(json.dumps({"type": "act", "seq": t["seq"], "action": "call"}))
        await table(ws, lambda m: m["seq"] > t["seq"])
        played = len(server.sitting.finished)
        os.kill(server.sitting.bot_pid, signal.SIGKILL)
        failed = await table(ws, lambda m: m["status"] == "failed")
        assert "bot" in failed["message"]
        assert (await client.get("/")).status == 200  # the server lives on
        assert len(server.sitting.finished) == played  # nothing recorded is lost
        await ws.send_str(json.dumps({"type": "new_sitting"}))
        t2 = await table(ws, lambda m: my_turn(m) and m["results"] == [] and m["status"] == "playing")
        assert t2["type"] == "table"
        await ws.send_str(json.dumps({"type": "act", "seq": t2["seq"], "action": "call"}))
        assert (await table(ws, lambda m: m["seq"] > t2["seq"]))["type"] == "table"
