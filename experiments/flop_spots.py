"""Depth-limited flop solving at the agent's budget against the blueprint's flop (issue 33).

Flop spots come from play: blueprint against blueprint (what the agent and the
blueprint play before the flop), every hand that reaches the flop with both players
able to bet, ranges by Bayes' rule along the blueprint line. On each spot one
depth-limited public tree of the flop with the blueprint's own flop sizes (the flop
subgame sizes of the agent, without its per-hand scale), its leaves at the turn, and
each strategy measured exactly: both players' best responses over the rest of the
hand (the flop, then every turn and river card and all the turn and river betting of
the blueprint's sizes: ``cfr.exploitability`` with ``full_response`` on the tree built
with all 2,352 runouts), % of the pot. The later rounds are played by what the
strategy commits to at the leaves:

- ``blueprint``: the blueprint's flop (``continuation.blueprint_subgame_strategy``),
  then the blueprint's turn and river (continuation 0 for every hand);
- ``DL``: the agent's flop solve, stopped at the budget (runout sample, tree,
  continuations and bucket tables included), then, per hand, the mix of the four
  continuations (the blueprint and its fold-, call- and raise-biased versions on the
  turn and river) that the solve chose at each leaf;
- ``DL long``: the same solve given ``--long-seconds``.

``--later blueprint`` plays the depth-limited solve's flop followed by the blueprint's
turn and river instead (continuation 0 for every hand, as the blueprint's column): both
columns then differ only on the flop; ``--later both`` reports both.

``--later solved`` plays the turn and the river as the agent does, solved anew when
they come from the ranges the flop strategy reaches them with (the depth-limited turn
solve, ``--turn-iterations``, then each river, ``--river-iterations``), on
``--turn-cards`` turn cards and ``--river-cards`` river cards after each (keyed
samples, the same for every column; see ``experiments/later_solved.py``), for the
blueprint's flop and the solve's alike.

``--iterations`` / ``--long-iterations`` solve a fixed number of iterations instead
(what the budgets buy on this machine, measured apart), so that the table does not
depend on what else runs. ``--card-samples`` / ``--long-card-samples``: runouts a pass
(the agent's ``--card-samples``, 1 by default at any thread count; the solve is the same
at any ``--threads``), so one machine computes what a bigger one would play.

    .venv/bin/python experiments/flop_spots.py --blueprint blueprints/default.bp --spots 10 \\
        --iterations 25 --long-iterations 335 --out flop.json
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

import numpy as np

from pokerbot.blueprint_store.continuations import attach_blueprint_continuations, blueprint_subgame_strategy
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.bot.agent.config import AgentConfig
from pokerbot.bot.agent.libratus import RIVER_SUBGAME_SIZES, SUBGAME_SIZES
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.cards import cards_to_str
from pokerbot.solver import cfr
from pokerbot.solver.depth_limited import runout_sample
from pokerbot.solver.subgame import Subgame, make_subgame

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from experiments.depth_limited_spots import ranges_at, round_spots
from experiments.later_solved import AgentLater, flop_exploitability, keyed_cards
from experiments.report import add_options, add_spot_options, machine, measured


def flop_subgame(root: BettingState, reach: np.ndarray, deals: np.ndarray, walker: BlueprintPlay, node) -> Subgame:
    sub = make_subgame(root, {1: SUBGAME_SIZES[1]}, reach, leaf_round=2, leaf_deals=deals)
    attach_blueprint_continuations(sub, root, walker.view, node)
    return sub


def all_runouts(root: BettingState) -> np.ndarray:
    left = [c for c in root.game.deck() if c not in root.board_cards]
    return np.array([(d, e) for d in left for e in left if d != e], dtype=np.int64)


def dl_solve(
    root,
    reach,
    walker,
    node,
    seconds: float,
    key: int,
    iterations: int = 0,
    threads: int = 1,
    average_exponent: float = 2.0,
    warm_iterations: int = 0,
    warm_deals: int = 8,
    warm_regrets: str = "strategy",
    card_samples: int = 1,
) -> tuple[cfr.SolveResult, float]:
    """The agent's flop solve: runout sample, subgame and continuations, then CFR+
    with ``card_samples`` runouts a pass (the agent's ``--card-samples``, 1 by default),
    all inside ``seconds`` (or exactly ``iterations``), on ``threads`` (the same solve at any
    thread count), averaging as ``average_exponent`` says (``cfr.solve``);
    ``warm_iterations`` > 0: warm-started from the blueprint's flop as if it had
    played that many iterations, its advantages valued on ``warm_deals`` runouts."""
    t0 = time.perf_counter()
    deals = runout_sample(root.game.deck(), root.board_cards, AgentConfig().flop_rivers, key)
    sub = flop_subgame(root, reach, deals, walker, node)
    warm = None
    if warm_iterations > 0:
        warm = cfr.WarmStart(
            blueprint_subgame_strategy(sub, root, walker.view, node),
            warm_iterations,
            deals=warm_deals,
            regrets=warm_regrets,
        )
    setup = time.perf_counter() - t0
    how = {
        "card_samples": card_samples,
        "seed": key,
        "threads": threads,
        "average_exponent": average_exponent,
        "warm_start": warm,
    }
    if iterations > 0:
        return cfr.solve(sub, iterations, **how), setup  # type: ignore[arg-type]
    r = cfr.solve(sub, 100_000, deadline=max(seconds - setup, 0.01), **how)  # type: ignore[arg-type]
    return r, setup


#: The blueprint's columns: later rounds by the blueprint, or solved anew (``_solved``).
BLUEPRINT_COLUMNS = ("blueprint", "blueprint_solved")
#: The depth-limited columns, in the order they print: later rounds by the solve's
#: continuation mix (``dl``), by the blueprint (``_bp``) or solved anew (``_solved``),
#: at the budget and the long one.
DL_COLUMNS = ("dl", "dl_bp", "dl_solved", "dl_long", "dl_long_bp", "dl_long_solved")


def cell(row: dict, column: str) -> str:
    """A column's figure; with the later rounds solved, the total / the later rounds' part."""
    later = row.get(column + "_later")
    return f"{row[column]:.1f}" + ("" if later is None else f" / {later:.1f}")


def iterations_key(column: str) -> str:
    """The row's key of a depth-limited column's iteration count."""
    return column.removesuffix("_bp").removesuffix("_solved") + "_iterations"


def measure(args: argparse.Namespace) -> dict:
    bp = Blueprint(args.blueprint)
    walker = BlueprintPlay(bp, random.Random(0))
    spots = [root for root, _ in round_spots(bp, args.spots + 1, args.seed, 1)]
    rows = []
    for i, root in enumerate(spots):
        reach, node = ranges_at(walker, root)
        if i == 0:  # load every solving kernel first (not reported)
            dl_solve(root, reach, walker, node, args.seconds, key=0, threads=args.threads)
            continue
        committed = bool(args.later & {"mix", "blueprint"})
        t0 = time.perf_counter()
        # with the committed later rounds scored, every runout; else the tree alone matters
        exact = flop_subgame(root, reach, all_runouts(root) if committed else all_runouts(root)[:1], walker, node)
        build = time.perf_counter() - t0
        pot = exact.pot
        c = exact.continuations
        assert c is not None
        H = exact.hands.shape[0]
        blueprint_mix = np.zeros((2, c.num_leaves, c.num_strategies, H))
        blueprint_mix[:, :, 0] = 1.0
        row: dict = {"betting": root.betting_string(), "board": root.board_cards, "pot": pot, "leaves": c.num_leaves}
        th = args.threads
        bp_strategy = blueprint_subgame_strategy(exact, root, walker.view, node)
        later = AgentLater(
            walker, SUBGAME_SIZES[2], RIVER_SUBGAME_SIZES, args.turn_iterations, args.river_iterations, th, args.seed
        )
        turn_cards = keyed_cards(args.turn_cards, args.seed)
        river_cards = keyed_cards(args.river_cards, args.seed)

        t0 = time.perf_counter()
        if committed:
            row["blueprint"] = (
                100 * cfr.exploitability(exact, bp_strategy, blueprint_mix, full_response=True, threads=th) / pot
            )
        if "solved" in args.later:
            score = flop_exploitability(exact, bp_strategy, root, later, turn_cards, river_cards)
            row["blueprint_solved"], row["blueprint_solved_later"] = 100 * score.total / pot, 100 * score.later / pot
        row["eval_seconds"] = round(time.perf_counter() - t0, 1)
        row["build_seconds"] = round(build, 1)
        budgets = (
            ("dl", args.seconds, args.iterations, args.average_exponent, args.warm_start, args.card_samples),
            (
                "dl_long",
                args.long_seconds,
                args.long_iterations,
                args.long_average_exponent,
                args.long_warm_start,
                args.long_card_samples,
            ),
        )
        for name, seconds, iterations, exponent, warm, samples in budgets:
            if seconds <= 0 and iterations <= 0:
                continue
            r, setup = dl_solve(
                root,
                reach,
                walker,
                node,
                seconds,
                1000 * args.seed + i,
                iterations,
                th,
                exponent,
                warm,
                args.warm_deals,
                args.warm_regrets,
                samples,
            )
            assert r.leaf_strategy is not None
            if "mix" in args.later:
                row[name] = (
                    100 * cfr.exploitability(exact, r.strategy, r.leaf_strategy, full_response=True, threads=th) / pot
                )
            if "blueprint" in args.later:
                row[f"{name}_bp"] = (
                    100 * cfr.exploitability(exact, r.strategy, blueprint_mix, full_response=True, threads=th) / pot
                )
            if "solved" in args.later:
                score = flop_exploitability(exact, r.strategy, root, later, turn_cards, river_cards)
                row[f"{name}_solved"], row[f"{name}_solved_later"] = 100 * score.total / pot, 100 * score.later / pot
            row[f"{name}_iterations"] = r.iterations
            row[f"{name}_setup"] = round(setup, 3)
        rows.append(row)
        cols = [cell(row, k) for k in BLUEPRINT_COLUMNS if k in row]
        cols += [f"{cell(row, k)} ({row[iterations_key(k)]})" for k in DL_COLUMNS if k in row]
        print(
            f"| {len(rows)} | `{row['betting']}` | {cards_to_str(root.board_cards)} | {pot} | "
            + " | ".join(cols)
            + " |",
            flush=True,
        )
    keys = [k for k in BLUEPRINT_COLUMNS + DL_COLUMNS if k in rows[0]]
    later_keys = [k + "_later" for k in keys if k.endswith("_solved")]
    med = {k: statistics.median(r[k] for r in rows) for k in keys + later_keys}
    print("| **median** | | | | " + " | ".join(f"**{cell(med, k)}**" for k in keys) + " |")
    for k in DL_COLUMNS:
        base = "blueprint_solved" if k.endswith("_solved") else "blueprint"
        if k not in rows[0] or base not in rows[0]:
            continue
        ratio = [r[k] / r[base] for r in rows]
        print(
            f"{k} / {base} per spot: median {statistics.median(ratio):.2f}, "
            f"{min(ratio):.2f}-{max(ratio):.2f}, better on {sum(x < 1 for x in ratio)} of {len(ratio)}"
        )
    return {
        "machine": machine(),
        "cpu": platform.processor() or platform.machine(),
        "seconds": args.seconds,
        "long_seconds": args.long_seconds,
        "iterations": args.iterations,
        "long_iterations": args.long_iterations,
        "seed": args.seed,
        "average_exponents": [args.average_exponent, args.long_average_exponent],
        "warm_starts": [args.warm_start, args.long_warm_start],
        "card_samples": [args.card_samples, args.long_card_samples],
        "warm_deals": args.warm_deals,
        "warm_regrets": args.warm_regrets,
        "later": sorted(args.later),
        "turn_cards": args.turn_cards,
        "river_cards": args.river_cards,
        "turn_iterations": args.turn_iterations,
        "river_iterations": args.river_iterations,
        "threads": args.threads,
        "rows": rows,
        "median_pct_pot": med,
    }


#: The measure's options (name, type, default, help); each long-solve twin: the same for the long solve.
ITERATIONS = (
    "solve exactly this many iterations instead of --seconds (what the budget buys, measured apart: the table "
    "then does not depend on what else the machine runs)"
)
WARM_START = (
    "warm-start the flop solve from the blueprint's flop as if it had played this many iterations (cfr.WarmStart; "
    "default 0: from scratch, as the tables before the warm start were measured; the agent's is 500)"
)
CARD_SAMPLES = (
    "runouts of the sample a pass values its leaves on (the agent's --card-samples, 1 by default at any thread "
    "count; the solve is the same at any --threads)"
)
THREADS = (
    "solves and evaluations on this many threads (the agent's --threads; the figures do not change with it when "
    "--iterations fixes the solves)"
)
OPTIONS: tuple[tuple[str, type, object, str], ...] = (
    ("--seconds", float, 2.0, "the agent's budget per solve, setup included"),
    ("--long-seconds", float, 0.0, "also a solve this long (0: not)"),
    ("--iterations", int, 0, ITERATIONS),
    ("--long-iterations", int, 0, "the same for the long solve"),
    ("--average-exponent", float, 2.0, "the flop solve's average weighs iteration t by t to this power (the agent's)"),
    ("--long-average-exponent", float, 2.0, "the same, long solve"),
    ("--warm-start", int, 0, WARM_START),
    ("--long-warm-start", int, 0, "the same, long solve"),
    ("--warm-deals", int, 8, "runouts a warm start values its advantages on"),
    ("--card-samples", int, 1, CARD_SAMPLES),
    ("--long-card-samples", int, 1, "the same, long solve"),
    ("--turn-cards", int, 4, "with --later solved: turn cards measured (0: all)"),
    ("--river-cards", int, 4, "with --later solved: river cards a turn (0: all)"),
    ("--turn-iterations", int, 300, "with --later solved: a turn solve's iterations"),
    ("--river-iterations", int, 100, "with --later solved: a river solve's iterations"),
    ("--threads", int, 1, THREADS),
)
LATER = (
    "how the turn and river are played in the measure, one or more: the continuation mix the depth-limited solve "
    "chose (mix, the default), the blueprint's (blueprint; both: mix and blueprint), or solved anew when they "
    "come, as the agent plays them (solved: see experiments/later_solved.py)"
)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line's options, ``--later`` as a set (``both``: mix and blueprint)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_spot_options(ap, spots=10)
    add_options(ap, OPTIONS)
    ap.add_argument("--warm-regrets", choices=cfr.WARM_REGRETS, default="strategy", help="cfr.WarmStart's regrets")
    ap.add_argument("--later", nargs="+", choices=("mix", "blueprint", "both", "solved"), default=["mix"], help=LATER)
    args = ap.parse_args(argv)
    args.later = set(args.later) - {"both"} | ({"mix", "blueprint"} if "both" in args.later else set())
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    print(machine())
    budgets = [f"DL {args.iterations} iterations" if args.iterations else f"DL {args.seconds:g} s (iterations)"]
    if args.long_iterations > 0:
        budgets.append(f"DL {args.long_iterations} iterations")
    elif args.long_seconds > 0:
        budgets.append(f"DL {args.long_seconds:g} s (iterations)")
    exponents = (args.average_exponent, args.long_average_exponent)
    budgets = [b + f", t^{e:g} average" for b, e in zip(budgets, exponents)]
    warms = (args.warm_start, args.long_warm_start)
    budgets = [b + (f", warm {w}" if w else "") for b, w in zip(budgets, warms)]
    samples = (args.card_samples, args.long_card_samples)
    budgets = [b + (f", {k} runouts a pass" if k != 1 else "") for b, k in zip(budgets, samples)]
    laters = [
        label
        for key, label in (("mix", ""), ("blueprint", ", blueprint later"), ("solved", ", later solved"))
        if key in args.later
    ]
    blueprint_cols = ["blueprint"] if args.later & {"mix", "blueprint"} else []
    blueprint_cols += ["blueprint, later solved"] if "solved" in args.later else []
    cols = blueprint_cols + [b + later for b in budgets for later in laters]
    if "solved" in args.later:
        print("later solved: each cell is the exploitability / the part of it from the turn on (% of the pot)")
    print("| spot | flop line | board | pot | " + " | ".join(cols) + " |")
    measured(measure, args)


if __name__ == "__main__":
    main()
