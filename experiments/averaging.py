"""Linear against quadratic averaging in CFR+, measured exactly (``cfr.solve``'s
``average_exponent``; the agent's choice is ``libratus.average_exponent``).

Spots from play (blueprint against blueprint, seed 1, both ranges by Bayes' rule, as
``depth_limited_spots.py``): on river spots the agent's river subgame (every card
valued), exploitability as a percentage of the pot after each iteration count; on turn
spots the agent's depth-limited turn subgame with the blueprint's continuations, one
river card a pass, exploitability within the depth-limited game (best responses
among the continuations at the leaves), or, ``--river-solved``, as the agent plays it:
each river after it (every card) solved anew from the ranges the turn strategy reaches
it with (``later_solved.turn_values``: the agent's river subgame, ``--river-iterations``,
its averaging), best responses over the turn and the river. Each count is a fresh solve.

    .venv/bin/python experiments/averaging.py --blueprint blueprints/default.bp --spots 10 \\
        --round river --iterations 100 300 1000
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from experiments.depth_limited_spots import ranges_at, round_spots
from experiments.later_solved import AgentLater, keyed_cards, turn_values
from experiments.later_solved import exploitability as split_exploitability
from experiments.report import machine
from pokerbot.blueprint_store.continuations import attach_blueprint_continuations
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.bot.agent.libratus import RIVER_SUBGAME_SIZES, SUBGAME_SIZES
from pokerbot.solver import cfr
from pokerbot.solver.subgame import make_subgame

EXPONENTS = (1.0, 2.0)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blueprint", required=True)
    ap.add_argument("--spots", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--round", choices=("river", "turn"), default="river")
    ap.add_argument("--iterations", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument(
        "--river-solved",
        action="store_true",
        help="turn spots: score each turn strategy with every river solved anew, as the agent plays",
    )
    ap.add_argument("--river-iterations", type=int, default=300, help="with --river-solved: a river solve's iterations")
    return ap


def columns(args: argparse.Namespace) -> list[tuple[int, float]]:
    """The table's columns: (iterations, average exponent), each count's exponents side by side."""
    return [(it, e) for it in args.iterations for e in EXPONENTS]


def measure(args: argparse.Namespace) -> list[tuple[str, list[float]]]:
    """Per spot, its betting line and the exploitability (% of the pot) of each of
    ``columns(args)``'s solves; each row printed as it comes."""
    bp = Blueprint(args.blueprint)
    walker = BlueprintPlay(bp, random.Random(0))
    cols = [f"{it} its, t^{e:g}" for it, e in columns(args)]
    print("| spot | line | " + " | ".join(cols) + " |")
    rows = []
    for root, _ in round_spots(bp, args.spots, args.seed, 3 if args.round == "river" else 2):
        reach, node = ranges_at(walker, root)
        if args.round == "river":
            sub = make_subgame(root, RIVER_SUBGAME_SIZES, reach)
            samples = 0
        else:
            sub = make_subgame(root, {2: SUBGAME_SIZES[2]}, reach, leaf_round=3)
            if sub.tree.num_leaves == 0:
                continue
            attach_blueprint_continuations(sub, root, walker.view, node)
            samples = 1
        row = []
        for it, e in columns(args):
            if args.river_solved and args.round == "turn":
                later = AgentLater(
                    walker, SUBGAME_SIZES[2], RIVER_SUBGAME_SIZES, it, args.river_iterations, 1, args.seed, e
                )
                hands, values = turn_values(later, root, reach, keyed_cards(0, 0))
                assert np.array_equal(hands, sub.hand_index)  # the same subgame, the same hand order
                row.append(100 * split_exploitability(sub, values) / sub.pot)
                continue
            r = cfr.solve(sub, it, card_samples=samples, seed=args.seed, average_exponent=e)
            row.append(100 * cfr.exploitability(sub, r.strategy, r.leaf_strategy) / sub.pot)
        rows.append((root.betting_string(), row))
        print(f"| {len(rows)} | `{root.betting_string()}` | " + " | ".join(f"{x:.2f}" for x in row) + " |", flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    print(machine())
    rows = [row for _, row in measure(args)]
    med = [statistics.median(r[i] for r in rows) for i in range(len(columns(args)))]
    print("| **median** | | " + " | ".join(f"**{x:.2f}**" for x in med) + " |")
    for j, it in enumerate(args.iterations):
        better = sum(r[2 * j + 1] < r[2 * j] for r in rows)
        print(f"{it} iterations: quadratic lower on {better} of {len(rows)} spots")


if __name__ == "__main__":
    main()
