"""A blueprint in the real game: the hand's real line mapped onto the abstract betting
tree, and the tree's abstract actions played at real states. What the blueprint
player, the agent's blueprint rounds and the evaluations' baselines share.

Mapping: actions in the abstraction are followed as they are; a raise the abstraction
lacks is mapped to one of the node's raise sizes by randomised pseudo-harmonic
translation (Libratus, Pluribus), with sizes compared as fractions of the pot in their
own state (the real one and the abstract one). All-in maps only to all-in, and other
sizes only to sizes below all-in, so that the hand can still be followed down the
tree (``map_action``).

A raise war past the abstraction's raise cap goes on in the tree: when a raise meets
an abstract node without raises (the cap is reached), the walk goes back to the latest
node of the round where the player now facing the raise faced one and could raise
back, and plays on from there, so the war can go on to all-in (``raise_war_node``).
Only a line the tree cannot follow at all (no such node) leaves the walk without a
node; a player then checks or calls.

Playing: an abstract action is played at the same pot fraction of the real pot,
clamped to the legal range; all-in stays all-in (``concrete_action``).

Extensions (from ``pokerbot improve``): at the opponent's first raise of the first
round, a type-2 extension's size competes with the base sizes in the translation; if
it is picked, the rest of the hand is played from that extension's tree. A type-1
extension (the opponent's most common size) is used instead, for a raise within
0.01 pot of its size, while the opponent's last eight first raises in that spot were
all of that size.
"""

from __future__ import annotations

import os
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.gamedef import GameDef
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import ranges as rg
from pokerbot.solver.keyed import pick
from pokerbot.solver.translation import translate
from pokerbot.solver.tree import DECISION

from .abstraction import HOLE_PAIRS
from .actions import pot_fraction
from .purification import fold_call_bet
from .store import RANGE_THRESHOLD, THRESHOLD_ROUNDS, Blueprint, apply_kept, apply_threshold, range_kept

#: How the first rounds' threshold is applied: ``hand`` drops each bucket's actions under
#: it (``apply_threshold``), ``range`` only actions every bucket plays under it (``range_kept``,
#: Libratus's range thresholding).
THRESHOLD_RULES = ("hand", "range")
#: How our players play the first rounds unless told otherwise (the agent's preflop and
#: flop, the ``blueprint`` player, the evaluations' blueprint baselines): purified on
#: ``PLAY_PURIFIED_ROUNDS``, thresholded per hand at ``PLAY_THRESHOLD``. A ``BlueprintPlay``
#: made without options (the opponent's range model, ``opponent_model``) keeps the
#: store's ``RANGE_THRESHOLD``: it models an opponent, not how we play. 0.08 per hand, no
#: purification: the choice measured from the deal (docs/evaluation.md).
PLAY_PURIFIED_ROUNDS: tuple[int, ...] = ()
PLAY_THRESHOLD = 0.08


@dataclass
class HandWalk:
    """Where the current hand's real line stands on the abstract tree."""

    key: tuple | None  # (hand id, game) of the hand walked
    view: Blueprint  # the tree the hand is played from: the base or an extension
    node: int | None = 0  # None: the line left what the tree can follow
    actions: list[Action] = field(default_factory=list)  # the real actions walked
    path: list[tuple[int, int]] = field(default_factory=list)  # (node, child index) per step taken
    real: BettingState | None = None  # the real state after ``actions``
    me: int | None = None  # our position in the hand, once known

    def copy(self) -> HandWalk:
        return replace(
            self, actions=list(self.actions), path=list(self.path), real=None if self.real is None else self.real.copy()
        )


