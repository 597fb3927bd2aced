"""``pokerbot bench evaluator``: our hand evaluator against independent ones, one core."""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numba as nb
import numpy as np

from pokerbot.bot.bench.common import machine_description, median_time, pin_to_one_core
from pokerbot.solver import evaluator as ev


@nb.njit(cache=True)
def _all_boards(board_keys, board_masks, keys, masks, row_offsets, rank_values, flush_values, out):
    """Evaluate every hand on every board, as the solver does per river board.
    Returns the number of hands evaluated (those not sharing a card with the board)."""
    evaluated = 0
    for b in range(board_keys.shape[0]):
        ev.strengths_from_keys(board_keys[b], board_masks[b], keys, masks, row_offsets, rank_values, flush_values, out)
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
    except ImportError:
        return None
    path = equity.find_library()
    if path is None or not equity.available():  # available() loads it and builds its tables
        return None
    lib = ctypes.CDLL(path)  # the same loaded library, with our own signature for pf_evaluate
    lib.pf_evaluate.restype = ctypes.c_int
    lib.pf_evaluate.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(ctypes.c_uint16)]

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


def bench_evaluator(hands: int = 4_000_000, boards: int = 20_000, repeats: int = 7, seed: int = 1) -> dict:
    """Throughput of our evaluator and of the independent libraries, one core."""
    cpu = pin_to_one_core()
    rng = np.random.default_rng(seed)
    result: dict = {"machine": machine_description(), "pinned_cpu": cpu, "repeats": repeats}

    # Batch path: every two-card hand on each of many random river boards.
    board_cards = _random_hands(boards, 5, rng)
    bkeys, bmasks = ev.hand_keys(board_cards)
    hkeys, hmasks = ev.hand_keys(ev.all_hole_pairs())
    out = np.empty(hkeys.shape[0], dtype=np.int32)
    count = _all_boards(bkeys, bmasks, hkeys, hmasks, ev.ROW_OFFSETS, ev.RANK_VALUES, ev.FLUSH_VALUES, out)
    t = median_time(
        lambda: _all_boards(bkeys, bmasks, hkeys, hmasks, ev.ROW_OFFSETS, ev.RANK_VALUES, ev.FLUSH_VALUES, out), repeats
    )
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


def print_evaluator_report(r: dict) -> None:
    pinned = f"pinned to CPU {r['pinned_cpu']}" if r["pinned_cpu"] is not None else "not pinned"
    print(f"Hand evaluator throughput, one core ({pinned}), median of {r['repeats']} runs")
    print(f"machine: {r['machine']}")
    print(f"  ours, batch path (all 1,081 hands on each river board): {r['ours_batch_boards_meps']:8.1f} M evals/s")
    print(f"  ours, random 7-card hands, one call per batch:           {r['ours_random7_meps']:8.1f} M evals/s")
    if "pokerfast_random7_meps" in r:
        print(
            f"  pokerfast (OMPEval, C++), random 7-card, one batch call:  {r['pokerfast_random7_meps']:8.1f} M evals/s"
        )
    else:
        print("  pokerfast: not installed (pip install 'pokerbot[bench]')")
    if "phevaluator_per_call_meps" in r:
        print(
            "  phevaluator (C), one Python call per hand:                "
            f"{r['phevaluator_per_call_meps']:8.1f} M evals/s"
        )
    if "ratio_batch_vs_pokerfast" in r:
        print(f"ratio ours batch path / pokerfast batch: {r['ratio_batch_vs_pokerfast']:.2f}")
        print(f"ratio ours random 7-card / pokerfast batch: {r['ratio_random7_vs_pokerfast']:.2f}")
    if "ratio_batch_vs_phevaluator" in r:
        print(f"ratio ours batch path / phevaluator per call: {r['ratio_batch_vs_phevaluator']:.1f}")
