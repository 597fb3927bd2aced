"""An ACPC dealer (protocol 2.0.0) in asyncio, behaving like the reference dealer.

    pokerbot dealer <match> <gameFile> <#hands> <seed> <name1> <name2> [-f] [-p p1,p2]
        [-q] [-l|-L] [--t_response ms] [--t_hand ms] [--t_per_hand ms] [--start_timeout ms]

What it does, as the reference does it:
- prints the ports, one per seat, as the first line of standard output;
- reads ``VERSION:2.0.0`` from each seat, then plays the hands: every state goes to
  both players, the acting player's reply is read (``protocol.replies``), the final
  state of each hand goes to both;
- seats swap positions every hand unless ``-f``; cards come from the seed alone, with
  the reference's generator (MT19937, ``genrand_int32() % cards left``), so a seed
  deals the same cards as the reference dealer whatever the players do;
- ``<match>.log``: header comments, one ``STATE:`` line per hand (flushed at once),
  ``SCORE:``; ``<match>.err``: every message in and out with timestamps, warnings,
  errors (``-q`` keeps only warnings, errors and the score);
- a timeout (per reply, per hand, or the match average) or a disconnect ends the match
  with an ``ERROR:`` line and exit status 1, no score; completed hands stay logged.
It binds 127.0.0.1 unless ``--host`` says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np
import structlog

from .betting import BettingState
from .gamedef import GameDef, GameDefError, load_gamedef
from .lines import LineConnection, LineTooLong
from .logs import log_enabled
from .matchstate import HandViews, format_state_line, format_value
from .replies import ReplyKind, read_reply

VERSION = (2, 0, 0)
DEFAULT_T_RESPONSE_MS = 600_000
DEFAULT_T_HAND_MS = 600_000
DEFAULT_T_PER_HAND_MS = 7_000
#: ``pokerbot dealer --spin-us`` and the match runner (players in other processes);
#: see DealerConfig.spin_us.
DEFAULT_SPIN_US = 500

log = structlog.get_logger("dealer")


class ReferenceDeal:
    """Deals cards exactly as the reference dealer: an MT19937 generator seeded with
    ``init_genrand(seed)``; per hand a fresh deck in the reference's order, each card
    drawn as ``deck[genrand_int32() % cards_left]`` with the last card moved into its
    place; hole cards by position, then the board round by round."""

    def __init__(self, game: GameDef, seed: int) -> None:
        self.game = game
        # numpy's legacy generator seeds an integer with init_genrand, like the C code.
        self._rng = np.random.RandomState(seed & 0xFFFFFFFF)
        self._per_hand = game.num_players * game.num_hole_cards + game.total_board_cards(game.num_rounds - 1)

    def next_hand(self) -> tuple[list[list[int]], list[int]]:
        deck = self.game.deck()
        draws = self._rng.randint(0, 2**32, size=self._per_hand, dtype=np.uint32).tolist()
        left = len(deck)
        cards = []
        for d in draws:
            i = d % left
            cards.append(deck[i])
            deck[i] = deck[left - 1]
            left -= 1
        nh = self.game.num_hole_cards
        holes = [cards[p * nh : (p + 1) * nh] for p in range(self.game.num_players)]
        return holes, cards[self.game.num_players * nh :]


@dataclass
class DealerConfig:
    match_name: str
    game_file: str
    num_hands: int
    seed: int
    names: tuple[str, str]
    fixed_seats: bool = False
    ports: tuple[int, int] = (0, 0)
    quiet: bool = False
    write_log: bool = True
    t_response_ms: int = DEFAULT_T_RESPONSE_MS
    t_hand_ms: int = DEFAULT_T_HAND_MS
    t_per_hand_ms: int = DEFAULT_T_PER_HAND_MS
    start_timeout_ms: int | None = None
    host: str = "127.0.0.1"
    #: How long to poll a seat's socket for its reply before sleeping (microseconds;
    #: ours, not the reference's). A fast player's reply then finds the dealer awake:
    #: call vs call on this project's 2-vCPU VM, where a wake-up is dear, went from
    #: about 700-850 to 1,050-1,150 hands/s with ``pokerbot play`` players and from
    #: 1,000-1,200 to 2,150-2,300 with compiled ones; it costs at most this much CPU per
    #: reply. Only for players in other processes (the command line's default,
    #: DEFAULT_SPIN_US): one in this event loop cannot reply while the dealer polls.
    spin_us: int = 0
    #: Seats (0 or 1) with no time limit: a person playing through ``pokerbot web``.
    #: The other seat keeps every limit. Not in the reference dealer.
    untimed_seats: tuple[int, ...] = ()


class MatchError(Exception):
    """Ends the match; the message is the ``ERROR:`` line(s) to print."""


@dataclass
class _Seat:
    index: int
    conn: LineConnection
    used_hand: float = 0.0
    used_match: float = 0.0
    invalid_actions: int = 0
    #: Lines queued by ``Dealer._send``, written by ``Dealer._flush``.
    outbox: list[str] = field(default_factory=list)


@dataclass
class MatchResult:
    completed_hands: int
    totals: list[float]  # by seat
    error: str | None = None
    #: Sums of each hand's squared value, by seat (a running interval needs them).
    squares: list[float] = field(default_factory=lambda: [0.0, 0.0])
    warnings: list[str] = field(default_factory=list)
    #: Seconds from the first state sent to the end of the last hand.
    play_seconds: float = 0.0


class Dealer:
    def __init__(self, config: DealerConfig, game: GameDef, stdout: TextIO | None = None) -> None:
        if game.num_players != 2:
            raise GameDefError(
                f"the dealer runs two-player games, this one has {game.num_players}", None, config.game_file
            )
        self.cfg = config
        self.game = game
        self.stdout = stdout or sys.stdout
        self.ports: list[int] = []
        self._servers: list[asyncio.AbstractServer] = []
        self._pending: list[asyncio.Future] = []
        self._err: TextIO | None = None
        self._log: TextIO | None = None
        self.result = MatchResult(0, [0.0, 0.0])
        self._abort_reason = "aborted"

    # ------------------------------------------------------------------ network
    async def listen(self) -> list[int]:
        """Bind one port per seat (0 lets the OS choose) and return them."""
        loop = asyncio.get_running_loop()
        for seat in range(2):
            first: asyncio.Future = loop.create_future()
            self._pending.append(first)

            def factory(first=first) -> LineConnection:
                conn = LineConnection()
                if first.done():  # a seat takes one connection; later ones are closed
                    conn.connected.add_done_callback(lambda f: f.result().close())
                else:
                    first.set_result(conn)
                return conn

            server = await loop.create_server(factory, self.cfg.host, self.cfg.ports[seat])
            self._servers.append(server)
            self.ports.append(server.sockets[0].getsockname()[1])
        return self.ports

    async def _accept(self) -> list[_Seat]:
        timeout = None if self.cfg.start_timeout_ms is None else self.cfg.start_timeout_ms / 1000
        seats = []
        for i, fut in enumerate(self._pending):
            try:
                async with asyncio.timeout(timeout):
                    conn = await fut
                    await conn.connected
            except TimeoutError:
                raise MatchError(f"ERROR: seat {i + 1} did not connect within {self.cfg.start_timeout_ms} ms") from None
            conn.spin_seconds = self.cfg.spin_us / 1e6
            seats.append(_Seat(i, conn))
        for server in self._servers:
            server.close()
        return seats

    async def _read_line(self, seat: _Seat, timeout: float | None) -> str | None:
        """One line from a seat, or None on end of stream or timeout."""
        try:
            data = await seat.conn.readline(timeout)
        except TimeoutError:
            return None
        except LineTooLong:
            return "\x00 over-long line\n"  # reads as a bad state, as in the reference
        if not data:
            return None
        return data.decode("utf-8", errors="replace")

    async def _check_version(self, seat: _Seat) -> None:
        line = await self._read_line(seat, self.cfg.t_response_ms / 1000)
        if line is None:
            raise MatchError(f"ERROR: could not read version string from seat {seat.index + 1}")
        parts = line.strip().removeprefix("VERSION:").split(".") if line.startswith("VERSION:") else []
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise MatchError(f"ERROR: invalid version string {line.rstrip()}")
        major, minor = int(parts[0]), int(parts[1])
        if major != VERSION[0] or minor > VERSION[1]:
            self._error_line(f"ERROR: this server is currently using version {VERSION[0]}.{VERSION[1]}.{VERSION[2]}")

    def abort_reason(self, reason: str) -> None:
        """Say why the task running ``run`` is about to be cancelled (it then ends the
        match as a failure, keeping the completed hands)."""
        self._abort_reason = reason

    # ------------------------------------------------------------------ output
    def _stamp(self) -> str:
        t = time.time()
        return f"{int(t)}.{int((t - int(t)) * 1e6):06d}"

    def _err_write(self, text: str) -> None:
        if self._err is not None:
            self._err.write(text)

    def _error_line(self, line: str) -> None:
        self._err_write(line + "\n")
        print(line, file=sys.stderr)

    def _warn(self, seat: _Seat, hand: int, line: str) -> None:
        self._err_write(line + "\n")
        self.result.warnings.append(line)
        log.warning("bad_reply", match=self.cfg.match_name, hand=hand, seat=seat.index + 1, warning=line)

    def _send(self, seat: _Seat, text: str) -> None:
        """Queue a state for a seat; ``_flush`` writes it. The dealer flushes before
        every wait for a reply and at the end of the match, so queueing only merges
        lines that go out back to back (a hand's final state and the next hand's
        first) into one write: one system call and one wake-up of the player fewer."""
        data = text + "\r\n"
        seat.outbox.append(data)
        if not self.cfg.quiet:
            self._err_write(f"TO {seat.index + 1} at {self._stamp()} {data}")

    def _flush(self, seat: _Seat) -> None:
        if not seat.outbox:
            return
        data = "".join(seat.outbox)
        seat.outbox.clear()
        try:
            seat.conn.write(data.encode())
        except (ConnectionError, OSError, RuntimeError):
            raise MatchError(f"ERROR: could not send state to seat {seat.index + 1}") from None

    # ------------------------------------------------------------------ play
    async def run(self) -> int:
        """Play the match. Returns the exit status (0: finished, 1: failed)."""
        cfg = self.cfg
        if not self.ports:
            await self.listen()
        print(" ".join(str(p) for p in self.ports), file=self.stdout, flush=True)
        self._err = open(f"{cfg.match_name}.err", "w", encoding="utf-8")
        if cfg.write_log:
            self._log = open(f"{cfg.match_name}.log", "w", encoding="utf-8")
            self._log.write(
                f"# name/game/hands/seed {cfg.match_name} {cfg.game_file} {cfg.num_hands} {cfg.seed}\n"
                f"#--t_response {cfg.t_response_ms}\n#--t_hand {cfg.t_hand_ms}\n#--t_per_hand {cfg.t_per_hand_ms}\n"
            )
            self._log.flush()
        seats: list[_Seat] = []
        log.info(
            "match_start",
            match=cfg.match_name,
            game=cfg.game_file,
            hands=cfg.num_hands,
            seed=cfg.seed,
            names=list(cfg.names),
            ports=self.ports,
        )
        try:
            seats = await self._accept()
            for seat in seats:
                await self._check_version(seat)
            if not cfg.quiet:
                self._err_write(f"STARTED at {self._stamp()}\n")
            await self._play(seats)
        except (asyncio.CancelledError, Exception) as e:
            # Cancelled: someone called abort_reason() and cancelled us, e.g. a match
            # runner whose player died. Any other exception is our bug: the match
            # still ends cleanly, with the hands played kept in the log.
            if isinstance(e, MatchError):
                message = str(e)
            elif isinstance(e, asyncio.CancelledError):
                message = f"ERROR: match aborted: {self._abort_reason}"
            else:
                log.exception("dealer_internal_error", match=cfg.match_name)
                message = f"ERROR: dealer internal error: {e!r}"
            for line in message.splitlines():
                self._error_line(line)
            self.result.error = message
            log.error("match_failed", match=cfg.match_name, hands=self.result.completed_hands, error=message)
        finally:
            for seat in seats:
                seat.conn.close()
            for fut in self._pending:  # players that connected before a failure
                if fut.done() and not fut.cancelled():
                    fut.result().close()
            for server in self._servers:
                server.close()
        if self.result.error is None:
            score = "SCORE:" + "|".join(format_value(v) for v in self.result.totals) + ":" + "|".join(cfg.names)
            if not cfg.quiet:
                self._err_write(f"FINISHED at {self._stamp()}\n")
            print(score, file=self.stdout, flush=True)
            self._err_write(score + "\n")
            if self._log is not None:
                self._log.write(score + "\n")
            log.info(
                "match_end",
                match=cfg.match_name,
                hands=self.result.completed_hands,
                totals=self.result.totals,
                play_seconds=round(self.result.play_seconds, 6),
            )
        for f in (self._log, self._err):
            if f is not None:
                f.close()
        self._log = self._err = None
        return 0 if self.result.error is None else 1

    async def _play(self, seats: list[_Seat]) -> None:
        started = time.monotonic()
        try:
            await self._play_hands(seats)
            for seat in seats:  # the last hand's final states
                self._flush(seat)
        finally:
            self.result.play_seconds = time.monotonic() - started

    async def _play_hands(self, seats: list[_Seat]) -> None:
        cfg = self.cfg
        game = self.game
        deal = ReferenceDeal(game, cfg.seed)
        t_response = cfg.t_response_ms / 1000
        t_hand = cfg.t_hand_ms / 1000
        t_match = cfg.t_per_hand_ms * cfg.num_hands / 1000
        debug = log_enabled(log, "debug")
        for hand in range(cfg.num_hands):
            player0_seat = 0 if cfg.fixed_seats else hand % 2
            seat_of = [(p + player0_seat) % 2 for p in range(2)]  # position -> seat
            holes, board = deal.next_hand()
            state = BettingState(game, hand, holes, board)
            views = HandViews(state)
            for s in seats:
                s.used_hand = 0.0
            while not state.finished:
                acting = state.current_player
                assert acting is not None  # the hand is not finished
                seat = seats[seat_of[acting]]
                other = seats[seat_of[1 - acting]]
                # The player to act hears first: it can start thinking sooner.
                acting_text = views.text(acting)
                self._send(seat, acting_text)
                self._send(other, views.text(1 - acting))
                self._flush(seat)
                sent_at = time.monotonic()
                self._flush(other)
                action = await self._get_action(
                    seat, acting_text, state, acting, sent_at, t_response, t_hand, t_match, hand
                )
                state.apply(action)
                if debug:
                    log.debug(
                        "action",
                        match=cfg.match_name,
                        hand=hand,
                        seat=seat.index + 1,
                        position=acting,
                        action=str(action),
                        ms=round((time.monotonic() - sent_at) * 1000, 3),
                    )
            values = state.payoffs()
            for p in range(2):
                self.result.totals[seat_of[p]] += values[p]
                self.result.squares[seat_of[p]] += values[p] * values[p]
            if self._log is not None:
                names = [cfg.names[seat_of[p]] for p in range(2)]
                self._log.write(format_state_line(state, values, names) + "\n")
                self._log.flush()
            for seat in seats:
                self._send(seat, views.text((seat.index - player0_seat) % 2))
            self.result.completed_hands += 1
            if not cfg.quiet and hand % 100 == 0:  # the reference's progress lines
                for seat in seats:
                    self._err_write(
                        f"Seconds cumulatively spent in match for seat {seat.index}: {int(seat.used_match)}\n"
                    )
            if debug:
                log.debug("hand_end", match=cfg.match_name, hand=hand, betting=state.betting_string(), values=values)
            # A player that stops reading must not grow our buffers without bound.
            for seat in seats:
                if seat.conn.buffered_output() > 1 << 20:
                    raise MatchError(f"ERROR: could not send state to seat {seat.index + 1}")

    async def _get_action(
        self,
        seat: _Seat,
        sent_text: str,
        state: BettingState,
        position: int,
        sent_at: float,
        t_response: float,
        t_hand: float,
        t_match: float,
        hand: int,
    ):
        if seat.index in self.cfg.untimed_seats:
            t_response = t_hand = t_match = float("inf")
        while True:
            elapsed = time.monotonic() - sent_at
            budget = min(t_hand - seat.used_hand, t_match - seat.used_match)
            wait = min(t_response, budget) - elapsed
            if wait == float("inf"):
                line = await self._read_line(seat, None)
            else:
                line = await self._read_line(seat, max(wait, 0.0)) if wait > 0 else None
            now = time.monotonic()
            if line is None:
                if budget < t_response and now - sent_at >= budget:
                    # The hand or match budget ran out first: the reference says so
                    # when the late reply arrives; we need not wait for it.
                    raise MatchError(f"ERROR: seat {seat.index + 1} ran out of time")
                raise MatchError(
                    f"ERROR: could not get action from seat {seat.index + 1}\n"
                    f"{now - sent_at:.1f} seconds spent waiting; timeout {t_response:.1f}"
                )
            if not self.cfg.quiet:
                self._err_write(
                    f"FROM {seat.index + 1} at {self._stamp()} {line if line.endswith(chr(10)) else line + chr(10)}"
                )
            reply = read_reply(line, sent_text, state, position)
            if reply.kind is ReplyKind.COMMENT:
                continue
            took = now - sent_at
            if took > t_response or seat.used_hand + took > t_hand or seat.used_match + took > t_match:
                raise MatchError(f"ERROR: seat {seat.index + 1} ran out of time")
            for w in reply.warnings:
                self._warn(seat, hand, w)
            if reply.kind is not ReplyKind.ACTION:
                continue
            seat.used_hand += took
            seat.used_match += took
            if reply.invalid:
                seat.invalid_actions += 1
            return reply.action


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pokerbot dealer",
        description="ACPC dealer (protocol 2.0.0): plays a two-player match between two connecting players.",
    )
    p.add_argument("match_name", help="match name; writes <match>.log and <match>.err")
    p.add_argument("game_file", help="ACPC game file (or a bundled game name)")
    p.add_argument("num_hands", type=int, help="number of hands")
    p.add_argument("seed", type=int, help="random seed for the cards")
    p.add_argument("name1", help="name of the player in seat 1")
    p.add_argument("name2", help="name of the player in seat 2")
    p.add_argument("-f", dest="fixed_seats", action="store_true", help="fixed seats (no swap every hand)")
    p.add_argument("-p", dest="ports", default=None, help="ports for the seats, e.g. 18791,18792 (default: any free)")
    p.add_argument("-q", dest="quiet", action="store_true", help="quiet: only warnings, errors and the score in .err")
    g = p.add_mutually_exclusive_group()
    g.add_argument("-l", dest="write_log", action="store_false", help="no .log file")
    g.add_argument("-L", dest="write_log", action="store_true", help="write the .log file (default)")
    p.set_defaults(write_log=True)
    p.add_argument(
        "--t_response", type=int, default=DEFAULT_T_RESPONSE_MS, metavar="MS", help="limit per reply (default 600000)"
    )
    p.add_argument(
        "--t_hand", type=int, default=DEFAULT_T_HAND_MS, metavar="MS", help="limit per hand (default 600000)"
    )
    p.add_argument(
        "--t_per_hand",
        type=int,
        default=DEFAULT_T_PER_HAND_MS,
        metavar="MS",
        help="average limit per hand over the match (default 7000)",
    )
    p.add_argument(
        "--start_timeout",
        type=int,
        default=None,
        metavar="MS",
        help="how long to wait for players to connect (default: no limit)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument(
        "--spin-us",
        type=int,
        default=DEFAULT_SPIN_US,
        metavar="US",
        help="poll a seat's socket this long for its reply before sleeping (default "
        f"{DEFAULT_SPIN_US}; 0: never; ours, not the reference dealer's)",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="structured (JSON) log level on stderr (default warning)",
    )
    return p


def config_from_args(args: argparse.Namespace) -> DealerConfig:
    if args.num_hands < 0:
        raise ValueError(f"number of hands must be >= 0, got {args.num_hands}")
    ports = (0, 0)
    if args.ports:
        try:
            parts = [int(x) for x in args.ports.split(",")]
        except ValueError:
            raise ValueError(f"-p wants two port numbers like 18791,18792, got {args.ports!r}") from None
        if len(parts) != 2 or not all(0 <= x < 65536 for x in parts):
            raise ValueError(f"-p wants two port numbers like 18791,18792, got {args.ports!r}")
        ports = (parts[0], parts[1])
    for name in (args.name1, args.name2):
        if not name or any(c in name for c in ":|\r\n"):
            raise ValueError(f"player names may not be empty or contain ':', '|' or line breaks: {name!r}")
    for opt in ("t_response", "t_hand", "t_per_hand"):
        if getattr(args, opt) <= 0:
            raise ValueError(f"--{opt} must be positive")
    if not 0 <= args.spin_us <= 1_000_000:
        raise ValueError(f"--spin-us must be between 0 and 1000000, got {args.spin_us}")
    return DealerConfig(
        match_name=args.match_name,
        game_file=args.game_file,
        num_hands=args.num_hands,
        seed=args.seed,
        names=(args.name1, args.name2),
        fixed_seats=args.fixed_seats,
        ports=ports,
        quiet=args.quiet,
        write_log=args.write_log,
        t_response_ms=args.t_response,
        t_hand_ms=args.t_hand,
        t_per_hand_ms=args.t_per_hand,
        start_timeout_ms=args.start_timeout,
        host=args.host,
        spin_us=args.spin_us,
    )


def run_event_loop(coro):
    """Run a coroutine on uvloop when it is installed, else on asyncio's loop."""
    try:
        import uvloop

        return uvloop.run(coro)
    except ImportError:
        return asyncio.run(coro)


def main(argv: list[str] | None = None) -> int:
    from .logs import configure

    args = build_parser().parse_args(argv)
    configure(args.log_level)
    try:
        cfg = config_from_args(args)
        game = load_gamedef(args.game_file)
    except (ValueError, GameDefError) as e:
        print(f"pokerbot dealer: {e}", file=sys.stderr)
        return 2
    out_dir = os.path.dirname(cfg.match_name)
    if out_dir and not os.path.isdir(out_dir):
        print(f"pokerbot dealer: directory {out_dir!r} does not exist", file=sys.stderr)
        return 2

    async def go() -> int:
        dealer = Dealer(cfg, game)
        try:
            await dealer.listen()
        except OSError as e:
            print(f"ERROR: could not bind ports {cfg.ports}: {e.strerror}", file=sys.stderr)
            return 1
        return await dealer.run()

    return run_event_loop(go())
