"""Reading a dealer's log: the finished hands (checked against the rules), the SCORE
line, and each hand's value all-in adjusted (a hand where both were all-in before the
last card is scored by its expected value over every remaining board)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.gamedef import GameDef
from pokerbot.protocol.matchstate import LoggedHand, MatchStateError, parse_state_line


@dataclass
class HandResult:
    hand: int
    names: list[str]  # by position
    values: list[float]  # by position, chips
    adjusted: list[float]  # all-in adjusted, chips


def allin_spot(state: BettingState) -> tuple | None:
    """(hole cards 0, hole cards 1, board known when the betting ended) when the hand
    went to a showdown with the betting over before the last round (both all-in, or
    one all-in and called), else None."""
    game = state.game
    if not state.is_showdown:
        return None
    last_bet_round = max(r for r in range(game.num_rounds) if state.actions[r])
    if last_bet_round >= game.num_rounds - 1:
        return None
    known = state.board_cards[: game.total_board_cards(last_bet_round)]
    return (tuple(state.hole_cards[0]), tuple(state.hole_cards[1]), tuple(known))


def allin_values(state: BettingState, equity: tuple[float, float]) -> list[float]:
    """Expected values of the hand given position 0's (win, tie) probabilities."""
    win, tie = equity
    ev0 = min(state.spent) * (win - (1.0 - win - tie))
    return [ev0, -ev0]


def read_logged_hands(path: str, game: GameDef) -> tuple[list[LoggedHand], str | None]:
    """The finished hands of a dealer log (checked against the rules) and its SCORE line."""
    logged_hands = []
    score = None
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line.startswith("SCORE:"):
                score = line
                continue
            try:
                logged_hands.append(parse_state_line(line, game))
            except MatchStateError as e:
                raise ValueError(f"{path}:{line_no}: {e}") from None
    return logged_hands, score


def read_match_log(
    path: str, game: GameDef, adjust: bool = True, cache: dict | None = None
) -> tuple[list[HandResult], str | None]:
    """The hands of a dealer log (checked against the rules) and its SCORE line.
    All-in hands are adjusted to their expected value over every remaining board (all
    cores, one batch); ``cache`` keeps equities between logs (a duplicate match deals
    the same cards twice)."""
    from pokerbot.solver.equity import runout_equities

    logged_hands, score = read_logged_hands(path, game)
    cache = {} if cache is None else cache
    spots = [allin_spot(h.state) if adjust else None for h in logged_hands]
    todo = sorted({s for s in spots if s is not None and s not in cache})
    if len(todo) > 500:
        print(
            f"all-in adjustment: {len(todo)} spots of {path}, exact over every remaining board...",
            file=sys.stderr,
            flush=True,
        )
    for todo_spot, eq in zip(todo, runout_equities(todo, game.deck(), game.total_board_cards(game.num_rounds - 1))):
        cache[todo_spot] = eq
    hands: list[HandResult] = []
    for logged, spot in zip(logged_hands, spots):
        vals = [float(v) for v in logged.values]
        adj = allin_values(logged.state, cache[spot]) if spot is not None else vals
        hands.append(HandResult(logged.state.hand_id, logged.names, vals, adj))
    return hands, score


def player_series(hands: list[HandResult], name: str, adjusted: bool = False) -> np.ndarray:
    """Chips won by the player called ``name`` in each hand."""
    out = np.empty(len(hands))
    for i, h in enumerate(hands):
        pos = h.names.index(name)
        out[i] = (h.adjusted if adjusted else h.values)[pos]
    return out
