"""Benchmarks that print their figures: ``pokerbot bench evaluator``.

Figures are medians over repeated runs on one core (the process pins itself to one
CPU when the OS allows), after a warm-up run that is not timed.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import platform
import statistics
import time
from typing import Callable

import numba as nb
import numpy as np

from solver import evaluator as ev


def machine_description() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.python_implementation()} {platform.python_version()}"


def pin_to_one_core() -> int | None:
    """Pin this process to one CPU (the last one allowed); returns it, or None."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return cpus[-1]
    except (AttributeError, OSError):
        return None


def median_time(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up: compilation, caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


@nb.njit(cache=True)
def _all_boards(board_keys, board_masks, keys, masks, row_offsets, rank_values, flush_values, out):
    """Evaluate every hand on every board, as the solver does per river board.
    Returns the number of hands evaluated (those not sharing a card with the board)."""
    evaluated = 0
    for b in range(board_keys.shape[0]):
        ev.strengths_from_keys(board_keys[b], board_masks[b], keys, masks, row_offsets,
                               rank_values, flush_values, out)
        for i in range(out.shape[0]):
            if out[i] >= 0:
                evaluated += 1
    return evaluated


def _random_hands(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    out = np.empty((n, k), dtype=np.uint8)
    step = 200_000
    for s in range(0, n, step):
        m = min(step, n - s)
        out[s : s + m] = np.argsort(rng.random((m, 52)), axis=1)[:, :k]
    return out


def _pokerfast_batch() -> Callable[[np.ndarray, np.ndarray], None] | None:
    """pokerfast's C++ (OMPEval) evaluator, one call for a whole batch of hands."""
    try:
        from pokerfast import equity

        lib = equity._load()  # the library's own loader; its ctypes signatures
    except Exception:
        return None

    def run(hands: np.ndarray, out: np.ndarray) -> None:
        rc = lib.pf_evaluate(
            hands.ctypes.data_as(ctypes.c_char_p),
            hands.shape[0],
            hands.shape[1],
            out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint16)),
        )
        if rc != 0:
            raise RuntimeError(f"pokerfast pf_evaluate failed ({rc})")

    return run


