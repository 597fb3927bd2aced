"""The action abstraction as data: per betting round, the bet and raise sizes as pot
fractions per raise depth (all-in is always offered) and a raise cap.

A bet at depth 0 is a fraction of the pot; a raise at depth d >= 1 a fraction of the
pot after calling (``solver.tree.BetSizes``). The documented default is dense preflop
(four opening sizes, two re-raise sizes, then pot) and two sizes on later rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

from pokerbot.solver.tree import BetSizes


def pot_fraction(to: int, spent: tuple[int, int] | list[int], actor: int) -> float:
    """A raise to ``to`` by ``actor`` as a fraction of the pot after calling (of the
    pot for a bet)."""
    top = max(spent)
    base = sum(spent) + top - spent[actor]
    return (to - top) / base if base > 0 else 0.0


@dataclass(frozen=True)
class ActionAbstraction:
    rounds: tuple[BetSizes, ...]

    def sizes(self) -> dict[int, BetSizes]:
        return dict(enumerate(self.rounds))

    def as_dict(self) -> dict:
        rounds = []
        for s in self.rounds:
            r = {"bets": [list(b) for b in s.bets], "max_raises": s.max_raises}
            if s.first_by_player:
                r["first_by_player"] = [list(b) for b in s.first_by_player]
            rounds.append(r)
        return {"rounds": rounds}

    @staticmethod
    def from_dict(d: dict) -> ActionAbstraction:
        try:
            rounds = tuple(
                BetSizes(
                    bets=tuple(tuple(float(x) for x in b) for b in r["bets"]),
                    max_raises=int(r["max_raises"]),
                    first_by_player=tuple(tuple(float(x) for x in b) for b in r.get("first_by_player", ())),
                )
                for r in d["rounds"]
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"malformed action abstraction {d!r}: {e}") from None
        for r in rounds:
            if (
                not r.bets
                or any(not b or min(b) <= 0 for b in r.bets)
                or r.max_raises < 0
                or any(b and min(b) <= 0 for b in r.first_by_player)
            ):
                raise ValueError(f"malformed action abstraction round {r}")
        return ActionAbstraction(rounds)


def _same(n: int, s: BetSizes) -> tuple[BetSizes, ...]:
    return tuple(s for _ in range(n))


#: Sizes per preset (hold'em, four rounds).
PRESET_ACTIONS = {
    # two raises a round after the flop too: with one, a raise over a bet (a shove, a
    # check-raise) had no node to map to, and the player called it down with every hand
    "tiny": ActionAbstraction(
        (BetSizes(bets=((1.0,), (1.0,)), max_raises=2),) + _same(3, BetSizes(bets=((1.0,),), max_raises=2))
    ),
    "default": ActionAbstraction(
        (BetSizes(bets=((0.5, 1.0, 2.0, 3.0), (0.7, 1.5), (1.0,)), max_raises=4),)
        + _same(3, BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2))
    ),
    # the default's shape with sizes it lacks: an opponent whose bets our agent must
    # translate (preflop) and meet off its trees (later rounds: a third and 1.5 pots)
    "other-sizes": ActionAbstraction(
        (BetSizes(bets=((0.4, 0.75, 1.5, 2.5), (1.0, 2.0), (1.2,)), max_raises=4),)
        + _same(3, BetSizes(bets=((0.33, 1.5), (0.6,)), max_raises=2))
    ),
    # five opening sizes and three 3-bet sizes; after the flop a third, two thirds and a
    # pot, raises of 0.6 and 1.2 pots, then a pot, three raises a round
    "large": ActionAbstraction(
        (BetSizes(bets=((0.5, 0.75, 1.0, 2.0, 3.0), (0.5, 1.0, 2.0), (0.7, 1.5), (1.0,)), max_raises=4),)
        + _same(3, BetSizes(bets=((0.33, 0.67, 1.0), (0.6, 1.2), (1.0,)), max_raises=3))
    ),
}
