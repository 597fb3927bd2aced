"""Depth-limited against full-depth turn solving at the agent's budget (issue 23).

Turn spots come from play: blueprint against blueprint (what the agent and the
blueprint play until the turn: the agent follows the blueprint on the first two
rounds), every hand that reaches the turn with both players able to bet, ranges by
Bayes' rule along the blueprint line. On each spot, one public tree of the turn and
river with the blueprint's own bet sizes, and three strategies measured in it exactly
(best response of both players over the whole tree, % of the pot):

- the blueprint (its strategy on that tree: ``bot.continuation.blueprint_subgame_strategy``);
- full-depth CFR+ on that tree, stopped at the budget (tree building included);
- the depth-limited solve of the turn with Pluribus's four continuations per player at
  the river leaves, stopped at the same budget (tree, continuations and bucket table
  included), played below the leaves as its mix of continuations
  (``solver.depth_limited.full_depth_strategy``): every next card (``all``) or keyed
  draws of it per pass (``s1``, ``s4``, ...);
- full-depth solves of fixed iteration counts (``--full-iterations``: every river card
  a pass; ``--sampled K:N``: K river cards a pass, N iterations), each with the
  regret and averaging rules of ``--rules`` (CFR+ with linear or quadratic averaging,
  Discounted CFR): columns ``full_N_RULE`` and ``full_kK_N_RULE``.

    .venv/bin/python experiments/depth_limited_spots.py --blueprint blueprints/default.bp \\
        --spots 20 --seconds 2 --samples 0 1 4 --out /tmp/dl.json
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
from pokerbot.bot.cli.options import pair_type
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import cfr
from pokerbot.solver import ranges as rg
from pokerbot.solver.depth_limited import full_depth_strategy
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import CHANCE, DECISION

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from experiments.report import add_options, add_spot_options, measured


def turn_spots(bp: Blueprint, count: int, seed: int) -> list[tuple[BettingState, list[int]]]:
    """(turn-start state with its board, the full deal's board) of hands where both
    blueprint players reach the turn with chips behind."""
    return round_spots(bp, count, seed, 2)


def round_spots(bp: Blueprint, count: int, seed: int, round_: int) -> list[tuple[BettingState, list[int]]]:
    """(state at the start of ``round_`` with its board and no hole cards, the full
    deal's board) of hands where both blueprint players reach that round with chips
    behind."""
    game = bp.game
    rng = np.random.default_rng(seed)
    players = [BlueprintStrategy(seed=seed, blueprint=bp), BlueprintStrategy(seed=seed + 1, blueprint=bp)]
    out = []
    hand = 0
    while len(out) < count:
        hand += 1
        deck = [int(c) for c in rng.permutation(game.deck())]
        st = BettingState(game, hand, [deck[0:2], deck[2:4]], deck[4:9])
        while not st.finished and st.round < round_:
            p = st.current_player
            assert p is not None
            st.apply(players[p].act(MatchState(p, st)))
        if st.finished or st.round != round_ or st.raise_bounds() is None or st.actions[round_]:
            continue
        root = BettingState(game, hand, None, deck[4 : 4 + game.total_board_cards(round_)])
        for r in range(round_):
            for a in st.actions[r]:
                root.apply(a)
        out.append((root, deck[4:9]))
    return out


def ranges_at(player: BlueprintPlay, root: BettingState) -> tuple[np.ndarray, int | None]:
    node, path = player.walk(root)
    reach = np.zeros((2, 1326))
    blocked = rg.blocked_by(rg.hole_hands(root.game), tuple(root.board_cards))
    for p in (0, 1):
        reach[p] = player.view.reach(path, p, root.board_cards)
        reach[p][blocked] = 0.0
    return reach, node


def river_resolved(full, root: BettingState, river_sizes, strategy: np.ndarray, iterations: int) -> np.ndarray:
    """``strategy`` with every river subgame (below each turn line that reaches the
    river with chips behind, each card) replaced by an unsafe CFR+ solve of it from
    the reaches ``strategy`` gives there: how an agent that solves the river anew
    when it comes plays with that turn strategy."""
    tree = full.tree
    _, reaches = cfr.node_values(full, strategy, 0)
    out = strategy.copy()
    column = {int(h): i for i, h in enumerate(full.hand_index)}
    parent = np.full(tree.num_nodes, -1)
    for n in range(tree.num_nodes):
        f, m = int(tree.first_child[n]), int(tree.num_children[n])
        parent[f : f + m] = n
    for ch in range(tree.num_nodes):
        p = parent[ch]
        if p < 0 or tree.kind[p] != CHANCE or tree.kind[ch] != DECISION:  # a river decision below a chance node
            continue
        line = []
        n = int(p)
        while parent[n] >= 0:
            line.append(tree.actions[n])
            n = int(parent[n])
        st = root.copy()
        for a in reversed(line):
            st.apply(a)
        st.deal_board_cards([int(tree.dealt[ch])])
        reach = np.zeros((2, 1326))
        reach[:, full.hand_index] = reaches[:, ch]
        river = make_subgame(st, river_sizes, reach)
        r = cfr.solve(river, iterations)
        cols = np.array([column[int(h)] for h in river.hand_index])
        stack = [(ch, 0)]
        while stack:  # the river tree is the full tree's subtree below ch, child for child
            fn, rn = stack.pop()
            if tree.kind[fn] != DECISION:
                continue
            f, rf = int(tree.first_child[fn]), int(river.tree.first_child[rn])
            for j in range(int(tree.num_children[fn])):
                out[f + j] = 0.0
                out[f + j, cols] = r.strategy[rf + j]
                stack.append((f + j, rf + j))
    return out


#: A full-depth solve's regret and averaging rule: (average exponent, Discounted CFR's (alpha, beta) or None).
RULES = {"cfr+1": (1.0, None), "cfr+2": (2.0, None), "dcfr": (2.0, cfr.DCFR)}


def _full_variants(args: argparse.Namespace) -> list[tuple[int, int, str]]:
    """The fixed-count full-depth solves: (river cards a pass, 0 every one; iterations; rule)."""
    runs = [(0, n) for n in args.full_iterations] + [_sampled(x) for x in args.sampled]
    return [(k, n, rule) for k, n in runs for rule in args.rules]


_sampled = pair_type(
    "--sampled takes CARDS:ITERATIONS",
    lambda k, n: k >= 1 and n >= 1,
    "--sampled: cards and iterations must be positive",
)


def _full_key(k: int, n: int, rule: str) -> str:
    return f"full_{n}_{rule}" if k == 0 else f"full_k{k}_{n}_{rule}"


def _full_label(k: int, n: int, rule: str) -> str:
    cards = "every river card" if k == 0 else f"{k} river card{'s' if k > 1 else ''} a pass"
    return f"full depth, {cards}, {n} iterations, {rule}"


def _variants(args: argparse.Namespace) -> list[tuple[int, int]]:
    """The depth-limited solves: (cards a pass, iterations; 0: the --seconds budget)."""
    return [(s, n) for s in args.samples for n in (args.iterations or [0])]


def _key(samples: int, iterations: int = 0) -> str:
    key = "all" if samples == 0 else f"s{samples}" if samples > 0 else f"i{-samples}"
    return f"{key}x{iterations}" if iterations else key


def _label(samples: int, iterations: int = 0) -> str:
    if samples == 0:
        label = "DL all cards"
    else:
        label = f"DL {samples} card(s) in turn" if samples > 0 else f"DL {-samples} card(s) independent"
    return f"{label}, {iterations} iterations" if iterations else label


def _columns(args: argparse.Namespace) -> list[str]:
    """The strategies' keys, in the table's order."""
    full = [_full_key(k, n, rule) for k, n, rule in _full_variants(args)]
    return ["blueprint"] + (["full"] if args.seconds > 0 else []) + full + [_key(s, n) for s, n in _variants(args)]


def measure(args: argparse.Namespace) -> dict:
    bp = Blueprint(args.blueprint)
    sizes = bp.actions.sizes()
    walker = BlueprintPlay(bp, random.Random(0))
    spots = turn_spots(bp, args.skip + args.spots + 1, args.seed)
    timed = args.seconds > 0  # a warm-up spot compiles every kernel first (not counted)
    spots = (spots[:1] if timed else []) + spots[1 + args.skip :]
    rows = []
    for i, (root, _) in enumerate(spots):
        warm = timed and i == 0
        i += 0 if warm else args.skip + (0 if timed else 1)  # the spot's number (its seed) whatever was skipped
        reach, node = ranges_at(walker, root)
        t0 = time.perf_counter()
        full = make_subgame(root, {2: sizes[2], 3: sizes[3]}, reach)
        setup = time.perf_counter() - t0
        pot = full.pot
        bp_strategy = blueprint_subgame_strategy(full, root, walker.view, node)
        row = {
            "betting": root.betting_string(),
            "pot": pot,
            "full_nodes": full.tree.num_nodes,
            "blueprint": 100 * cfr.exploitability(full, bp_strategy) / pot,
        }
        resolved = {}
        if args.river_iterations:
            resolved["blueprint"] = river_resolved(full, root, sizes[3], bp_strategy, args.river_iterations)
        if args.seconds > 0:
            r = cfr.solve(full, 100_000, deadline=max(args.seconds - setup, 0.01), threads=args.threads)
            row["full"] = 100 * cfr.exploitability(full, r.strategy) / pot
            row["full_iterations"] = r.iterations
            if args.river_iterations:
                resolved["full"] = river_resolved(full, root, sizes[3], r.strategy, args.river_iterations)
        for k, n, rule in _full_variants(args):
            exponent, discount = RULES[rule]
            t0 = time.perf_counter()
            r = cfr.solve(
                full, n, threads=args.threads, chance_samples=k, seed=i, average_exponent=exponent, discount=discount
            )
            key = _full_key(k, n, rule)
            row[f"{key}_seconds"] = time.perf_counter() - t0
            row[key] = 100 * cfr.exploitability(full, r.strategy) / pot
            if args.river_iterations:
                resolved[key] = river_resolved(full, root, sizes[3], r.strategy, args.river_iterations)
        for s, n in _variants(args):
            t0 = time.perf_counter()
            dl = make_subgame(root, {2: sizes[2]}, reach, leaf_round=3)
            stats = attach_blueprint_continuations(dl, root, walker.view, node)
            setup = time.perf_counter() - t0
            d = cfr.solve(
                dl,
                n or 100_000,
                deadline=None if n else max(args.seconds - setup, 0.01),
                card_samples=abs(s),
                seed=i,
                independent_cards=s < 0,
                threads=args.threads,
            )
            assert d.leaf_strategy is not None
            played = full_depth_strategy(dl, d.strategy, d.leaf_strategy, full)
            key = _key(s, n)
            row[key] = 100 * cfr.exploitability(full, played) / pot
            row[f"{key}_iterations"] = d.iterations
            row[f"{key}_setup"] = setup
            if args.river_iterations:
                resolved[key] = river_resolved(full, root, sizes[3], played, args.river_iterations)
            row["dl_nodes"] = dl.tree.num_nodes
            row["leaves"] = stats.leaves
            row["unmapped_leaves"] = stats.unmapped_leaves
        for k, v in resolved.items():
            row[f"{k}_river_solved"] = 100 * cfr.exploitability(full, v) / pot
        if warm:
            continue
        rows.append(row)
        cols = " | ".join(f"{row[k]:.1f}" for k in _columns(args))
        if args.river_iterations:
            cols += " | " + " | ".join(f"{row[k + '_river_solved']:.1f}" for k in _columns(args))
        print(f"| {len(rows) + args.skip} | {row['betting']} | {pot} | {cols} |", flush=True)
    keys = _columns(args)
    if args.river_iterations:
        keys += [k + "_river_solved" for k in keys]
    med = {k: statistics.median(r[k] for r in rows) for k in keys}
    solved = (["full"] if args.seconds > 0 else []) + [_key(s, n) for s, n in _variants(args)]
    its = {k: statistics.median(r[f"{k}_iterations"] for r in rows) for k in solved}
    print("| median | | | " + " | ".join(f"{med[k]:.1f}" for k in keys) + " |")
    print("median iterations: " + ", ".join(f"{k} {its[k]:.0f}" for k in solved))
    return {
        "cpu": platform.processor() or platform.machine(),
        "seconds": args.seconds,
        "seed": args.seed,
        "rows": rows,
        "median_pct_pot": med,
        "median_iterations": its,
        "river_iterations": args.river_iterations,
        "iterations": args.iterations,
        "threads": args.threads,
    }


#: The options of one value: (name, type, default, help).
OPTIONS: tuple[tuple[str, type, object, str], ...] = (
    ("--seconds", float, 2.0, "budget per solve, setup included (0: no full-depth solve by time)"),
    ("--threads", int, 1, "solver threads (the results do not depend on them)"),
    ("--skip", int, 0, "leave out the first SKIP spots (another process measures them)"),
    (
        "--river-iterations",
        int,
        0,
        "also measure each strategy with every river subgame solved anew (CFR+, this many iterations) "
        "from its ranges, as an agent that solves the river when it comes plays it (0: not)",
    ),
)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_spot_options(ap, spots=20)
    add_options(ap, OPTIONS)
    ap.add_argument(
        "--full-iterations",
        type=int,
        nargs="*",
        default=[],
        help="full-depth solves of exactly these iteration counts, every river card a pass (a column each)",
    )
    ap.add_argument(
        "--sampled",
        nargs="*",
        default=[],
        help="full-depth solves with K river cards a pass for N iterations, given as K:N (a column each)",
    )
    ap.add_argument(
        "--rules",
        nargs="+",
        default=["cfr+2"],
        choices=sorted(RULES),
        help="the fixed-count full-depth solves' regret and averaging rules: CFR+ with linear (cfr+1) or quadratic "
        "(cfr+2, the agent's) averaging, or Discounted CFR (1.5, 0, 2) (a column each; default cfr+2)",
    )
    ap.add_argument(
        "--samples",
        type=int,
        nargs="*",
        default=[0, 1, 4],
        help="cards per pass (0: every card; negative: drawn independently, else in turn from a keyed shuffle)",
    )
    ap.add_argument(
        "--iterations",
        type=int,
        nargs="+",
        default=None,
        help="depth-limited solves of exactly these iteration counts (a column each) instead of the --seconds budget",
    )
    return ap


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line's options, the counts checked (an error exits as argparse does)."""
    ap = parser()
    args = ap.parse_args(argv)
    if args.iterations and min(args.iterations) < 1:
        ap.error("--iterations: counts must be at least 1")
    if args.full_iterations and min(args.full_iterations) < 1:
        ap.error("--full-iterations: counts must be at least 1")
    try:
        for x in args.sampled:
            _sampled(x)
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    labels = (
        ["blueprint"]
        + (["full depth"] if args.seconds > 0 else [])
        + [_full_label(k, n, rule) for k, n, rule in _full_variants(args)]
        + [_label(s, n) for s, n in _variants(args)]
    )
    cols = " | ".join(labels)
    if args.river_iterations:
        cols += " | " + " | ".join(c + ", river solved" for c in labels)
    print(f"| spot | betting | pot | {cols} |")
    measured(measure, args)


if __name__ == "__main__":
    main()
