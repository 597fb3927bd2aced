"""Where a variant's chips in a turn subgame come from: its exact value (``subgame_value``)
split by the turn's first betting and by the class of our hand, the parts adding up to
the value.

- ``turn_line``: the turn's actions up to its first bet or raise, each by "A" (ours) or
  "B" (the opponent): "Ac Bc" (checked through), "Ar0.75" (we bet three quarters of the
  pot), "Ac Br0.50", "Ac Bra" (an all-in); f for a fold.
- ``hand_classes``: our hand's equity against a uniformly dealt hand on the turn board,
  over every river card, in five classes of equal count (q1 the weakest).

``SubgameParts`` is a ``subgame_value`` tally that sums the terminals' shares by both.
"""

from __future__ import annotations

import numpy as np

from pokerbot.blueprint_store.actions import pot_fraction
from pokerbot.bot.evaluation.subgame_value import Showdown, blocked_by, card_matrix, compatible_sums
from pokerbot.bot.players.strategy_query import HANDS
from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.solver.evaluator import hand_keys

#: Hand classes: equity quantiles on the turn board.
CLASSES = 5


def turn_line(state: BettingState, seat: int) -> str:
    """The turn's actions in ``state`` up to and including its first bet or raise, by
    "A" (``seat``) or "B", a raise as its pot fraction ("a": all-in)."""
    game = state.game
    replay = BettingState(game, state.hand_id)
    for r in range(2):
        for a in state.actions[r]:
            replay.apply(a)
    labels = []
    for a, who in zip(state.actions[2], state.actors[2]):
        tag = "A" if who == seat else "B"
        if a.type is ActionType.RAISE:
            size = "a" if a.size >= game.stack[who] else f"{pot_fraction(a.size, replay.spent, who):.2f}"
            labels.append(f"{tag}r{size}")
            break
        labels.append(tag + ("f" if a.type is ActionType.FOLD else "c"))
        replay.apply(a)
    return " ".join(labels)


def hand_classes(board: list[int], hands: np.ndarray = HANDS) -> np.ndarray:
    """Per hand, its class 0..CLASSES-1 by equity against a uniform hand on the turn
    ``board`` over every river card (-1 for hands the board blocks)."""
    cards = card_matrix(hands)
    keys = hand_keys(hands)
    live = ~blocked_by(hands, board)
    total = np.zeros(len(hands))
    count = np.zeros(len(hands))
    for river in range(52):
        if river in board:
            continue
        ok = live & ~blocked_by(hands, [river])
        reach = ok.astype(np.float64)
        showdown = Showdown([*board, river], hands, keys, cards)
        pairs = compatible_sums(cards, hands, reach)
        won = np.divide(showdown.sums(reach), pairs, out=np.zeros(len(hands)), where=pairs > 0)
        total += np.where(ok, won, 0.0)
        count += ok
    equity = np.divide(total, count, out=np.zeros(len(hands)), where=count > 0)
    out = np.full(len(hands), -1, dtype=np.int64)
    order = np.argsort(equity[live], kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    out[live] = ranks * CLASSES // len(order)
    return out


class SubgameParts:
    """A ``subgame_value`` tally: the shares of the terminals summed by ``turn_line``
    and by our hand's class (``hand_classes``); ``result(joint)`` in chips, as the
    value is (each part divided by the walk's joint weight)."""

    def __init__(self, seat: int, classes: np.ndarray) -> None:
        self.seat = seat
        self.classes = classes
        self.lines: dict[str, float] = {}
        self.by_class = np.zeros(CLASSES)

    def __call__(self, state: BettingState, shares: np.ndarray) -> None:
        key = turn_line(state, self.seat)
        self.lines[key] = self.lines.get(key, 0.0) + float(shares.sum())
        live = self.classes >= 0
        self.by_class += np.bincount(self.classes[live], weights=shares[live], minlength=CLASSES)

    def result(self, joint: float) -> dict:
        return {
            "line": {k: v / joint for k, v in sorted(self.lines.items())},
            "hand": {f"q{i + 1}": float(v / joint) for i, v in enumerate(self.by_class)},
        }
