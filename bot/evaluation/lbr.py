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

A setting says what LBR considers in each round, one code per round separated by ``/``:
``c`` call only, ``fc`` fold or call, ``fcp`` also a pot-sized bet, ``fca`` fold, call or
all-in, ``fcpa`` fold, call, pot or all-in, ``fcpa56`` 56 sizes (0.1 to 5.6 pots in steps
of 0.1) and all-in. Bets are fractions of the pot after calling. Named settings:

- ``fcpa``: ``c/c/fcpa/fcpa``, the paper's; LBR must call every bet of the first two
  rounds, so the blueprint's preflop shoves dominate its result;
- ``fcpa56``: ``c/c/fcpa56/fcpa56`` (the paper's many-sizes setting had 56 sizes; this
  grid is ours, not the paper's list);
- ``fc``: ``fc/fc/fc/fc``;
- ``full``: ``fc/fcp/fcpa/fcpa``, LBR a best responder in every round (it folds junk
  against a preflop shove): our headline.

Equity is exact: over every completion of the board from the flop on, and before the
flop over every 5-card board against each hand of the range (``solver.equity``, from
its shipped preflop table).

Variance reduction (``Baseline``): LBR's result in a hand is corrected by control
variates, as AIVAT corrects a match. Everything is known to the evaluator (both hands,
the strategy's full action distribution, the deck), and LBR itself chooses without
chance, so every random event (the deal, each board card, each action the strategy
takes) adds the expectation of a value function V before it minus V after it. Each
term has expectation zero given the past, so the corrected result is unbiased for any
V; V tracks what LBR will win (the hand checked down at the current pot with both hands'
exact equity; facing a bet, LBR's own fold-or-call choice at that pot). Where V tracks
the result poorly (a strategy whose play ignores its cards, an LBR that bets later
where V assumed a call), the terms add noise; so the headline (``cross_fitted``) weights
each kind of term (deal, board, strategy) by a least-squares coefficient fitted on the
other half of the hands, which keeps it unbiased, once each half has ``MIN_FIT_HANDS``
hands (results are heavy-tailed: weights fitted on fewer are noisier than the terms
they weigh); with fewer, every weight is 1.

The choice (``best_action``), the range (``Range``) and the correction (``Baseline``)
do not depend on the game: the tests run them on no-limit Leduc, where LBR's winnings
and the corrected estimate's expectation can be compared with exact values.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pokerbot.bot.evaluation.control_variates import cross_fitted
from pokerbot.bot.evaluation.run_identity import claim, open_results
from pokerbot.bot.evaluation.stats import summarize as match_summary
from pokerbot.bot.players.strategy_query import HANDS, ActionProbabilities, hand_index, live_hands, query
from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.gamedef import GameDef, bundled_game
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver.equity import preflop_equities, range_equity, runout_equity


class LBRError(ValueError):
    """A setting or opponent LBR cannot play."""


@dataclass(frozen=True)
class RoundActions:
    """What LBR considers in one round: folding (else it calls everything), bets as
    fractions of the pot after calling, and all-in."""

    fold: bool
    bets: tuple[float, ...] = ()
    all_in: bool = False

    @property
    def call_only(self) -> bool:
        return not self.fold

    def fold_or_call(self) -> RoundActions:
        """The same round without bets (the baseline's view of LBR's reply)."""
        return RoundActions(self.fold)


#: The actions of one round, by code.
ROUND_CODES: dict[str, RoundActions] = {
    "c": RoundActions(False),
    "fc": RoundActions(True),
    "fcp": RoundActions(True, (1.0,)),
    "fca": RoundActions(True, (), True),
    "fcpa": RoundActions(True, (1.0,), True),
    "fcpa56": RoundActions(True, tuple(round(0.1 * i, 1) for i in range(1, 57)), True),
}

#: Named settings (see the module doc); any ``code/code/...`` with one code a round works too.
NAMED_SETTINGS: dict[str, str] = {
    "fcpa": "c/c/fcpa/fcpa",
    "fcpa56": "c/c/fcpa56/fcpa56",
    "fc": "fc/fc/fc/fc",
    "full": "fc/fcp/fcpa/fcpa",
}


def parse_setting(setting: str, num_rounds: int = 4) -> tuple[RoundActions, ...]:
    """The rounds' actions of a named setting or a ``code/code/...`` spec.

    >>> [r.fold for r in parse_setting("fcpa")]
    [False, False, True, True]
    >>> parse_setting("fc/fca", 2)[1]
    RoundActions(fold=True, bets=(), all_in=True)
    """
    spec = NAMED_SETTINGS.get(setting, setting)
    codes = spec.split("/")
    if len(codes) != num_rounds or any(c not in ROUND_CODES for c in codes):
        raise LBRError(
            f"unknown LBR setting {setting!r}; settings: {', '.join(NAMED_SETTINGS)}, or one code a round "
            f"separated by '/' ({num_rounds} rounds; codes: {', '.join(ROUND_CODES)})"
        )
    return tuple(ROUND_CODES[c] for c in codes)


def check_setting(setting: str, num_rounds: int = 4) -> None:
    parse_setting(setting, num_rounds)


def setting_spec(setting: str) -> str:
    """The ``code/code/...`` form of a setting (named or not)."""
    return NAMED_SETTINGS.get(setting, setting)


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

    def after(self, likelihood: np.ndarray) -> Range:
        """A copy updated by an action's likelihood (no check: a hypothetical action may
        be impossible for every hand)."""
        return Range(self.weights * likelihood)

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
    actions: RoundActions,
    wp: float,
    fold_probability: Callable[[BettingState], float],
) -> Decision:
    """LBR's choice as ``seat`` in ``state``, in any game: ``actions`` what it considers
    this round, ``wp`` its equity against the range, ``fold_probability(after)`` the
    range's chance of folding in the state after a bet. The utilities are the module's
    formulas; when none beats 0 it folds."""
    if actions.call_only:
        return Decision(CALL, {})
    pot = sum(state.spent)
    asked = state.max_spent - state.spent[seat]
    utilities: dict[Action, float] = {CALL: wp * pot - (1 - wp) * asked}
    bounds = state.raise_bounds()
    if bounds is not None and (actions.bets or actions.all_in):
        totals = {min(max(state.max_spent + int(round(f * (pot + asked))), bounds[0]), bounds[1]) for f in actions.bets}
        if actions.all_in:
            totals.add(bounds[1])
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


def _no_bets(_after: BettingState) -> float:
    raise AssertionError("a fold-or-call choice asks no fold probability")


@dataclass
class Baseline:
    """The value functions of LBR's control variates, in any game, from LBR's side with
    both hands known (``pair_equity(board)``: LBR's exact equity against the strategy's
    hand over the remaining boards; ``lbr_equity(board, weights)``: LBR's equity against
    a range, as LBR computes it), and the correction terms they give. Each kind of event
    has its own value function (every term still has expectation 0):

    - the board cards: the hand checked down at the smaller commitment (a fold at its
      payoff), whose expectation over a card is its value before it;
    - the deal: that, except that LBR facing a bet folds or calls as ``best_action``
      without bets would (``value``);
    - the strategy's actions (``reply_value``): where LBR acts next, LBR's own choice
      with its bets too, their fold probabilities read from ``fold_probabilities(after)``
      (per hand, after LBR's bet; a cheap stand-in for the strategy, e.g. the agent's
      blueprint) and valued with the strategy's real hand; without a stand-in, ``value``.

    Each ``*_term`` is E[U after a random event] - U(after what happened); LBR's result
    plus the terms of its hand is unbiased whatever the functions are.
    """

    seat: int
    rounds: tuple[RoundActions, ...]
    pair_equity: Callable[[tuple[int, ...]], float]
    lbr_equity: Callable[[tuple[int, ...], np.ndarray], float]
    fold_probabilities: Callable[[BettingState], np.ndarray] | None = None
    their_hand: int | None = None  # the strategy's hand's row in the stand-in's answers

    def check_down(self, state: BettingState) -> float:
        """A fold at its payoff, else the hand checked down at the smaller commitment."""
        me, them = self.seat, 1 - self.seat
        if state.folded[me]:
            return -float(state.spent[me])
        if state.folded[them]:
            return float(state.spent[them])
        return float(min(state.spent)) * (2.0 * self.pair_equity(tuple(state.board_cards)) - 1.0)

    def value(self, state: BettingState, belief: Range) -> float:
        """``check_down``, except that LBR facing a bet folds or calls first."""
        me, them = self.seat, 1 - self.seat
        if not any(state.folded) and not state.finished and state.current_player == me:
            if state.spent[them] > state.spent[me]:
                wp = self.lbr_equity(tuple(state.board_cards), belief.weights)
                reply = best_action(state, me, self.rounds[state.round].fold_or_call(), wp, _no_bets)
                state = state.copy()
                state.apply(reply.action)
        return self.check_down(state)

    def reply_value(self, state: BettingState, belief: Range) -> float:
        """Where LBR acts next: its choice with every action of its round, each valued
        with the strategy's real hand (a bet: folded to with the stand-in's probability
        for that hand, else called and checked down); elsewhere ``check_down``."""
        me = self.seat
        stand_in = self.fold_probabilities
        if stand_in is None or self.their_hand is None:
            return self.value(state, belief)
        dealt = len(state.board_cards) >= state.game.total_board_cards(state.round)
        if any(state.folded) or state.finished or state.current_player != me or not dealt:
            return self.check_down(state)  # not LBR's turn, or the round's cards are still to come
        asked: dict[tuple[int, int], np.ndarray] = {}

        def fold_row(after: BettingState) -> np.ndarray:
            key = (after.spent[0], after.spent[1])
            if key not in asked:
                asked[key] = np.asarray(stand_in(after), dtype=np.float64)
            return asked[key]

        weights = belief.normalised()
        wp = self.lbr_equity(tuple(state.board_cards), belief.weights)
        decision = best_action(state, me, self.rounds[state.round], wp, lambda after: float(weights @ fold_row(after)))
        after = state.copy()
        after.apply(decision.action)
        if decision.action.type is not ActionType.RAISE:
            return self.check_down(after)
        folds = float(fold_row(after)[self.their_hand])
        called = after.copy()
        called.apply(CALL)
        return folds * float(state.spent[1 - me]) + (1.0 - folds) * self.check_down(called)

    def deal_term(self, root: BettingState, belief: Range, expected: float) -> float:
        """The deal of both hands: ``expected`` is E[V(root)] over all deals with LBR in
        this seat, which the game's caller computes (``holdem_deal_expectation``)."""
        return expected - self.value(root, belief)

    def board_term(self, before: BettingState, after: BettingState) -> float:
        """Board cards dealt at a round's start, or run out after an all-in: the
        check-down value's expectation over the cards is its value before them."""
        return self.check_down(before) - self.check_down(after)

    def strategy_term(
        self,
        state: BettingState,
        belief: Range,
        actions: tuple[Action, ...],
        probabilities: np.ndarray,
        likelihoods: list[np.ndarray],
        taken: Action,
    ) -> float:
        """A decision of the strategy at ``state``: ``probabilities`` its distribution
        over ``actions`` with the hand it holds, ``likelihoods[i]`` per hand the
        probability of ``actions[i]`` (for LBR's range after it), ``taken`` what it did."""
        expected = 0.0
        taken_value = None
        for a, p, like in zip(actions, probabilities, likelihoods):
            if p <= 0 and a != taken:
                continue
            after = state.copy()
            after.apply(a)
            v = self.reply_value(after, belief.after(like))
            expected += float(p) * v
            if a == taken:
                taken_value = v
        if taken_value is None:
            raise LBRError(f"the strategy took {taken}, not among the actions of its answer")
        return expected - taken_value


def lbr_decision(strategy: object, state: BettingState, seat: int, belief: Range, actions: RoundActions) -> Decision:
    """LBR's action in hold'em as ``seat`` in ``state`` against ``strategy`` holding the
    range ``belief``: exact equity over the remaining board, fold probabilities asked of
    the strategy."""
    if actions.call_only:
        return Decision(CALL, {})
    wp = range_equity(state.hole_cards[seat], state.board_cards, belief.weights)
    opponent = 1 - seat
    weights = belief.normalised()

    def fold_probability(after: BettingState) -> float:
        return float(weights @ query(strategy, after, opponent).probability_of(FOLD))

    return best_action(state, seat, actions, wp, fold_probability)


def deal(seed: int, hand: int) -> list[int]:
    """The deck of hand ``hand`` of a run with ``seed``: the same deal whatever else ran."""
    deck = list(range(52))
    random.Random(f"lbr:{seed}:{hand}").shuffle(deck)
    return deck


def holdem_baseline(
    seat: int,
    rounds: tuple[RoundActions, ...],
    lbr_hole: list[int],
    their_hole: list[int],
    stand_in: object | None = None,
) -> Baseline:
    """The baseline of a hold'em hand: exact equities, before the flop from the shipped
    table; ``stand_in`` (a strategy to query) gives the fold probabilities of
    ``Baseline.reply_value``."""
    x, y = list(lbr_hole), list(their_hole)

    def pair_equity(board: tuple[int, ...]) -> float:
        if not board:
            return float(preflop_equities(x)[hand_index(y)])
        win, tie = runout_equity(x, y, list(board), list(range(52)), 5)
        return win + tie / 2

    def lbr_equity(board: tuple[int, ...], weights: np.ndarray) -> float:
        return range_equity(x, list(board), weights)

    if stand_in is None:
        return Baseline(seat, rounds, pair_equity, lbr_equity)

    def fold_probabilities(after: BettingState) -> np.ndarray:
        return query(stand_in, after, 1 - seat).probability_of(FOLD)

    return Baseline(seat, rounds, pair_equity, lbr_equity, fold_probabilities, hand_index(y))


@dataclass(frozen=True)
class BlueprintStandIn:
    """A strategy's blueprint, queried in its place (``blueprint_action_probabilities``)."""

    ask: Callable[[BettingState, int], ActionProbabilities]

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        return self.ask(state, seat)


def stand_in_for(strategy: object) -> object:
    """What the baseline asks about LBR's bets: the agent's blueprint (asking the agent
    itself would cost a solve a question), else the strategy itself."""
    ask = getattr(strategy, "blueprint_action_probabilities", None)
    return strategy if ask is None else BlueprintStandIn(ask)


def holdem_root_values(root: BettingState, seat: int, first_round: RoundActions) -> np.ndarray:
    """Per hand x of LBR's (rows of ``HANDS``), the mean of ``Baseline.value`` at the
    first state of a hold'em hand over the strategy's hands y: LBR facing the big blind
    folds or calls on its equity against every hand (exact, from the preflop table), a
    call checked down at the big blind; otherwise the blinds' smaller part checked down."""
    them = 1 - seat
    facing = root.current_player == seat and root.spent[them] > root.spent[seat]
    pot, asked = sum(root.spent), root.max_spent - root.spent[seat]
    out = np.empty(len(HANDS))
    for i, x in enumerate(HANDS.tolist()):
        wp = float(preflop_equities(x)[live_hands(x)].mean())  # against every hand: the mean of 2 wp - 1 below
        if facing and not first_round.call_only and wp * pot - (1 - wp) * asked <= 0:
            out[i] = -float(root.spent[seat])
        else:
            out[i] = float(root.max_spent if facing else min(root.spent)) * (2 * wp - 1)
    return out


_DEAL_EXPECTATIONS: dict[tuple, float] = {}


def holdem_deal_expectation(root: BettingState, seat: int, first_round: RoundActions) -> float:
    """E[V(root)] over every deal of a hold'em hand, LBR in ``seat``
    (``holdem_root_values`` averaged; kept for the process)."""
    key = (tuple(root.spent), root.current_player, seat, first_round.fold)
    if key not in _DEAL_EXPECTATIONS:
        _DEAL_EXPECTATIONS[key] = float(holdem_root_values(root, seat, first_round).mean())
    return _DEAL_EXPECTATIONS[key]


#: The kinds of random event the correction sums apart (each sum has expectation 0).
TERM_KINDS = ("deal", "board", "strategy")


@dataclass
class HandOutcome:
    """LBR's winnings in one hand (chips) and the correction's terms summed by kind."""

    chips: float
    deal: float = 0.0
    board: float = 0.0
    strategy: float = 0.0

    @property
    def corrected(self) -> float:
        return self.chips + self.deal + self.board + self.strategy


def play_hand(
    strategy: object, game: GameDef, seed: int, hand: int, setting: str, on_decision: Callable | None = None
) -> HandOutcome:
    """One hand of LBR against ``strategy``: LBR sits in position ``hand % 2``; the deal
    is keyed by (seed, hand). Returns LBR's winnings in chips and the correction's terms."""
    rounds = parse_setting(setting, game.num_rounds)
    deck = deal(seed, hand)
    seat = hand % 2
    opponent = 1 - seat
    state = BettingState(game, hand, [deck[0:2], deck[2:4]])
    lbr_hole, their_hole = deck[2 * seat : 2 * seat + 2], deck[2 * opponent : 2 * opponent + 2]
    belief = Range.holdem(lbr_hole, [])
    baseline = holdem_baseline(seat, rounds, lbr_hole, their_hole, stand_in_for(strategy))
    outcome = HandOutcome(0.0, deal=baseline.deal_term(state, belief, holdem_deal_expectation(state, seat, rounds[0])))
    theirs = hand_index(their_hole)

    def deal_to(count: int) -> float:
        before = state.copy()
        state.deal_board_cards(deck[4 + len(state.board_cards) : 4 + count])
        belief.observe_board(live_hands(state.board_cards))
        return baseline.board_term(before, state)

    while not state.finished:
        need = game.total_board_cards(state.round)
        if len(state.board_cards) < need:
            outcome.board += deal_to(need)
        if state.current_player == seat:
            decision = lbr_decision(strategy, state, seat, belief, rounds[state.round])
            if on_decision is not None:
                on_decision(state, decision)
            state.apply(decision.action)
        else:
            # act first: asked afterwards at the same state, a solving agent answers from
            # the solution it just played from instead of solving again
            action = strategy.act(MatchState(opponent, state))  # type: ignore[attr-defined]
            answer = query(strategy, state, opponent)
            if answer.raise_range is None:  # a raise of random size: no correction (still unbiased)
                likelihoods = [answer.probabilities[:, i] for i in range(len(answer.actions))]
                outcome.strategy += baseline.strategy_term(
                    state, belief, answer.actions, answer.probabilities[theirs], likelihoods, action
                )
            belief.observe_action(answer.probability_of(action))
            state.apply(action)
    last = game.total_board_cards(game.num_rounds - 1)
    if not state.folded[0] and not state.folded[1] and len(state.board_cards) < last:
        outcome.board += deal_to(last)  # all-in before the river: run it out
    over = getattr(strategy, "hand_over", None)
    if over is not None:
        over(MatchState(opponent, state))
    outcome.chips = float(state.payoffs()[seat])
    return outcome


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


def _play_chunk(args: tuple) -> list[tuple[int, HandOutcome, float]]:
    """Worker: (hand, outcome, seconds) for each hand of a chunk, against a fresh
    strategy made from its name (in the worker's process), so that the results do not
    depend on how the hands were shared among workers."""
    from pokerbot.bot.strategies import make_strategy

    name, blueprint, game_name, seed, setting, hands, options = args
    game = bundled_game(game_name)
    strategy = make_strategy(name, seed, blueprint=blueprint, **options)
    out = []
    for hand in hands:
        t0 = time.perf_counter()
        outcome = play_hand(strategy, game, seed, hand, setting)
        out.append((hand, outcome, time.perf_counter() - t0))
    return out


def read_hands(path: str) -> dict[int, tuple[HandOutcome, float]]:
    """Hands already in a ``hands.jsonl``: hand -> (outcome, seconds); lines cut by an
    interrupted write are skipped (those hands are played again)."""
    done: dict[int, tuple[HandOutcome, float]] = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    row = json.loads(line)
                    outcome = HandOutcome(float(row["chips"]), *(float(row[k]) for k in TERM_KINDS))
                    done[int(row["hand"])] = (outcome, float(row["seconds"]))
                except (ValueError, KeyError, TypeError):
                    continue
    return done


#: Hands each half needs before the headline's weights are fitted (else they are 1).
MIN_FIT_HANDS = 2000


def summarize_hands(
    outcomes: list[HandOutcome], hand_numbers: list[int], big_blind: int, min_fit: int = MIN_FIT_HANDS
) -> dict:
    """LBR's winnings raw, corrected (every term counted once) and cross-fitted (the
    headline: ``cross_fitted`` over folds of consecutive hand pairs, so both seats are
    in each fold, once each has ``min_fit`` hands), with each one's variance ratio to
    the raw result."""
    raw = np.array([o.chips for o in outcomes])
    terms = np.array([[getattr(o, k) for k in TERM_KINDS] for o in outcomes]).reshape(len(outcomes), len(TERM_KINDS))
    fitted, betas = cross_fitted(raw, terms, (np.asarray(hand_numbers) // 2) % 2, min_fit=min_fit)
    out = {"raw": summarize(list(raw), big_blind)}
    out["corrected"] = summarize(list(raw + terms.sum(axis=1)), big_blind)
    out["cross_fitted"] = summarize(list(fitted), big_blind)
    out["coefficients"] = {k: [round(float(b), 4) for b in betas[:, i]] for i, k in enumerate(TERM_KINDS)}
    for k in ("corrected", "cross_fitted"):
        a, b = out["raw"]["ci95"], out[k]["ci95"]
        out[k]["variance_ratio"] = (a / b) ** 2 if b and b > 0 and a == a else float("nan")
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
    in ``out_dir``: ``run.json`` (what is played: a run with other settings refuses the
    directory), every hand appended to ``hands.jsonl`` as it finishes (a run stopped
    midway resumes from it: hands already there are not played again) and
    ``summary.json``. ``options`` go to the strategy (the agent's solve_round,
    solve_seconds). Returns the summary: LBR's winnings raw (top level), corrected by
    the baseline (``corrected``) and with cross-fitted coefficients (``cross_fitted``,
    the headline), each with its variance ratio to the raw result."""
    from pokerbot.bot.progress import ProgressBar
    from pokerbot.bot.strategies import make_strategy

    game = bundled_game(game_name)
    check_setting(setting, game.num_rounds)
    options = dict(options or {})
    probe = make_strategy(strategy, seed, blueprint=blueprint, **options)  # fails early: unknown name, missing store
    if getattr(probe, "action_probabilities", None) is None:
        raise LBRError(f"strategy {strategy!r} cannot be queried yet (see docs/strategy-api.md)")
    os.makedirs(out_dir, exist_ok=True)
    identity = {
        "strategy": strategy,
        "blueprint": blueprint,
        "setting": setting_spec(setting),
        "seed": seed,
        "game": game_name,
        "options": options,
    }
    before = claim(out_dir, identity)
    if before is not None:
        raise LBRError(f"{out_dir} holds hands of another run ({before}); give another --out")
    path = os.path.join(out_dir, "hands.jsonl")
    done = read_hands(path)
    todo = [h for h in range(hands) if h not in done]
    bar = ProgressBar(hands, "hands", label=f"LBR {setting} vs {strategy}") if progress else None
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]
    jobs = [(strategy, blueprint, game_name, seed, setting, c, options) for c in chunks]

    def record(rows: list[tuple[int, HandOutcome, float]], f) -> None:
        for hand, outcome, seconds in rows:
            done[hand] = (outcome, seconds)
            row = {"hand": hand, "chips": outcome.chips, **{k: getattr(outcome, k) for k in TERM_KINDS}}
            f.write(json.dumps({**row, "seconds": round(seconds, 4)}) + "\n")
        f.flush()
        if bar is not None:
            s = summarize([v[0].corrected for h, v in done.items() if h < hands], game.big_blind)
            status = f"LBR {s['mbb_per_game']:+,.0f} ± {s['ci95']:,.0f} mbb/game (corrected)" if s["hands"] > 1 else ""
            bar.update(s["hands"], status)

    with open_results(path) as f:
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
    figures = summarize_hands([done[h][0] for h in range(hands)], list(range(hands)), game.big_blind)
    summary = {
        **identity,
        "setting_name": setting,
        **figures.pop("raw"),
        **figures,
        "seconds_per_hand": float(np.mean([done[h][1] for h in range(hands)])) if hands else 0.0,
    }
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    return summary


def markdown_line(summary: dict) -> str:
    """One table row: strategy, setting, LBR's winnings cross-fitted (the headline) and
    raw with their intervals, the variance ratio, hands, time."""
    c = summary["cross_fitted"]
    return (
        f"| {summary['strategy']} | {summary['setting_name']} | {c['mbb_per_game']:+,.0f} ± {c['ci95']:,.0f} | "
        f"{summary['mbb_per_game']:+,.0f} ± {summary['ci95']:,.0f} | {c['variance_ratio']:.1f}x | "
        f"{summary['hands']:,} | {summary['seconds_per_hand']:.3f} s |"
    )
