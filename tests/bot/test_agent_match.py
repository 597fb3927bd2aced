"""A whole match of the agent on our dealer, with its solver worker killed in the middle
of a solve: the match goes on, the dealer sees no bad reply and no timeout, every hand
is in the log, and the player's log tells what happened."""

import asyncio
import json
import os
import signal
import sys

import pytest

from pokerbot.bot.evaluation import match
from pokerbot.protocol.gamedef import bundled_game

pytestmark = pytest.mark.timeout(600)
HANDS = 30


async def kill_worker_mid_solve(stderr_path: str, timeout: float = 300.0) -> int:
    """Wait for the player to log the start of a solve, then SIGKILL that worker."""
    seen = 0
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if os.path.exists(stderr_path):
            with open(stderr_path) as f:
                lines = f.read().splitlines()
            for line in lines[seen:]:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("event") == "solve_started":
                    os.kill(e["pid"], signal.SIGKILL)
                    return e["pid"]
            seen = len(lines)
        await asyncio.sleep(0.01)
    raise AssertionError("no solve started")


def test_match_survives_a_worker_killed_mid_solve(small_blueprint, tmp_path):
    game = bundled_game("holdem.nolimit.2p")
    agent = (
        f"{sys.executable} -m pokerbot.bot.cli play --strategy libratus --blueprint {small_blueprint} --seed 3 "
        "--workers 1 --solve-seconds 1 --log-level debug"
    )
    out = str(tmp_path)

    async def both():
        # player A's stderr: match1.A-<basename of the command>.stderr
        name = match.PlayerSpec("A", agent).name
        killer = asyncio.create_task(kill_worker_mid_solve(os.path.join(out, f"match1.{name}.stderr")))
        summary = await match.run(game, "holdem.nolimit.2p", HANDS, 11, (agent, "call"), False, out)
        return summary, await killer, name

    summary, killed, name = asyncio.run(both())
    m = summary["matches"][0]
    assert summary["ok"] and m["status"] == 0 and m["hands_played"] == HANDS
    with open(os.path.join(out, "match1.err")) as f:
        err = [line for line in f.read().splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("SCORE:")  # quiet: anything else would be a warning or error
    with open(os.path.join(out, "match1.log")) as f:
        assert sum(line.startswith("STATE:") for line in f) == HANDS
    with open(os.path.join(out, f"match1.{name}.stderr")) as f:
        events = [json.loads(line) for line in f if line.startswith("{")]
    lost = [e for e in events if e["event"] == "solve_lost"]
    replaced = [e for e in events if e["event"] == "solver_worker_replaced"]
    assert lost and replaced and replaced[0]["old_pid"] == killed and replaced[0]["reason"] == "died"
    decisions = [e for e in events if e["event"] == "decision" and "source" in e]  # the agent's lines
    assert any(e["source"].endswith("fallback") for e in decisions)
    # after the replacement the agent solves again
    after = decisions[[e["source"].endswith("fallback") for e in decisions].index(True) + 1 :]
    assert any(e["source"] in ("unsafe", "safe", "nested") for e in after)
    assert any(e["event"] == "match_over" and e["hands"] == HANDS for e in events)
