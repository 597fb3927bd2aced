"""Which turn solve the agent runs (``--turn-solver auto``): the full-depth solve with k
river cards a pass, or the depth-limited one, by how much of each the solve's deadline
buys on this machine.

The speed is measured once, at start-up (``measure_turn_speed``), on a fixed public
spot, and modelled per unit of work (``TurnSpeed``): a pass's cost is its nodes above
the river subtrees plus the river subtrees of its k cards, times the hands; a solve
also pays once for its arrays and its answer. The choice (``choose_turn_solve``) reads
only public information: the subgame's tree (the line and the pot), the deadline the
time plan gives, and that speed, so it never depends on the private cards.
docs/evaluation.md, "Full-depth turn solving at what fits", says where the thresholds
come from.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

#: The exact full-depth solve's iterations (every card a pass) the deadline must buy
#: for each number of river cards a pass: the last row it reaches is taken; below the
#: first the depth-limited solve runs instead. From the exact turn table
#: (docs/evaluation.md, "Full-depth turn solving at what fits"): with the river solved
#: anew, 4 cards a pass beat the depth-limited solve at what 2 cores buy (about 130 exact
#: iterations' time) and lost to it at a quarter of that; 16 cards a pass matched 4 at
#: what 16 cores buy (about 670), and one card a pass was behind both at every budget.
FULL_CARDS_BY_EXACT_ITERATIONS = ((100.0, 4), (600.0, 16))
#: The spot the speed is measured on: the agent's full-depth turn subgame after this line.
SPEED_BOARD = "QsJh2h8d"
SPEED_BETTING = "r300c/cc/"
#: River cards a pass of the second timed solve (the first takes one); 0: every card,
#: the exact solve the choice is made on, timed itself (extrapolated from eight cards a
#: pass it was priced at half its cost on two threads), and its iterations.
SPEED_CARDS = 0
SPEED_ITERATIONS = 4
#: What a solve reserves for its fixed cost, times the fastest measured at start-up:
#: in play what follows the deadline (the average normalised, the answer through the
#: pipe) took up to 1.8 times that measurement on a 2-vCPU VM.
FIXED_MARGIN = 2.0


@dataclass(frozen=True)
class TurnSpeed:
    """Seconds of the full-depth solve on ``threads`` threads: per node-hand above the
    river subtrees and an iteration (``per_top``), per node-hand of the river subtrees
    a pass walks (``per_river``), and per node-hand of the whole tree once a solve
    (``per_fixed``: its arrays, the average strategy, its answer sent back; what a
    solve reserves for them, FIXED_MARGIN times the measured cost)."""

    threads: int
    per_top: float
    per_river: float
    per_fixed: float

    def iteration_seconds(self, sub, cards: int) -> float:
        """Seconds of one iteration of ``sub`` (a tree with river subtrees) walking
        ``cards`` river cards a pass (0: every one)."""
        top, river, n = work_of(sub)
        k = n if cards <= 0 or cards >= n else cards
        return self.per_top * top + self.per_river * river * k / max(n, 1)

    def fixed_seconds(self, sub) -> float:
        """Seconds a solve of ``sub`` costs besides its iterations."""
        return self.per_fixed * sub.tree.num_nodes * sub.hands.shape[0]


def work_of(sub) -> tuple[float, float, int]:
    """(node-hands above the river subtrees, node-hands of all river subtrees, river
    cards) of a full-depth turn subgame (a pass walks the first, and k / cards of the
    second)."""
    t = sub.tree
    H = sub.hands.shape[0]
    blocks = t.blocks
    river = float((blocks[:, 1] - blocks[:, 0] + 1).sum()) * H if len(blocks) else 0.0
    top = float(t.top_end if len(blocks) else t.num_nodes) * H
    cards = len(sub.chance_cards()) if len(blocks) else 0
    return top, river, cards


@dataclass(frozen=True)
class TurnChoice:
    """A turn solve: ``solver`` "full" (``cards`` river cards a pass, 0 every one, at most
    ``iterations``) or "depth-limited"; ``exact_iterations``: how many iterations of
    the exact full-depth solve the deadline would buy (what the choice was made on)."""

    solver: str
    cards: int
    iterations: int
    exact_iterations: float


def choose_turn_solve(sub, seconds: float, speed: TurnSpeed, libratus_iterations: int) -> TurnChoice:
    """The turn solve for the full-depth subgame ``sub`` with ``seconds`` to solve:
    the full-depth one with the most river cards a pass whose row of
    FULL_CARDS_BY_EXACT_ITERATIONS the deadline buys, else the depth-limited one."""
    _, _, n = work_of(sub)
    left = seconds - speed.fixed_seconds(sub)
    exact = left / speed.iteration_seconds(sub, 0) if left > 0 else 0.0
    cards = 0
    for needed, k in FULL_CARDS_BY_EXACT_ITERATIONS:
        if exact >= needed:
            cards = k
    if cards == 0 or n == 0:
        return TurnChoice("depth-limited", 0, 0, exact)
    return full_depth_choice(cards, n, libratus_iterations, exact)


def full_depth_choice(cards: int, river_cards: int, libratus_iterations: int, exact: float) -> TurnChoice:
    """The full-depth solve with ``cards`` of ``river_cards`` a pass (at least all: 0,
    every card), capped at Libratus's count of exact iterations (``libratus_iterations``)
    in river subtrees walked: that count times river cards / k sampled iterations."""
    k = 0 if cards >= river_cards else cards
    return TurnChoice("full", k, libratus_iterations * (river_cards // (k or river_cards)), exact)


def speed_spot(sizes: dict):
    """The full-depth turn subgame on SPEED_BOARD after SPEED_BETTING with the turn and
    river ``sizes`` (``{2: BetSizes, 3: BetSizes}``: the agent's own), full ranges: the
    spot the speed is measured on."""
    from pokerbot.protocol.betting import BettingState, apply_betting
    from pokerbot.protocol.cards import parse_cards
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.solver.subgame import make_subgame

    state = apply_betting(
        BettingState(bundled_game("holdem.nolimit.2p"), 0, None, parse_cards(SPEED_BOARD)), SPEED_BETTING
    )
    return make_subgame(state, sizes)


_SPOTS: dict = {}


def speed_spot_cached(sizes: dict):
    """``speed_spot(sizes)``, built once a process."""
    key = repr(sorted(sizes.items()))
    if key not in _SPOTS:
        _SPOTS[key] = speed_spot(sizes)
    return _SPOTS[key]


def sent_back(sub, result) -> None:
    """Send ``result`` (of a solve of ``sub``) through a pipe and read it back, as a
    solver worker answers and the player reads it."""
    import multiprocessing as mp
    import threading

    from pokerbot.bot.agent.solver_pool import answer_array, read_answer, send_answer

    a, b = mp.Pipe()
    into = answer_array(sub)
    got: list = []
    reader = threading.Thread(target=lambda: got.append(read_answer(b, b.recv(), into)), daemon=True)
    reader.start()
    send_answer(a, 0, result)
    reader.join()
    a.close()
    b.close()
    if not got or got[0][0] != "ok":
        raise RuntimeError("the answer did not come back through the pipe")


def measure_turn_speed(sub, threads: int = 1, repeats: int = 3) -> TurnSpeed:
    """Time the full-depth solve of ``sub`` (``speed_spot``) on ``threads`` threads:
    solves of no iterations (with their answer sent through a pipe and read back, as a
    solver worker sends it), and of one river card a pass and SPEED_CARDS, each the fastest
    of ``repeats`` (another process busy at the same moment slows a run, never speeds
    it); about a second on two cores."""
    from pokerbot.bot.agent.solver_pool import answer_dtype, compact
    from pokerbot.solver import cfr

    top, river, n = work_of(sub)
    dtype = answer_dtype(sub)  # as a worker answers

    def fastest(iterations: int, cards: int, answer: bool = False) -> float:
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = cfr.solve(sub, iterations, threads=threads, chance_samples=cards, seed=1, strategy_dtype=dtype)
            if answer:
                sent_back(sub, compact(sub, r))
            best = min(best, time.perf_counter() - t0)
        return best

    fastest(1, 1)  # the kernels loaded, the pages of this size touched once
    fixed = fastest(0, 1, answer=True)
    plain = fastest(0, 1)
    one_iterations = 40
    one = max(fastest(one_iterations, 1) - plain, 0.0) / one_iterations
    many = max(fastest(SPEED_ITERATIONS, SPEED_CARDS) - plain, 0.0) / SPEED_ITERATIONS
    k = n if SPEED_CARDS <= 0 or SPEED_CARDS >= n else SPEED_CARDS
    per_river = max(many - one, 0.0) / ((k - 1) * river / n)
    per_top = max(one - per_river * river / n, 0.0) / top
    if per_top == 0.0 and per_river == 0.0:  # a clock too coarse to time anything: a safe, slow guess
        per_river = statistics.fmean([many, one, 1e-3]) / (river / n)
    return TurnSpeed(threads, per_top, per_river, FIXED_MARGIN * fixed / (sub.tree.num_nodes * sub.hands.shape[0]))


#: Speeds measured in this process, by thread count and sizes (seats share them).
MEASURED: dict[tuple[int, str], TurnSpeed] = {}


def turn_speed(threads: int, sizes: dict) -> TurnSpeed:
    """The full-depth turn solve's speed on ``threads`` threads with the turn and river
    ``sizes``, measured (``measure_turn_speed`` on ``speed_spot``) once a process."""
    key = (threads, repr(sorted(sizes.items())))
    if key not in MEASURED:
        MEASURED[key] = measure_turn_speed(speed_spot_cached(sizes), threads)
    return MEASURED[key]
