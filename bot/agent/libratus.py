"""The Libratus agent: the blueprint on the first rounds, real-time subgame solving
from the turn (or the flop, or only the river) on (docs/design.md).

- Until the solving round (``AgentConfig.solve_round``: the turn by default; the flop
  searches as Pluribus): the blueprint, as the blueprint player plays it
  (``blueprint_store.real_play``: range thresholding, pseudo-harmonic translation of
  off-tree bets, raise wars past its cap followed).
- A flop subgame is solved to the end of the flop, its leaves at the turn valued by
  the blueprint's four continuations over the turn and the river on a keyed runout
  sample (``flop_rivers``); the turn is then solved anew from the flop solution's ranges.
- First decision in the solving round: an unsafe solve of the rest of the hand from the
  start of that round, both ranges from the blueprint by Bayes' rule along the line
  played. A river subgame offers more bet sizes than the blueprint has
  (RIVER_SUBGAME_SIZES). Bet sizes of the subgame are scaled by one factor drawn from
  [0.92, 1.08] for the hand.
- Later, after every opponent bet or raise, and after any opponent action the current
  solution lacks: a safe re-solve from the current state (``libratus``: Estimated-
  Resolve with gifts by default, or Estimated-Maxmargin as Libratus named its method
  (``gadget``), the previous solution acting as the blueprint; an off-tree
  action gets the best value of the actions the old tree had as the alternative), or
  an unsafe one (``unsafe``, the comparison bot). Ranges come from the previous
  solution by Bayes' rule; our own past actions are history.
- Otherwise the current solution is followed. Every solve runs over all hands of both
  players, with CFR+ iterations by Libratus's pot rule and a deadline that depends on
  public information only, so our cards never change how long we take.
- Random choices (the hand's scale factor, actions sampled from a solution) are keyed
  draws of the seed and the situation, as the blueprint player's are: with one seed,
  the same situation gets the same choice, which lets two runs (or the two matches of
  a duplicate) be compared hand by hand.

A structured log line per decision says where the action came from (blueprint,
fallback, unsafe, safe, nested), the iterations and the solve time.
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import structlog

from pokerbot.blueprint_store.abstraction import hand_buckets
from pokerbot.blueprint_store.continuations import attach_blueprint_continuations, blueprint_subgame_strategy
from pokerbot.blueprint_store.purification import fold_call_bet
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.bot.agent.config import AgentConfig
from pokerbot.bot.agent.solver_pool import GRACE_SECONDS, SolveJob, SolverPool, WorkerLost, run_job
from pokerbot.bot.agent.time_budget import ReplyClock, TimeBudget, TimePlan
from pokerbot.bot.agent.turn_choice import (
    FULL_CARDS_BY_EXACT_ITERATIONS,
    TurnChoice,
    TurnSpeed,
    choose_turn_solve,
    full_depth_choice,
    speed_spot_cached,
    turn_speed,
)
from pokerbot.bot.players.strategy_query import HANDS, ActionProbabilities, blueprint_answer, merge_columns
from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState
from pokerbot.protocol.cards import cards_to_str
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import cfr, kernel_cache
from pokerbot.solver import ranges as rg
from pokerbot.solver.depth_limited import runout_sample
from pokerbot.solver.gadgets import expected_per_hand, offtree_alt_values, update_gifts
from pokerbot.solver.keyed import KeyedUniform, pick
from pokerbot.solver.showdown_pass import compat_sums
from pokerbot.solver.subgame import Subgame, make_subgame
from pokerbot.solver.tree import CHANCE, DECISION, LEAF, BetSizes
from pokerbot.solver.warm_up import SOLVER_STAGES, load_solver_kernels

log = structlog.get_logger("agent")

#: A solve needs at least this deadline (seconds) to be worth starting.
MIN_SOLVE_SECONDS = 0.05


class SolveUnavailable(Exception):
    """No solve this decision (no time left, or the worker was lost): play the best
    strategy already available."""


#: Subgame bet sizes for the flop, turn and river (pot fractions per raise depth, all-in always).
SUBGAME_SIZES = {
    1: BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2),
    2: BetSizes(bets=((0.75,), (1.0,)), max_raises=2),
    3: BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2),
}
#: Bet sizes of a subgame that starts on the river. Its first bet has more sizes than the
#: blueprint's (0.5, 1 pot): a river solve is cheap (99 nodes, about 0.6 s for 1,000
#: iterations here), and sizes the opponent's abstraction lacks are where Libratus's
#: subgame solving gained most over solving with the opponent's own sizes (Libratus
#: supplement, Table S1). A turn subgame keeps SUBGAME_SIZES[3] for its river (each
#: river size multiplies the turn tree).
RIVER_SUBGAME_SIZES = BetSizes(bets=((0.33, 0.5, 0.75, 1.0, 2.0), (1.0,)), max_raises=2)
SCALE_RANGE = 0.08
#: The rounds ``early_purify`` purifies: the preflop and the flop, the blueprint's rounds.
EARLY_ROUNDS = (0, 1)
#: The defaults of how the agent solves, and why each: ``config.AgentConfig``. A turn
#: subgame is solved "full" to the end of the hand (k river cards a pass, k by the
#: deadline: ``turn_choice``), "depth-limited" to the end of the turn with the
#: blueprint's four continuation strategies per player at the river, or "auto" (per
#: solve the one ``turn_choice`` picks from the deadline and the speed measured at
#: start-up); after a depth-limited or a sampled full-depth turn solution the river is
#: solved anew when it comes. A flop solve values its leaves on every turn card with
#: ``flop_rivers`` river cards each, and starts from the blueprint's flop as if it had
#: played ``flop_warm_start`` iterations (docs/evaluation.md, "Depth-limited flop search").
#: A flop solution's counterfactual values (a safe re-solve's alternatives and gifts,
#: action values) are estimated on this many runouts of its sample, keyed: every one
#: would cost as much as that many solve passes.
FLOP_VALUE_DEALS = 16
#: An unsafe flop solve's warm start values its actions on this many runouts of its sample.
FLOP_WARM_DEALS = 8


#: The full-depth turn solve's regrets: Discounted CFR's (alpha, beta) = (1.5, 0), its
#: average weighing iteration t by t^2 (gamma = 2): lower exploitability than CFR+ with
#: linear or quadratic averaging in 57 of 60 comparisons (10 spots, 1, 4 and 16 river cards
#: a pass at what 2 cores buy, as committed and with the river solved; docs/evaluation.md,
#: "Full-depth turn solving at what fits").
FULL_DEPTH_DISCOUNT = cfr.DCFR
#: After a sampled full-depth turn solution whose river subtrees were walked on fewer
#: passes than this each (iterations x river cards a pass / cards), the river is solved
#: anew when it comes; with more, its own river is played. In the exact turn table its
#: own river was more exploitable than one solved anew at 92-117 passes a subtree and less
#: at 250-580 (docs/evaluation.md, "Full-depth turn solving at what fits").
RIVER_PASSES_TO_PLAY = 200
#: The safe re-solves' gadget (``AgentConfig.gadget``): "resolve" (Estimated-Resolve, the
#: default: it won 11.7 +- 10.1 mbb/hand over Maxmargin in turn subgames against an
#: equal-strength blueprint, docs/evaluation.md) or "maxmargin" (Estimated-Maxmargin, as
#: the Libratus paper names its method). A round's first solve from the turn on is
#: "unsafe" (Libratus's) or "safe" (the gadget against the opponent's values under the
#: blueprint); the opponent's range from the blueprint at a round's first solve is
#: "pooled" (each raise counting as raising at all, whatever its size), "played" or "raw".


def average_exponent(round_: int, sampled: bool) -> float:
    """The power of t a solve's average strategy weighs iteration t by (``cfr.solve``),
    by the round the solve starts on (0-based) and whether it samples the next cards:
    linear for the depth-limited turn (one river card a pass; quadratic left it more
    exploitable, with the river solved after it as the agent plays it), quadratic
    elsewhere (the river: lower exploitability on every river spot measured; the
    depth-limited flop: lower on 8 of 10 flop spots with the later rounds solved).
    docs/evaluation.md, "Averaging"."""
    return 1.0 if sampled and round_ == 2 else 2.0


#: where a decision's solution comes from when it was solved for that decision
SOLVE_KINDS = ("unsafe", "safe", "nested")


@dataclass(frozen=True)
class HandState:
    """What the agent carries through a hand between its decisions (the solution it
    plays from, the gifts, the hand's bet-size scale, the time budget, the blueprint's
    walk), as ``LibratusAgent.hand_state`` took it: opaque, to hand back to
    ``set_hand_state``."""

    fields: tuple


@dataclass
class AnsweredSolve:
    """A solve made to answer a question about a state of the current hand: the solution
    it started from (``before``, with the gifts and bet-size scale then), and what it
    made (solution, decision node, kind, the gifts after it, its log fields)."""

    before: Solution | None
    gifts_before: np.ndarray
    scale: float
    solution: Solution
    node: int
    source: str
    gifts: np.ndarray
    log: dict

    def applies(self, current: Solution | None, gifts: np.ndarray | None, scale: float) -> bool:
        """Whether a decision at that state, from ``current``, would make the same solve."""
        same_gifts = gifts is not None and np.array_equal(gifts, self.gifts_before)
        return current is self.before and same_gifts and scale == self.scale


@dataclass
class Solution:
    sub: Subgame
    strategy: np.ndarray  # (nodes, H)
    root: BettingState
    kind: str  # unsafe, safe, nested
    leaf_strategy: np.ndarray | None = None  # depth-limited: both players' continuation mixes
    #: the next round is solved anew when the hand reaches it (a sampled full-depth
    #: solution's; a depth-limited one's ends at its leaves)
    next_round_solved: bool = False
    #: a flop solution's values come from this many of its runouts (keyed by ``seed``; 0: all)
    value_deals: int = 0
    seed: int = 0
    threads: int = 1  # the values' leaves valued on that many
    _values: dict = field(default_factory=dict)

    def values(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Counterfactual values of ``player`` at every node, and both reaches (computed
        in the solve's precision, on the kernels the solves compiled; returned in double)."""
        if player not in self._values:
            cfv, reaches = cfr.node_values(
                self.sub,
                self.strategy,
                player,
                leaf_strategy=self.leaf_strategy,
                leaf_sample=self.value_deals,
                seed=self.seed,
                threads=self.threads,
                dtype=cfr.SOLVE_DTYPE,
            )
            self._values[player] = (cfv.astype(np.float64), reaches.astype(np.float64))
        return self._values[player]

    def reaches(self) -> np.ndarray:
        """Both players' reaches at every node (no values needed: cheap at any depth)."""
        if self._values:
            return next(iter(self._values.values()))[1]
        return cfr.node_reaches(self.sub, self.strategy, dtype=cfr.SOLVE_DTYPE).astype(np.float64)

    def parents(self) -> np.ndarray:
        """Each node's parent in the solution's tree (-1 at the root)."""
        tree = self.sub.tree
        parent = np.full(tree.num_nodes, -1, dtype=np.int64)
        for n in np.nonzero(tree.num_children > 0)[0]:
            parent[tree.first_child[n] : tree.first_child[n] + tree.num_children[n]] = n
        return parent

    def round_start_node(self, node: int) -> int:
        """The first node of ``node``'s round: the chance child above it (or ``node``)."""
        parent = self.parents()
        while parent[node] >= 0 and self.sub.tree.kind[parent[node]] != CHANCE:
            node = int(parent[node])
        return node

    def reaches_at(self, node: int) -> np.ndarray:
        """Both players' reaches at ``node`` (2, H): the root's times each player's
        probabilities of its own actions on the way (the hands holding a dealt card
        are not removed)."""
        tree = self.sub.tree
        parent = self.parents()
        out = np.array(self.sub.reach, dtype=np.float64)
        n = node
        while parent[n] >= 0:
            p = parent[n]
            if tree.kind[p] == DECISION:
                out[int(tree.player[p])] *= self.strategy[n]
            n = p
        return out


