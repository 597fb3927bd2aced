"""``pokerbot web``: a person plays one of our strategies from a browser.

A sitting is a match on our dealer, exactly as in ``pokerbot match``: the bot is a
``pokerbot play`` process with the dealer's time limits, and the person's seat is an
ACPC client inside this server, driven by the page. The person's seat alone has no
time limit (``DealerConfig.untimed_seats``). The page talks to the server over one
WebSocket: the server sends the table as the person's seat sees it (the bot's cards
only when the dealer shows them, at a showdown), the page sends actions, which are
checked against the rules before anything is sent to the dealer. Every state carries
a sequence number; an action must name the state it answers, so a double click, a
second tab or a page reloaded from an older state cannot act twice.

aiohttp is an optional extra (``pip install 'pokerbot[web]'``): this module imports it
only when a server is made.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import socket
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TextIO

import structlog

from pokerbot.bot.evaluation.match import PlayerSpec
from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.cards import card_to_str
from pokerbot.protocol.client import ClientConnection, ProtocolError, Received
from pokerbot.protocol.dealer import Dealer, DealerConfig
from pokerbot.protocol.gamedef import GameDef

log = structlog.get_logger("web")

#: The page's files: the only paths the server serves besides its API.
PAGE_FILES = {
    "/": ("index.html", "text/html"),
    "/static/app.js": ("app.js", "text/javascript"),
    "/static/style.css": ("style.css", "text/css"),
}
PERSON_SEAT = 0  # the dealer's seat 1; the bot is seat 2
ROUND_NAMES = ("preflop", "flop", "turn", "river")


class ActionRefused(ValueError):
    """An action from the page that the table does not take (the message says why)."""


@dataclass
class FinishedHand:
    """One hand of the sitting as the person saw it at its end."""

    number: int
    position: str
    cards: list[str]
    bot_cards: list[str] | None
    board: list[str]
    betting: str
    chips: float  # the person's result

    def as_dict(self) -> dict:
        return self.__dict__.copy()


def position_name(game: GameDef, position: int) -> str:
    """What a heads-up player in ``position`` is called: the big blind or the button."""
    return "big blind" if game.blind[position] == game.big_blind else "button"


def describe_action(state_before: BettingState, action: Action) -> str:
    """An action in words, as the one who took it would say it."""
    if action.type is ActionType.FOLD:
        return "fold"
    if action.type is ActionType.CALL:
        owed = state_before.amount_to_call()
        return "check" if owed == 0 else f"call {owed:,}"
    opened = any(a.type is ActionType.RAISE for a in state_before.actions[state_before.round])
    return f"raise to {action.size:,}" if opened or state_before.round == 0 else f"bet to {action.size:,}"


def betting_lines(state: BettingState, person: int) -> list[list[str]]:
    """The hand's actions by round, in words, from the person's seat."""
    replay = BettingState(state.game, state.hand_id)
    out: list[list[str]] = []
    for r in range(state.round + 1):
        words = []
        for a, who in zip(state.actions[r], state.actors[r]):
            words.append(f"{'You' if who == person else 'Bot'}: {describe_action(replay, a)}")
            replay.apply(a)
        out.append(words)
    return out


def legal_moves(state: BettingState) -> dict:
    """What the player to act may do: fold (only facing a bet), check or call, and the
    raise-to range (None when no raise is possible)."""
    bounds = state.raise_bounds()
    return {
        "fold": state.can_fold(),
        "call": state.amount_to_call(),
        "raise": None if bounds is None else [bounds[0], bounds[1]],
        "pot": state.pot,
        "max_spent": state.max_spent,
    }


def verify_move(state: BettingState, move: dict) -> Action:
    """The action a page's move asks for, or ``ActionRefused`` with the reason. A move
    is ``{"action": "fold" | "call" | "raise", "amount": raise-to total}``."""
    kind = move.get("action")
    if kind == "fold":
        if not state.can_fold():
            raise ActionRefused("nothing to fold to: you can check")
        return FOLD
    if kind == "call":
        return CALL
    if kind == "raise":
        amount = move.get("amount")
        if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount):
            raise ActionRefused("a raise needs an amount in chips")
        if amount != int(amount):
            raise ActionRefused("raise amounts are whole chips")
        bounds = state.raise_bounds()
        if bounds is None:
            raise ActionRefused("no raise is possible here")
        if not bounds[0] <= amount <= bounds[1]:
            raise ActionRefused(f"raise to between {bounds[0]:,} and {bounds[1]:,} (all-in)")
        return raise_to(int(amount))
    raise ActionRefused(f"unknown action {kind!r}: fold, call or raise")


@dataclass
class Sitting:
    """One match between the person and a strategy (see the module doc)."""

    game: GameDef
    game_file: str
    strategy: str  # as ``pokerbot match`` takes it, options included
    hands: int
    seed: int
    out_dir: str
    limits: dict = field(default_factory=dict)
    name: str = "sitting"
    #: called with no argument whenever what the page shows changed
    on_change: Any = None

    status: str = "starting"  # starting, playing, over, failed
    message: str = ""
    seq: int = 0
    state: BettingState | None = None
    viewer: int = 0
    finished: list[FinishedHand] = field(default_factory=list)
    bot_seconds: float | None = None
    bot_seconds_all: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._pending: tuple[int, Received, asyncio.Future] | None = None
        self._bot_since: float | None = None
        self._tasks: list[asyncio.Task] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._dealer: Dealer | None = None
        self._client: ClientConnection | None = None
        self._stopping = False
        self._dealer_out: TextIO | None = None
        self.log_path = os.path.join(self.out_dir, f"{self.name}.log")

    @property
    def bot_pid(self) -> int | None:
        """The bot's process id (None before it started)."""
        return None if self._proc is None else self._proc.pid

    # ------------------------------------------------------------------ running
    async def start(self) -> None:
        """Listen, start the bot and the person's seat; the match runs in tasks."""
        os.makedirs(self.out_dir, exist_ok=True)
        bot = PlayerSpec("B", self.strategy)
        cfg = DealerConfig(
            match_name=os.path.join(self.out_dir, self.name),
            game_file=self.game_file,
            num_hands=self.hands,
            seed=self.seed,
            names=("you", bot.name.removeprefix("B-")),
            quiet=True,
            t_response_ms=self.limits.get("t_response", 600_000),
            t_hand_ms=self.limits.get("t_hand", 600_000),
            t_per_hand_ms=self.limits.get("t_per_hand", 7_000),
            start_timeout_ms=self.limits.get("start_timeout", 600_000),
            untimed_seats=(PERSON_SEAT,),
        )
        self._dealer_out = open(os.path.join(self.out_dir, f"{self.name}.dealer.out"), "w")
        self._dealer = Dealer(cfg, self.game, stdout=self._dealer_out)
        ports = await self._dealer.listen()
        err = open(os.path.join(self.out_dir, f"{self.name}.bot.stderr"), "w")
        try:
            command = bot.command(
                "127.0.0.1",
                ports[1 - PERSON_SEAT],
                self.game_file,
                self.seed,
                {"t_response": cfg.t_response_ms, "t_hand": cfg.t_hand_ms, "t_per_hand": cfg.t_per_hand_ms},
            )
            self._proc = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.DEVNULL, stdout=err, stderr=err
            )
        except OSError as e:
            self._fail(f"cannot start the bot {self.strategy!r}: {e}")
            return
        finally:
            err.close()
        self._tasks = [
            asyncio.create_task(self._run_dealer()),
            asyncio.create_task(self._play_seat(ports[PERSON_SEAT])),
            asyncio.create_task(self._watch_bot()),
        ]

    async def stop(self, reason: str = "stopped") -> None:
        """End the sitting now: the dealer stops (the hands played stay in its log),
        the bot is stopped."""
        self._stopping = True
        if self._dealer is not None and self.status in ("starting", "playing"):
            self._dealer.abort_reason(reason)
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        if self._proc is not None and self._proc.returncode is None:
            self._proc.terminate()
            try:
                await asyncio.wait_for(self._proc.wait(), 10)
            except TimeoutError:
                self._proc.kill()
                await self._proc.wait()
        if self._client is not None:
            self._client.close()
        if self.status in ("starting", "playing"):
            self.status, self.message = "over", reason
        if self._dealer_out is not None:
            self._dealer_out.close()
        self._changed()

    async def _run_dealer(self) -> None:
        assert self._dealer is not None
        status = await self._dealer.run()
        if self._pending is not None:
            self._pending[2].cancel()
        if status == 0 and not self._stopping:
            self.status = "over"
            self.message = f"the sitting is over: {self.hands:,} hands played"
        else:
            error = (self._dealer.result.error or "the match failed").replace("ERROR: ", "")
            self._fail(error)
        self._changed()

    async def _watch_bot(self) -> None:
        assert self._proc is not None
        code = await self._proc.wait()
        await asyncio.sleep(0.5)  # unless the dealer is just finishing
        if self.status in ("starting", "playing") and self._dealer is not None:
            self._dealer.abort_reason(f"the bot exited with status {code}")
            for t in self._tasks[:1]:
                t.cancel()
            self._fail(f"the bot exited with status {code} (see {self.name}.bot.stderr)")

    async def _play_seat(self, port: int) -> None:
        try:
            self._client = await ClientConnection.connect("127.0.0.1", port, self.game)
            async for received in self._client.states():
                self._receive(received)
                if received.state.is_our_turn:
                    fut = asyncio.get_running_loop().create_future()
                    self._pending = (self.seq, received, fut)
                    self._changed()
                    action = await fut
                    self._pending = None
                    self._client.send_action(received, action)
                    self._bot_since = time.monotonic()
                else:
                    self._changed()
        except ProtocolError as e:
            self._fail(f"the dealer's states could not be played: {e}")
        except (ConnectionError, TimeoutError) as e:
            self._fail(f"cannot reach the dealer: {e}")

    def _receive(self, received: Received) -> None:
        ms = received.state
        now = time.monotonic()
        if self._bot_since is not None and self.state is not None and self._bot_acted(ms.state):
            self.bot_seconds = now - self._bot_since
            self.bot_seconds_all.append(self.bot_seconds)
        self.status = "playing"
        self.message = ""
        self.seq += 1
        self.state = ms.state.copy()  # the client advances its state in place
        self.viewer = ms.viewer
        st = self.state
        self._bot_since = now if (not st.finished and st.current_player != ms.viewer) else None
        if st.finished:
            seen = st.hole_cards[1 - ms.viewer]
            self.finished.append(
                FinishedHand(
                    number=st.hand_id + 1,
                    position=position_name(self.game, ms.viewer),
                    cards=[card_to_str(c) for c in st.hole_cards[ms.viewer]],
                    bot_cards=[card_to_str(c) for c in seen] if seen else None,
                    board=[card_to_str(c) for c in st.board_cards],
                    betting=st.betting_string(),
                    chips=float(st.payoffs()[ms.viewer]),
                )
            )

    def _bot_acted(self, new: BettingState) -> bool:
        """Whether ``new`` follows a decision of the bot's in the state we had."""
        old = self.state
        assert old is not None
        if new.hand_id != old.hand_id:
            return not old.finished and old.current_player is not None and old.current_player != self.viewer
        return sum(len(a) for a in new.actions) > sum(len(a) for a in old.actions)

    def _fail(self, message: str) -> None:
        if self.status not in ("over", "failed") and not self._stopping:
            self.status, self.message = "failed", message
            log.error("sitting_failed", sitting=self.name, error=message)
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # ------------------------------------------------------------------ the page
    def act(self, seq: Any, move: dict) -> None:
        """Take the person's move at the state numbered ``seq``; ``ActionRefused``
        (nothing sent, nothing changed) when it is not theirs to make or not legal."""
        if self.status != "playing":
            raise ActionRefused("no hand is in play" if self.status != "starting" else "the bot is still starting")
        if self._pending is None:
            raise ActionRefused("it is not your turn")
        pending_seq, received, fut = self._pending
        if seq != pending_seq:
            raise ActionRefused("that decision was already made (a second click, or another tab)")
        action = verify_move(received.state.state, move)
        if fut.done():
            raise ActionRefused("that decision was already made (a second click, or another tab)")
        fut.set_result(action)

    def table(self) -> dict:
        """What the page shows, as the person's seat sees it."""
        out: dict[str, Any] = {
            "type": "table",
            "seq": self.seq,
            "status": self.status,
            "message": self.message,
            "hands": self.hands,
            "strategy": self.strategy,
            "big_blind": self.game.big_blind,
            "results": [h.chips for h in self.finished],
            "history": [h.as_dict() for h in self.finished[-100:]],
            "bot_seconds": self.bot_seconds,
            "bot_seconds_mean": (sum(self.bot_seconds_all) / len(self.bot_seconds_all))
            if self.bot_seconds_all
            else None,
        }
        st = self.state
        if st is None:
            return out
        me, bot = self.viewer, 1 - self.viewer
        seen = st.hole_cards[bot]
        out.update(
            hand=st.hand_id + 1,
            round=ROUND_NAMES[st.round] if st.round < len(ROUND_NAMES) else str(st.round),
            finished=st.finished,
            board=[card_to_str(c) for c in st.visible_board()],
            pot=st.pot,
            betting=betting_lines(st, me),
            you={
                "position": position_name(self.game, me),
                "cards": [card_to_str(c) for c in st.hole_cards[me]],
                "spent": st.spent[me],
                "stack": self.game.stack[me] - st.spent[me],
                "folded": st.folded[me],
            },
            bot={
                "position": position_name(self.game, bot),
                "cards": [card_to_str(c) for c in seen] if seen else None,
                "spent": st.spent[bot],
                "stack": self.game.stack[bot] - st.spent[bot],
                "folded": st.folded[bot],
            },
            to_act=None if st.finished else ("you" if st.current_player == me else "bot"),
            legal=legal_moves(st) if (self._pending is not None and not st.finished) else None,
            last=self.finished[-1].as_dict() if st.finished and self.finished else None,
        )
        return out