class BlueprintPlay:
    """One player's blueprint in the real game: the current hand's walk down the
    abstract tree (translations drawn from ``rng`` and remembered for the hand, the
    extension in use) and the opponent's first raises over the match (type-1
    extensions). ``view`` is the tree the hand is played from: the base or an extension."""

    TYPE1_HISTORY = 8
    TYPE1_TOLERANCE = 0.01

    def __init__(
        self,
        blueprint: str | os.PathLike | Blueprint | None,
        rng: random.Random,
        purified_rounds: Sequence[int] = (),
        range_threshold: float = RANGE_THRESHOLD,
        threshold_rule: str = "hand",
    ) -> None:
        if blueprint is None:
            raise ValueError("the blueprint strategy needs a blueprint store (--blueprint PATH)")
        self.bp = blueprint if isinstance(blueprint, Blueprint) else Blueprint(blueprint)
        self.rng = rng
        #: rounds played with fold-call-bet purification (``purification``)
        self.purified_rounds = frozenset(purified_rounds)
        #: range thresholding on the first rounds (``THRESHOLD_ROUNDS``): actions below it
        #: are dropped (0: the strategy as trained)
        self.range_threshold = range_threshold
        if threshold_rule not in THRESHOLD_RULES:
            raise ValueError(f"threshold_rule must be one of {', '.join(THRESHOLD_RULES)}, got {threshold_rule!r}")
        #: per bucket (``hand``) or over the round's buckets (``range``)
        self.threshold_rule = threshold_rule
        self._range_kept: dict[tuple[int, int], np.ndarray] = {}
        self._checked_game: GameDef | None = None
        self.hand = HandWalk(None, self.bp)
        #: the opponent's last first-round first raises (pot fractions) per spot (actions before it)
        self.opponent_sizes: dict[int, deque] = {}

    @property
    def view(self) -> Blueprint:
        """The tree the current hand is played from: the base or an extension."""
        return self.hand.view

    def check_game(self, game: GameDef) -> None:
        """Raises ValueError when the blueprint was not made for ``game`` (checked once per game)."""
        if self._checked_game is not game:
            self.bp.check_game(game)
            self._checked_game = game

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
        """The abstract decision for ``state``, translating raises the tree lacks; None
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
        w = self.hand
        if w.key != key or actions[: len(w.actions)] != w.actions:
            w = self.hand = HandWalk(key, self.bp, real=BettingState(state.game))
        if me is not None:
            w.me = me
        for a in actions[len(w.actions) :]:
            if w.node is None:
                break
            assert w.real is not None  # set with the key, at the hand's first walk
            child = self._maybe_switch(a) if self._first_opponent_raise(a) else None
            if child is None:
                child = map_action(w.view, w.node, w.real, a, self.rng)
            again = None
            if child is None:
                again = raise_war_node(w.view, [n for n, _ in w.path], w.real, a)
            w.real.apply(a)
            if child is None:
                w.node = again
            else:
                w.path.append((w.node, child))
                w.node = int(w.view.tree.first_child[w.node]) + child
            w.actions.append(a)
        return w.node, list(w.path)

    def _first_opponent_raise(self, a: Action) -> bool:
        real = self.hand.real
        assert real is not None  # called from walk, which has set it
        return (
            bool(self.bp.extensions)
            and self.hand.me is not None
            and a.type is ActionType.RAISE
            and real.round == 0
            and real.game.is_nolimit
            and real.current_player != self.hand.me
            and not any(b.type is ActionType.RAISE for b in real.actions[0])
        )

    def _maybe_switch(self, a: Action) -> int | None:
        """At the opponent's first raise of the hand: move to an extension if its size
        wins (type 1 while active, else randomised translation among the base sizes
        and the type-2 sizes), replaying the checks and calls before it in its tree.
        Returns the child index the raise maps to in ``self.view`` (None: let the usual
        translation decide, in the base)."""
        real = self.hand.real
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
            node = self.hand.node
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
        self.hand.view = chosen
        self.hand.node = node
        self.hand.path = path
        return min(raises)[1]

    def snapshot(self) -> tuple:
        """What a question about another line could change: the hand's walk (its
        translations, the extension in use) and the translation generator."""
        return self.hand.copy(), self.rng.getstate()

    def restore(self, saved: tuple) -> None:
        """Back to a ``snapshot``."""
        self.hand, rng_state = saved
        self.rng.setstate(rng_state)

    # ------------------------------------------------------------------ playing
    def own_decision(self, state: BettingState, me: int) -> int | None:
        """The abstract decision of ``me`` that ``state`` maps to; None where the line
        left what the tree can follow (or maps to the other player's decision)."""
        self.check_game(state.game)
        node = self.abstract_node(state, me)
        if node is None or int(self.view.tree.player[node]) != me:
            return None
        return node

    def action(self, state: BettingState, me: int, u: float) -> Action | None:
        """The blueprint's real action for ``me`` holding ``state``'s hole cards, drawn
        with ``u`` (in [0, 1): ``keyed.pick``) and played in ``state``; None where the
        tree cannot follow the line."""
        node = self.own_decision(state, me)
        if node is None:
            return None
        view = self.view
        r = int(view.tree.round[node])
        probs = self.probabilities(node, view.bucket(r, state.hole_cards[me], self._board(state, r)))
        return concrete_action(view, state, me, node, view.child_actions(node)[pick(probs, u)])

    def probabilities(self, node: int, bucket: int) -> np.ndarray:
        """The strategy played at abstract ``node`` with ``bucket``: the store's (range
        thresholding on the first rounds at ``range_threshold``), purified on
        ``purified_rounds``."""
        return self.played(node, self.view.probabilities(node, bucket, threshold=False))

    def played(self, node: int, probs: np.ndarray) -> np.ndarray:
        """The store's strategy ``probs`` at abstract ``node`` (one bucket's, or rows
        of them) as played: thresholded on the first rounds, purified on
        ``purified_rounds``."""
        view = self.view
        r = int(view.tree.round[node])
        if r in THRESHOLD_ROUNDS and self.range_threshold > 0:
            if self.threshold_rule == "range":
                key = (id(view), node)
                kept = self._range_kept.get(key)
                if kept is None:
                    kept = self._range_kept[key] = range_kept(view.strategy_rows(node), self.range_threshold)
                probs = apply_kept(probs, kept)
            else:
                probs = apply_threshold(probs, self.range_threshold)
        if r in self.purified_rounds:
            probs = fold_call_bet(probs, view.child_actions(node))
        return probs

    @staticmethod
    def _board(state: BettingState, round_: int) -> list[int]:
        return state.board_cards[: state.game.total_board_cards(round_)]

    def every_hand(
        self, state: BettingState, seat: int, keep_walk: bool = False
    ) -> tuple[list[Action], np.ndarray] | None:
        """The blueprint's strategy at ``state`` for every hand: the real action each
        abstract child is played as, and (1,326 hole pairs in ``HOLE_PAIRS`` order,
        children) probabilities, zero for pairs that share a card with the board; None
        where the tree cannot follow the line. Off-tree raises are translated as in
        play; the hand's walk and the translation generator are restored afterwards,
        so that a question about another line leaves the real hand as it was, unless
        ``keep_walk`` (a caller that walks lines down from ``snapshot``s of its own)."""
        saved = None if keep_walk else self.snapshot()
        try:
            node = self.own_decision(state, seat)
            if node is None:
                return None
            view = self.view
            r = int(view.tree.round[node])
            board = self._board(state, r)
            buckets = view.hand_buckets(r, board)
            live = ~rg.blocked_by(HOLE_PAIRS, board) & (buckets >= 0)
            probs = np.zeros((len(HOLE_PAIRS), int(view.tree.num_children[node])))
            probs[live] = self.played(node, view.strategy_rows(node))[buckets[live]]
            actions = [concrete_action(view, state, seat, node, a) for a in view.child_actions(node)]
            return actions, probs
        finally:
            if saved is not None:
                self.restore(saved)

    def round_start_ranges(
        self, state: BettingState, me: int, raw_opponent: bool = False, pool_opponent_raises: bool = False
    ) -> np.ndarray:
        """(2, hands of the game): both players' reach at the start of ``state``'s
        round, by Bayes' rule along the blueprint's line of the rounds before it (that
        line's walk; uniform where it left the tree), zero for hands the board blocks;
        ours as we played it (``played``); the opponent's as the store plays it (range
        thresholding on the first rounds), or with
        ``raw_opponent`` the opponent's from the store's probabilities as trained; with
        ``pool_opponent_raises`` each opponent raise counts as raising at all, whatever
        the size (``Blueprint.reach``)."""
        prefix = BettingState(state.game)
        upto = state.round
        for r in range(upto):
            for a in state.actions[r]:
                prefix.apply(a)
        prefix.hand_id = state.hand_id
        _, path = self.walk(prefix, me)
        on_tree = len(path) == sum(len(state.actions[r]) for r in range(upto))
        board = state.board_cards
        hands = rg.hole_hands(state.game)
        out = np.ones((2, len(hands)))
        blocked = rg.blocked_by(hands, tuple(board))
        for p in (0, 1):
            if on_tree:
                theirs = p != me
                out[p] = self.view.reach(
                    path,
                    p,
                    board,
                    threshold=not (raw_opponent and theirs),
                    pool_raises=pool_opponent_raises and theirs,
                    played=None if theirs else self.played,  # ours as we played it
                )
            out[p][blocked] = 0.0
        return out


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
