"""AIVAT (Burch, Schmid, Moravčík, Morrill and Bowling, AAAI 2018): an unbiased,
low-variance estimate of what a player won in each hand, from a dealer's log and the
player's own log of what it would have done with every hand (``strategy_log``).

The estimate is taken from one player's side ("we"). What an observer knows who sees
the opponent's cards and the public actions, but not ours, is the public history h
and the opponent's hand y; our hand x is weighted by its posterior
P(x | y, h), which is proportional to our probability of every action we took
holding x (the strategy is known: it is logged) over the hands that clash with
neither y nor the board. With a value function U(x, y, h) fixed before any data
(below), the observer's value of h is V(h) = sum_x P(x | y, h) U(x, y, h), and

    AIVAT = V(end) + sum over the events e of the hand of ( E[V(h e') | y, h] - V(h e) ),

where V(end) averages the real payoff over our possible hands ("imaginary
observations") and each term compares the value after what happened with its
expectation before it. The events corrected are the deal of the opponent's hand and
the board cards (chance, expectations over the cards that could come), our own
decisions (expectation over our logged strategy for every hand) and, when its
strategy is logged too, the opponent's decisions (over its logged strategy for its
actual hand). Each term has expectation zero given what came before, so the estimate
is unbiased whatever U is; a good U only makes it less noisy.

The value function of the hold'em estimate (``CheckDownValues``): with no bet open,
the chips we would win if the hand were checked down from here, i.e. the amount each
player has put in times (2 * our exact equity against y over the remaining boards -
1); with a bet open, what the bettor wins if the other player folds to it; a fold at
its real payoff. Because it is an expectation over the remaining boards, its
expectation over the next card is its value before it: a chance correction is V
before the card minus V after it.

With both players' strategies logged, ``two_sided`` averages our estimate and minus
the opponent's (each correcting the cards and its own decisions), which keeps a
duplicate pair's exact cancellation where both seat orders play alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from pokerbot.bot.players.strategy_log import LoggedDecision
from pokerbot.bot.players.strategy_query import HANDS, ActionProbabilities, hand_index, live_hands
from pokerbot.protocol.betting import ActionType, BettingState, raise_to
from pokerbot.solver.equity import equities_against


class AIVATError(ValueError):
    """A hand the logs cannot correct (a decision missing from a strategy log, a log
    that disagrees with the dealer's)."""


@dataclass
class Chance:
    """Cards dealt: ``live`` (H,) 1 for our hands that clash with none of them,
    ``expected`` (H,) per our hand the expectation of U over the cards that could have
    come, ``after`` (H,) U after the cards that came."""

    live: np.ndarray
    expected: np.ndarray
    after: np.ndarray


@dataclass
class OwnDecision:
    """One of our decisions: ``probabilities`` (H, k) our strategy for every hand,
    ``values`` (H, k) U after each action (for a column standing for a range of sizes,
    its expectation over them), ``likelihood`` (H,) the probability of the action
    taken, per hand, up to a common factor, ``after`` (H,) U after it."""

    probabilities: np.ndarray
    values: np.ndarray
    likelihood: np.ndarray
    after: np.ndarray


@dataclass
class OpponentDecision:
    """An opponent decision with its strategy known for its actual hand:
    ``probabilities`` (k,), ``values`` (H, k) as for ours, ``after`` (H,)."""

    probabilities: np.ndarray
    values: np.ndarray
    after: np.ndarray


@dataclass
class Estimate:
    """AIVAT's estimate of our winnings in one hand and its parts: ``observed`` the
    posterior mean of the real payoff, plus the corrections summed by kind."""

    value: float
    observed: float
    chance: float = 0.0
    own: float = 0.0
    opponent: float = 0.0


def _mean(weights: np.ndarray, values: np.ndarray) -> float:
    total = weights.sum()
    if total <= 0:
        raise AIVATError("no hand of ours is consistent with what happened (a log that disagrees with the deal)")
    return float(weights @ values / total)


def estimate(prior: np.ndarray, events: list, payoff: np.ndarray) -> Estimate:
    """AIVAT over one hand: ``prior`` (H,) our hands' weights before any event,
    ``events`` in order (Chance, OwnDecision, OpponentDecision), ``payoff`` (H,) what
    we win at the end holding each hand (see the module doc)."""
    reach = np.array(prior, dtype=np.float64)
    parts = {"chance": 0.0, "own": 0.0, "opponent": 0.0}
    for e in events:
        if isinstance(e, Chance):
            before = _mean(reach, e.expected)
            reach = reach * e.live
            term, kind = before - _mean(reach, e.after), "chance"
        elif isinstance(e, OwnDecision):
            before = _mean(reach, (e.probabilities * e.values).sum(axis=1))
            reach = reach * e.likelihood
            term, kind = before - _mean(reach, e.after), "own"
        elif isinstance(e, OpponentDecision):
            per_action = [_mean(reach, e.values[:, i]) for i in range(e.values.shape[1])]
            term, kind = float(np.dot(e.probabilities, per_action)) - _mean(reach, e.after), "opponent"
        else:
            raise TypeError(f"not an AIVAT event: {e!r}")
        parts[kind] += term
    observed = _mean(reach, payoff)
    return Estimate(observed + sum(parts.values()), observed, parts["chance"], parts["own"], parts["opponent"])


# --------------------------------------------------------------------- hold'em


class CheckDownValues:
    """U(x, y, h) for every hand x of ours against the opponent's hand y (module doc):
    with no bet open, the chips we win if the hand is checked down from here; with a
    bet open, what the bettor wins if it is folded to; a fold at its real payoff."""

    def __init__(self, seat: int, opponent_hand: list[int]) -> None:
        self.seat = seat
        self.opponent_hand = list(opponent_hand)
        self._equity: dict[tuple[int, ...], np.ndarray] = {}

    def equity(self, board: tuple[int, ...]) -> np.ndarray:
        """Our equity against y on ``board``, per hand (0.5 where a hand clashes)."""
        if board not in self._equity:
            self._equity[board] = np.nan_to_num(equities_against(self.opponent_hand, list(board)), nan=0.5)
        return self._equity[board]

    def checked_down(self, amount: float, board: tuple[int, ...]) -> np.ndarray:
        """Both players in for ``amount``, checked down."""
        return amount * (2.0 * self.equity(board) - 1.0)

    def after(self, state: BettingState, board: tuple[int, ...]) -> np.ndarray:
        """U of ``state``, whose board so far is ``board``."""
        spent = state.spent
        if state.folded[self.seat] or (not state.finished and spent[1 - self.seat] > spent[self.seat]):
            return np.full(len(HANDS), -float(spent[self.seat]))  # we folded, or face a bet
        if state.folded[1 - self.seat] or (not state.finished and spent[self.seat] > spent[1 - self.seat]):
            return np.full(len(HANDS), float(spent[1 - self.seat]))  # they folded, or face our bet
        return self.checked_down(float(min(spent)), board)

    def columns(self, state: BettingState, answer: ActionProbabilities, board: tuple[int, ...]) -> np.ndarray:
        """(H, k): U after each action of an answer at ``state``."""
        out = np.empty((len(HANDS), len(answer.actions)))
        for i, a in enumerate(answer.actions):
            if answer.raise_range is not None and a.type is ActionType.RAISE:
                a = raise_to(answer.raise_range[0])  # U of a bet does not depend on its size
            s = state.copy()
            s.apply(a)
            out[:, i] = self.after(s, board)
        return out


def _decision(log: Mapping[tuple[int, str], LoggedDecision], hand: int, state: BettingState, action) -> LoggedDecision:
    d = log.get((hand, state.betting_string()))
    if d is None:
        raise AIVATError(f"hand {hand}: no logged decision at {state.betting_string()!r}")
    if d.taken != action:
        raise AIVATError(f"hand {hand}: the log took {d.taken}, the dealer {action} at {state.betting_string()!r}")
    return d


def hand_events(
    final: BettingState,
    seat: int,
    own_log: Mapping[tuple[int, str], LoggedDecision],
    opponent_log: Mapping[tuple[int, str], LoggedDecision] | None = None,
    solver_values: bool = False,
) -> tuple[np.ndarray, list, np.ndarray]:
    """(prior, events, payoff) of a logged hold'em hand (``final``: the dealer's final
    state, both hands known) from ``seat``'s side, with the check-down value function.
    Opponent decisions are corrected only when ``opponent_log`` is given. With
    ``solver_values``, our decisions whose log has the strategy's own values (a solve's)
    are corrected with those values instead (each event may have its own value function;
    the cards keep the check-down values, whose expectation over a card is exact)."""
    game = final.game
    opponent = 1 - seat
    y = list(final.hole_cards[opponent])
    values = CheckDownValues(seat, y)
    replay = BettingState(game, final.hand_id, final.hole_cards)
    hand = final.hand_id
    y_live = live_hands(y).astype(np.float64)
    # the deal of y, with its own value function (each correction may have one): the
    # blinds matched and checked down, which takes out how lucky y is; before the deal
    # its expectation over both hands is 0 (equity 1/2 on average, by symmetry)
    root = values.checked_down(float(max(replay.spent)), ())
    events: list = [Chance(y_live, np.zeros(len(HANDS)), root)]
    dealt = 0
    for r in range(game.num_rounds):
        need = game.total_board_cards(r)
        if need > dealt:
            if len(final.board_cards) < need:
                break  # the hand ended before this round
            before = values.after(replay, tuple(final.board_cards[:dealt]))
            new = list(final.board_cards[dealt:need])
            if not replay.finished:
                replay.deal_board_cards(new)
            events.append(
                Chance(
                    live_hands(new).astype(np.float64), before, values.after(replay, tuple(final.board_cards[:need]))
                )
            )
            dealt = need
        board = tuple(final.board_cards[:dealt])
        for action in final.actions[r]:
            actor = replay.current_player
            if actor == seat:
                answer = _decision(own_log, hand, replay, action).answer
                likelihood = answer.probability_of(action)
                if likelihood[hand_index(final.hole_cards[seat])] <= 0:
                    raise AIVATError(f"hand {hand}: the log gives {action} probability 0 with the hand held")
                if solver_values and answer.values is not None and action in answer.actions:
                    columns = answer.values
                    taken = columns[:, answer.actions.index(action)]
                else:
                    after = replay.copy()
                    after.apply(action)
                    columns, taken = values.columns(replay, answer, board), values.after(after, board)
                events.append(OwnDecision(answer.probabilities, columns, likelihood, taken))
            elif opponent_log is not None:
                answer = _decision(opponent_log, hand, replay, action).answer
                if answer.probability_of(action)[hand_index(y)] <= 0:
                    raise AIVATError(f"hand {hand}: the opponent's log gives {action} probability 0 with its hand")
                after = replay.copy()
                after.apply(action)
                columns = values.columns(replay, answer, board)
                row = answer.probabilities[hand_index(y)]
                events.append(OpponentDecision(row, columns, values.after(after, board)))
            replay.apply(action)
    if any(final.folded):
        payoff = values.after(final, tuple(final.board_cards))
    else:
        payoff = float(min(final.spent)) * (2.0 * values.equity(tuple(final.board_cards)) - 1.0)
    return np.ones(len(HANDS)), events, payoff


# --------------------------------------------------------------------- match logs


@dataclass
class HandRow:
    """One hand of a match from a player's side: what it won (raw and all-in
    adjusted) and AIVAT's estimate with its parts; ``fallback`` when the logs could
    not correct the hand (its all-in adjusted value stands in, the reason in ``error``)."""

    hand: int
    position: int
    raw: float
    allin_adjusted: float
    aivat: float
    observed: float
    chance: float
    own: float
    opponent: float
    fallback: bool = False
    error: str = ""
    aivat_solver: float = 0.0  # the estimate with the solves' own values at our decisions


CSV_FIELDS = (
    "hand",
    "position",
    "raw",
    "allin_adjusted",
    "aivat",
    "observed",
    "chance",
    "own",
    "opponent",
    "fallback",
    "aivat_solver",
)


def correct_match(
    dealer_log: str,
    game,
    player: str,
    own_log: str,
    opponent_log: str | None = None,
    equity_cache: dict | None = None,
) -> list[HandRow]:
    """AIVAT for ``player`` (its name in the dealer's log) over every hand of a dealer
    log, from the player's strategy log and, when given, the opponent's."""
    from pokerbot.bot.evaluation.match_log import read_logged_hands, read_match_log
    from pokerbot.bot.players.strategy_log import read_strategy_log

    logged, _ = read_logged_hands(dealer_log, game)
    results, _ = read_match_log(dealer_log, game, cache=equity_cache)
    ours = read_strategy_log(own_log, game)
    theirs = read_strategy_log(opponent_log, game) if opponent_log else None
    rows = []
    for h, r in zip(logged, results):
        if player not in h.names:
            raise AIVATError(f"{dealer_log}: no player {player!r} in hand {h.state.hand_id} ({', '.join(h.names)})")
        seat = h.names.index(player)
        raw, adjusted = r.values[seat], r.adjusted[seat]
        try:
            est, with_solver = (
                (
                    two_sided(h.state, seat, ours, theirs, solver_values=sv)
                    if theirs is not None
                    else estimate(*hand_events(h.state, seat, ours, solver_values=sv))
                )
                for sv in (False, True)
            )
        except ValueError as e:  # AIVATError, or a corrupt decision in a log: this hand falls back
            rows.append(
                HandRow(h.state.hand_id, seat, raw, adjusted, adjusted, adjusted, 0.0, 0.0, 0.0, True, str(e), adjusted)
            )
            continue
        rows.append(
            HandRow(
                h.state.hand_id,
                seat,
                raw,
                adjusted,
                est.value,
                est.observed,
                est.chance,
                est.own,
                est.opponent,
                aivat_solver=with_solver.value,
            )
        )
    return rows


def two_sided(
    final: BettingState,
    seat: int,
    own_log: Mapping[tuple[int, str], LoggedDecision],
    opponent_log: Mapping[tuple[int, str], LoggedDecision],
    solver_values: bool = False,
) -> Estimate:
    """With both strategies logged: the mean of our estimate and minus the opponent's,
    each correcting the cards and its own decisions (each unbiased for our winnings).
    Where both players play alike, as the two seat orders of a duplicate pair do
    wherever two of our strategies share the blueprint, the pair's estimates then cancel
    exactly, as its raw results do; a one-sided estimate would not."""
    a = estimate(*hand_events(final, seat, own_log, solver_values=solver_values))
    b = estimate(*hand_events(final, 1 - seat, opponent_log, solver_values=solver_values))
    return Estimate(
        (a.value - b.value) / 2,
        (a.observed - b.observed) / 2,
        (a.chance - b.chance) / 2,
        a.own / 2,  # our decisions, corrected on our side
        -b.own / 2,  # theirs, on their side
    )


def write_csv(path: str, rows_by_run: list[tuple[str, list[HandRow]]]) -> None:
    """Per hand, the corrections, so that anyone can re-check the sums:
    aivat = observed + chance + own + opponent (or the all-in adjusted value on a fallback)."""
    import csv

    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("run", *CSV_FIELDS, "error"))
        for run, rows in rows_by_run:
            for r in rows:
                w.writerow(
                    (
                        run,
                        r.hand,
                        r.position,
                        f"{r.raw:.6f}",
                        f"{r.allin_adjusted:.6f}",
                        f"{r.aivat:.6f}",
                        f"{r.observed:.6f}",
                        f"{r.chance:.6f}",
                        f"{r.own:.6f}",
                        f"{r.opponent:.6f}",
                        int(r.fallback),
                        f"{r.aivat_solver:.6f}",
                        r.error,
                    )
                )
