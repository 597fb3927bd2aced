"""Solving a subgame for the agent, in three steps that ``Solving._solve`` runs: the
deadline (the time plan's cap inside the dealer's limits), building the subgame (its
bet sizes scaled for the hand; full depth or depth-limited on the turn by
``turn_choice``; the flop's runout sample and warm start; the blueprint's continuations
at a depth-limited subgame's leaves), and running it (here or in the solver pool, its
answer logged) into a ``Solution``.

``Solving`` is a part of ``LibratusAgent``: it reads the agent's configuration and
state named in its annotations below.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import structlog

from pokerbot.blueprint_store.continuations import attach_blueprint_continuations, blueprint_subgame_strategy
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.bot.agent.solution import Solution
from pokerbot.bot.agent.solver_pool import GRACE_SECONDS, SolveJob, SolverPool, WorkerLost, run_job
from pokerbot.bot.agent.time_budget import TimeBudget, TimePlan
from pokerbot.bot.agent.turn_choice import (
    FULL_CARDS_BY_EXACT_ITERATIONS,
    TurnChoice,
    TurnSpeed,
    choose_turn_solve,
    full_depth_choice,
)
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.cards import cards_to_str
from pokerbot.solver import cfr
from pokerbot.solver.depth_limited import runout_sample
from pokerbot.solver.keyed import KeyedUniform
from pokerbot.solver.subgame import Subgame, make_subgame
from pokerbot.solver.tree import BetSizes

log = structlog.get_logger("agent")

#: A solve needs at least this deadline (seconds) to be worth starting.
MIN_SOLVE_SECONDS = 0.05
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


class SolveUnavailable(Exception):
    """No solve this decision (no time left, or the worker was lost): play the best
    strategy already available."""


def average_exponent(round_: int, sampled: bool) -> float:
    """The power of t a solve's average strategy weighs iteration t by (``cfr.solve``),
    by the round the solve starts on (0-based) and whether it samples the next cards:
    linear for the depth-limited turn (one river card a pass; quadratic left it more
    exploitable, with the river solved after it as the agent plays it), quadratic
    elsewhere (the river: lower exploitability on every river spot measured; the
    depth-limited flop: lower on 8 of 10 flop spots with the later rounds solved).
    docs/evaluation.md, "Averaging"."""
    return 1.0 if sampled and round_ == 2 else 2.0


def river_solved_after(sub: Subgame, river_cards: int, iterations: int, passes: int | None = None) -> bool:
    """Whether the river is solved anew after a full-depth turn solution of ``sub``
    walking ``river_cards`` a pass (0: every card; never) for ``iterations``: when each
    river subtree was walked on fewer than ``passes`` (None: RIVER_PASSES_TO_PLAY)
    passes."""
    if river_cards <= 0:
        return False
    cards = len(sub.chance_cards())
    return iterations * river_cards < (RIVER_PASSES_TO_PLAY if passes is None else passes) * cards


@dataclass
class Built:
    """A subgame ready to solve: ``sub`` (the full-depth turn subgame when ``full``),
    depth-limited or not, the turn choice and its river cards a pass, the flop's runout
    sample, the warm start, the card draws' key, the gadget on its hands, the
    iterations, and the deadline left for the iterations after the setup (``fixed``:
    the full-depth solve's own cost after them)."""

    sub: Subgame
    full: bool
    depth_limited: bool
    choice: TurnChoice | None
    river_cards: int
    deals: np.ndarray | None
    warm: cfr.WarmStart | None
    key: int
    gadget: cfr.Gadget | None
    iterations: int
    deadline: float
    fixed: float


class Solving:
    """The agent's solves (see the module doc)."""

    blueprint: BlueprintPlay
    budget: TimeBudget
    plan: TimePlan
    keys: KeyedUniform
    pool: SolverPool | None
    speed: TurnSpeed | None
    sizes: dict[int, BetSizes]
    river_sizes: BetSizes
    solve_seconds: float | None
    turn_solver: str
    card_samples: int
    full_turn: tuple[int, int] | None
    flop_rivers: int
    flop_warm_start: int
    river_passes: int | None
    threads: int
    _scale: float
    _first_solve_t0: float | None
    _decision_t0: float
    _last_solve: dict

    def _solve(
        self,
        state: BettingState,
        reach: np.ndarray,
        kind: str,
        gadget: cfr.Gadget | None = None,
        extra: tuple[int, ...] = (),
    ) -> Solution:
        """Solve the subgame at ``state`` (``kind``: unsafe, safe or nested) from
        ``reach`` with ``gadget``, ``extra`` raises at its root; SolveUnavailable when
        there is no time or the solve is lost."""
        t_setup = time.perf_counter()
        # a decision may solve twice (a new round, then a re-solve): the second gets what
        # the first left (the work before a decision's first solve is in the overhead)
        if self._first_solve_t0 is None:
            self._first_solve_t0 = t_setup
        elapsed = t_setup - self._first_solve_t0
        deadline = self.budget.solve_deadline(self.solve_cap(state, elapsed), elapsed)
        if deadline < MIN_SOLVE_SECONDS:
            raise SolveUnavailable("time budget")
        built = self._build(state, reach, gadget, extra, deadline, t_setup)
        t0 = time.perf_counter()
        result, samples = self._run(built, state, kind)
        return self._solved(built, state, kind, result, samples, time.perf_counter() - t0, t0 - t_setup)

    def _bet_sizes(self, state: BettingState) -> dict[int, BetSizes]:
        """The subgame's bet sizes for the rounds from ``state``'s on, scaled for the hand."""
        table = self.sizes if state.round < 3 else {3: self.river_sizes}
        return {
            r: BetSizes(bets=s.bets, max_raises=s.max_raises, scale=self._scale)
            for r, s in table.items()
            if r >= state.round
        }

    def _build(
        self,
        state: BettingState,
        reach: np.ndarray,
        gadget: cfr.Gadget | None,
        extra: tuple[int, ...],
        deadline: float,
        t_setup: float,
    ) -> Built:
        """The subgame and how to solve it (``Built``)."""
        all_sizes = self._bet_sizes(state)
        # the flop is always solved depth-limited (to the end of the flop); the turn by turn_solver
        depth_limited = state.round == 1 or (state.round == 2 and self.turn_solver == "depth-limited")
        choice = None
        full_sub = None
        if state.round == 2 and self.turn_solver != "depth-limited":
            full_sub = make_subgame(state, all_sizes, reach, extra_root_raises=extra)
            choice = self.turn_choice(full_sub, deadline - (time.perf_counter() - t_setup), state.game.big_blind)
            depth_limited = choice.solver == "depth-limited"
        key = int(self.keys(f"cards:{state.hand_id}:{state.betting_string()}") * 2**31)
        deals = None
        if depth_limited and state.round == 1:
            # one sample a hand: the flop's re-solves share it, and its bucket table (cached)
            drawn = int(self.keys(f"runouts:{state.hand_id}:{cards_to_str(state.board_cards)}") * 2**31)
            deals = runout_sample(state.game.deck(), state.board_cards, self.flop_rivers, drawn)
        if full_sub is not None and not depth_limited:
            sub = full_sub
        else:
            sizes = {r: s for r, s in all_sizes.items() if not (depth_limited and r > state.round)}
            leaf_round = state.round + 1 if depth_limited else None
            sub = make_subgame(state, sizes, reach, extra_root_raises=extra, leaf_round=leaf_round, leaf_deals=deals)
        depth_limited = depth_limited and sub.tree.num_leaves > 0  # not after an all-in: the tree is complete
        river_cards = choice.cards if choice is not None and not depth_limited else 0
        warm = None
        if depth_limited:
            warm = self._attach_continuations(sub, state, gadget is None)
            deadline -= time.perf_counter() - t_setup  # building the continuations is part of the solve's time
            if deadline < MIN_SOLVE_SECONDS:
                raise SolveUnavailable("time budget")
        if gadget is not None:
            gadget = cfr.Gadget(gadget.kind, gadget.player, gadget.alt_values[sub.hand_index])
        iters = cfr.libratus_iterations(sub.pot, state.game.big_blind)
        if river_cards > 0:
            assert choice is not None  # a sampled full-depth turn solve was chosen
            iters = choice.iterations
        fixed = 0.0
        full = full_sub is not None and sub is full_sub
        if full:
            # the full-depth solve's own fixed cost (its arrays, the average, the answer) before the deadline
            fixed = self.speed.fixed_seconds(sub) if self.speed is not None else 0.0
            deadline -= time.perf_counter() - t_setup + fixed
            if deadline < MIN_SOLVE_SECONDS:
                raise SolveUnavailable("time budget")
        return Built(sub, full, depth_limited, choice, river_cards, deals, warm, key, gadget, iters, deadline, fixed)

    def _attach_continuations(self, sub: Subgame, state: BettingState, unsafe: bool) -> cfr.WarmStart | None:
        """The blueprint's continuation strategies at the depth-limited subgame's leaves;
        an unsafe flop solve's warm start from the blueprint's flop (else None)."""
        node, _ = self.blueprint.walk(state)
        attach_blueprint_continuations(sub, state, self.blueprint.view, node)
        if state.round == 1 and unsafe and self.flop_warm_start > 0:
            start = blueprint_subgame_strategy(sub, state, self.blueprint.view, node)
            return cfr.WarmStart(start, self.flop_warm_start, deals=FLOP_WARM_DEALS)
        return None

    def _run(self, built: Built, state: BettingState, kind: str) -> tuple[cfr.SolveResult, int]:
        """The solve run here or in the pool: its result and the cards sampled a pass."""
        try:
            samples = self.pass_samples(built.sub) if built.depth_limited else 0
            exponent = average_exponent(state.round, samples > 0)
            job = SolveJob(built.sub, built.iterations, built.deadline, built.gadget, self.threads, None, samples,
                           built.key, exponent, built.warm)  # fmt: skip
            job.chance_samples = built.river_cards
            job.discount = FULL_DEPTH_DISCOUNT if built.full else None
            if self.pool is None:
                return run_job(job), samples
            # the answer must be back within what the dealer's limits leave this decision
            left = self.budget.available() - (time.perf_counter() - self._decision_t0) - 0.05
            job.limit = max(built.deadline, min(built.deadline + GRACE_SECONDS, left))
            return self.pool.solve(job), samples
        except WorkerLost as e:
            log.warning("solve_lost", kind=kind, hand=state.hand_id, betting=state.betting_string(), error=str(e))
            raise SolveUnavailable("worker lost") from None
        except RuntimeError as e:  # the worker reported an exception in the solve
            log.error("solve_failed", kind=kind, hand=state.hand_id, betting=state.betting_string(), error=str(e))
            raise SolveUnavailable("solve failed") from None

    def _solved(
        self, built: Built, state: BettingState, kind: str, r: cfr.SolveResult, samples: int, seconds: float,
        setup: float,
    ) -> Solution:  # fmt: skip
        """The solve's log line and its ``Solution``."""
        sub, depth_limited = built.sub, built.depth_limited
        turn_solver = ("depth-limited" if depth_limited else "full") if state.round == 2 else None
        turn = {"turn_solver": turn_solver, "card_samples": samples or built.river_cards} if turn_solver else {}
        self._last_solve = {
            "iterations": r.iterations,
            "of": built.iterations,
            "stopped_early": r.stopped_early,
            "solve_seconds": round(seconds, 4),
            "nodes": sub.tree.num_nodes,
            **({"leaves": sub.tree.num_leaves, "card_samples": samples} if depth_limited else {}),
            **turn,
            **({"runouts": len(sub.tree.leaf_deals)} if built.deals is not None else {}),
            **({"warm_start": built.warm.iterations} if built.warm is not None else {}),
            "setup_seconds": round(setup, 4),
        }
        measured = {}
        if r.exploitability is not None:
            measured["exploitability_pct_pot"] = round(100 * r.exploitability / max(sub.pot, 1), 4)
        log.info(
            "solve",
            kind=kind,
            hand=state.hand_id,
            betting=state.betting_string(),
            nodes=sub.tree.num_nodes,
            hands=int(sub.hands.shape[0]),
            iterations=r.iterations,
            of=built.iterations,
            # what the solve may take, its fixed cost after the iterations' deadline included
            deadline=round(built.deadline + built.fixed, 3),
            stopped_early=r.stopped_early,
            seconds=round(seconds, 3),
            depth_limited=depth_limited,
            **turn,
            **({"exact_iterations": round(built.choice.exact_iterations, 1)} if built.choice is not None else {}),
            **measured,
        )
        deals = built.deals
        value_deals = FLOP_VALUE_DEALS if deals is not None and len(deals) > FLOP_VALUE_DEALS else 0
        next_round = river_solved_after(sub, built.river_cards, r.iterations, self.river_passes)
        return Solution(sub, r.strategy, state.copy(), kind, r.leaf_strategy, next_round, value_deals, built.key,
                        self.threads)  # fmt: skip

    def turn_choice(self, full_sub: Subgame, seconds: float, big_blind: int) -> TurnChoice:
        """The turn solve for the full-depth subgame ``full_sub`` with ``seconds`` to
        solve: "auto" by ``choose_turn_solve`` (depth-limited while no speed is
        measured); "full" always full depth, with the river cards a pass the deadline
        buys (4, the fewest the choice takes, when it buys none or no speed is measured);
        ``full_turn``, when set, that solve whatever the deadline buys."""
        iterations = cfr.libratus_iterations(full_sub.pot, big_blind)
        n = len(full_sub.chance_cards()) if len(full_sub.tree.blocks) else 0
        if self.full_turn is not None:
            cards, fixed = self.full_turn
            return TurnChoice("full", 0 if cards >= n else cards, fixed, 0.0)
        speed = self.speed
        if speed is None:
            c = TurnChoice("depth-limited", 0, 0, 0.0)
        else:
            c = choose_turn_solve(full_sub, seconds, speed, iterations)
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
