"""How a player opens: from dealer logs, per class of starting hand, how often it folds,
calls (limps) and raises as the first to act preflop, and how often it raises, calls and
folds facing a raise there. A check that a program plays sensibly (pairs and suited aces
open more than offsuit trash), read from any player's logs, ours or another's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from pokerbot.bot.evaluation.match_log import read_logged_hands
from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.protocol.gamedef import GameDef

#: The classes reported, in order.
CLASSES = ("pair", "suited ace", "offsuit ace", "suited broadway", "suited connector", "offsuit trash", "other")
#: Ranks (0 = deuce .. 12 = ace) of the broadway cards.
BROADWAY = 8


def hand_class(cards: Sequence[int]) -> str:
    """The class of a two-card hand (cards as the protocol numbers them: 4 x rank +
    suit): ``pair``; an ace with a ``suited`` or ``offsuit`` kicker; two ``suited
    broadway`` cards (ten or better); a ``suited connector`` (adjacent ranks, below the
    broadway pair); ``offsuit trash`` (offsuit, no card above nine, not connected);
    else ``other``."""
    (r1, s1), (r2, s2) = sorted(((c // 4, c % 4) for c in cards), reverse=True)
    suited = s1 == s2
    if r1 == r2:
        return "pair"
    if r1 == 12:
        return "suited ace" if suited else "offsuit ace"
    if suited and r2 >= BROADWAY:
        return "suited broadway"
    if suited and r1 - r2 == 1:
        return "suited connector"
    if not suited and r1 < BROADWAY and r1 - r2 > 1:
        return "offsuit trash"
    return "other"


def first_action(state: BettingState, seat: int) -> tuple[str, str] | None:
    """(situation, what ``seat`` did) at its first preflop decision: situation
    ``first in`` (nothing but the blinds before it) or ``facing a raise``; what it did
    ``fold``, ``call`` or ``raise``; None when it made no preflop decision."""
    for action, actor in zip(state.actions[0], state.actors[0]):
        if actor != seat:
            continue
        before = state.actions[0][: state.actors[0].index(actor)]
        situation = "facing a raise" if any(a.type is ActionType.RAISE for a in before) else "first in"
        kind = {ActionType.FOLD: "fold", ActionType.CALL: "call", ActionType.RAISE: "raise"}[action.type]
        return situation, kind
    return None


def profile(paths: Iterable[str], player: str, game: GameDef) -> dict[str, dict[str, Counter]]:
    """Per situation and hand class, the counts of fold / call / raise of the player
    whose name contains ``player`` in the dealer logs ``paths``."""
    out: dict[str, dict[str, Counter]] = {"first in": {}, "facing a raise": {}}
    for path in paths:
        hands, _ = read_logged_hands(path, game)
        for h in hands:
            seats = [i for i, name in enumerate(h.names) if player in name]
            if len(seats) != 1:
                continue
            seat = seats[0]
            got = first_action(h.state, seat)
            if got is None:
                continue
            situation, kind = got
            cls = hand_class(h.state.hole_cards[seat])
            out[situation].setdefault(cls, Counter())[kind] += 1
    return out


def table(counts: dict[str, dict[str, Counter]]) -> str:
    """A Markdown table: per situation and class, the hands and the shares of each action."""
    lines = ["| situation | hands | n | fold | call | raise |", "|---|---|---:|---:|---:|---:|"]
    for situation, by_class in counts.items():
        for cls in CLASSES:
            c = by_class.get(cls)
            if not c:
                continue
            n = sum(c.values())
            shares = " | ".join(f"{100 * c[k] / n:.0f} %" for k in ("fold", "call", "raise"))
            lines.append(f"| {situation} | {cls} | {n} | {shares} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from pokerbot.protocol.gamedef import DEFAULT_GAME, load_gamedef

    p = argparse.ArgumentParser(description="a player's preflop actions by hand class, from dealer logs")
    p.add_argument("player", help="a part of the player's name in the logs (e.g. run, libratus)")
    p.add_argument("logs", nargs="+", help="dealer logs (match*.log)")
    p.add_argument("--game", default=DEFAULT_GAME)
    args = p.parse_args(argv)
    print(table(profile(args.logs, args.player, load_gamedef(args.game))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