def _events(root: BettingState, state: BettingState) -> list[tuple[str, Action | int]]:
    """What happened since ``root``: ("a", action) and ("c", card) in order."""
    out: list[tuple[str, Action | int]] = []
    game = state.game
    for r in range(root.round, state.round + 1):
        start = len(root.actions[r]) if r == root.round else 0
        for a in state.actions[r][start:]:
            out.append(("a", a))
        if r < state.round:
            lo, hi = game.total_board_cards(r), game.total_board_cards(r + 1)
            for c in state.board_cards[lo:hi]:
                out.append(("c", c))
    return out


def _walk(sol: Solution, state: BettingState) -> tuple[int, int, int | None]:
    """Follow ``state`` in the solution's tree from its root: (node reached, the node
    before the last event followed, index of the first event the tree lacks or None)."""
    tree = sol.sub.tree
    node = 0
    parent = 0
    for i, (kind, what) in enumerate(_events(sol.root, state)):
        k = tree.kind[node]
        f, m = int(tree.first_child[node]), int(tree.num_children[node])
        found = -1
        if kind == "c" and k == CHANCE:
            for c in range(f, f + m):
                if int(tree.dealt[c]) == what:
                    found = c
                    break
        elif kind == "a" and k == DECISION:
            assert isinstance(what, Action)  # an "a" event's
            for c in range(f, f + m):
                a = tree.actions[c]
                if a is not None and a.type is what.type and (a.type is not ActionType.RAISE or a.size == what.size):
                    found = c
                    break
        if found < 0:
            return node, parent, i
        parent, node = node, found
    return node, parent, None


