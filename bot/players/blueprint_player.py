"""The blueprint-only player: plays a blueprint store in every round.

Each decision replays the hand's betting through the store's abstract betting tree:
actions in the abstraction are followed as they are; a raise the abstraction lacks
(the opponent's, or ours after clamping to the legal range) is mapped to one of the
node's raise sizes by randomised pseudo-harmonic translation (Libratus, Pluribus),
with sizes compared as fractions of the pot in their own state (the real one and
the abstract one). All-in maps only to all-in, and other sizes only to sizes below
all-in, so that the hand can still be followed down the tree. The chosen abstract action
is played in the real state at the same pot fraction, clamped to the legal range; all-in stays all-in.

A raise war past the abstraction's raise cap goes on in the tree: when the opponent
raises where the abstract node has no raise (the cap is reached), the walk goes back to
the latest node of the round where the player now to act faced a raise and could raise
back, and plays on from there (fold, call, or raise again at the node's pot fractions of
the real pot), so the war can go on to all-in. Only a line the tree cannot follow at all
(no such node) leaves the player checking or calling (counted in ``fallbacks``).

Extensions (from ``pokerbot improve``): at the opponent's first raise of the first
round, a type-2 extension's size competes with the base sizes in the translation; if
it is picked, the rest of the hand is played from that extension's tree. A type-1
extension (the opponent's most common size) is used instead, for a raise within
0.01 pot of its size, while the opponent's last eight first raises in that spot were
all of that size.

Randomness: the uniform number behind each sampled action is a keyed hash of the
seed and the information state (hand number, position, betting, our cards), not the
next draw of a generator, so the same seed in the same situation makes the same
choice whatever came before. Two players with one seed then play identical lines
wherever both follow the blueprint: that is what ``pokerbot match --duplicate
--common-random-numbers`` uses to cancel the early rounds out of a duplicate match.
Without a seed the key is drawn from the operating system.
"""

from __future__ import annotations

import hashlib
import random
from collections import deque

import numpy as np

from pokerbot.blueprint_store.abstraction import hand_buckets
from pokerbot.blueprint_store.actions import pot_fraction
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.bot.players.strategy_query import (
    HANDS,
    ActionProbabilities,
    live_hands,
    merge_columns,
    same_for_every_hand,
)
from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.gamedef import GameDef
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver.translation import translate
from pokerbot.solver.tree import DECISION


