"""``pokerbot bench solver``: vector CFR+ per iteration on the reference river and turn
spots (docs/performance.md), one core and all cores."""

from __future__ import annotations

import os

from pokerbot.bot.bench.common import machine_description, per_iteration, pin_to_one_core

#: postflop-solver's tree rules, as its defaults (TreeConfig: force_allin_threshold 0.15,
#: merging_threshold 0.1, no cap on raises; all-in is among the sizes): with them our
#: tree builder gives its trees, 44 decisions and 85 terminals on the river and 1,932
#: decisions and 3,418 terminals on the turn (3,136 when the 48 river showdowns after each
#: of the 6 all-in lines count once, as postflop-solver's all-in runout is one terminal).
REFERENCE_RULES = {"force_allin": 0.15, "merge": 0.1, "max_raises": 1000}


def reference_river_spot():
    """The reference river spot: board Qs Jh 2h 8d 3c, pot 1000, 4000 behind each, full
    ranges; bets 25/50/100/200 % + all-in, raises 50/100 % + all-in, postflop-solver's
    tree rules."""
    from pokerbot.protocol.betting import BettingState, apply_betting
    from pokerbot.protocol.cards import parse_cards
    from pokerbot.protocol.gamedef import parse_gamedef
    from pokerbot.solver.tree import BetSizes

    game = parse_gamedef(
        "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 4500 4500\nblind = 100 50\n"
        "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\n"
        "END GAMEDEF\n"
    )
    state = apply_betting(BettingState(game, 0, None, parse_cards("QsJh2h8d3c")), "r500c/cc/cc/")
    return state, BetSizes(bets=((0.25, 0.5, 1.0, 2.0), (0.5, 1.0)), **REFERENCE_RULES)


def reference_turn_spot():
    """The reference turn spot on Qs Jh 2h 8d: turn bets 50 % + all-in, raises 60 % +
    all-in; river bets 50 % + all-in, raises 60/100 % + all-in; postflop-solver's tree
    rules (before 2026-11-25 the bench capped raises at two a round instead: 2,314
    decisions, 4,088 terminals)."""
    from pokerbot.protocol.betting import BettingState, apply_betting
    from pokerbot.protocol.cards import parse_cards
    from pokerbot.solver.tree import BetSizes

    river_state, _ = reference_river_spot()
    state = apply_betting(BettingState(river_state.game, 0, None, parse_cards("QsJh2h8d")), "r500c/cc/")
    sizes = {
        2: BetSizes(bets=((0.5,), (0.6,)), **REFERENCE_RULES),
        3: BetSizes(bets=((0.5,), (0.6, 1.0)), **REFERENCE_RULES),
    }
    return state, sizes


#: Iterations of a timed turn solve; its per-iteration time leaves out the setup of a
#: solve (allocating and first touching its arrays, the first strategy, normalising the
#: average), timed as a solve of no iterations, as an iteration count would amortise it.
TURN_ITERATIONS = 20