def bench_evaluator(hands: int = 4_000_000, boards: int = 20_000, repeats: int = 7,
                    seed: int = 1) -> dict:
    """Throughput of our evaluator and of the independent libraries, one core."""
    cpu = pin_to_one_core()
    rng = np.random.default_rng(seed)
    result: dict = {"machine": machine_description(), "pinned_cpu": cpu, "repeats": repeats}

    # Batch path: every two-card hand on each of many random river boards.
    board_cards = _random_hands(boards, 5, rng)
    bkeys, bmasks = ev.hand_keys(board_cards)
    hkeys, hmasks = ev.hand_keys(ev.all_hole_pairs())
    out = np.empty(hkeys.shape[0], dtype=np.int32)
    count = _all_boards(bkeys, bmasks, hkeys, hmasks, ev.ROW_OFFSETS, ev.RANK_VALUES,
                        ev.FLUSH_VALUES, out)
    t = median_time(lambda: _all_boards(bkeys, bmasks, hkeys, hmasks, ev.ROW_OFFSETS,
                                        ev.RANK_VALUES, ev.FLUSH_VALUES, out), repeats)
    result["ours_batch_boards_meps"] = count / t / 1e6

    # Random 7-card hands, one batch call from Python, cards as bytes.
    seven = _random_hands(hands, 7, rng)
    t = median_time(lambda: ev.evaluate_hands(seven), repeats)
    result["ours_random7_meps"] = hands / t / 1e6

    pf = _pokerfast_batch()
    if pf is not None:
        pf_out = np.empty(hands, dtype=np.uint16)
        t = median_time(lambda: pf(seven, pf_out), repeats)
        result["pokerfast_random7_meps"] = hands / t / 1e6
        result["ratio_batch_vs_pokerfast"] = result["ours_batch_boards_meps"] / result["pokerfast_random7_meps"]
        result["ratio_random7_vs_pokerfast"] = result["ours_random7_meps"] / result["pokerfast_random7_meps"]
    try:
        import phevaluator

        few = seven[:200_000].tolist()
        evaluate_cards = phevaluator.evaluate_cards
        t = median_time(lambda: [evaluate_cards(*h) for h in few], max(3, repeats // 2))
        result["phevaluator_per_call_meps"] = len(few) / t / 1e6
        result["ratio_batch_vs_phevaluator"] = result["ours_batch_boards_meps"] / result["phevaluator_per_call_meps"]
    except ImportError:
        pass
    return result


def print_evaluator_report(r: dict, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(r, indent=2))
        return
    pinned = f"pinned to CPU {r['pinned_cpu']}" if r["pinned_cpu"] is not None else "not pinned"
    print(f"Hand evaluator throughput, one core ({pinned}), median of {r['repeats']} runs")
    print(f"machine: {r['machine']}")
    print(f"  ours, batch path (all 1,081 hands on each river board): {r['ours_batch_boards_meps']:8.1f} M evals/s")
    print(f"  ours, random 7-card hands, one call per batch:           {r['ours_random7_meps']:8.1f} M evals/s")
    if "pokerfast_random7_meps" in r:
        print(f"  pokerfast (OMPEval, C++), random 7-card, one batch call:  {r['pokerfast_random7_meps']:8.1f} M evals/s")
    else:
        print("  pokerfast: not installed (pip install 'pokerbot[bench]')")
    if "phevaluator_per_call_meps" in r:
        print(f"  phevaluator (C), one Python call per hand:                {r['phevaluator_per_call_meps']:8.1f} M evals/s")
    if "ratio_batch_vs_pokerfast" in r:
        print(f"ratio ours batch path / pokerfast batch: {r['ratio_batch_vs_pokerfast']:.2f}")
        print(f"ratio ours random 7-card / pokerfast batch: {r['ratio_random7_vs_pokerfast']:.2f}")
    if "ratio_batch_vs_phevaluator" in r:
        print(f"ratio ours batch path / phevaluator per call: {r['ratio_batch_vs_phevaluator']:.1f}")


async def _in_process_match(hands: int, workdir: str) -> tuple[float, int]:
    """One call-vs-call match on our dealer with our player code as tasks in the
    dealer's event loop (still over loopback TCP); returns (seconds of play, hands)."""
    import asyncio

    from protocol.dealer import Dealer, DealerConfig
    from protocol.gamedef import DEFAULT_GAME, bundled_game

    from bot.player import play
    from bot.strategies import make_strategy

    game = bundled_game(DEFAULT_GAME)
    cfg = DealerConfig(os.path.join(workdir, "bench-in-process"), DEFAULT_GAME, hands, 1, ("call1", "call2"), quiet=True)
    dealer = Dealer(cfg, game, stdout=open(os.devnull, "w"))
    ports = await dealer.listen()
    tasks = [asyncio.create_task(play("127.0.0.1", port, game, make_strategy("call"))) for port in ports]
    status = await dealer.run()
    await asyncio.gather(*tasks)
    if status != 0:
        raise RuntimeError(f"benchmark match failed: {dealer.result.error}")
    return dealer.result.play_seconds, dealer.result.completed_hands


def _process_match(hands: int, dealer: str, players: str, workdir: str, compiled: str | None) -> tuple[float, int]:
    """One call-vs-call match with the dealer and both players as separate processes,
    as users run them. ``dealer``: "ours" (``pokerbot dealer -q``, which logs its play
    time in its ``match_end`` line) or "compiled" (which prints it). ``players``:
    "processes" (``pokerbot play``) or "compiled". Returns (seconds of play, hands)."""
    import subprocess

    game_file = _game_file(workdir)
    if dealer == "ours":
        cmd = [sys.executable, "-m", "bot.cli", "dealer", os.path.join(workdir, "bench"), game_file, str(hands), "1",
               "call1", "call2", "-q", "--log-level", "info"]
    else:
        cmd = [compiled, "dealer", game_file, str(hands), "1", os.path.join(workdir, "bench.log")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = proc.stdout.readline().split()
        seats = [subprocess.Popen(_call_player_command(players, int(port), workdir, compiled),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for port in ports]
        out, err = proc.communicate(timeout=600)
        for p in seats:
            p.wait(timeout=60)
    finally:
        proc.kill()
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark match failed ({dealer} dealer): {err.strip()[-300:]}")
    if dealer == "compiled":
        played, seconds = out.split()
        return float(seconds), int(played)
    for line in err.splitlines():
        if '"match_end"' in line:
            end = json.loads(line)
            return end["play_seconds"], end["hands"]
    raise RuntimeError("our dealer did not log its match_end line")


def _call_player_command(players: str, port: int, workdir: str, compiled: str | None) -> list[str]:
    if players == "compiled":
        return [compiled, "call", "127.0.0.1", str(port), _game_file(workdir)]
    return [sys.executable, "-m", "bot.cli", "play", "127.0.0.1", str(port), "--strategy", "call"]


def _game_file(workdir: str) -> str:
    from protocol.gamedef import DEFAULT_GAME, bundled_game_text

    path = os.path.join(workdir, DEFAULT_GAME + ".game")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(bundled_game_text(DEFAULT_GAME))
    return path


def compiled_acpc_loop() -> str | None:
    """Build ``bench_c/acpc_loop.cc`` against the ACPC reference code that OpenSpiel's
    wheel ships (game.cc, rng.cc, net.cc) once into the cache; its path, or None when
    there is no C++ compiler or no OpenSpiel."""
    import hashlib
    import shutil
    import subprocess

    compiler = shutil.which("g++") or shutil.which("c++")
    try:
        import open_spiel
    except ImportError:
        return None
    if compiler is None:
        return None
    acpc = os.path.join(os.path.dirname(open_spiel.__file__), "games", "universal_poker", "acpc", "project_acpc_server")
    source = os.path.join(os.path.dirname(__file__), "bench_c", "acpc_loop.cc")
    if not os.path.exists(os.path.join(acpc, "net.cc")):
        return None
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read() + acpc.encode()).hexdigest()[:16]
    base = os.environ.get("POKERBOT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pokerbot")
    out = os.path.join(base, f"acpc_loop-{digest}")
    if not os.path.exists(out):
        os.makedirs(base, exist_ok=True)
        tmp = f"{out}.{os.getpid()}.tmp"
        try:
            subprocess.run([compiler, "-O2", "-w", "-D__STDC_FORMAT_MACROS=1", "-I", acpc, source,
                            os.path.join(acpc, "net.cc"), "-o", tmp], check=True, capture_output=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
            return None
        os.replace(tmp, out)
    return out


#: (key, dealer, players, label) of every row of the dealer benchmark, in report order.
DEALER_SETUPS = (
    ("ours_processes", "ours", "processes", "our dealer, pokerbot play players (processes)"),
    ("ours_in_process", "ours", "in-process", "our dealer, our players inside its event loop"),
    ("ours_compiled_players", "ours", "compiled", "our dealer, compiled call players (processes)"),
    ("compiled_ours_players", "compiled", "processes", "compiled loop, pokerbot play players"),
    ("compiled_compiled_players", "compiled", "compiled", "compiled loop, compiled call players"),
)


def bench_dealer(hands: int = 5000, repeats: int = 3) -> dict:
    """Hands per second of call-vs-call matches over loopback: our dealer (its own
    process, ``pokerbot dealer``) with our players as separate processes (the real
    setting) and with compiled players, and our players inside the dealer's event loop; and, as this machine's floor, a compiled loop of the
    reference dealer's message pattern (``bench_c/acpc_loop.cc``) with compiled
    players. Every setup plays once per round, ``repeats`` rounds; medians."""
    import tempfile

    from protocol.dealer import run_event_loop

    compiled = compiled_acpc_loop()
    setups = [s for s in DEALER_SETUPS if compiled or "compiled" not in s[1:3]]
    rates: dict[str, list[float]] = {key: [] for key, *_ in setups}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for key, dealer, players, _label in setups:
                if players == "in-process":
                    seconds, played = run_event_loop(_in_process_match(hands, tmp))
                else:
                    seconds, played = _process_match(hands, dealer, players, tmp, compiled)
                rates[key].append(played / seconds)
    result: dict = {"machine": machine_description(), "hands": hands, "repeats": repeats,
                    "compiled_available": compiled is not None}
    for key, values in rates.items():
        result[f"hands_per_second_{key}"] = statistics.median(values)
        result[f"runs_{key}"] = [round(v) for v in values]
    return result


def print_dealer_report(r: dict, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(r, indent=2))
        return
    print(f"Dealer throughput: {r['hands']} hands of call vs call over loopback, "
          f"median of {r['repeats']} matches per setup [each run]")
    print(f"machine: {r['machine']}")
    for key, _dealer, _players, label in DEALER_SETUPS:
        if f"hands_per_second_{key}" in r:
            runs = ", ".join(str(v) for v in r[f"runs_{key}"])
            print(f"  {label + ':':<50} {r[f'hands_per_second_{key}']:6.0f} hands/s  [{runs}]")
    if not r["compiled_available"]:
        print("  (compiled rows skipped: they need a C++ compiler and OpenSpiel: pip install 'pokerbot[test]')")
    else:
        floor = r["hands_per_second_compiled_compiled_players"]
        print(f"ratio to the compiled floor: ours with our players (processes) "
              f"{r['hands_per_second_ours_processes'] / floor:.2f}, "
              f"ours with compiled players {r['hands_per_second_ours_compiled_players'] / floor:.2f}")


#: postflop-solver's tree rules, as its defaults (TreeConfig: force_allin_threshold 0.15,
#: merging_threshold 0.1, no cap on raises; all-in is among the sizes): with them our
#: tree builder gives its trees, 44 decisions and 85 terminals on the river (as
#: NOTES.md counts) and 1,932 decisions and 3,418 terminals on the turn (3,136 when the
#: 48 river showdowns after each of the 6 all-in lines count once, as postflop-solver's
#: all-in runout is one terminal: the "about 3,100" of NOTES.md).
REFERENCE_RULES = {"force_allin": 0.15, "merge": 0.1, "max_raises": 1000}


def _reference_river_spot():
    """NOTES.md's river spot: board Qs Jh 2h 8d 3c, pot 1000, 4000 behind each, full
    ranges; bets 25/50/100/200 % + all-in, raises 50/100 % + all-in, postflop-solver's
    tree rules."""
    from protocol.betting import BettingState, apply_betting
    from protocol.cards import parse_cards
    from protocol.gamedef import parse_gamedef
    from solver.tree import BetSizes

    game = parse_gamedef(
        "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 4500 4500\nblind = 100 50\n"
        "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\n"
        "END GAMEDEF\n"
    )
    state = apply_betting(BettingState(game, 0, None, parse_cards("QsJh2h8d3c")), "r500c/cc/cc/")
    return state, BetSizes(bets=((0.25, 0.5, 1.0, 2.0), (0.5, 1.0)), **REFERENCE_RULES)


def _reference_turn_spot():
    """NOTES.md's turn spot on Qs Jh 2h 8d: turn bets 50 % + all-in, raises 60 % +
    all-in; river bets 50 % + all-in, raises 60/100 % + all-in; postflop-solver's tree
    rules (before 2026-11-25 the bench capped raises at two a round instead: 2,314
    decisions, 4,088 terminals)."""
    from protocol.betting import BettingState, apply_betting
    from protocol.cards import parse_cards
    from solver.tree import BetSizes

    river_state, _ = _reference_river_spot()
    state = apply_betting(BettingState(river_state.game, 0, None, parse_cards("QsJh2h8d")), "r500c/cc/")
    sizes = {2: BetSizes(bets=((0.5,), (0.6,)), **REFERENCE_RULES),
             3: BetSizes(bets=((0.5,), (0.6, 1.0)), **REFERENCE_RULES)}
    return state, sizes


#: Iterations of a timed turn solve; its per-iteration time leaves out the setup of a
#: solve (allocating and first touching its arrays, the first strategy, normalising the
#: average), timed as a solve of no iterations, as an iteration count would amortise it.
TURN_ITERATIONS = 20


def _per_iteration(cfr, sub, iterations: int, threads: int, repeats: int = 5) -> tuple[float, float]:
    """(seconds of setup per solve, seconds per iteration), medians of ``repeats``
    solves of 0 and of ``iterations`` iterations, alternated so drift hits both."""
    cfr.solve(sub, 1, threads=threads)  # compile and warm up
    setup, full = [], []
    for _ in range(repeats):
        for n, out in ((0, setup), (iterations, full)):
            t0 = time.perf_counter()
            cfr.solve(sub, n, threads=threads)
            out.append(time.perf_counter() - t0)
    s = statistics.median(setup)
    return s, max(statistics.median(full) - s, 0.0) / iterations


def bench_solver(repeats: int = 5, iterations: int = 100) -> dict:
    """The river reference spot: tree size, ms per CFR+ iteration on one core, the
    iterations and time to reach 0.3 % of the pot, and a 1,000-iteration solve."""
    from solver import cfr

    cpu = pin_to_one_core()
    state, sizes = _reference_river_spot()
    sub = cfr.make_subgame(state, sizes)
    # per iteration as for the turn: solves of 0 and ``iterations`` iterations, so the
    # setup of a solve (allocating its arrays, normalising the average) is apart
    river_setup, per_iter = _per_iteration(cfr, sub, iterations, 1, repeats)
    reached = None
    for n in (25, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1000):
        r = cfr.solve(sub, n)
        if cfr.exploitability(sub, r.strategy) <= 0.003 * sub.pot:
            reached = (n, r.seconds)
            break
    full = cfr.solve(sub, 1000)
    turn_state, turn_sizes = _reference_turn_spot()
    turn = cfr.make_subgame(turn_state, turn_sizes)
    turn_setup, turn_iter = _per_iteration(cfr, turn, TURN_ITERATIONS, 1, repeats)
    turn_iter_2 = None
    if cpu is not None:  # let both cores work on the blocks below the chance nodes
        try:
            os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
        except OSError:
            pass
    if (os.cpu_count() or 1) >= 2:
        _, turn_iter_2 = _per_iteration(cfr, turn, TURN_ITERATIONS, 2, repeats)
    return {
        "machine": machine_description(), "pinned_cpu": cpu, "repeats": repeats,
        "river": {
            "decision_nodes": sub.tree.num_decisions, "terminal_nodes": sub.tree.num_terminals,
            "hands": int(sub.hands.shape[0]), "ms_per_iteration_1_core": per_iter * 1000,
            "setup_ms_per_solve": river_setup * 1000, "timed_iterations": iterations,
            "reference_postflop_solver_ms": 0.59,
            "iterations_to_0.3pct_pot": reached[0] if reached else None,
            "seconds_to_0.3pct_pot": reached[1] if reached else None,
            "seconds_for_1000_iterations": full.seconds,
            "exploitability_after_1000_pct_pot": 100 * cfr.exploitability(sub, full.strategy) / sub.pot,
        },
        "turn": {
            "decision_nodes": turn.tree.num_decisions, "terminal_nodes": turn.tree.num_terminals,
            "chance_nodes": turn.tree.num_chance, "hands": int(turn.hands.shape[0]),
            "memory_mb": turn.tree.memory_bytes(turn.hands.shape[0]) / 1e6,
            "ms_per_iteration_1_core": turn_iter * 1000,
            "ms_per_iteration_2_cores": None if turn_iter_2 is None else turn_iter_2 * 1000,
            "setup_ms_per_solve": turn_setup * 1000, "timed_iterations": TURN_ITERATIONS,
            "reference_postflop_solver_ms_1_core": 30.7, "reference_postflop_solver_ms_2_cores": 16.2,
        },
    }


def print_solver_report(r: dict, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(r, indent=2))
        return
    v = r["river"]
    print(f"Vector CFR+ on the reference spots of NOTES.md, medians of {r['repeats']} pairs of solves (0 and N iterations)")
    print(f"machine: {r['machine']}")
    print(f"  tree: {v['decision_nodes']} decision nodes, {v['terminal_nodes']} terminals, {v['hands']} hands per player")
    print(f"  {v['ms_per_iteration_1_core']:.2f} ms per iteration (postflop-solver: {v['reference_postflop_solver_ms']} ms; "
          f"ratio {v['ms_per_iteration_1_core'] / v['reference_postflop_solver_ms']:.2f}x), from solves of 0 and "
          f"{v['timed_iterations']} iterations (setup of a solve {v['setup_ms_per_solve']:.1f} ms, not counted)")
    if v["iterations_to_0.3pct_pot"]:
        print(f"  0.3 % of the pot reached after {v['iterations_to_0.3pct_pot']} iterations, {v['seconds_to_0.3pct_pot']:.2f} s")
    print(f"  1,000 iterations (Libratus's count): {v['seconds_for_1000_iterations']:.2f} s, "
          f"exploitability {v['exploitability_after_1000_pct_pot']:.3f} % of the pot")
    u = r["turn"]
    print(f"  turn: {u['decision_nodes']} decision nodes, {u['terminal_nodes']} terminals, {u['chance_nodes']} chance "
          f"nodes, {u['hands']} hands, {u['memory_mb']:.0f} MB (postflop-solver's tree: its rules, see REFERENCE_RULES)")
    print(f"  setup of a solve {u['setup_ms_per_solve']:.0f} ms, not counted below (solves of 0 and "
          f"{u['timed_iterations']} iterations)")
    print(f"  {u['ms_per_iteration_1_core']:.1f} ms per iteration on one core (postflop-solver: "
          f"{u['reference_postflop_solver_ms_1_core']} ms; ratio "
          f"{u['ms_per_iteration_1_core'] / u['reference_postflop_solver_ms_1_core']:.2f}x)")
    if u["ms_per_iteration_2_cores"] is not None:
        print(f"  {u['ms_per_iteration_2_cores']:.1f} ms per iteration on two cores (postflop-solver: "
              f"{u['reference_postflop_solver_ms_2_cores']} ms; ratio "
              f"{u['ms_per_iteration_2_cores'] / u['reference_postflop_solver_ms_2_cores']:.2f}x)")


def bench_mccfr(iterations: int = 1_000_000, points: int = 10, seed: int = 3) -> dict:
    """External-sampling MCCFR on Leduc without abstraction: exploitability (exact,
    the vector solver's best response) against iterations and seconds, plain and
    with negative-regret pruning after a tenth of the run; training throughput in
    nodes touched per second on one core and on all cores."""
    from protocol.betting import BettingState
    from protocol.gamedef import bundled_game
    from solver import cfr, mccfr
    from solver.betting_tree import build_betting_tree
    from solver.tree import BetSizes

    cpu = pin_to_one_core()
    game = bundled_game("leduc.limit.2p")
    deals = mccfr.LosslessDeals(game)
    sizes = BetSizes()
    tree = build_betting_tree(game, sizes, deals.bucket_counts)
    sub = cfr.make_subgame(BettingState(game), sizes)

    def exploitability(solver: "mccfr.MCCFR") -> float:
        strategy = mccfr.to_public_strategy(tree, solver.average_strategy(), sub.tree, sub.hands, deals.bucket)
        return cfr.exploitability(sub, strategy)

    warm = mccfr.MCCFR(tree, game.big_blind, seed=seed)
    warm.train(deals, 2_000)  # compile outside the timed runs
    runs = {
        "plain": mccfr.MCCFRSettings(),
        "pruned": mccfr.MCCFRSettings(prune_after=iterations // 10, prune_threshold=-500_000, regret_floor=-600_000,
                                      prune_k=5_263),
    }
    curves: dict[str, list[dict]] = {}
    throughput = {}
    for name, settings in runs.items():
        solver = mccfr.MCCFR(tree, game.big_blind, settings, seed=seed)
        seconds = 0.0
        nodes = 0
        curve = []
        for _ in range(points):
            r = solver.train(deals, iterations // points, batch=50_000)
            seconds += r.seconds
            nodes += r.nodes_touched
            curve.append({"iterations": solver.iterations, "seconds": seconds,
                          "exploitability_mchips": 1000 * exploitability(solver)})
        curves[name] = curve
        throughput[name] = nodes / seconds
    multi = None
    cores = os.cpu_count() or 1
    if cpu is not None and cores > 1:
        try:
            os.sched_setaffinity(0, set(range(cores)))
        except OSError:
            pass
        solver = mccfr.MCCFR(tree, game.big_blind, seed=seed)
        solver.train(deals, 2_000, threads=cores)
        r = solver.train(deals, iterations // 2, batch=50_000, threads=cores)
        multi = {"threads": cores, "nodes_per_second": r.nodes_per_second,
                 "exploitability_mchips": 1000 * exploitability(solver), "iterations": solver.iterations}
    return {"machine": machine_description(), "game": "leduc.limit.2p (OpenSpiel's leduc_poker)",
            "information_sets": int(sum(((tree.kind == 0) & (tree.round == r)).sum() * len(deals.classes[r])
                                        for r in range(game.num_rounds))),
            "curves": curves, "nodes_per_second_1_core": throughput, "all_cores": multi}


def print_mccfr_report(r: dict, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(r, indent=2))
        return
    print(f"External-sampling MCCFR on {r['game']}, {r['information_sets']} information sets, no abstraction")
    print(f"machine: {r['machine']}")
    print("  exploitability in milli-chips per hand (exact best response), plain | with pruning:")
    for a, b in zip(r["curves"]["plain"], r["curves"]["pruned"]):
        print(f"  {a['iterations']:>9,} it  {a['seconds']:6.2f} s {a['exploitability_mchips']:7.1f}  |"
              f"  {b['seconds']:6.2f} s {b['exploitability_mchips']:7.1f}")
    t = r["nodes_per_second_1_core"]
    print(f"  one core: {t['plain'] / 1e6:.1f} M nodes touched/s plain, {t['pruned'] / 1e6:.1f} M with pruning")
    m = r["all_cores"]
    if m:
        print(f"  {m['threads']} threads: {m['nodes_per_second'] / 1e6:.1f} M nodes touched/s "
              f"({m['nodes_per_second'] / m['threads'] / 1e6:.1f} M per core), exploitability "
              f"{m['exploitability_mchips']:.1f} after {m['iterations']:,} iterations")


_TOUCH = r"""
import sys, time
import numpy as np
def rollup():
    out = {}
    for line in open('/proc/self/smaps_rollup'):
        k, _, v = line.partition(':')
        parts = v.split()
        if parts and parts[0].isdigit():
            out[k.strip()] = int(parts[0])
    return out
from blueprint_store.store import Blueprint
before = rollup()  # after the imports: what follows is the store's doing
t0 = time.perf_counter()
bp = Blueprint(sys.argv[1])
opened = time.perf_counter() - t0
total = 0.0
for name, a in bp._arrays.items():
    flat = a.reshape(-1)
    step = max(1, 4096 // max(1, a.dtype.itemsize))
    total += float(np.asarray(flat[::step], dtype=np.float64).sum())
after = rollup()
print(opened, before['Rss'], after['Rss'], before.get('Pss', 0), after.get('Pss', 0),
      after.get('Private_Dirty', 0) - before.get('Private_Dirty', 0),
      after.get('Shared_Clean', 0) - before.get('Shared_Clean', 0), flush=True)
if sys.argv[2] == 'hold':
    sys.stdin.read()
"""


def bench_store(path: str) -> dict:
    """Open one store in two processes, touching every page: the second process's
    extra resident memory, and how much of it is shared with the first."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    first = subprocess.Popen([sys.executable, "-c", _TOUCH, path, "hold"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, cwd=root)
    a = first.stdout.readline().split()
    try:
        out = subprocess.run([sys.executable, "-c", _TOUCH, path, "once"], capture_output=True, text=True,
                             check=True, cwd=root)
    finally:
        first.communicate("")
    b = out.stdout.split()
    opened, rss0, rss1, pss0, pss1, private, shared = (float(x) for x in b)
    return {"store_mb": os.path.getsize(path) / 1e6, "open_seconds": opened,
            "first_process_extra_rss_mb": (float(a[2]) - float(a[1])) / 1024,
            "second_process_extra_rss_mb": (rss1 - rss0) / 1024,
            "second_process_extra_pss_mb": (pss1 - pss0) / 1024,
            "second_process_extra_private_dirty_mb": private / 1024,
            "second_process_extra_shared_clean_mb": shared / 1024}


def print_store_report(r: dict, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(r, indent=2))
        return
    print(f"store: {r['store_mb']:.0f} MB, opened in {r['open_seconds'] * 1000:.1f} ms")
    print(f"  first process, every page touched: +{r['first_process_extra_rss_mb']:.0f} MB resident")
    print(f"  second process at the same time: +{r['second_process_extra_rss_mb']:.0f} MB resident, of which "
          f"{r['second_process_extra_shared_clean_mb']:.0f} MB shared with the first; "
          f"+{r['second_process_extra_private_dirty_mb']:.1f} MB private; proportional share "
          f"+{r['second_process_extra_pss_mb']:.0f} MB")
