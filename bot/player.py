"""``pokerbot play <host> <port>``: an ACPC player program driving a strategy."""

from __future__ import annotations

import sys
import time

import structlog

from protocol.client import ClientConnection, ProtocolError
from protocol.gamedef import GameDef
from protocol.logs import log_enabled

from .strategies import Strategy

log = structlog.get_logger("player")


async def play(host: str, port: int, game: GameDef, strategy: Strategy, connect_timeout: float = 30.0) -> int:
    """Play until the dealer closes the connection. Returns an exit status: 0 when
    the match ended normally, 1 on a connection or protocol failure."""
    try:
        conn = await ClientConnection.connect(host, port, game, connect_timeout)
    except (OSError, TimeoutError) as e:
        log.error("connect_failed", host=host, port=port, error=str(e))
        print(f"pokerbot play: could not connect to {host}:{port}: {e}", file=sys.stderr, flush=True)
        return 1
    hands = decisions = 0
    debug = log_enabled(log, "debug")
    try:
        async for received in conn.states():
            ms = received.state
            if ms.state.finished:
                strategy.hand_over(ms)
                hands += 1
                continue
            if not ms.is_our_turn:
                continue
            t0 = time.perf_counter()
            action = strategy.act(ms)
            sent = conn.send_action(received, action)
            decisions += 1
            if debug:  # the arguments alone cost more than a call decision
                log.debug("decision", hand=ms.hand_id, position=ms.viewer, betting=ms.state.betting_string(),
                          action=str(sent), ms=round((time.perf_counter() - t0) * 1000, 3))
    except ProtocolError as e:
        log.error("protocol_error", error=str(e), hands=hands)
        print(f"pokerbot play: {e}", file=sys.stderr, flush=True)
        return 1
    finally:
        conn.close()
    log.info("match_over", hands=hands, decisions=decisions, corrections=conn.corrections, strategy=strategy.name)
    return 0