class BlueprintStrategy:
    name = "blueprint"

    def __init__(self, seed: int | None = None, blueprint: str | Blueprint | None = None) -> None:
        if blueprint is None:
            raise ValueError("the blueprint strategy needs a blueprint store (--blueprint PATH)")
        self.bp = blueprint if isinstance(blueprint, Blueprint) else Blueprint(blueprint)
        self.rng = random.Random(seed)  # translation of off-tree raises
        self._key = str(seed if seed is not None else random.SystemRandom().getrandbits(128)).encode()[:64]
        self._checked_game: GameDef | None = None
        self.fallbacks = 0  # decisions made outside the abstraction (check or call)
        self._walk_key: tuple | None = None
        self._walk_actions: list[Action] = []
        self._walk_path: list[tuple[int, int]] = []
        self._walk_node: int | None = 0
        self._walk_real: BettingState | None = None
        self.view: Blueprint = self.bp  # the tree the current hand is played from (the base or an extension)
        self.me: int | None = None  # our position in the current hand, once known
        #: the opponent's last first-round first raises (pot fractions) per spot (actions before it)
        self.opponent_sizes: dict[int, deque] = {}

    TYPE1_HISTORY = 8
    TYPE1_TOLERANCE = 0.01

    def hand_over(self, ms: MatchState) -> None:
        """Remember the opponent's first raise of the first round (type-1 extensions)."""
        st = ms.state
        for i, (a, who) in enumerate(zip(st.actions[0], st.actors[0])):
            if a.type is ActionType.RAISE:
                if who != ms.viewer and st.game.is_nolimit:
                    replay = BettingState(st.game)
                    for b in st.actions[0][:i]:
                        replay.apply(b)
                    x = pot_fraction(a.size, replay.spent, who)
                    self.opponent_sizes.setdefault(i, deque(maxlen=self.TYPE1_HISTORY)).append(x)
                break

    def _type1_active(self, spot: int, ext: Blueprint) -> bool:
        h = self.opponent_sizes.get(spot)
        return (
            h is not None and len(h) == self.TYPE1_HISTORY and all(abs(x - ext.size) <= self.TYPE1_TOLERANCE for x in h)
        )

    # ------------------------------------------------------------------ walking
    def abstract_node(self, state: BettingState, me: int | None = None) -> int | None:
        """The abstract node for ``state``, translating raises the tree lacks; None
        when the hand has left what the tree can follow."""
        node, _ = self.walk(state, me)
        return node if node is not None and self.view.tree.kind[node] == DECISION else None

    def walk(self, state: BettingState, me: int | None = None) -> tuple[int | None, list[tuple[int, int]]]:
        """(node, path): the abstract node reached by ``state``'s betting and the
        (node, child index) steps taken, in ``self.view`` (the base tree, or an
        extension the opponent's first raise led to; ``me``, our position, tells whose
        raise that is). Translations are remembered for the hand, so that asking again
        (one decision later) extends the same path. node is None when the hand left
        what the tree can follow."""
        actions = [a for acts in state.actions for a in acts]
        key = (state.hand_id, id(state.game))
        if self._walk_key != key or actions[: len(self._walk_actions)] != self._walk_actions:
            self._walk_key = key
            self._walk_actions = []
            self._walk_path = []
            self._walk_node = 0
            self._walk_real = BettingState(state.game)
            self.view = self.bp
            self.me = None
        if me is not None:
            self.me = me
        for a in actions[len(self._walk_actions) :]:
            if self._walk_node is None:
                break
            assert self._walk_real is not None  # set with _walk_key, at the hand's first walk
            pick = self._maybe_switch(a) if self._first_opponent_raise(a) else None
            if pick is None:
                pick = self._step(self._walk_node, self._walk_real, a)
            again = None
            if pick is None:
                again = raise_war_node(self.view, [n for n, _ in self._walk_path], self._walk_real, a)
            self._walk_real.apply(a)
            if pick is None:
                self._walk_node = again
            else:
                self._walk_path.append((self._walk_node, pick))
                self._walk_node = int(self.view.tree.first_child[self._walk_node]) + pick
            self._walk_actions.append(a)
        return self._walk_node, list(self._walk_path)

    def _first_opponent_raise(self, a: Action) -> bool:
        real = self._walk_real
        assert real is not None  # called from walk, which has set it
        return (
            bool(self.bp.extensions)
            and self.me is not None
            and a.type is ActionType.RAISE
            and real.round == 0
            and real.game.is_nolimit
            and real.current_player != self.me
            and not any(b.type is ActionType.RAISE for b in real.actions[0])
        )

    def _maybe_switch(self, a: Action) -> int | None:
        """At the opponent's first raise of the hand: move to an extension if its size
        wins (type 1 while active, else randomised translation among the base sizes
        and the type-2 sizes), replaying the checks and calls before it in its tree.
        Returns the child index the raise maps to in ``self.view`` (None: let the usual
        translation decide, in the base)."""
        real = self._walk_real
        assert real is not None  # called from walk, which has set it
        actor = real.current_player
        assert actor is not None  # a, the action being replayed, is actor's
        if a.size >= real.game.stack[actor]:
            return None  # all-in stays all-in, in the base
        x = pot_fraction(a.size, real.spent, actor)
        spot = len(real.actions[0])
        chosen: Blueprint | None = None
        usable = [e for e in self.bp.extensions if e.opponent is None or e.opponent == actor]
        for ext in usable:
            assert ext.size is not None  # every extension has the size it answers
            if ext.kind == "type1" and abs(x - ext.size) <= self.TYPE1_TOLERANCE and self._type1_active(spot, ext):
                chosen = ext
                break
        if chosen is None:
            node = self._walk_node
            assert node is not None  # walk stops following the tree once it is None
            base = self.bp
            children = base.child_actions(node)
            stack = real.game.stack[actor]
            sp = base.tree.spent[node]
            options: list[tuple[float, Blueprint | None, int]] = [
                (pot_fraction(c.size, (int(sp[0]), int(sp[1])), actor), None, i)
                for i, c in enumerate(children)
                if c.type is ActionType.RAISE and c.size < stack
            ]
            # (every extension has a size: "is not None" only narrows the type)
            exts: list[tuple[float, Blueprint | None, int]] = [
                (e.size, e, -1) for e in usable if e.kind == "type2" and e.size is not None
            ]
            if not exts or not options:
                return None
            options += exts
            _, chosen, index = options[translate(x, [o[0] for o in options], self.rng)]
            if chosen is None:
                return index  # a base size: the same choice the joint translation made
        node, path = 0, []
        for b in real.actions[0]:  # only checks and calls come before the first raise
            kids = chosen.child_actions(node)
            key = Action(b.type)
            if key not in kids:
                return None
            path.append((node, kids.index(key)))
            node = int(chosen.tree.first_child[node]) + kids.index(key)
        kids = chosen.child_actions(node)
        sp = chosen.tree.spent[node]
        assert chosen.size is not None  # every extension has the size it answers
        raises = [
            (abs(pot_fraction(c.size, (int(sp[0]), int(sp[1])), actor) - chosen.size), i)
            for i, c in enumerate(kids)
            if c.type is ActionType.RAISE and c.size < real.game.stack[actor]
        ]
        if not raises:
            return None
        self.view = chosen
        self._walk_node = node
        self._walk_path = path
        return min(raises)[1]

    def _step(self, node: int, real: BettingState, a: Action) -> int | None:
        """The child index of ``node`` that real action ``a`` (in state ``real``) maps to."""
        return map_action(self.view, node, real, a, self.rng)

    # ------------------------------------------------------------------ acting
    def uniform(self, state: BettingState, viewer: int) -> float:
        """A number in [0, 1) that depends only on the seed and what ``viewer`` knows
        (see the module doc)."""
        return self.keyed_uniform(
            f"{state.hand_id}:{viewer}:{state.betting_string()}:{state.hole_cards[viewer]}:{state.board_cards}"
        )

    def keyed_uniform(self, what: str) -> float:
        """A number in [0, 1) that depends only on the seed and ``what``."""
        digest = hashlib.blake2b(what.encode(), key=self._key, digest_size=8).digest()
        return int.from_bytes(digest, "little") / 2.0**64

    def act(self, ms: MatchState) -> Action:
        state = ms.state
        if self._checked_game is not state.game:
            self.bp.check_game(state.game)
            self._checked_game = state.game
        node = self.abstract_node(state, ms.viewer)
        view = self.view
        if node is None or int(view.tree.player[node]) != ms.viewer:
            self.fallbacks += 1
            return CALL
        tree = view.tree
        r = int(tree.round[node])
        hole = state.hole_cards[ms.viewer]
        board = state.board_cards[: state.game.total_board_cards(r)]
        probs = view.probabilities(node, view.bucket(r, hole, board))
        children = view.child_actions(node)
        u = self.uniform(state, ms.viewer)
        acc = 0.0
        choice = len(children) - 1
        for i, p in enumerate(probs):
            acc += p
            if u < acc:
                choice = i
                break
        return self.concrete(state, ms.viewer, node, children[choice])

    def concrete(self, state: BettingState, me: int, node: int, a: Action) -> Action:
        """The real action for abstract action ``a`` of ``node`` in ``self.view`` (see ``concrete_action``)."""
        return concrete_action(self.view, state, me, node, a)

    # ------------------------------------------------------------------ querying
    def snapshot(self) -> tuple:
        """What a question about another line could change: the hand's walk (its
        translations, the extension in use) and the translation generator."""
        return (
            self._walk_key,
            list(self._walk_actions),
            list(self._walk_path),
            self._walk_node,
            None if self._walk_real is None else self._walk_real.copy(),
            self.view,
            self.me,
            self.rng.getstate(),
        )

    def restore(self, saved: tuple) -> None:
        """Back to a ``snapshot``."""
        (
            self._walk_key,
            self._walk_actions,
            self._walk_path,
            self._walk_node,
            self._walk_real,
            self.view,
            self.me,
            rng_state,
        ) = saved
        self.rng.setstate(rng_state)

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """The blueprint's strategy at ``state`` for every hand (see ``strategy_query``),
        off-tree raises translated as in play. The hand's walk (translations, the
        extension in use) and the translation generator are restored afterwards, so a
        question about another line leaves the real hand as it was."""
        saved = self.snapshot()
        try:
            if self._checked_game is not state.game:
                self.bp.check_game(state.game)
                self._checked_game = state.game
            node = self.abstract_node(state, seat)
            view = self.view
            if node is None or int(view.tree.player[node]) != seat:
                return same_for_every_hand(state, [CALL], [1.0])  # what act falls back to
            tree = view.tree
            r = int(tree.round[node])
            board = state.board_cards[: state.game.total_board_cards(r)]
            buckets = hand_buckets(view.cards, r, board)
            live = live_hands(board) & (buckets >= 0)
            probs = np.zeros((len(HANDS), int(tree.num_children[node])))
            for b in np.unique(buckets[live]):
                probs[live & (buckets == b)] = view.probabilities(node, int(b))
            actions = [self.concrete(state, seat, node, a) for a in view.child_actions(node)]
            return merge_columns(actions, probs)
        finally:
            self.restore(saved)