class LibratusAgent:
    """``safe``: True for Libratus's safe nested solving, False for the unsafe bot.
    ``sizes``: bet sizes per round of a subgame that starts on the turn;
    ``river_sizes``: those of one that starts on the river; ``scale_range``: each
    hand's factor on them is drawn from 1 +- this (0: the sizes as given)."""

    def __init__(
        self,
        seed: int | None = None,
        blueprint: str | Blueprint | None = None,
        safe: bool = True,
        config: AgentConfig | None = None,
        *,
        sizes: dict[int, BetSizes] | None = None,
        river_sizes: BetSizes | None = None,
        scale_range: float = SCALE_RANGE,
        threads: int = 1,
        pool: SolverPool | None = None,
        budget: TimeBudget | None = None,
        clock: ReplyClock | None = None,
        plan: TimePlan | None = None,
        **options: Any,
    ) -> None:
        """``config`` (default ``AgentConfig()``) with ``options`` (its fields) says how
        it solves; the rest is how it runs: the subgames' bet sizes, the hand's scale
        range, solver threads, the solver pool (None: solve in this process), the time
        budget, the reply clock and the time plan."""
        self.config = (config or AgentConfig()).with_options(**options)
        c = self.config
        # the blueprint's rounds (as played: early_purify, early_threshold), ranges, continuations
        self.blueprint = BlueprintPlay(
            blueprint, random.Random(seed), EARLY_ROUNDS if c.early_purify else (), c.early_threshold
        )
        self.bp = self.blueprint.bp
        self.keys = KeyedUniform(seed)
        self.safe = safe
        self.name = "libratus" if safe else "unsafe"
        self.solve_seconds = c.solve_seconds  # None: the time plan sets each solve's cap
        self.plan = plan or TimePlan()
        self.sizes = sizes or SUBGAME_SIZES
        if c.turn_bets is not None:
            turn = self.sizes[2]
            self.sizes = {**self.sizes, 2: replace(turn, bets=(tuple(float(x) for x in c.turn_bets),) + turn.bets[1:])}
        self.river_sizes = river_sizes or RIVER_SUBGAME_SIZES
        if not 0.0 <= scale_range < 1.0:
            raise ValueError(f"scale_range must be in [0, 1), got {scale_range}")
        self.scale_range = scale_range
        if threads < 1:
            raise ValueError(f"solver threads must be at least 1, got {threads}")
        self.threads = threads
        self.solve_round = c.solve_round_index  # 0-based, as the rounds of a state
        self.flop_rivers = c.flop_rivers
        self.flop_warm_start = c.flop_warm_start
        self.turn_solver = c.turn_solver
        self.card_samples = c.card_samples
        self.gadget = c.gadget
        self.first_solve = c.first_solve
        #: whether the gifts grow with the opponent's on-tree actions (Libratus); else they stay 0
        self.use_gifts = c.gifts
        self.river_ranges = c.river_ranges
        self.opponent_ranges = c.opponent_ranges
        #: the blueprint whose play of the line gives the opponent's range at a round's first
        #: solve, as that blueprint plays it (None: ours, by ``opponent_ranges``): for an
        #: opponent known to play that blueprint, a bound on what a better range is worth
        model = options.get("opponent_model", c.opponent_model)  # a path, or a store already open
        self.opponent_model = None if model is None else BlueprintPlay(model, random.Random(seed))
        #: play a solution with fold-call-bet purification (``blueprint_store.purification``)
        self.purify = c.purify
        #: a sampled full-depth turn solution's river is solved anew when each river subtree
        #: was walked on fewer passes than this (None: RIVER_PASSES_TO_PLAY)
        self.river_passes = c.river_passes
        #: (river cards a pass, 0: every one; iterations) of every full-depth turn solve,
        #: whatever the deadline buys (None: what it buys)
        self.full_turn = c.full_turn
        self._hand: int | None = None
        self._solution: Solution | None = None
        self._gifts: np.ndarray | None = None
        self._scale = 1.0
        self.pool = pool  # None: solve in this process
        self.budget = budget or TimeBudget()
        self.clock = clock or ReplyClock()
        self._last_solve: dict = {}
        self._note: dict = {}  # more about a decision for its log line (the extension in use)
        #: the state of the last decision made and the solution and node it was played from
        #: (None: the blueprint's): a question about that state answers from them
        self._decided: tuple | None = None
        #: solves made to answer questions this hand, by state: the decision at that state
        #: plays from the same solution when nothing it started from has changed since
        self._answered: dict[tuple, AnsweredSolve] = {}
        self._decision_t0 = time.perf_counter()
        self._first_solve_t0: float | None = None  # when the current decision's first solve began
        #: the full-depth turn solve's speed on this machine (``prepare`` measures it once a
        #: process; the seats of a process share it): None, and "auto" solves depth-limited
        self.speed: TurnSpeed | None = None

    @property
    def solution(self) -> Solution | None:
        """The solution the current hand plays from (None: the blueprint's)."""
        return self._solution

    @property
    def gifts(self) -> np.ndarray | None:
        """The current hand's gifts: what the opponent gave up by its actions so far, per
        hand (added to the safe gadget's alternatives)."""
        return self._gifts

    @property
    def bet_scale(self) -> float:
        """The current hand's factor on the subgames' bet sizes (``scale_for``)."""
        return self._scale

    #: The stages of ``prepare`` that load kernels, in order: the solver's, then the
    #: blueprint's lookups (what ``pokerbot warm`` runs).
    KERNEL_STAGES = (*SOLVER_STAGES, "blueprint lookups")
    #: The stages of ``prepare``: KERNEL_STAGES, then (a turn solver that may solve full
    #: depth) the full-depth turn solve's speed.
    PREPARE_STAGES = (*KERNEL_STAGES, "the full-depth turn solve's speed")

    def prepare(self, stage=None, measure_speed: bool = True) -> None:
        """Before the first hand: load (on a fresh machine: compile, each kernel by one
        process) every numba kernel this process uses - solving (on this agent's
        threads), evaluating solutions, the blueprint's bucket lookups of every round -
        wait until the solver workers are warm, so that no decision of the match pays
        for it, and (``measure_speed``, unless the turn is always solved depth-limited)
        measure the full-depth turn solve's speed (``turn_choice``). ``stage(name)`` is
        told each of PREPARE_STAGES it starts."""
        t0 = time.perf_counter()
        compiled: list[str] = []
        with kernel_cache.watch(finished=lambda k, s, depth, a: compiled.append(k) if depth == 0 else None):
            load_solver_kernels(self.threads, stage)
            if stage is not None:
                stage(self.KERNEL_STAGES[-1])
            game = self.bp.game
            board = list(range(8, 8 + game.total_board_cards(game.num_rounds - 1)))
            for rd in range(game.num_rounds):
                shown = board[: game.total_board_cards(rd)]
                self.bp.bucket(rd, [0, 1], shown)
                hand_buckets(self.bp.cards, rd, shown)
        if self.pool is not None and not self.pool.wait_ready():
            log.warning("solver_pool_not_ready")
        if measure_speed and self.turn_solver != "depth-limited" and self.solve_round <= 2:
            if stage is not None:
                stage(self.PREPARE_STAGES[-1])
            t1 = time.perf_counter()
            sizes = {r: self.sizes[r] for r in (2, 3)}
            speed = self.speed = turn_speed(self.threads, sizes)
            spot = speed_spot_cached(sizes)
            log.info(
                "turn_speed",
                threads=self.threads,
                seconds=round(time.perf_counter() - t1, 2),
                exact_iteration_ms=round(1000 * speed.iteration_seconds(spot, 0), 2),
                one_card_iteration_ms=round(1000 * speed.iteration_seconds(spot, 1), 3),
                fixed_seconds=round(speed.fixed_seconds(spot), 3),
            )
        log.info("agent_ready", seconds=round(time.perf_counter() - t0, 2), kernels_compiled=compiled)

    def hand_over(self, ms: MatchState) -> None:
        self._hand = None
        self._solution = None
        self.blueprint.hand_over(ms)  # the opponent's size history (type-1 extensions)

    # ------------------------------------------------------------------ ranges
    @staticmethod
    def _canonical(sub: Subgame, per_hand: np.ndarray, size: int) -> np.ndarray:
        out = np.zeros(size)
        out[sub.hand_index] = per_hand
        return out

    # ------------------------------------------------------------------ solving
    def _solve(
        self,
        state: BettingState,
        reach: np.ndarray,
        kind: str,
        gadget: cfr.Gadget | None = None,
        extra: tuple[int, ...] = (),
    ) -> Solution:
        t_setup = time.perf_counter()
        # a decision may solve twice (a new round, then a re-solve): the second gets what
        # the first left (the work before a decision's first solve is in the overhead)
        if self._first_solve_t0 is None:
            self._first_solve_t0 = t_setup
        elapsed = t_setup - self._first_solve_t0
        deadline = self.budget.solve_deadline(self.solve_cap(state, elapsed), elapsed)
        if deadline < MIN_SOLVE_SECONDS:
            raise SolveUnavailable("time budget")
        table = self.sizes if state.round < 3 else {3: self.river_sizes}
        all_sizes = {
            r: BetSizes(bets=s.bets, max_raises=s.max_raises, scale=self._scale)
            for r, s in table.items()
            if r >= state.round
        }
        # the flop is always solved depth-limited (to the end of the flop); the turn by turn_solver
        depth_limited = state.round == 1 or (state.round == 2 and self.turn_solver == "depth-limited")
        choice = None
        full_sub = None
        if state.round == 2 and self.turn_solver != "depth-limited":
            full_sub = make_subgame(state, all_sizes, reach, extra_root_raises=extra)
            choice = self.turn_choice(full_sub, deadline - (time.perf_counter() - t_setup), state.game.big_blind)
            depth_limited = choice.solver == "depth-limited"
        sizes = {r: s for r, s in all_sizes.items() if not (depth_limited and r > state.round)}
        key = int(self.keys(f"cards:{state.hand_id}:{state.betting_string()}") * 2**31)
        deals = None
        if depth_limited and state.round == 1:
            # one sample a hand: the flop's re-solves share it, and its bucket table (cached)
            board = cards_to_str(state.board_cards)
            drawn = int(self.keys(f"runouts:{state.hand_id}:{board}") * 2**31)
            deals = runout_sample(state.game.deck(), state.board_cards, self.flop_rivers, drawn)
        if full_sub is not None and not depth_limited:
            sub = full_sub
        else:
            sub = make_subgame(
                state,
                sizes,
                reach,
                extra_root_raises=extra,
                leaf_round=state.round + 1 if depth_limited else None,
                leaf_deals=deals,
            )
        depth_limited = depth_limited and sub.tree.num_leaves > 0  # not after an all-in: the tree is complete
        river_cards = choice.cards if choice is not None and not depth_limited else 0
        warm = None
        if depth_limited:
            node, _ = self.blueprint.walk(state)
            attach_blueprint_continuations(sub, state, self.blueprint.view, node)
            if state.round == 1 and gadget is None and self.flop_warm_start > 0:
                start = blueprint_subgame_strategy(sub, state, self.blueprint.view, node)
                warm = cfr.WarmStart(start, self.flop_warm_start, deals=FLOP_WARM_DEALS)
            # building the continuations is part of the solve's time
            deadline -= time.perf_counter() - t_setup
            if deadline < MIN_SOLVE_SECONDS:
                raise SolveUnavailable("time budget")
        if gadget is not None:
            gadget = cfr.Gadget(gadget.kind, gadget.player, gadget.alt_values[sub.hand_index])
        iters = cfr.libratus_iterations(sub.pot, state.game.big_blind)
        if river_cards > 0:
            assert choice is not None  # a sampled full-depth turn solve was chosen
            iters = choice.iterations
        fixed = 0.0
        if full_sub is not None and sub is full_sub:
            # the full-depth solve's own fixed cost (its arrays, the average, the answer) before the deadline
            fixed = self.speed.fixed_seconds(sub) if self.speed is not None else 0.0
            deadline -= time.perf_counter() - t_setup + fixed
            if deadline < MIN_SOLVE_SECONDS:
                raise SolveUnavailable("time budget")
        t0 = time.perf_counter()
        try:
            samples = self.pass_samples(sub) if depth_limited else 0
            exponent = average_exponent(state.round, samples > 0)
            job = SolveJob(sub, iters, deadline, gadget, self.threads, None, samples, key, exponent, warm)
            job.chance_samples = river_cards
            job.discount = FULL_DEPTH_DISCOUNT if sub is full_sub else None
            if self.pool is None:
                r = run_job(job)
            else:
                # the answer must be back within what the dealer's limits leave this decision
                left = self.budget.available() - (time.perf_counter() - self._decision_t0) - 0.05
                job.limit = max(deadline, min(deadline + GRACE_SECONDS, left))
                r = self.pool.solve(job)
        except WorkerLost as e:
            log.warning("solve_lost", kind=kind, hand=state.hand_id, betting=state.betting_string(), error=str(e))
            raise SolveUnavailable("worker lost") from None
        except RuntimeError as e:  # the worker reported an exception in the solve
            log.error("solve_failed", kind=kind, hand=state.hand_id, betting=state.betting_string(), error=str(e))
            raise SolveUnavailable("solve failed") from None
        seconds = time.perf_counter() - t0
        turn_solver = ("depth-limited" if depth_limited else "full") if state.round == 2 else None
        self._last_solve = {
            "iterations": r.iterations,
            "of": iters,
            "stopped_early": r.stopped_early,
            "solve_seconds": round(seconds, 4),
            "nodes": sub.tree.num_nodes,
            **({"leaves": sub.tree.num_leaves, "card_samples": samples} if depth_limited else {}),
            **({"turn_solver": turn_solver, "card_samples": samples or river_cards} if turn_solver else {}),
            **({"runouts": len(sub.tree.leaf_deals)} if deals is not None else {}),
            **({"warm_start": warm.iterations} if warm is not None else {}),
            "setup_seconds": round(t0 - t_setup, 4),
        }
        measured: dict[str, float] = (
            {}
            if r.exploitability is None
            else {"exploitability_pct_pot": round(100 * r.exploitability / max(sub.pot, 1), 4)}
        )
        log.info(
            "solve",
            kind=kind,
            hand=state.hand_id,
            betting=state.betting_string(),
            nodes=sub.tree.num_nodes,
            hands=int(sub.hands.shape[0]),
            iterations=r.iterations,
            of=iters,
            # what the solve may take, its fixed cost after the iterations' deadline included
            deadline=round(deadline + fixed, 3),
            stopped_early=r.stopped_early,
            seconds=round(seconds, 3),
            depth_limited=depth_limited,
            **({"turn_solver": turn_solver, "card_samples": samples or river_cards} if turn_solver else {}),
            **({"exact_iterations": round(choice.exact_iterations, 1)} if choice is not None else {}),
            **measured,
        )
        value_deals = FLOP_VALUE_DEALS if deals is not None and len(deals) > FLOP_VALUE_DEALS else 0
        return Solution(
            sub,
            r.strategy,
            state.copy(),
            kind,
            r.leaf_strategy,
            self.river_solved_after(sub, river_cards, r.iterations, self.river_passes),
            value_deals,
            key,
            self.threads,
        )

    @staticmethod
    def river_solved_after(sub: Subgame, river_cards: int, iterations: int, passes: int | None = None) -> bool:
        """Whether the river is solved anew after a full-depth turn solution of ``sub``
        walking ``river_cards`` a pass (0: every card; never) for ``iterations``: when
        each river subtree was walked on fewer than ``passes`` (None:
        RIVER_PASSES_TO_PLAY) passes."""
        if river_cards <= 0:
            return False
        cards = len(sub.chance_cards())
        return iterations * river_cards < (RIVER_PASSES_TO_PLAY if passes is None else passes) * cards

    def turn_choice(self, full_sub: Subgame, seconds: float, big_blind: int) -> TurnChoice:
        """The turn solve for the full-depth subgame ``full_sub`` with ``seconds`` to
        solve: "auto" by ``choose_turn_solve`` (depth-limited while no speed is
        measured); "full" always full depth, with the river cards a pass the deadline
        buys (4, the fewest the choice takes, when it buys none or no speed is measured);
        ``full_turn``, when set, that solve whatever the deadline buys."""
        iterations = cfr.libratus_iterations(full_sub.pot, big_blind)
        if self.full_turn is not None:
            cards, fixed = self.full_turn
            n = len(full_sub.chance_cards()) if len(full_sub.tree.blocks) else 0
            return TurnChoice("full", 0 if cards >= n else cards, fixed, 0.0)
        speed = self.speed
        if speed is None:
            c = TurnChoice("depth-limited", 0, 0, 0.0)
        else:
            c = choose_turn_solve(full_sub, seconds, speed, iterations)
        n = len(full_sub.chance_cards()) if len(full_sub.tree.blocks) else 0
        if self.turn_solver == "full" and c.solver != "full" and n:
            c = full_depth_choice(FULL_CARDS_BY_EXACT_ITERATIONS[0][1], n, iterations, c.exact_iterations)
        elif self.turn_solver == "full" and c.solver != "full":  # both all in: nothing to sample
            c = TurnChoice("full", 0, iterations, c.exact_iterations)
        return c

    def pass_samples(self, sub: Subgame) -> int:
        """Next cards (from the flop: runouts) a depth-limited pass values its leaves on:
        ``card_samples`` whatever the threads (they share each pass's (leaf, card) work,
        so more threads buy more iterations, not larger passes); 0 (every card) when
        that is all of them or ``card_samples`` is 0."""
        k = self.card_samples
        return 0 if sub.continuations is None or k >= len(sub.continuations.cards) else k

    def solve_cap(self, state: BettingState, elapsed: float = 0.0) -> float:
        """The cap of a solve at ``state`` before the dealer's limits: ``solve_seconds``,
        else the time plan's share for its round and pot (public information only)."""
        if self.solve_seconds is not None:
            return self.solve_seconds
        pot_weight = cfr.libratus_iterations(state.pot, state.game.big_blind) / cfr.libratus_iterations(0, 1)
        return self.plan.cap(self.budget, state.round, pot_weight, elapsed)

    def _solve_next_round(self, state: BettingState, me: int, leaf: int) -> Solution:
        """An unsafe solve from the start of the round after a depth-limited solution (or
        a sampled full-depth one), both ranges from that solution by Bayes' rule at the
        ``leaf`` the hand reached (the full-depth one's first node of the round)
        (Pluribus's nested search: a new root at each new round)."""
        old = self._solution
        assert old is not None  # called when the hand reached one of its leaves
        at = old.reaches()[:, leaf] if old.leaf_strategy is not None else old.reaches_at(leaf)
        size = len(rg.hole_hands(state.game))
        reach = np.stack([self._canonical(old.sub, at[p], size) for p in (0, 1)])
        if self.river_ranges == "blueprint":
            reach[1 - me] = self.first_solve_ranges(state, me)[1 - me]
        reach[:, rg.blocked_by(rg.hole_hands(state.game), tuple(state.board_cards))] = 0.0
        root = self._round_start(state)
        return self._solve(root, reach, "unsafe", extra=self._opening_bet(state, me))

    def first_solve_ranges(self, state: BettingState, me: int) -> np.ndarray:
        """Both players' reach at the start of ``state``'s round for its first solve: ours
        from our blueprint's play of the line; the opponent's from ours too (as played, raw
        or pooled: ``opponent_ranges``), or from ``opponent_model``'s play as that
        blueprint plays it."""
        ranges = self.blueprint.round_start_ranges(
            state, me, self.opponent_ranges == "raw", pool_opponent_raises=self.opponent_ranges == "pooled"
        )
        if self.opponent_model is not None:
            opp = 1 - me
            self.opponent_model.check_game(state.game)
            ranges[opp] = self.opponent_model.round_start_ranges(state, opp)[opp]
        return ranges

    def _blueprint_gadget(self, root: BettingState, ranges: np.ndarray, me: int) -> tuple[np.ndarray, cfr.Gadget]:
        """A safe first solve at the start ``root`` of the turn or the river: the reach
        (ours from ``ranges``, every opponent hand) and the gadget whose alternative is
        each opponent hand's expected value if both played the blueprint from ``root``
        (its own bet sizes, every river card), plus the gifts."""
        opp = 1 - me
        node, _ = self.blueprint.walk(root)
        view = self.blueprint.view
        sizes = {r: view.actions.rounds[r] for r in range(root.round, root.game.num_rounds)}
        sub = make_subgame(root, sizes, ranges)
        strategy = blueprint_subgame_strategy(sub, root, view, node)
        cfv, reaches = cfr.node_values(sub, strategy, opp)
        weights = np.zeros(sub.hands.shape[0])
        compat_sums(reaches[me, 0], sub.c1, sub.c2, sub.dup, weights)
        size = len(rg.hole_hands(root.game))
        alt = self._canonical(sub, expected_per_hand(cfv[0], weights), size)
        if self._gifts is not None:
            alt = alt + self._gifts
        reach = np.array(ranges, dtype=np.float64)
        reach[opp] = 1.0  # ignored by the gadget: every opponent hand may enter
        return reach, cfr.Gadget(self.gadget, opp, alt)

    def _resolve(self, state: BettingState, me: int) -> Solution:
        """A new solution for ``state`` after an opponent bet/raise or off-tree action."""
        old = self._solution
        assert old is not None  # _decide resolves only within the current solution
        opp = 1 - me
        node, parent, missing = _walk(old, state)
        size = len(rg.hole_hands(state.game))
        cfv_opp, reaches = old.values(opp)
        off_tree = missing is not None
        at = parent if not off_tree else node  # the opponent's decision in the old tree
        ours = self._canonical(old.sub, reaches[me, at], size)
        theirs_before = self._canonical(old.sub, reaches[opp, at], size)
        weights = np.zeros(old.sub.hands.shape[0])
        compat_sums(reaches[me, at], old.sub.c1, old.sub.c2, old.sub.dup, weights)
        v_before = self._canonical(old.sub, expected_per_hand(cfv_opp[at], weights), size)
        tree = old.sub.tree
        kids = range(int(tree.first_child[at]), int(tree.first_child[at]) + int(tree.num_children[at]))
        if off_tree:
            alt = offtree_alt_values(
                [self._canonical(old.sub, expected_per_hand(cfv_opp[c], weights), size) for c in kids], self._gifts
            )
            theirs = theirs_before  # the unsafe bot: the range before the unknown action
            kind = "nested"
        else:
            v_after = self._canonical(old.sub, expected_per_hand(cfv_opp[node], weights), size)
            assert self._gifts is not None  # set at the start of every hand
            if self.use_gifts:
                self._gifts = update_gifts(self._gifts, v_before, v_after)
            alt = v_after + self._gifts
            theirs = self._canonical(old.sub, reaches[opp, node], size)
            kind = "safe"
        reach = np.zeros((2, size))
        reach[me] = ours
        reach[opp] = theirs
        if not self.safe:
            return self._solve(state, reach, "unsafe")
        reach[opp] = 1.0  # ignored by the gadget: every opponent hand may enter
        return self._solve(state, reach, kind, cfr.Gadget(self.gadget, opp, alt))

    # ------------------------------------------------------------------ acting
    def act(self, ms: MatchState) -> Action:
        t0 = self._decision_t0 = time.perf_counter()
        self._first_solve_t0 = None
        state = ms.state
        self.budget.start_hand(state.hand_id)
        self._last_solve = {}
        self._note = {}
        try:
            action, source = self._decide(ms)
        except Exception:  # a bug must cost one decision, not the match
            log.exception("decision_failed", hand=state.hand_id, betting=state.betting_string())
            self._solution = None
            try:
                action, source = self._blueprint_act(ms)[0], "error-fallback"
            except Exception:
                log.exception("blueprint_failed", hand=state.hand_id, betting=state.betting_string())
                action, source = CALL, "error-fallback"
        fields = dict(
            hand=state.hand_id,
            round=state.round,
            betting=state.betting_string(),
            board=cards_to_str(state.board_cards),
            source=source,
            action=str(action),
            **self._last_solve,
            **self._note,
        )
        reply = self.clock.hold(t0)  # the last thing before replying: nothing card-dependent after it
        self.budget.record(reply)
        log.info("decision", reply_seconds=round(reply, 4), **fields)
        return action

    def scale_for(self, hand_id: int) -> float:
        """The hand's bet-size factor, uniform in 1 ± ``scale_range``."""
        return 1.0 + self.scale_range * (2.0 * self.keys(f"scale:{hand_id}") - 1.0)

    def _decide(self, ms: MatchState) -> tuple[Action, str]:
        """The action and where it came from: blueprint, translation, fallback (the
        blueprint could not follow the line), unsafe / safe / nested (a solve just
        now), solution (the current solution), or previous- / blueprint-fallback
        (no solve was possible: the best strategy already available)."""
        state = ms.state
        self._start_hand(state)
        if state.round < self.solve_round or state.game.num_rounds != 4:
            return self._blueprint_act(ms)
        sol, node, source = self._solution_at(ms)
        self._decided = (self._state_key(state, ms.viewer), sol, node)
        if sol is None:
            action, blueprint_source = self._blueprint_act(ms)
            return action, source or blueprint_source
        assert source is not None  # a solution always comes with where it came from
        return self._sample(sol, node, state, ms.viewer), source

    @staticmethod
    def _state_key(state: BettingState, seat: int) -> tuple:
        return (state.hand_id, seat, state.betting_string(), tuple(state.board_cards))

    def _start_hand(self, state: BettingState) -> None:
        """A new hand: no solution or gifts yet, the hand's bet-size scale."""
        if self._hand != state.hand_id:
            self._hand = state.hand_id
            self._decided = None
            self._answered = {}
            self._solution = None
            self._gifts = np.zeros(len(rg.hole_hands(state.game)))
            self._scale = self.scale_for(state.hand_id)

    def _solution_at(self, ms: MatchState) -> tuple[Solution | None, int, str | None]:
        """From the solving round on: the solution to play ``ms`` from, solving or
        re-solving as Libratus does, and the decision node in it, with where it came
        from. (None, -1, source) when the blueprint plays instead: source
        "blueprint-fallback" when no solve was possible and no solution covers the
        state, None when the state left the solution (the blueprint names it)."""
        state = ms.state
        me = ms.viewer
        answered = self._answered.get(self._state_key(state, me))
        if answered is not None and answered.applies(self._solution, self._gifts, self._scale):
            self._solution, self._gifts, self._last_solve = answered.solution, answered.gifts.copy(), answered.log
            self._note = {**self._note, "solved_for_question": True}
            return answered.solution, answered.node, answered.source
        source = "solution"
        try:
            if self._solution is None:
                root = self._round_start(state)
                extra = self._opening_bet(state, me)
                ranges = self.first_solve_ranges(state, me)
                if self.first_solve == "safe" and self.safe and root.round >= 2:
                    self._first_solve_t0 = time.perf_counter()  # the blueprint's values count as the solve's time
                    reach, gadget = self._blueprint_gadget(root, ranges, me)
                    self._solution = self._solve(root, reach, "safe", gadget, extra=extra)
                else:
                    self._solution = self._solve(root, ranges, "unsafe", extra=extra)
                source = self._solution.kind
                if _walk(self._solution, state)[2] is not None:
                    # the round's first solve came late (an earlier decision of the round had
                    # no time for it) and the line since left its tree: a nested re-solve
                    self._solution = self._resolve(state, me)
                    source = self._solution.kind
            else:
                node, parent, missing = _walk(self._solution, state)
                tree = self._solution.sub.tree
                if tree.kind[node] == LEAF:
                    # the river after a depth-limited turn solution: solve it from that solution's ranges
                    self._solution = self._solve_next_round(state, me, node)
                    source = "unsafe"
                elif self._solution.next_round_solved and state.round > self._solution.root.round and missing is None:
                    # the river after a sampled full-depth turn solution: the same, from the river's first node
                    self._solution = self._solve_next_round(state, me, self._solution.round_start_node(node))
                    source = "unsafe"
                elif missing is not None or self._last_opponent_raise_since(self._solution.root, state, me):
                    self._solution = self._resolve(state, me)
                    source = self._solution.kind
        except SolveUnavailable:
            # no new solve: the current solution where the hand is still in it, else the blueprint
            sol = self._solution
            if sol is not None:
                node, _, missing = _walk(sol, state)
                if missing is None and sol.sub.tree.kind[node] == DECISION:
                    return sol, node, "previous-fallback"
            return None, -1, "blueprint-fallback"
        node, _, missing = _walk(self._solution, state)
        if missing is not None or self._solution.sub.tree.kind[node] != DECISION:
            log.warning("decision outside the solution", hand=state.hand_id, betting=state.betting_string())
            return None, -1, None
        return self._solution, node, source

    # ------------------------------------------------------------------ querying
    def blueprint_action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """What the agent's blueprint would do at ``state`` with every hand (its walk left
        as it was): a stand-in that costs no solve."""
        return blueprint_answer(self.blueprint, state, seat)

    def hand_state(self) -> HandState:
        """What the agent carries through the current hand (``HandState``)."""
        return HandState(
            (
                self._hand,
                self._decided,
                self._solution,
                None if self._gifts is None else self._gifts.copy(),
                self._scale,
                self._last_solve,
                self._note,
                copy.deepcopy(self.budget),
                self.blueprint.snapshot(),
            )
        )

    def set_hand_state(self, saved: HandState) -> None:
        """Back to a ``hand_state`` snapshot (the same one may be set again and again)."""
        hand, decided, solution, gifts, scale, last_solve, note, budget, walk = saved.fields
        self._hand, self._decided, self._solution, self._scale = hand, decided, solution, scale
        self._gifts = None if gifts is None else gifts.copy()
        self._last_solve, self._note = last_solve, note
        self.budget = copy.deepcopy(budget)
        self.blueprint.restore(walk)

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """What the agent would do at ``state`` with every hand (see ``strategy_query``):
        before the solving round, the blueprint's answer; from it on, the strategy at
        ``state`` of the solution it would play from, made by the same solves as in
        play (unsafe at the round's first decision, then safe, nested or unsafe
        re-solves, under the same iteration rule and time budget); at the state of the
        decision it has just made, the solution that decision was played from. Its hand state (the
        solution, gifts, the hand's bet-size scale, the time budget, the blueprint's
        walk) is restored afterwards: a question leaves the real hand as it was."""
        saved = self.hand_state()
        answered: AnsweredSolve | None = None
        try:
            answer, answered = self._answer(state, seat)
            return answer
        finally:
            self.set_hand_state(saved)
            if answered is not None and self._hand == state.hand_id:
                self._answered[self._state_key(state, seat)] = answered

    def advance(self, state: BettingState, seat: int) -> ActionProbabilities:
        """What the agent would do at ``state`` with every hand, as ``action_probabilities``,
        but leaving its hand state where that decision leaves it (the solution it plays
        from, the gifts): asked at each of its decisions along a line, from the hand
        state before the first (``hand_state`` / ``set_hand_state`` to branch), it
        answers as it would play that line."""
        return self._answer(state, seat)[0]

    def _answer(self, state: BettingState, seat: int) -> tuple[ActionProbabilities, AnsweredSolve | None]:
        answered: AnsweredSolve | None = None
        self._start_hand(state)
        self.budget.start_hand(state.hand_id)  # as act does: the hand's time budget
        self._decision_t0 = time.perf_counter()
        self._first_solve_t0 = None
        if state.round < self.solve_round or state.game.num_rounds != 4:
            return self.blueprint_action_probabilities(state, seat), None
        if self._decided is not None and self._decided[0] == self._state_key(state, seat):
            _, sol, node = self._decided  # the decision just made here: what it was played from
        else:
            assert self._gifts is not None  # set by _start_hand
            before = (self._solution, self._gifts.copy(), self._scale)
            sol, node, source = self._solution_at(MatchState(seat, state))
            if sol is not None and source in SOLVE_KINDS and self._gifts is not None:
                answered = AnsweredSolve(*before, sol, node, source, self._gifts.copy(), dict(self._last_solve))
        if sol is None:
            return self.blueprint_action_probabilities(state, seat), answered
        tree = sol.sub.tree
        f, m = int(tree.first_child[node]), int(tree.num_children[node])
        block = np.asarray(sol.strategy[f : f + m, :], dtype=np.float64).T  # (subgame hands, m)
        sums = block.sum(axis=1, keepdims=True)
        block = np.where(sums > 0, block / np.where(sums > 0, sums, 1.0), 1.0 / m)  # as _sample
        if self.purify:
            block = fold_call_bet(block, [a for a in tree.actions[f : f + m] if a is not None])
        probs = np.zeros((len(HANDS), m))
        probs[sol.sub.hand_index] = block
        cfv, reaches = sol.values(seat)
        values = np.zeros((len(HANDS), m))
        values[sol.sub.hand_index] = cfr.action_values(sol.sub, cfv, reaches, seat, node).T
        actions = []
        for a in tree.actions[f : f + m]:
            assert a is not None  # only the root has no action into it
            actions.append(CALL if a.type is ActionType.FOLD and not state.can_fold() else a)
        return merge_columns(actions, probs, values), answered

    def _blueprint_act(self, ms: MatchState) -> tuple[Action, str]:
        action = self.blueprint.action(ms.state, ms.viewer, self.keys.at(ms.state, ms.viewer))
        if action is None:
            return CALL, "fallback"
        node, _ = self.blueprint.walk(ms.state, ms.viewer)
        view = self.blueprint.view
        if view.kind != "base":  # the self-improver's extension this hand switched to (the log says which)
            self._note = {"extension": f"{view.kind} {view.size:.3f}"}
        off = node is not None and [int(x) for x in view.tree.spent[node]] != list(ms.state.spent)
        return action, "translation" if off else "blueprint"

    @staticmethod
    def _opening_bet(state: BettingState, me: int) -> tuple[int, ...]:
        """The opponent's bet that opened this round, if it did (raise-to total): a
        solve from the round's start puts it into the tree as it is."""
        first = [a for a, who in zip(state.actions[state.round], state.actors[state.round]) if who != me][:1]
        return tuple(
            a.size
            for a in first
            if a.type is ActionType.RAISE and state.game.is_nolimit and state.actions[state.round][0] == a
        )

    @staticmethod
    def _round_start(state: BettingState) -> BettingState:
        root = BettingState(state.game, state.hand_id)
        for r in range(state.round):
            for a in state.actions[r]:
                root.apply(a)
        root.deal_board_cards(state.board_cards[: state.game.total_board_cards(state.round)])
        return root

    @staticmethod
    def _last_opponent_raise_since(root: BettingState, state: BettingState, me: int) -> bool:
        """Whether the opponent's latest action, made after the solution's root, is a
        bet or raise (then a safe re-solve follows)."""
        for r in range(state.round, root.round - 1, -1):
            acts, actors = state.actions[r], state.actors[r]
            start = len(root.actions[r]) if r == root.round else 0
            for a, who in zip(reversed(acts[start:]), reversed(actors[start:])):
                if who != me:
                    return a.type is ActionType.RAISE
        return False

    def _sample(self, sol: Solution, node: int, state: BettingState, me: int) -> Action:
        tree = sol.sub.tree
        hole = tuple(sorted(state.hole_cards[me]))
        rows = {tuple(h): i for i, h in enumerate(sol.sub.hands.tolist())}
        h = rows.get(hole)
        f, m = int(tree.first_child[node]), int(tree.num_children[node])
        probs = sol.strategy[f : f + m, h] if h is not None else np.full(m, 1.0 / m)
        s = probs.sum()
        probs = probs / s if s > 0 else np.full(m, 1.0 / m)
        if self.purify:
            probs = fold_call_bet(probs, [a for a in tree.actions[f : f + m] if a is not None])
        a = tree.actions[f + pick(probs, self.keys.at(state, me))]
        assert a is not None  # only the root has no action into it
        if a.type is ActionType.FOLD and not state.can_fold():
            return CALL
        return a if a.type is not ActionType.FOLD else FOLD
