"""Local Best Response (Lisý and Bowling, "Equilibrium Approximation Quality of Current
No-Limit Poker Bots", 2017): a lower bound on how much a strategy can be beaten.

LBR plays heads-up against a strategy it can query (``strategy_query``). It tracks the
strategy's range over the 1,326 hole pairs by Bayes' rule, multiplying in the
probability of every action the strategy takes with each hand. At its own decisions it
looks one step ahead: with ``wp`` its exact equity against that range over the
remaining board, ``pot`` the chips in the middle and ``asked`` what it must add to call,

    U(fold) = 0,    U(call) = wp * pot - (1 - wp) * asked,
    U(bet x beyond the call) = fp * pot + (1 - fp) * (wp * (pot + x) - (1 - wp) * (asked + x)),

where ``fp`` is the strategy's fold probability against that bet, over its range,
asked of the strategy itself. LBR takes the best; when nothing beats 0 it folds (checks
when checking is free).

Settings (the actions LBR considers, per round):

- ``fc``: fold or call in every round;
- ``fcpa``: call in the first two rounds, then fold, call, pot or all-in;
- ``fcpa56``: as ``fcpa``, with 56 bet sizes on the turn and river, 0.1 to 5.6 pots in
  steps of 0.1, and all-in (the paper's many-sizes setting had 56 sizes; this grid is
  ours, not the paper's list).

Equity is exact: over every completion of the board from the flop on, and before the
flop over every 5-card board against each hand of the range (``solver.equity``, from
its shipped preflop table).

The choice (``best_action``) and the range (``Range``) do not depend on the game: the
tests run them on no-limit Leduc, where LBR's winnings can be compared with an exact
best response.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pokerbot.protocol.betting import CALL, FOLD, Action, BettingState, raise_to
from pokerbot.protocol.gamedef import GameDef, bundled_game
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver.equity import range_equity

from .match import summarize as match_summary
from .strategy_query import live_hands, query

#: Bets LBR considers on the turn and river, as fractions of the pot after calling.
SETTINGS: dict[str, tuple[tuple[float, ...] | None, ...]] = {
    # None: call only; a tuple: fold, call and those pot fractions plus all-in; () fold or call
    "fc": ((), (), (), ()),
    "fcpa": (None, None, (1.0,), (1.0,)),
    "fcpa56": (
        None,
        None,
        tuple(round(0.1 * i, 1) for i in range(1, 57)),
        tuple(round(0.1 * i, 1) for i in range(1, 57)),
    ),
}


class LBRError(ValueError):
    """A setting or opponent LBR cannot play."""


def check_setting(setting: str) -> None:
    if setting not in SETTINGS:
        raise LBRError(f"unknown LBR setting {setting!r}; settings: {', '.join(SETTINGS)}")


class Range:
    """The strategy's range: a weight per hand, updated by Bayes' rule."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = np.array(weights, dtype=np.float64)

    @classmethod
    def holdem(cls, lbr_hole: list[int], board: list[int]) -> Range:
        """Every hole pair not blocked by LBR's cards and the board, equally likely."""
        return cls(live_hands(list(lbr_hole) + list(board)))

    def observe_board(self, live: np.ndarray) -> None:
        """Drop the hands the new board cards block (``live``: 1 for hands still possible)."""
        self.weights *= live

    def observe_action(self, likelihood: np.ndarray) -> None:
        """Multiply in the probability, per hand, of the action the strategy took."""
        self.weights *= likelihood
        if self.weights.sum() <= 0:
            raise LBRError("the strategy took an action its own answer gave probability 0 for every hand")

    def normalised(self) -> np.ndarray:
        return self.weights / self.weights.sum()


@dataclass
class Decision:
    """What LBR chose at one decision and why (utilities per candidate action)."""

    action: Action
    utilities: dict[str, float]