class WebServer:
    """The aiohttp application: the page's files, ``/ws`` for the table, ``/history.log``
    for the sitting's hands in the ACPC log format, one sitting at a time."""

    def __init__(
        self,
        game: GameDef,
        game_file: str,
        strategy: str,
        hands: int,
        seed: int,
        out_dir: str,
        limits: dict | None = None,
    ) -> None:
        self.game = game
        self.game_file = game_file
        self.strategy = strategy
        self.hands = hands
        self.seed = seed
        self.out_dir = out_dir
        self.limits = dict(limits or {})
        self.sitting: Sitting | None = None
        self.sittings = 0
        self.sockets: set = set()
        self._lock = asyncio.Lock()

    def app(self):
        from aiohttp import web

        app = web.Application()
        for path in PAGE_FILES:
            app.router.add_get(path, self._page_file)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/history.log", self._history)
        app.on_startup.append(self._on_startup)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _on_startup(self, app) -> None:
        await self.new_sitting()

    async def _on_shutdown(self, app) -> None:
        for ws in list(self.sockets):
            await ws.close()
        if self.sitting is not None:
            await self.sitting.stop("the server stopped")

    async def new_sitting(self) -> None:
        async with self._lock:
            if self.sitting is not None:
                await self.sitting.stop("a new sitting was started")
            self.sittings += 1
            name = time.strftime("sitting-%Y%m%d-%H%M%S") + f"-{self.sittings}"
            self.sitting = Sitting(
                self.game,
                self.game_file,
                self.strategy,
                self.hands,
                self.seed + self.sittings - 1,
                self.out_dir,
                self.limits,
                name,
                on_change=self._broadcast_soon,
            )
            await self.sitting.start()
            log.info("sitting_started", sitting=name, strategy=self.strategy, seed=self.sitting.seed)
        self._broadcast_soon()

    # ------------------------------------------------------------------ handlers
    async def _page_file(self, request):
        from aiohttp import web

        name, content_type = PAGE_FILES[request.path]
        body = resources.files("pokerbot.bot.web").joinpath("page", name).read_bytes()
        return web.Response(body=body, content_type=content_type, headers={"Cache-Control": "no-store"})

    async def _history(self, request):
        from aiohttp import web

        sitting = self.sitting
        if sitting is None or not os.path.exists(sitting.log_path):
            raise web.HTTPNotFound(text="no hands played yet")
        with open(sitting.log_path, "rb") as f:
            body = f.read()
        return web.Response(
            body=body,
            content_type="text/plain",
            headers={"Content-Disposition": f'attachment; filename="{sitting.name}.log"'},
        )

    async def _socket(self, request):
        from aiohttp import WSMsgType, web

        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        self.sockets.add(ws)
        try:
            await self._send(ws, self._table())
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                reply = await self._handle(msg.data)
                if reply is not None:
                    await self._send(ws, reply)
        finally:
            self.sockets.discard(ws)
        return ws

    async def _handle(self, text: str) -> dict | None:
        """One message from a page: the error to send back, or None."""
        try:
            message = json.loads(text)
        except ValueError:
            return {"type": "error", "message": "not a JSON message"}
        if not isinstance(message, dict):
            return {"type": "error", "message": "not a JSON object"}
        kind = message.get("type")
        if kind == "act":
            if self.sitting is None:
                return {"type": "error", "message": "no sitting yet"}
            try:
                self.sitting.act(message.get("seq"), message)
            except ActionRefused as e:
                return {"type": "error", "message": str(e)}
            return None
        if kind == "new_sitting":
            await self.new_sitting()
            return None
        return {"type": "error", "message": f"unknown message type {kind!r}"}

    def _table(self) -> dict:
        if self.sitting is None:
            return {"type": "table", "status": "starting", "seq": 0, "message": ""}
        return self.sitting.table()

    def _broadcast_soon(self) -> None:
        with contextlib.suppress(RuntimeError):  # no running loop: nobody to tell
            asyncio.get_running_loop().create_task(self._broadcast())

    async def _broadcast(self) -> None:
        table = self._table()
        for ws in list(self.sockets):
            await self._send(ws, table)

    @staticmethod
    async def _send(ws, message: dict) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await ws.send_str(json.dumps(message))


def serve(server: WebServer, host: str, port: int) -> None:
    """Run the server until interrupted, on uvloop where it exists."""
    from aiohttp import web

    loop: asyncio.AbstractEventLoop
    try:
        import uvloop

        loop = uvloop.new_event_loop()
    except ImportError:  # pragma: no cover - uvloop is a dependency except on Windows
        loop = asyncio.new_event_loop()
    # bind first: a port in use is reported before a bot is started
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.create_server((host, port), family=family)
    print(f"pokerbot web: playing {server.strategy!r} at http://{host}:{port}/ (Ctrl-C stops)", file=sys.stderr)
    web.run_app(server.app(), sock=sock, print=None, loop=loop)
