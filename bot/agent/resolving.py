"""Re-solving for the agent: a round's first solve's ranges (ours from our play of the
line, the opponent's from our blueprint's, pooled, or another store's), the safe first
solve's gadget against the blueprint's values, the safe re-solve after an opponent's
bet or an action off the current solution (Estimated-Resolve or -Maxmargin with gifts;
the nested solve), and the unsafe solve of the next round after a depth-limited (or a
sampled full-depth) solution.

``Resolving`` is a part of ``LibratusAgent``: it reads the agent's configuration and
state named in its annotations below, and solves with ``Solving._solve``.
"""

from __future__ import annotations

import numpy as np

from pokerbot.blueprint_store.continuations import blueprint_subgame_strategy
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.bot.agent.solution import Solution, canonical, opening_bet, round_start, walk_solution
from pokerbot.bot.agent.solving import Solving
from pokerbot.protocol.betting import BettingState
from pokerbot.solver import cfr
from pokerbot.solver import ranges as rg
from pokerbot.solver.gadgets import expected_per_hand, offtree_alt_values, update_gifts
from pokerbot.solver.showdown_pass import compat_sums
from pokerbot.solver.subgame import make_subgame


class Resolving(Solving):
    """The agent's solves of a round's start and its re-solves (see the module doc)."""

    opponent_model: BlueprintPlay | None
    opponent_ranges: str
    river_ranges: str
    gadget: str
    use_gifts: bool
    safe: bool
    _solution: Solution | None
    _gifts: np.ndarray | None

    def _solve_next_round(self, state: BettingState, me: int, leaf: int) -> Solution:
        """An unsafe solve from the start of the round after a depth-limited solution (or
        a sampled full-depth one), both ranges from that solution by Bayes' rule at the
        ``leaf`` the hand reached (the full-depth one's first node of the round)
        (Pluribus's nested search: a new root at each new round)."""
        old = self._solution
        assert old is not None  # called when the hand reached one of its leaves
        at = old.reaches()[:, leaf] if old.leaf_strategy is not None else old.reaches_at(leaf)
        size = len(rg.hole_hands(state.game))
        reach = np.stack([canonical(old.sub, at[p], size) for p in (0, 1)])
        if self.river_ranges == "blueprint":
            reach[1 - me] = self.first_solve_ranges(state, me)[1 - me]
        reach[:, rg.blocked_by(rg.hole_hands(state.game), tuple(state.board_cards))] = 0.0
        root = round_start(state)
        return self._solve(root, reach, "unsafe", extra=opening_bet(state, me))

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
        alt = canonical(sub, expected_per_hand(cfv[0], weights), size)
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
        node, parent, missing = walk_solution(old, state)
        size = len(rg.hole_hands(state.game))
        cfv_opp, reaches = old.values(opp)
        off_tree = missing is not None
        at = parent if not off_tree else node  # the opponent's decision in the old tree
        ours = canonical(old.sub, reaches[me, at], size)
        theirs_before = canonical(old.sub, reaches[opp, at], size)
        weights = np.zeros(old.sub.hands.shape[0])
        compat_sums(reaches[me, at], old.sub.c1, old.sub.c2, old.sub.dup, weights)
        v_before = canonical(old.sub, expected_per_hand(cfv_opp[at], weights), size)
        tree = old.sub.tree
        kids = range(int(tree.first_child[at]), int(tree.first_child[at]) + int(tree.num_children[at]))
        if off_tree:
            alt = offtree_alt_values(
                [canonical(old.sub, expected_per_hand(cfv_opp[c], weights), size) for c in kids], self._gifts
            )
            theirs = theirs_before  # the unsafe bot: the range before the unknown action
            kind = "nested"
        else:
            v_after = canonical(old.sub, expected_per_hand(cfv_opp[node], weights), size)
            assert self._gifts is not None  # set at the start of every hand
            if self.use_gifts:
                self._gifts = update_gifts(self._gifts, v_before, v_after)
            alt = v_after + self._gifts
            theirs = canonical(old.sub, reaches[opp, node], size)
            kind = "safe"
        reach = np.zeros((2, size))
        reach[me] = ours
        reach[opp] = theirs
        if not self.safe:
            return self._solve(state, reach, "unsafe")
        reach[opp] = 1.0  # ignored by the gadget: every opponent hand may enter
        return self._solve(state, reach, kind, cfr.Gadget(self.gadget, opp, alt))