def best_action(
    state: BettingState,
    seat: int,
    bets: tuple[float, ...] | None,
    wp: float,
    fold_probability: Callable[[BettingState], float],
) -> Decision:
    """LBR's choice as ``seat`` in ``state``, in any game: ``bets`` the pot fractions it
    considers (None: call only; empty: fold or call), ``wp`` its equity against the
    range, ``fold_probability(after)`` the range's chance of folding in the state after
    a bet. The utilities are the module's formulas; when none beats 0 it folds."""
    if bets is None:
        return Decision(CALL, {})
    pot = sum(state.spent)
    asked = state.max_spent - state.spent[seat]
    utilities: dict[Action, float] = {CALL: wp * pot - (1 - wp) * asked}
    bounds = state.raise_bounds()
    if bounds is not None and bets:
        totals = {min(max(state.max_spent + int(round(f * (pot + asked))), bounds[0]), bounds[1]) for f in bets}
        totals.add(bounds[1])  # all-in
        for to in sorted(totals):
            after = state.copy()
            a = raise_to(to)
            after.apply(a)
            fp = fold_probability(after)
            x = to - state.max_spent
            utilities[a] = fp * pot + (1 - fp) * (wp * (pot + x) - (1 - wp) * (asked + x))
    best = max(utilities, key=lambda a: utilities[a])
    if utilities[best] <= 0 and state.can_fold():
        best = FOLD
    return Decision(best, {str(a): u for a, u in utilities.items()})


def lbr_decision(strategy: object, state: BettingState, seat: int, belief: Range, setting: str) -> Decision:
    """LBR's action in hold'em as ``seat`` in ``state`` against ``strategy`` holding the
    range ``belief``: exact equity over the remaining board, fold probabilities asked of
    the strategy."""
    bets = SETTINGS[setting][state.round]
    if bets is None:
        return Decision(CALL, {})
    wp = range_equity(state.hole_cards[seat], state.board_cards, belief.weights)
    opponent = 1 - seat
    weights = belief.normalised()

    def fold_probability(after: BettingState) -> float:
        return float(weights @ query(strategy, after, opponent).probability_of(FOLD))

    return best_action(state, seat, bets, wp, fold_probability)


def deal(seed: int, hand: int) -> list[int]:
    """The deck of hand ``hand`` of a run with ``seed``: the same deal whatever else ran."""
    deck = list(range(52))
    random.Random(f"lbr:{seed}:{hand}").shuffle(deck)
    return deck


def play_hand(
    strategy: object, game: GameDef, seed: int, hand: int, setting: str, on_decision: Callable | None = None
) -> float:
    """One hand of LBR against ``strategy``: LBR sits in position ``hand % 2``; the deal
    is keyed by (seed, hand). Returns LBR's winnings in chips."""
    deck = deal(seed, hand)
    seat = hand % 2
    opponent = 1 - seat
    state = BettingState(game, hand, [deck[0:2], deck[2:4]])
    belief = Range.holdem(deck[2 * seat : 2 * seat + 2], [])
    while not state.finished:
        need = game.total_board_cards(state.round)
        if len(state.board_cards) < need:
            state.deal_board_cards(deck[4 + len(state.board_cards) : 4 + need])
            belief.observe_board(live_hands(state.board_cards))
        if state.current_player == seat:
            decision = lbr_decision(strategy, state, seat, belief, setting)
            if on_decision is not None:
                on_decision(state, decision)
            state.apply(decision.action)
        else:
            # act first: asked afterwards at the same state, a solving agent answers from
            # the solution it just played from instead of solving again
            action = strategy.act(MatchState(opponent, state))  # type: ignore[attr-defined]
            answer = query(strategy, state, opponent)
            belief.observe_action(answer.probability_of(action))
            state.apply(action)
    last = game.total_board_cards(game.num_rounds - 1)
    if not state.folded[0] and not state.folded[1] and len(state.board_cards) < last:
        state.deal_board_cards(deck[4 + len(state.board_cards) : 4 + last])  # all-in before the river: run it out
    over = getattr(strategy, "hand_over", None)
    if over is not None:
        over(MatchState(opponent, state))
    return float(state.payoffs()[seat])


def summarize(chips: list[float], big_blind: int) -> dict:
    """LBR's mean winnings in mbb/game and the half-width of the 95 % interval (the match
    runner's summary; NaN where there are too few hands)."""
    s = match_summary(np.asarray(chips, dtype=np.float64), big_blind)
    nan = float("nan")
    return {
        "hands": s["hands"],
        "mbb_per_game": nan if s["mbb_per_hand"] is None else s["mbb_per_hand"],
        "ci95": nan if s["ci95"] is None else s["ci95"],
    }


