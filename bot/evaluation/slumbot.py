"""``pokerbot slumbot``: our strategies against Slumbot, through its public HTTP API.

The API, as its published sample client describes it (docs/slumbot.md has the details
and where sources disagree): ``POST /api/new_hand`` (body: an optional ``token``) and
``POST /api/act`` (``token``, ``incr``) answer with the hand so far: ``action`` (the
whole betting string), ``client_pos`` (0: the big blind, who acts first after the
flop; 1: the small blind, first before it), ``hole_cards``, ``board`` and ``token``;
when the hand is over also ``winnings`` (ours, chips) and usually ``bot_hole_cards``
and ``baseline_winnings``. ``POST /api/login`` (``username``, ``password``) gives a
token whose results count on the leaderboard. Problems come back as ``error_msg``.

The betting string: ``k`` check, ``c`` call, ``f`` fold, ``bN`` a bet or raise to N
chips put in on this street (before the flop the blinds count: ``b300`` is a raise to
300), ``/`` between streets; after an all-in is called the streets left may follow as
bare slashes (``b20000c///``) or not at all. Blinds 50 and 100, stacks of 20,000 reset
every hand: the game of ``holdem.nolimit.2p``, whose position 0 is the big blind too.

``apply_actions`` reads a betting string into our ``BettingState`` (checking every
action against our rules) and ``incr_for`` writes one of our actions as an ``incr``.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from pokerbot.bot.shutdown import StopRequest, stop_on_signals
from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.cards import card_to_str, parse_card
from pokerbot.protocol.gamedef import GameDef

#: Where the public server is, and the variable the password is read from.
SLUMBOT_URL = "https://slumbot.com"
PASSWORD_ENV = "SLUMBOT_PASSWORD"


class ActionStringError(ValueError):
    """A betting string that is malformed or breaks the rules."""


class SlumbotError(RuntimeError):
    """The server refused a request (its ``error_msg``, or an HTTP error that retrying
    does not cure), or the network failed past every retry."""


# ---------------------------------------------------------------------- translation


def street_start(state: BettingState) -> int:
    """What each player had put in when the current street began (0 before the flop:
    there the blinds count as bets of the street)."""
    if state.round == 0:
        return 0
    start = BettingState(state.game)
    for r in range(state.round):
        for a in state.actions[r]:
            start.apply(a)
    return max(start.spent)


def incr_for(state: BettingState, action: Action) -> str:
    """One of our actions at ``state`` as Slumbot's ``incr``: a fold where checking is
    free is a check, a call of nothing a check, a raise its street total."""
    if action.type is ActionType.RAISE:
        return f"b{action.size - street_start(state)}"
    if action.type is ActionType.FOLD and state.can_fold():
        return "f"
    return "c" if state.amount_to_call() > 0 else "k"


def action_for(state: BettingState, incr: str) -> Action:
    """Slumbot's ``incr`` at ``state`` as one of our actions; ``ActionStringError`` if it
    is malformed or illegal there (a check facing a bet, a call of nothing, a bet out of
    bounds)."""
    owed = state.amount_to_call() > 0
    if incr == "k":
        if owed:
            raise ActionStringError("a check facing a bet")
        action = CALL
    elif incr == "c":
        if not owed:
            raise ActionStringError("a call with nothing to call (check with k)")
        action = CALL
    elif incr == "f":
        if not owed:
            raise ActionStringError("a fold with nothing to call")
        action = FOLD
    elif len(incr) > 1 and incr[0] == "b" and incr[1:].isdigit():
        action = raise_to(street_start(state) + int(incr[1:]))
    else:
        raise ActionStringError(f"not an action: {incr!r}")
    if not state.can_apply(action):
        raise ActionStringError(f"{incr!r} is illegal after {state.betting_string()!r}")
    return action


def split_actions(text: str) -> list[str]:
    """A betting string's tokens: ``k``, ``c``, ``f``, ``bN`` and ``/``."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in "kcf/":
            out.append(ch)
            i += 1
        elif ch == "b":
            j = i + 1
            while j < len(text) and text[j].isdigit():
                j += 1
            if j == i + 1:
                raise ActionStringError(f"a bet without a size at {i} in {text!r}")
            out.append(text[i:j])
            i = j
        else:
            raise ActionStringError(f"unexpected {ch!r} at {i} in {text!r}")
    return out


