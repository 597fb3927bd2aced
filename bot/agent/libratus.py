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
from dataclasses import replace
from typing import Any

import numpy as np
import structlog

from pokerbot.blueprint_store.abstraction import hand_buckets
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.bot.agent.answering import answer_at, sample_action
from pokerbot.bot.agent.config import AgentConfig
from pokerbot.bot.agent.resolving import Resolving
from pokerbot.bot.agent.solution import (
    SOLVE_KINDS,
    AnsweredSolve,
    HandState,
    Solution,
    opening_bet,
    opponent_raised_last,
    round_start,
    walk_solution,
)
from pokerbot.bot.agent.solver_pool import SolverPool
from pokerbot.bot.agent.solving import SolveUnavailable
from pokerbot.bot.agent.time_budget import ReplyClock, TimeBudget, TimePlan
from pokerbot.bot.agent.turn_choice import (
    TurnSpeed,
    speed_spot_cached,
    turn_speed,
)
from pokerbot.bot.players.strategy_query import ActionProbabilities, blueprint_answer
from pokerbot.protocol.betting import CALL, Action, BettingState
from pokerbot.protocol.cards import cards_to_str
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import kernel_cache
from pokerbot.solver import ranges as rg
from pokerbot.solver.keyed import KeyedUniform
from pokerbot.solver.tree import DECISION, LEAF, BetSizes
from pokerbot.solver.warm_up import SOLVER_STAGES, load_solver_kernels

log = structlog.get_logger("agent")

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
#: The safe re-solves' gadget (``AgentConfig.gadget``): "resolve" (Estimated-Resolve, the
#: default: it won 11.7 +- 10.1 mbb/hand over Maxmargin in turn subgames against an
#: equal-strength blueprint, docs/evaluation.md) or "maxmargin" (Estimated-Maxmargin, as
#: the Libratus paper names its method). A round's first solve from the turn on is
#: "unsafe" (Libratus's) or "safe" (the gadget against the opponent's values under the
#: blueprint); the opponent's range from the blueprint at a round's first solve is
#: "pooled" (each raise counting as raising at all, whatever its size), "played" or "raw".


class LibratusAgent(Resolving):
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
        self._take_config(c, seed)
        self.pool = pool  # None: solve in this process
        self.budget = budget or TimeBudget()
        self.clock = clock or ReplyClock()
        self._new_state()
        #: the full-depth turn solve's speed on this machine (``prepare`` measures it once a
        #: process; the seats of a process share it): None, and "auto" solves depth-limited
        self.speed: TurnSpeed | None = None

    def _new_state(self) -> None:
        """No hand played yet."""
        self._hand: int | None = None
        self._solution: Solution | None = None
        self._gifts: np.ndarray | None = None
        self._scale = 1.0
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

    def _take_config(self, c: AgentConfig, seed: int | None) -> None:
        """The configuration's fields as the parts read them (``Solving``, ``Resolving``)."""
        self.solve_seconds = c.solve_seconds  # None: the time plan sets each solve's cap
        self.solve_round = c.solve_round_index  # 0-based, as the rounds of a state
        self.flop_rivers, self.flop_warm_start = c.flop_rivers, c.flop_warm_start
        self.turn_solver, self.card_samples, self.full_turn = c.turn_solver, c.card_samples, c.full_turn
        self.gadget, self.first_solve = c.gadget, c.first_solve
        #: whether the gifts grow with the opponent's on-tree actions (Libratus); else they stay 0
        self.use_gifts = c.gifts
        self.river_ranges, self.opponent_ranges = c.river_ranges, c.opponent_ranges
        #: the blueprint whose play of the line gives the opponent's range at a round's first
        #: solve, as that blueprint plays it (None: ours, by ``opponent_ranges``): for an
        #: opponent known to play that blueprint, a bound on what a better range is worth
        model = c.opponent_model  # a path, or a store already open
        self.opponent_model = None if model is None else BlueprintPlay(model, random.Random(seed))
        self.purify = c.purify  # solutions played with fold-call-bet purification
        #: a sampled full-depth turn solution's river is solved anew when each river subtree
        #: was walked on fewer passes than this (None: RIVER_PASSES_TO_PLAY)
        self.river_passes = c.river_passes

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
        return sample_action(sol, node, state, ms.viewer, self.purify, self.keys.at(state, ms.viewer)), source

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
                root = round_start(state)
                extra = opening_bet(state, me)
                ranges = self.first_solve_ranges(state, me)
                if self.first_solve == "safe" and self.safe and root.round >= 2:
                    self._first_solve_t0 = time.perf_counter()  # the blueprint's values count as the solve's time
                    reach, gadget = self._blueprint_gadget(root, ranges, me)
                    self._solution = self._solve(root, reach, "safe", gadget, extra=extra)
                else:
                    self._solution = self._solve(root, ranges, "unsafe", extra=extra)
                source = self._solution.kind
                if walk_solution(self._solution, state)[2] is not None:
                    # the round's first solve came late (an earlier decision of the round had
                    # no time for it) and the line since left its tree: a nested re-solve
                    self._solution = self._resolve(state, me)
                    source = self._solution.kind
            else:
                node, parent, missing = walk_solution(self._solution, state)
                tree = self._solution.sub.tree
                if tree.kind[node] == LEAF:
                    # the river after a depth-limited turn solution: solve it from that solution's ranges
                    self._solution = self._solve_next_round(state, me, node)
                    source = "unsafe"
                elif self._solution.next_round_solved and state.round > self._solution.root.round and missing is None:
                    # the river after a sampled full-depth turn solution: the same, from the river's first node
                    self._solution = self._solve_next_round(state, me, self._solution.round_start_node(node))
                    source = "unsafe"
                elif missing is not None or opponent_raised_last(self._solution.root, state, me):
                    self._solution = self._resolve(state, me)
                    source = self._solution.kind
        except SolveUnavailable:
            # no new solve: the current solution where the hand is still in it, else the blueprint
            sol = self._solution
            if sol is not None:
                node, _, missing = walk_solution(sol, state)
                if missing is None and sol.sub.tree.kind[node] == DECISION:
                    return sol, node, "previous-fallback"
            return None, -1, "blueprint-fallback"
        node, _, missing = walk_solution(self._solution, state)
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
        return answer_at(sol, node, state, seat, self.purify), answered

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