def _play_chunk(args: tuple) -> list[tuple[int, float, float]]:
    """Worker: (hand, LBR's chips, seconds) for each hand of a chunk, against a fresh
    strategy made from its name (in the worker's process), so that the results do not
    depend on how the hands were shared among workers."""
    from .strategies import make_strategy

    name, blueprint, game_name, seed, setting, hands, options = args
    game = bundled_game(game_name)
    strategy = make_strategy(name, seed, blueprint=blueprint, **options)
    out = []
    for hand in hands:
        t0 = time.perf_counter()
        value = play_hand(strategy, game, seed, hand, setting)
        out.append((hand, value, time.perf_counter() - t0))
    return out


def run_lbr(
    strategy: str,
    hands: int,
    seed: int,
    setting: str,
    out_dir: str,
    blueprint: str | None = None,
    workers: int = 1,
    game_name: str = "holdem.nolimit.2p",
    progress: bool = True,
    chunk: int = 10,
    options: dict | None = None,
) -> dict:
    """LBR against ``strategy`` for ``hands`` hands (both seats alternating), results
    in ``out_dir``: every hand appended to ``hands.jsonl`` as it finishes (a run
    stopped midway resumes from it: hands already there are not played again) and
    ``summary.json``. ``options`` go to the strategy (the agent's solve_round,
    solve_seconds). Returns the summary."""
    from .progress import ProgressBar
    from .strategies import make_strategy

    check_setting(setting)
    game = bundled_game(game_name)
    options = dict(options or {})
    probe = make_strategy(strategy, seed, blueprint=blueprint, **options)  # fails early: unknown name, missing store
    if getattr(probe, "action_probabilities", None) is None:
        raise LBRError(f"strategy {strategy!r} cannot be queried yet (see docs/strategy-api.md)")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "hands.jsonl")
    done: dict[int, tuple[float, float]] = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    row = json.loads(line)
                    done[int(row["hand"])] = (float(row["chips"]), float(row["seconds"]))
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by an interrupted write
    todo = [h for h in range(hands) if h not in done]
    bar = ProgressBar(hands, "hands", label=f"LBR {setting} vs {strategy}") if progress else None
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]
    jobs = [(strategy, blueprint, game_name, seed, setting, c, options) for c in chunks]

    def record(rows: list[tuple[int, float, float]], f) -> None:
        for hand, chips, seconds in rows:
            done[hand] = (chips, seconds)
            f.write(json.dumps({"hand": hand, "chips": chips, "seconds": round(seconds, 4)}) + "\n")
        f.flush()
        if bar is not None:
            s = summarize([v for h, (v, _) in done.items() if h < hands], game.big_blind)
            status = f"LBR {s['mbb_per_game']:+,.0f} ± {s['ci95']:,.0f} mbb/game" if s["hands"] > 1 else ""
            bar.update(s["hands"], status)

    with open(path, "a") as f:
        if f.tell() > 0:
            with open(path, "rb") as r:
                r.seek(-1, os.SEEK_END)
                if r.read(1) != b"\n":
                    f.write("\n")  # end a line cut by an interruption: it stays unreadable, not merged
        if workers <= 1:
            for job in jobs:
                record(_play_chunk(job), f)
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(workers) as pool:
                for rows in pool.map(_play_chunk, jobs):
                    record(rows, f)
    if bar is not None:
        bar.finish()
    chips = [done[h][0] for h in range(hands)]
    summary = {
        "strategy": strategy,
        "blueprint": blueprint,
        "setting": setting,
        "seed": seed,
        "game": game_name,
        "options": options,
        **summarize(chips, game.big_blind),
        "seconds_per_hand": float(np.mean([done[h][1] for h in range(hands)])) if hands else 0.0,
    }
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    return summary


def markdown_line(summary: dict) -> str:
    """One table row: strategy, setting, LBR's winnings with the interval, hands, time."""
    return (
        f"| {summary['strategy']} | {summary['setting']} | {summary['mbb_per_game']:+,.0f} ± "
        f"{summary['ci95']:,.0f} | {summary['hands']:,} | {summary['seconds_per_hand']:.3f} s |"
    )