def apply_actions(state: BettingState, text: str) -> BettingState:
    """``state`` (a hand's first state, cards as known) after the betting string
    ``text``, every action checked against our rules and every ``/`` against the end of
    a street; returns a new state."""
    state = state.copy()
    ended = 0  # streets ended that no '/' has marked yet
    for token in split_actions(text):
        if token == "/":
            if ended:
                ended -= 1
            elif not (state.finished and not any(state.folded)):
                raise ActionStringError(f"a '/' in the middle of a street in {text!r}")
            continue
        if state.finished:
            raise ActionStringError(f"{token!r} after the hand is over in {text!r}")
        if ended:
            raise ActionStringError(f"a street ended without '/' in {text!r}")
        before = state.round
        state.apply(action_for(state, token))
        ended = state.round - before if not state.finished else 0
    return state


def action_string(state: BettingState) -> str:
    """Slumbot's betting string of ``state`` (the inverse of ``apply_actions``)."""
    replay = BettingState(state.game)
    out = []
    for r in range(state.game.num_rounds):
        if r > 0 and r <= state.round and not replay.finished:
            out.append("/")
        for a in state.actions[r]:
            out.append(incr_for(replay, a))
            replay.apply(a)
    return "".join(out)


def parse_card_list(cards: list[str] | None) -> list[int]:
    return [parse_card(c) for c in cards or []]


def card_list(cards: list[int]) -> list[str]:
    return [card_to_str(c) for c in cards]


# ---------------------------------------------------------------------- the client


@dataclass
class Retry:
    """How requests are retried: up to ``attempts`` times, waiting ``base`` seconds and
    doubling up to ``cap`` (with jitter); network errors, timeouts, HTTP 429 and 5xx
    are retried, other HTTP errors and ``error_msg`` answers are not."""

    attempts: int = 8
    base: float = 1.0
    cap: float = 60.0