def map_action(view: Blueprint, node: int, real: BettingState, a: Action, rng: random.Random | None) -> int | None:
    """The child index of abstract ``node`` (in ``view``) that real action ``a``, taken
    in state ``real``, maps to: the same action where the tree has it, else a raise by
    pseudo-harmonic translation of pot fractions (randomised with ``rng``, the likelier
    neighbour without), all-in only to all-in; None when the tree cannot follow."""
    tree = view.tree
    game = real.game
    if tree.kind[node] != DECISION:
        return None
    children = view.child_actions(node)
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
    assert actor is not None  # a, the action being replayed, is actor's
    x = pot_fraction(a.size, real.spent, actor)
    # all-in maps to all-in and nothing else does: a hand mapped to all-in could
    # not be followed further down the tree
    stack = game.stack[int(tree.player[node])]
    sized = [i for i in raises if children[i].size < stack]
    if a.size >= game.stack[actor] or not sized:
        return raises[-1]  # the abstraction's all-in is its largest raise
    sp = tree.spent[node]
    sizes = [pot_fraction(children[i].size, (int(sp[0]), int(sp[1])), int(tree.player[node])) for i in sized]
    return sized[translate(x, sizes, rng)]


def raise_war_node(view: Blueprint, path: list[int], real: BettingState, a: Action) -> int | None:
    """Where a raise ``a`` (in state ``real``) that ``view``'s tree cannot follow (its
    raise cap is reached) goes on: the latest node of the round among ``path`` (the
    abstract decisions the hand's actions were mapped at, in order) where the player who
    now faces the raise faced one and could raise back; None if ``a`` is no raise or
    there is no such node."""
    actor = real.current_player
    if a.type is not ActionType.RAISE or actor is None:
        return None
    responder = 1 - actor
    tree = view.tree
    for node in reversed(path):
        if int(tree.round[node]) != real.round:
            break
        sp = tree.spent[node]
        if int(tree.player[node]) != responder or sp[actor] <= sp[responder]:
            continue
        if any(c.type is ActionType.RAISE for c in view.child_actions(node)):
            return node
    return None


def concrete_action(view: Blueprint, state: BettingState, me: int, node: int, a: Action) -> Action:
    """The real action for abstract action ``a`` of ``node`` (in ``view``): a raise at
    the same pot fraction of the real pot, clamped to the legal range, all-in staying
    all-in; a fold where checking is free becomes a check."""
    if a.type is not ActionType.RAISE:
        if a.type is ActionType.FOLD and not state.can_fold():
            return CALL
        return FOLD if a.type is ActionType.FOLD else CALL
    bounds = state.raise_bounds()
    if bounds is None:
        return CALL
    if not state.game.is_nolimit:
        return Action(ActionType.RAISE)
    sp = view.tree.spent[node]
    if a.size >= state.game.stack[me]:
        return raise_to(bounds[1])
    f = pot_fraction(a.size, (int(sp[0]), int(sp[1])), me)
    top = state.max_spent
    to_call = top - state.spent[me]
    to = top + int(round(f * (state.pot + to_call)))
    return raise_to(min(max(to, bounds[0]), bounds[1]))
