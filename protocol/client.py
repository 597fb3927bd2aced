"""The player's side of an ACPC connection.

Connect, send ``VERSION:2.0.0``, then read the dealer's lines in order: each is framed
by line (``\\r\\n`` or ``\\n``; several per TCP segment or one split over several are
both fine), parsed into a ``MatchState``, and handed to the caller, who replies when it
is their turn. A reply echoes the received state byte for byte, then ``:``, the action
and ``\\r\\n``. An action the rules forbid is never sent: it is corrected (a raise
clamped into the legal range, an impossible raise or a free fold turned into a call)
and the correction is logged. The match ends when the dealer closes the socket.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import structlog

from .betting import CALL, Action, ActionType, BettingState, raise_to
from .gamedef import BettingType, GameDef
from .lines import LineConnection, LineTooLong, open_line_connection
from .matchstate import MatchState, MatchStateError, format_reply, parse_next_matchstate

VERSION_LINE = "VERSION:2.0.0\r\n"

log = structlog.get_logger("client")


class ProtocolError(Exception):
    """The dealer sent something we cannot play from."""


@dataclass
class Received:
    """One state from the dealer: the exact text (to echo) and its parsed form."""

    text: str
    state: MatchState


def legal_action(state: BettingState, action: Action) -> Action:
    """The action itself when legal, else the nearest legal one (see module doc)."""
    if state.can_apply(action):
        return action
    if action.type is ActionType.RAISE:
        bounds = state.raise_bounds()
        if bounds is not None and state.game.betting is BettingType.NOLIMIT:
            return raise_to(min(max(action.size, bounds[0]), bounds[1]))
        if bounds is not None:
            return Action(ActionType.RAISE)
    return CALL


class ClientConnection:
    def __init__(self, conn: LineConnection, game: GameDef) -> None:
        self.conn = conn
        self.game = game
        self.corrections = 0

    @classmethod
    async def connect(cls, host: str, port: int, game: GameDef, timeout: float = 30.0) -> ClientConnection:
        async with asyncio.timeout(timeout):
            conn = await open_line_connection(host, port)
        conn.write(VERSION_LINE.encode())
        return cls(conn, game)

    async def states(self) -> AsyncIterator[Received]:
        """The dealer's states in order until it closes the connection. Comment lines
        (``#`` or ``;``) are skipped; an unparseable line raises ``ProtocolError``."""
        prev: Received | None = None
        while True:
            try:
                data = await self.conn.readline()
            except LineTooLong as e:
                raise ProtocolError(str(e)) from None
            if not data:
                return  # the dealer closed the connection: the match is over
            text = data.decode("ascii", errors="replace").rstrip("\r\n")
            if not text or text[0] in "#;":
                continue
            try:
                # The hand's state object advances in place: a strategy that keeps
                # states across messages must copy them.
                ms = parse_next_matchstate(
                    text,
                    self.game,
                    prev.text if prev is not None else None,
                    prev.state if prev is not None else None,
                    in_place=True,
                )
            except MatchStateError as e:
                raise ProtocolError(f"cannot parse the dealer's state {text!r}: {e}") from None
            prev = Received(text, ms)
            yield prev

    def send_action(self, received: Received, action: Action) -> Action:
        """Reply to ``received`` with ``action`` (corrected if illegal). Returns what
        was sent."""
        state = received.state.state
        if received.state.viewer != state.current_player:
            raise ProtocolError(f"not our turn in {received.text!r}")
        sent = legal_action(state, action)
        if sent != action:
            self.corrections += 1
            log.warning("action_corrected", hand=state.hand_id, state=received.text, wanted=str(action), sent=str(sent))
        try:
            self.conn.write((format_reply(received.text, sent) + "\r\n").encode())
        except ConnectionError:
            raise ProtocolError("the dealer closed the connection") from None
        return sent

    def close(self) -> None:
        self.conn.close()
