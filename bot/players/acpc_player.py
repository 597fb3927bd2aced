"""``pokerbot play <host> <port>``: an ACPC player program driving a strategy.

Exit status: 0 when the dealer ended the match normally (closed the connection after
the final state of a hand) or when the player was asked to stop (SIGTERM, SIGINT);
1 on a connection or protocol failure, including the dealer closing the connection
before the first hand or in the middle of one.

Stopping: SIGTERM and SIGINT never interrupt a decision. A decision being computed
when the signal comes is finished and its reply sent whole (the dealer never sees a
partial line), then the player closes the connection without waiting for the next
state and exits 0. It does not fold: under the ACPC protocol there is no way to leave
a match, the dealer ends it when a player disconnects, and the hand in progress is
not scored (the reference dealer and ours log finished hands only), whereas a fold
would lose the chips already in the pot. The handlers are installed explicitly, so
this also works as a container's PID 1 (which has no default action for SIGTERM).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time

import structlog

from pokerbot.bot.players.bots import Strategy
from pokerbot.bot.players.strategy_log import StrategyLogWriter
from pokerbot.bot.players.strategy_query import query
from pokerbot.bot.shutdown import stop_signals_in_loop
from pokerbot.protocol.betting import CALL
from pokerbot.protocol.client import ClientConnection, ProtocolError
from pokerbot.protocol.gamedef import GameDef
from pokerbot.protocol.logs import log_enabled

log = structlog.get_logger("player")


class _Stop:
    """The signal that asked us to stop, once one has."""

    def __init__(self, task: asyncio.Task) -> None:
        self.signal: signal.Signals | None = None
        self.task = task

    def request(self, sig: signal.Signals) -> None:
        # Runs as a loop callback, so never inside a decision: the task is waiting
        # for the dealer (or about to resume with a state it has not acted on).
        if self.signal is None:
            self.signal = sig
            self.task.cancel()


async def play(
    host: str,
    port: int,
    game: GameDef,
    strategy: Strategy,
    connect_timeout: float = 30.0,
    strategy_log: StrategyLogWriter | None = None,
) -> int:
    """Play until the dealer closes the connection or a stop signal comes. Returns an
    exit status (see the module doc). With ``strategy_log``, every decision's answer
    for all hands is logged after the reply is sent (``strategy_log``)."""
    task = asyncio.current_task()
    assert task is not None  # play is a coroutine running in a task
    stop = _Stop(task)
    with stop_signals_in_loop(stop.request):
        return await _play(host, port, game, strategy, connect_timeout, stop, strategy_log)


def _stopped(stop: _Stop, **fields) -> int:
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()
    assert stop.signal is not None  # callers check that a stop signal came
    log.warning("stopped", signal=stop.signal.name, **fields)
    return 0


async def _play(
    host: str,
    port: int,
    game: GameDef,
    strategy: Strategy,
    connect_timeout: float,
    stop: _Stop,
    strategy_log: StrategyLogWriter | None,
) -> int:
    try:
        conn = await ClientConnection.connect(host, port, game, connect_timeout)
    except asyncio.CancelledError:
        if stop.signal is None:
            raise
        return _stopped(stop, hands=0, decisions=0, hand_in_progress=False)
    except (OSError, TimeoutError) as e:
        log.error("connect_failed", host=host, port=port, error=str(e))
        print(f"pokerbot play: could not connect to {host}:{port}: {e}", file=sys.stderr, flush=True)
        return 1
    hands = decisions = 0
    in_hand: int | None = None  # the hand whose final state has not come yet
    debug = log_enabled(log, "debug")
    try:
        async for received in conn.states():
            ms = received.state
            if ms.state.finished:
                strategy.hand_over(ms)
                hands += 1
                in_hand = None
                continue
            in_hand = ms.hand_id
            if not ms.is_our_turn:
                continue
            t0 = time.perf_counter()
            try:
                action = strategy.act(ms)
            except Exception:  # a strategy's bug must not take the seat out of the match
                log.exception("strategy_failed", hand=ms.hand_id, betting=ms.state.betting_string())
                action = CALL
            sent = conn.send_action(received, action)
            decisions += 1
            if strategy_log is not None:
                try:  # after the reply: the dealer's clock does not see it
                    strategy_log.write(ms.hand_id, ms.viewer, ms.state, sent, query(strategy, ms.state, ms.viewer))
                except Exception:  # a failed query costs the log one decision, not the seat
                    log.exception("strategy_log_failed", hand=ms.hand_id, betting=ms.state.betting_string())
            if debug:  # the arguments alone cost more than a call decision
                log.debug(
                    "decision",
                    hand=ms.hand_id,
                    position=ms.viewer,
                    betting=ms.state.betting_string(),
                    action=str(sent),
                    ms=round((time.perf_counter() - t0) * 1000, 3),
                )
    except asyncio.CancelledError:
        if stop.signal is None:
            raise
        return _stopped(stop, hands=hands, decisions=decisions, hand_in_progress=in_hand is not None, hand=in_hand)
    except ProtocolError as e:
        log.error("protocol_error", error=str(e), hands=hands)
        print(f"pokerbot play: {e}", file=sys.stderr, flush=True)
        return 1
    finally:
        conn.close()
    if in_hand is not None or hands == 0:
        where = f"in the middle of hand {in_hand}" if in_hand is not None else "before the first hand"
        log.error("dealer_closed", error=f"the dealer closed the connection {where}", hands=hands)
        print(f"pokerbot play: the dealer closed the connection {where}", file=sys.stderr, flush=True)
        return 1
    log.info("match_over", hands=hands, decisions=decisions, corrections=conn.corrections, strategy=strategy.name)
    return 0