class Client:
    """Slumbot's API over HTTP(S): one request at a time, at most ``rate`` a second."""

    def __init__(
        self,
        base_url: str = SLUMBOT_URL,
        timeout: float = 30.0,
        rate: float = 5.0,
        retry: Retry | None = None,
        log: Callable[[str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.retry = retry or Retry()
        self.log = log or (lambda _m: None)
        self.sleep = sleep
        self.token: str | None = None
        self._last = 0.0
        self.requests = 0

    def post(self, path: str, body: dict) -> dict:
        """One request, retried as ``retry`` says; the answer's JSON. A new ``token`` in
        the answer replaces ours."""
        url = f"{self.base_url}/api/{path}"
        data = json.dumps(body).encode()
        for attempt in range(1, self.retry.attempts + 1):
            wait = self._last + self.interval - time.monotonic()
            if wait > 0:
                self.sleep(wait)
            self._last = time.monotonic()
            self.requests += 1
            request = urllib.request.Request(url, data, {"Content-Type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    answer = json.loads(response.read().decode() or "{}")
                break
            except urllib.error.HTTPError as e:
                text = e.read().decode(errors="replace")[:300]
                if e.code != 429 and e.code < 500:
                    message = _error_message(text) or f"HTTP {e.code}"
                    raise SlumbotError(f"{path}: {message}") from e
                problem = f"HTTP {e.code}"
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                problem = f"{type(e).__name__}: {getattr(e, 'reason', e)}"
            except ValueError as e:
                problem = f"an answer that is not JSON ({e})"
            if attempt == self.retry.attempts:
                raise SlumbotError(f"{path}: {problem}, {attempt} attempts; stopping")
            delay = min(self.retry.cap, self.retry.base * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            self.log(f"{path}: {problem}; retrying in {delay:.1f} s ({attempt}/{self.retry.attempts})")
            self.sleep(delay)
        if not isinstance(answer, dict):
            raise SlumbotError(f"{path}: the answer is not a JSON object")
        if answer.get("error_msg"):
            raise SlumbotError(f"{path}: {answer['error_msg']}")
        if answer.get("token"):
            self.token = answer["token"]
        return answer

    def login(self, username: str, password: str) -> None:
        self.post("login", {"username": username, "password": password})
        if not self.token:
            raise SlumbotError("login: no token in the answer")

    def new_hand(self) -> dict:
        return self.post("new_hand", {"token": self.token} if self.token else {})

    def act(self, incr: str) -> dict:
        return self.post("act", {"token": self.token, "incr": incr})


def _error_message(text: str) -> str | None:
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    return answer.get("error_msg") if isinstance(answer, dict) else None


# ---------------------------------------------------------------------- a hand


@dataclass
class HandRecord:
    """A finished hand from our side: what Slumbot sent and what we make of it."""

    number: int  # ours: 0, 1, 2, ... in the order played
    client_pos: int
    action: str
    hole_cards: list[str]
    bot_hole_cards: list[str] | None
    board: list[str]
    winnings: float
    baseline_winnings: float | None
    seconds: float

    def to_json(self) -> dict:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, row: dict) -> HandRecord:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


def hand_state(game: GameDef, number: int, answer: dict) -> tuple[BettingState, int]:
    """Our state of the hand in ``answer`` (cards as known, betting applied) and our
    position."""
    seat = int(answer["client_pos"])
    if seat not in (0, 1):
        raise SlumbotError(f"client_pos {seat!r} is not 0 or 1")
    holes: list[list[int]] = [[], []]
    holes[seat] = parse_card_list(answer.get("hole_cards"))
    theirs = answer.get("bot_hole_cards")
    if theirs:
        holes[1 - seat] = parse_card_list(theirs)
    start = BettingState(game, number, holes)
    state = apply_actions(start, answer.get("action") or "")
    board = parse_card_list(answer.get("board"))
    if len(board) < len(state.board_cards) or board[: len(state.board_cards)] != state.board_cards:
        raise SlumbotError(f"a board that changed: {answer.get('board')}")
    if len(board) > len(state.board_cards):
        state.deal_board_cards(board[len(state.board_cards) :])
    return state, seat


def payoff_check(state: BettingState, seat: int, winnings: float) -> None:
    """Slumbot's ``winnings`` against our rules' payoff, where the cards allow checking."""
    if not state.finished or (not any(state.folded) and not all(state.hole_cards)):
        return
    last = state.game.total_board_cards(state.game.num_rounds - 1)
    if not any(state.folded) and len(state.board_cards) < last:
        return
    ours = state.payoffs()[seat]
    if not math.isclose(ours, winnings):
        raise SlumbotError(f"Slumbot says we won {winnings}, our rules {ours} ({state.betting_string()})")


def pending_path(out_dir: str) -> str:
    return os.path.join(out_dir, "pending.json")


class SlumbotRun:
    """A resumable run against Slumbot in ``out_dir``: ``hands.jsonl`` (a finished hand
    a line, appended as it ends), ``slumbot.log`` (the same hands as an ACPC dealer log,
    where Slumbot showed its cards), ``strategy.jsonl`` (our strategy at each decision,
    for AIVAT), ``pending.json`` (the hand in progress, so that a stopped run can finish
    it) and ``abandoned.jsonl`` (hands a hard kill cut off after an action was sent but
    before its answer came: whether Slumbot took that action is unknown, so the hand is
    left, not guessed; SIGINT and SIGTERM wait for the answer, so only SIGKILL or a crash
    can leave one)."""

    NAMES = ("pokerbot", "slumbot")

    def __init__(self, out_dir: str, game: GameDef) -> None:
        self.out_dir = out_dir
        self.game = game
        os.makedirs(out_dir, exist_ok=True)
        self.hands_path = os.path.join(out_dir, "hands.jsonl")
        self.log_path = os.path.join(out_dir, "slumbot.log")
        self.strategy_log_path = os.path.join(out_dir, "strategy.jsonl")
        self.abandoned_path = os.path.join(out_dir, "abandoned.jsonl")
        self.records = self._read(self.hands_path, HandRecord.from_json)
        self.abandoned = self._read(self.abandoned_path, lambda row: int(row["number"]))

    @staticmethod
    def _read(path: str, parse: Callable) -> list:
        out = []
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    try:
                        out.append(parse(json.loads(line)))
                    except (ValueError, KeyError, TypeError):
                        continue  # a line cut by a stop
        return out

    def next_number(self) -> int:
        numbers = [r.number for r in self.records] + self.abandoned
        return max(numbers) + 1 if numbers else 0

    def pending(self) -> dict | None:
        try:
            with open(pending_path(self.out_dir)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def set_pending(self, pending: dict | None) -> None:
        path = pending_path(self.out_dir)
        if pending is None:
            if os.path.exists(path):
                os.remove(path)
            return
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(pending, f)
        os.replace(tmp, path)

    def abandon(self, number: int, why: str) -> None:
        with open(self.abandoned_path, "a") as f:
            f.write(json.dumps({"number": number, "why": why}) + "\n")
        self.abandoned.append(number)
        self.set_pending(None)

    def record(self, record: HandRecord, final: BettingState, seat: int) -> None:
        """Append a finished hand (and its log line, when both hands are known)."""
        with open(self.hands_path, "a") as f:
            f.write(json.dumps(record.to_json()) + "\n")
        if all(final.hole_cards):
            from pokerbot.protocol.matchstate import format_state_line

            values = [0.0, 0.0]
            values[seat], values[1 - seat] = record.winnings, -record.winnings
            names = [self.NAMES[0] if p == seat else self.NAMES[1] for p in (0, 1)]
            with open(self.log_path, "a") as f:
                f.write(format_state_line(final, values, names) + "\n")
        self.records.append(record)
        self.set_pending(None)


class Stopped(Exception):
    """The run was asked to stop (a ``StopRequest``) and stopped between two requests."""


def play_hands(
    strategy,
    client: Client,
    run: SlumbotRun,
    hands: int,
    strategy_log=None,
    on_hand: Callable[[HandRecord], None] | None = None,
    stop: StopRequest | None = None,
) -> None:
    """Play until ``run`` has ``hands`` finished hands: a hand left in progress by a stop
    first (continued if no action of ours was in flight, else abandoned), then new ones.
    With ``stop``, raises ``Stopped`` at the first point with no request in flight after
    it is set, everything received so far on disk."""
    from pokerbot.bot.players.strategy_query import query
    from pokerbot.protocol.matchstate import MatchState

    def check_stop() -> None:
        if stop is not None and stop.requested:
            raise Stopped(f"stopped with {len(run.records)} hands in {run.out_dir}")

    game = run.game
    while len(run.records) < hands:
        check_stop()
        pending = run.pending()
        if pending is not None and pending.get("sent") is not None:
            run.abandon(pending["number"], f"stopped after sending {pending['sent']!r}, before the answer")
            pending = None
        if pending is not None:
            number, answer, t0 = int(pending["number"]), pending["answer"], time.perf_counter()
            client.token = pending.get("token") or client.token
        else:
            number, t0 = run.next_number(), time.perf_counter()
            answer = client.new_hand()
            run.set_pending({"number": number, "token": client.token, "answer": answer, "sent": None})
        while answer.get("winnings") is None:
            state, seat = hand_state(game, number, answer)
            if state.finished or state.current_player != seat:
                raise SlumbotError(f"hand {number}: not our turn after {answer.get('action')!r} and no result")
            action = strategy.act(MatchState(seat, state))
            if not state.can_apply(action):
                action = CALL
            incr = incr_for(state, action)
            if strategy_log is not None:
                strategy_log.write(number, seat, state, action, query(strategy, state, seat))
            check_stop()  # the hand goes on from here when the run is started again
            run.set_pending({"number": number, "token": client.token, "answer": answer, "sent": incr})
            answer = client.act(incr)
            run.set_pending({"number": number, "token": client.token, "answer": answer, "sent": None})
        final, seat = hand_state(game, number, answer)
        last = game.total_board_cards(game.num_rounds - 1)
        if not any(final.folded) and len(final.board_cards) < last and all(final.hole_cards):
            raise SlumbotError(f"hand {number}: a showdown without the whole board ({answer.get('board')})")
        payoff_check(final, seat, float(answer["winnings"]))
        over = getattr(strategy, "hand_over", None)
        if over is not None and final.finished:
            over(MatchState(seat, final))
        baseline = answer.get("baseline_winnings")
        record = HandRecord(
            number,
            seat,
            answer.get("action") or "",
            list(answer.get("hole_cards") or []),
            list(answer["bot_hole_cards"]) if answer.get("bot_hole_cards") else None,
            list(answer.get("board") or []),
            float(answer["winnings"]),
            None if baseline is None else float(baseline),
            round(time.perf_counter() - t0, 4),
        )
        run.record(record, final, seat)
        if on_hand is not None:
            on_hand(record)


def summarize_run(run: SlumbotRun, hands: int | None = None) -> dict:
    """The run's results (mbb/hand, 95 %): raw; less Slumbot's ``baseline_winnings``
    where every hand has one; and one-sided AIVAT from our strategy log (hands without
    Slumbot's cards, or that the logs cannot correct, count at their raw value)."""
    import numpy as np

    from pokerbot.bot.evaluation.stats import summarize

    records = sorted(run.records, key=lambda r: r.number)[:hands]
    bb = run.game.big_blind
    raw = np.array([r.winnings for r in records])
    out: dict = {"hands": len(records), "raw": summarize(raw, bb), "abandoned_hands": len(run.abandoned)}
    if records and all(r.baseline_winnings is not None for r in records):
        out["baseline_corrected"] = summarize(raw - np.array([r.baseline_winnings for r in records]), bb)
    aivat = raw.copy()
    fallback = len(records)
    if records and os.path.exists(run.log_path) and os.path.exists(run.strategy_log_path):
        from pokerbot.bot.evaluation.aivat import correct_match

        rows = {r.hand: r for r in correct_match(run.log_path, run.game, SlumbotRun.NAMES[0], run.strategy_log_path)}
        for i, r in enumerate(records):
            row = rows.get(r.number)
            if row is not None and not row.fallback:
                aivat[i] = row.aivat
                fallback -= 1
    out["aivat"] = summarize(aivat, bb)
    out["aivat_fallback_hands"] = fallback
    out["seconds_per_hand"] = float(np.mean([r.seconds for r in records])) if records else 0.0
    return out


def run_slumbot(
    strategy,
    hands: int,
    out_dir: str,
    game: GameDef,
    client: Client,
    identity: dict,
    progress: bool = True,
) -> dict:
    """Play ``strategy`` against Slumbot until ``out_dir`` holds ``hands`` hands (a run
    there with another identity is refused), then summarise and write ``summary.json``."""
    from pokerbot.bot.evaluation.run_identity import claim
    from pokerbot.bot.players.strategy_log import StrategyLogWriter
    from pokerbot.bot.progress import ProgressBar

    run = SlumbotRun(out_dir, game)
    before = claim(out_dir, identity)
    if before is not None:
        raise SlumbotError(f"{out_dir} holds hands of another run ({before}); give another --out")
    bar = ProgressBar(hands, "hands", label="vs Slumbot") if progress else None
    totals = [sum(r.winnings for r in run.records), len(run.records)]

    def on_hand(record: HandRecord) -> None:
        totals[0] += record.winnings
        totals[1] += 1
        if bar is not None:
            bar.update(totals[1], f"{totals[0] / totals[1] / game.big_blind * 1000:+,.0f} mbb/hand so far")

    if bar is not None and run.records:
        bar.write(f"{len(run.records)} hands already in {out_dir}; going on")
    client.log = bar.write if bar is not None else client.log
    writer = StrategyLogWriter(run.strategy_log_path)
    try:
        with stop_on_signals() as stop:
            play_hands(strategy, client, run, hands, writer, on_hand, stop)
    finally:
        writer.close()
        if bar is not None:
            bar.finish()
    summary = {**identity, **summarize_run(run, hands), "requests": client.requests}
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    return summary