def bench_solver(repeats: int = 5, iterations: int = 100) -> dict:
    """The river reference spot: tree size, ms per CFR+ iteration on one core, the
    iterations and time to reach 0.3 % of the pot, and a 1,000-iteration solve."""
    from pokerbot.solver import cfr
    from pokerbot.solver.subgame import make_subgame

    cpu = pin_to_one_core()
    state, sizes = reference_river_spot()
    sub = make_subgame(state, sizes)
    # per iteration as for the turn: solves of 0 and ``iterations`` iterations, so the
    # setup of a solve (allocating its arrays, normalising the average) is apart
    river_setup, per_iter = per_iteration(lambda n: cfr.solve(sub, n), iterations, repeats)
    reached = None
    for n in (25, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1000):
        r = cfr.solve(sub, n)
        if cfr.exploitability(sub, r.strategy) <= 0.003 * sub.pot:
            reached = (n, r.seconds)
            break
    full = cfr.solve(sub, 1000)
    turn_state, turn_sizes = reference_turn_spot()
    turn = make_subgame(turn_state, turn_sizes)
    turn_setup, turn_iter = per_iteration(lambda n: cfr.solve(turn, n), TURN_ITERATIONS, repeats)
    turn_iter_2 = None
    if cpu is not None:  # let both cores work on the blocks below the chance nodes
        try:
            os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
        except OSError:
            pass
    if (os.cpu_count() or 1) >= 2:
        _, turn_iter_2 = per_iteration(lambda n: cfr.solve(turn, n, threads=2), TURN_ITERATIONS, repeats)
    return {
        "machine": machine_description(),
        "pinned_cpu": cpu,
        "repeats": repeats,
        "river": {
            "decision_nodes": sub.tree.num_decisions,
            "terminal_nodes": sub.tree.num_terminals,
            "hands": int(sub.hands.shape[0]),
            "ms_per_iteration_1_core": per_iter * 1000,
            "setup_ms_per_solve": river_setup * 1000,
            "timed_iterations": iterations,
            "reference_postflop_solver_ms": 0.59,
            "iterations_to_0.3pct_pot": reached[0] if reached else None,
            "seconds_to_0.3pct_pot": reached[1] if reached else None,
            "seconds_for_1000_iterations": full.seconds,
            "exploitability_after_1000_pct_pot": 100 * cfr.exploitability(sub, full.strategy) / sub.pot,
        },
        "turn": {
            "decision_nodes": turn.tree.num_decisions,
            "terminal_nodes": turn.tree.num_terminals,
            "chance_nodes": turn.tree.num_chance,
            "hands": int(turn.hands.shape[0]),
            "memory_mb": turn.tree.memory_bytes(turn.hands.shape[0]) / 1e6,
            "ms_per_iteration_1_core": turn_iter * 1000,
            "ms_per_iteration_2_cores": None if turn_iter_2 is None else turn_iter_2 * 1000,
            "setup_ms_per_solve": turn_setup * 1000,
            "timed_iterations": TURN_ITERATIONS,
            "reference_postflop_solver_ms_1_core": 30.7,
            "reference_postflop_solver_ms_2_cores": 16.2,
        },
    }


#: postflop-solver's per-iteration times on the same spots, recorded once (not run by this
#: benchmark): printed beside ours with the machine and date they come from, never divided
#: into a fresh measurement, since absolute times move 2x between machines.
REFERENCE_RECORDED = "postflop-solver, recorded 2026-11 on a 2-vCPU AMD EPYC VM with AVX-512"


def print_solver_report(r: dict) -> None:
    v = r["river"]
    print(
        "Vector CFR+ on the reference spots (docs/performance.md), "
        f"medians of {r['repeats']} pairs of solves (0 and N iterations)"
    )
    print(f"machine: {r['machine']}")
    print(f"  river: {v['decision_nodes']} decision nodes, {v['terminal_nodes']} terminals, {v['hands']} hands")
    print(
        f"  {v['ms_per_iteration_1_core']:.2f} ms per iteration on one core, from solves of 0 and "
        f"{v['timed_iterations']} iterations (setup of a solve {v['setup_ms_per_solve']:.1f} ms, not counted)"
    )
    if v["iterations_to_0.3pct_pot"]:
        print(
            f"  0.3 % of the pot reached after {v['iterations_to_0.3pct_pot']} iterations, "
            f"{v['seconds_to_0.3pct_pot']:.2f} s"
        )
    print(
        f"  1,000 iterations (Libratus's count): {v['seconds_for_1000_iterations']:.2f} s, "
        f"exploitability {v['exploitability_after_1000_pct_pot']:.3f} % of the pot"
    )
    u = r["turn"]
    print(
        f"  turn: {u['decision_nodes']} decision nodes, {u['terminal_nodes']} terminals, {u['chance_nodes']} chance "
        f"nodes, {u['hands']} hands, {u['memory_mb']:.0f} MB (postflop-solver's tree: its rules, see REFERENCE_RULES)"
    )
    print(
        f"  setup of a solve {u['setup_ms_per_solve']:.0f} ms, not counted below (solves of 0 and "
        f"{u['timed_iterations']} iterations)"
    )
    print(f"  {u['ms_per_iteration_1_core']:.1f} ms per iteration on one core")
    if u["ms_per_iteration_2_cores"] is not None:
        print(f"  {u['ms_per_iteration_2_cores']:.1f} ms per iteration on two cores")
    print(
        f"{REFERENCE_RECORDED}: river {v['reference_postflop_solver_ms']} ms per iteration on one core; turn "
        f"{u['reference_postflop_solver_ms_1_core']} ms on one core, {u['reference_postflop_solver_ms_2_cores']} ms "
        "on two (a different machine and day: not comparable to the lines above)"
    )
