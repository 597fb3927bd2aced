"""One ``pokerbot play`` process playing seats of two matches at once, sharing one warm
solver worker: both matches finish cleanly."""

import asyncio
import json
import os
import sys

import pytest

from pokerbot.protocol.dealer import Dealer, DealerConfig
from pokerbot.protocol.gamedef import bundled_game

pytestmark = pytest.mark.timeout(600)
HANDS = 12


def test_two_matches_share_one_agent_process(small_blueprint, tmp_path):
    game = bundled_game("holdem.nolimit.2p")

    async def run():
        dealers, ports = [], []
        for k in range(2):
            cfg = DealerConfig(
                match_name=str(tmp_path / f"m{k}"),
                game_file="holdem.nolimit.2p",
                num_hands=HANDS,
                seed=20 + k,
                names=("agent", "call"),
                quiet=True,
                host="127.0.0.1",
            )
            d = Dealer(cfg, game, stdout=open(os.devnull, "w"))
            ports.append(await d.listen())
            dealers.append(d)
        err = open(tmp_path / "agent.stderr", "w")
        agent = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "pokerbot.bot.cli",
            "play",
            "127.0.0.1",
            str(ports[0][0]),
            str(ports[1][0]),
            "--strategy",
            "libratus",
            "--blueprint",
            small_blueprint,
            "--seed",
            "1",
            "--workers",
            "1",
            "--solve-seconds",
            "0.5",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=err,
            stderr=err,
        )
        callers = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "pokerbot.bot.cli",
                "play",
                "127.0.0.1",
                str(p[1]),
                "--strategy",
                "call",
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            for p in ports
        ]
        statuses = await asyncio.gather(*(d.run() for d in dealers))
        codes = [await p.wait() for p in (agent, *callers)]
        return statuses, codes

    statuses, codes = asyncio.run(run())
    assert statuses == [0, 0] and codes == [0, 0, 0]
    for k in range(2):
        with open(tmp_path / f"m{k}.err") as f:
            err = [line for line in f.read().splitlines() if line.strip()]
        assert len(err) == 1 and err[0].startswith("SCORE:")
        with open(tmp_path / f"m{k}.log") as f:
            assert sum(line.startswith("STATE:") for line in f) == HANDS
    with open(tmp_path / "agent.stderr") as f:
        events = [json.loads(line) for line in f if line.startswith("{")]
    ready = [e for e in events if e["event"] == "solver_pool_ready"]
    assert len(ready) == 1 and len(ready[0]["pids"]) == 1  # one pool for both seats
    assert sum(e["event"] == "match_over" for e in events) == 2
