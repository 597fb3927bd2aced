"""``pokerbot bench depth-limited``: the agent's depth-limited flop and turn subgames
with a blueprint's continuations, per CFR+ iteration on one thread and on two (the
leaves valued in shares, docs/performance.md), and the setup a solve pays before its
first iteration (runout sample, bucket table, continuation strategies)."""

from __future__ import annotations

import os
import random
import statistics
import time

from pokerbot.bot.bench.common import machine_description, per_iteration

#: The spots: the flop after a 3x open called, and its turn after checks.
FLOP_BOARD, FLOP_BETTING = "QsJh2h", "r300c/"
TURN_BOARD, TURN_BETTING = "QsJh2h5c", "r300c/cc/"


def _ms_per_iteration(cfr, sub, iterations: int, threads: int, repeats: int) -> float:
    """Per iteration of ``sub``'s solve as the agent runs it (one runout or river card a pass)."""
    _, seconds = per_iteration(
        lambda n: cfr.solve(sub, n, threads=threads, card_samples=1, seed=1), iterations, repeats
    )
    return seconds * 1000


def bench_depth_limited(blueprint: str, repeats: int = 5) -> dict:
    from pokerbot.blueprint_store import continuations
    from pokerbot.blueprint_store.real_play import BlueprintPlay
    from pokerbot.blueprint_store.store import Blueprint
    from pokerbot.bot.agent.config import AgentConfig
    from pokerbot.bot.agent.libratus import SUBGAME_SIZES
    from pokerbot.protocol.betting import BettingState, apply_betting
    from pokerbot.protocol.cards import parse_cards
    from pokerbot.solver import cfr
    from pokerbot.solver.depth_limited import runout_sample
    from pokerbot.solver.subgame import make_subgame

    bp = Blueprint(blueprint)
    player = BlueprintPlay(bp, random.Random(1))
    out: dict = {"machine": machine_description(), "repeats": repeats, "blueprint": os.path.basename(blueprint)}
    spots = (
        ("flop", FLOP_BOARD, FLOP_BETTING, 1, 20),
        ("turn", TURN_BOARD, TURN_BETTING, 2, 200),
    )
    for name, board, betting, rnd, iterations in spots:
        state = apply_betting(BettingState(bp.game, 7, None, parse_cards(board)), betting)
        node = player.walk(state)[0]

        def build(seed: int, state=state, rnd=rnd, node=node):
            """The agent's subgame (from the flop: on a runout sample keyed by ``seed``)."""
            deals = None
            if rnd == 1:
                deals = runout_sample(bp.game.deck(), state.board_cards, AgentConfig().flop_rivers, seed)
            sub = make_subgame(state, {rnd: SUBGAME_SIZES[rnd]}, None, leaf_round=rnd + 1, leaf_deals=deals)
            continuations.attach_blueprint_continuations(sub, state, player.view, node)
            return sub

        build(0)  # compile the bucketing kernels
        first, again = [], []
        for r in range(repeats):
            t0 = time.perf_counter()
            build(100 + r)  # a new runout sample: its bucket table is made
            first.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            sub = build(100 + r)  # the same sample: a re-solve of the hand
            again.append(time.perf_counter() - t0)
        c = sub.continuations
        row = {
            "tree_nodes": sub.tree.num_nodes,
            "leaves": c.num_leaves,
            "continuation_nodes": int(c.start[-1]),
            "hands": int(sub.hands.shape[0]),
            "deals": len(c.cards),
            "setup_ms_first": statistics.median(first) * 1000,
            "setup_ms_again": statistics.median(again) * 1000,
            "timed_iterations": iterations,
            "ms_per_iteration_1_thread": _ms_per_iteration(cfr, sub, iterations, 1, repeats),
            "ms_per_iteration_2_threads": None,
        }
        if (os.cpu_count() or 1) >= 2:
            row["ms_per_iteration_2_threads"] = _ms_per_iteration(cfr, sub, iterations, 2, repeats)
        out[name] = row
    return out


def print_depth_limited_report(r: dict) -> None:
    print(f"Depth-limited subgames with {r['blueprint']}'s continuations, medians of {r['repeats']}")
    print(f"machine: {r['machine']}")
    for name, board, betting in (("flop", FLOP_BOARD, FLOP_BETTING), ("turn", TURN_BOARD, TURN_BETTING)):
        x = r[name]
        print(
            f"  {name} ({board}, {betting}): {x['tree_nodes']} nodes, {x['leaves']} leaves, "
            f"{x['continuation_nodes']:,} continuation nodes, {x['hands']} hands, {x['deals']} deals (one a pass)"
        )
        print(
            f"    setup (subgame, buckets, continuations): {x['setup_ms_first']:.0f} ms, "
            f"{x['setup_ms_again']:.0f} ms with the hand's bucket table made"
        )
        two = x["ms_per_iteration_2_threads"]
        print(
            f"    {x['ms_per_iteration_1_thread']:.2f} ms per iteration on one thread"
            + ("" if two is None else f", {two:.2f} ms on two ({x['ms_per_iteration_1_thread'] / two:.2f}x)")
            + f" (solves of 0 and {x['timed_iterations']} iterations)"
        )
