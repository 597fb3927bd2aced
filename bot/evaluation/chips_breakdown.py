"""Where a match's chips go: player A's result per hand (raw, all-in adjusted and AIVAT,
from ``aivat.csv``) split by where the hand ended, A's position and the preflop line
(from the dealer logs). Each group's contribution to A's mbb/hand (its hands' sum over
all hands) comes with a 95 % interval over hands; the contributions of a split add up
to the match's figure.

    .venv/bin/python -m pokerbot.bot.evaluation.chips_breakdown match-results [more dirs...]
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Sequence

import numpy as np

from pokerbot.bot.evaluation.match_log import read_logged_hands
from pokerbot.bot.evaluation.stats import mean_interval
from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.protocol.gamedef import GameDef

ROUNDS = ("preflop", "flop", "turn", "river")


def ended(state: BettingState) -> str:
    """Where the hand ended: a round's name (a fold there) or ``showdown``."""
    if state.folded[0] or state.folded[1]:
        last = max(r for r in range(len(state.actions)) if state.actions[r])
        return f"fold on the {ROUNDS[last]}"
    return "showdown"


def preflop_line(state: BettingState, seat: int) -> str:
    """The preflop betting from ``seat``'s side: who folded at once, a limp, or the
    number of raises (an all-in called preflop apart)."""
    actions, actors = state.actions[0], state.actors[0]
    raises = sum(a.type is ActionType.RAISE for a in actions)
    if actions and actions[-1].type is ActionType.FOLD:
        who = "A" if actors[-1] == seat else "B"
        return f"{who} folds preflop to {raises} raise{'s' if raises != 1 else ''}"
    if raises == 0:
        return "limped"
    if not any(state.actions[r] for r in range(1, len(state.actions))) and not any(state.folded):
        return "all in preflop"
    return {1: "raised pot", 2: "3-bet pot"}.get(raises, "4-bet+ pot")


#: The splits: name -> what a hand's key is, given its state and A's seat.
SPLITS: dict[str, Callable[[BettingState, int], str]] = {
    "where it ended": lambda state, seat: ended(state),
    "A's position": lambda state, seat: "A small blind" if seat == 1 else "A big blind",
    "preflop line": preflop_line,
}


def read_hands(out_dir: str, game: GameDef) -> list[tuple[BettingState, int, dict[str, float]]]:
    """Each hand of a match directory: its final state, A's seat, A's values from
    ``aivat.csv`` (raw, allin_adjusted, aivat), matched by run and hand number."""
    values: dict[tuple[str, int], dict[str, float]] = {}
    with open(os.path.join(out_dir, "aivat.csv"), newline="") as f:
        for row in csv.DictReader(f):
            values[(row["run"], int(row["hand"]))] = {
                k: float(row[k]) for k in ("raw", "allin_adjusted", "aivat") if row.get(k) not in (None, "")
            }
            values[(row["run"], int(row["hand"]))]["position"] = float(row["position"])
    out = []
    for run in ("match1", "match2"):
        path = os.path.join(out_dir, f"{run}.log")
        if not os.path.exists(path):
            continue
        hands, _ = read_logged_hands(path, game)
        for number, h in enumerate(hands):
            v = values.get((run, number))
            if v is None:
                continue
            seat = int(v.pop("position"))
            out.append((h.state, seat, v))
    return out


def breakdown(hands: Sequence[tuple[BettingState, int, dict[str, float]]], big_blind: int, series: str) -> dict:
    """Per split and group: hands, share, and the contribution to A's mbb/hand (``series``
    of the values) with its 95 % interval."""
    n = len(hands)
    if n == 0:
        raise ValueError("no hands to break down")
    chips = np.array([v[series] for _, _, v in hands])
    total = float(chips.mean()) * 1000 / big_blind
    out: dict = {"hands": n, "series": series, "mbb_per_hand": total, "splits": {}}
    for split, key in SPLITS.items():
        keys = [key(state, seat) for state, seat, _ in hands]
        groups = {}
        for g in sorted(set(keys)):
            member = np.array([k == g for k in keys])
            part = np.where(member, chips, 0.0) * 1000 / big_blind
            groups[g] = {
                "hands": int(member.sum()),
                "share": float(member.mean()),
                "mbb_per_hand": float(part.mean()),
                "ci95": mean_interval(part)[1],
            }
        out["splits"][split] = groups
    return out


def table(result: dict) -> str:
    lines = [
        f"A: {result['mbb_per_hand']:+,.1f} mbb/hand ({result['series']}, {result['hands']:,} hands)",
        "",
        "| split | group | hands | share | contribution, mbb/hand (95 %) |",
        "|---|---|---:|---:|---:|",
    ]
    for split, groups in result["splits"].items():
        for g, s in sorted(groups.items(), key=lambda kv: kv[1]["mbb_per_hand"]):
            lines.append(
                f"| {split} | {g} | {s['hands']:,} | {100 * s['share']:.1f} % | "
                f"{s['mbb_per_hand']:+,.1f} ± {s['ci95']:,.1f} |"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from pokerbot.protocol.gamedef import DEFAULT_GAME, load_gamedef

    p = argparse.ArgumentParser(description="where a match's chips go (A's result by split)")
    p.add_argument("dirs", nargs="+", help="match directories (pokerbot match --aivat: aivat.csv, match*.log)")
    p.add_argument("--series", choices=("aivat", "allin_adjusted", "raw"), default="aivat")
    p.add_argument("--game", default=DEFAULT_GAME)
    args = p.parse_args(argv)
    game = load_gamedef(args.game)
    hands = [h for d in args.dirs for h in read_hands(d, game)]
    print(table(breakdown(hands, game.big_blind, args.series)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
