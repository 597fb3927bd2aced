"""The blueprint-only player: plays a blueprint store in every round.

Each decision replays the hand's betting through the store's abstract betting tree:
actions in the abstraction are followed as they are; a raise the abstraction lacks
(the opponent's, or ours after clamping to the legal range) is mapped to one of the
node's raise sizes by randomised pseudo-harmonic translation (Libratus, Pluribus),
with sizes compared as fractions of the pot in their own state (the real one and
the abstract one). All-in maps only to all-in, and other sizes only to sizes below
all-in, so that the hand can still be followed down the tree. The chosen abstract action is played in the real state at the
same pot fraction, clamped to the legal range; all-in stays all-in.

If the abstract tree has no raise where the real hand has one (beyond the
abstraction's raise cap), the player stops following the tree and checks or calls.
"""

from __future__ import annotations

import random

from protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from protocol.matchstate import MatchState
from blueprint_store.store import Blueprint
from solver.translation import translate
from solver.tree import DECISION


class BlueprintStrategy:
    name = "blueprint"

    def __init__(self, seed: int | None = None, blueprint: str | Blueprint | None = None) -> None:
        if blueprint is None:
            raise ValueError("the blueprint strategy needs a blueprint store (--blueprint PATH)")
        self.bp = blueprint if isinstance(blueprint, Blueprint) else Blueprint(blueprint)
        self.rng = random.Random(seed)
        self._checked_game = None
        self.fallbacks = 0  # decisions made outside the abstraction (check or call)
        self._walk_key: tuple | None = None
        self._walk_actions: list[Action] = []
        self._walk_path: list[tuple[int, int]] = []
        self._walk_node: int | None = 0
        self._walk_real: BettingState | None = None

    def hand_over(self, ms: MatchState) -> None:
        pass

    # ------------------------------------------------------------------ walking
    @staticmethod
    def _fraction(to: int, spent0: int, spent1: int, actor: int) -> float:
        """A raise to ``to`` as a fraction of the pot after calling (of the pot for a bet)."""
        spent = (spent0, spent1)
        top = max(spent)
        to_call = top - spent[actor]
        base = spent0 + spent1 + to_call
        return (to - top) / base if base > 0 else 0.0

    def _abstract_node(self, state: BettingState) -> int | None:
        """The abstract node for ``state``, translating raises the tree lacks; None
        when the hand has left what the tree can follow."""
        node, _ = self.walk(state)
        return node if node is not None and self.bp.tree.kind[node] == DECISION else None

    def walk(self, state: BettingState) -> tuple[int | None, list[tuple[int, int]]]:
        """(node, path): the abstract node reached by ``state``'s betting and the
        (node, child index) steps taken. Translations are remembered for the hand,
        so that asking again (one decision later) extends the same path. node is None
        when the hand left what the tree can follow."""
        actions = [a for acts in state.actions for a in acts]
        key = (state.hand_id, id(state.game))
        if self._walk_key != key or actions[: len(self._walk_actions)] != self._walk_actions:
            self._walk_key = key
            self._walk_actions = []
            self._walk_path = []
            self._walk_node = 0
            self._walk_real = BettingState(state.game)
        for a in actions[len(self._walk_actions):]:
            if self._walk_node is None:
                break
            pick = self._step(self._walk_node, self._walk_real, a)
            self._walk_real.apply(a)
            if pick is None:
                self._walk_node = None
            else:
                self._walk_path.append((self._walk_node, pick))
                self._walk_node = int(self.bp.tree.first_child[self._walk_node]) + pick
            self._walk_actions.append(a)
        return self._walk_node, list(self._walk_path)

    def _step(self, node: int, real: BettingState, a: Action) -> int | None:
        """The child index of ``node`` that real action ``a`` (in state ``real``) maps to."""
        tree = self.bp.tree
        game = real.game
        if tree.kind[node] != DECISION:
            return None
        children = self.bp.child_actions(node)
        if a.type is not ActionType.RAISE:
            key = Action(a.type)
            return children.index(key) if key in children else None
        raises = [i for i, c in enumerate(children) if c.type is ActionType.RAISE]
        if not raises:
            return None
        if not game.is_nolimit:
            return raises[0]
        exact = [i for i in raises if children[i].size == a.size]
        if exact and real.spent == [int(x) for x in tree.spent[node]]:
            return exact[0]
        actor = real.current_player
        x = self._fraction(a.size, real.spent[0], real.spent[1], actor)
        # all-in maps to all-in and nothing else does: a hand mapped to all-in could
        # not be followed further down the tree
        stack = game.stack[int(tree.player[node])]
        sized = [i for i in raises if children[i].size < stack]
        if a.size >= game.stack[actor] or not sized:
            return raises[-1]  # the abstraction's all-in is its largest raise
        sp = tree.spent[node]
        sizes = [self._fraction(children[i].size, int(sp[0]), int(sp[1]), int(tree.player[node])) for i in sized]
        return sized[translate(x, sizes, self.rng)]

    # ------------------------------------------------------------------ acting
    def act(self, ms: MatchState) -> Action:
        state = ms.state
        if self._checked_game is not state.game:
            self.bp.check_game(state.game)
            self._checked_game = state.game
        node = self._abstract_node(state)
        if node is None or int(self.bp.tree.player[node]) != ms.viewer:
            self.fallbacks += 1
            return CALL
        tree = self.bp.tree
        r = int(tree.round[node])
        hole = state.hole_cards[ms.viewer]
        board = state.board_cards[: state.game.total_board_cards(r)]
        probs = self.bp.probabilities(node, self.bp.bucket(r, hole, board))
        children = self.bp.child_actions(node)
        u = self.rng.random()
        acc = 0.0
        choice = len(children) - 1
        for i, p in enumerate(probs):
            acc += p
            if u < acc:
                choice = i
                break
        a = children[choice]
        if a.type is not ActionType.RAISE:
            if a.type is ActionType.FOLD and not state.can_fold():
                return CALL
            return FOLD if a.type is ActionType.FOLD else CALL
        bounds = state.raise_bounds()
        if bounds is None:
            return CALL
        if not state.game.is_nolimit:
            return Action(ActionType.RAISE)
        sp = tree.spent[node]
        me = ms.viewer
        if a.size >= state.game.stack[me]:
            return raise_to(bounds[1])
        f = self._fraction(a.size, int(sp[0]), int(sp[1]), me)
        top = state.max_spent
        to_call = top - state.spent[me]
        to = top + int(round(f * (state.pot + to_call)))
        return raise_to(min(max(to, bounds[0]), bounds[1]))

