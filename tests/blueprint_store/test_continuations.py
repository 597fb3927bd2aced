"""Blueprint continuations and the blueprint's strategy on a subgame tree, checked
against what the blueprint player itself answers (its own walk, translation and
bucket lookups) at the same states."""

import dataclasses

import numpy as np
import pytest
from conftest import build_small_blueprint, state_at

from pokerbot.blueprint_store.actions import PRESET_ACTIONS, ActionAbstraction
from pokerbot.blueprint_store.continuations import (
    attach_blueprint_continuations,
    blueprint_subgame_strategy,
    leaf_lines,
)
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.protocol.betting import ActionType, BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver import cfr
from pokerbot.solver.depth_limited import biased, full_depth_strategy
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import CHANCE, DECISION, BetSizes, abstract_actions

HUNL = bundled_game("holdem.nolimit.2p")
BOARD = parse_cards("Kh9s4c2d")
pytestmark = pytest.mark.timeout(300)


def turn_root(betting="cc/cc/"):
    return apply_betting(BettingState(HUNL, 5, None, BOARD), betting)


@pytest.fixture(scope="module")
def setup(small_blueprint):
    bp = Blueprint(small_blueprint)
    player = BlueprintStrategy(seed=0, blueprint=bp)
    root = turn_root()
    node, _ = player.play.walk(root)
    return bp, player, root, node


def assert_nodes_play_what_the_player_answers(full, strategy, root, player, nodes):
    """At each decision of ``nodes``, ``strategy``'s rows are a distribution per live
    hand and equal what the blueprint player answers in that state; returns how many
    of them are on the river."""
    t = full.tree
    river = 0
    for n in nodes:
        st = state_at(t, root, int(n))
        f, m = t.first_child[n], t.num_children[n]
        live = ~np.isin(full.hands, st.board_cards).any(axis=1)  # not holding the river card
        rows = strategy[f : f + m][:, live]  # (m, live hands)
        np.testing.assert_allclose(rows.sum(axis=0), 1.0, atol=1e-6)
        answer = player.action_probabilities(st, int(t.player[n]))
        for j in range(m):
            expected = answer.probability_of(t.actions[f + j])[full.hand_index][live]
            np.testing.assert_allclose(rows[j], expected, atol=1e-6)
        river += st.round == 3
    return river


def test_the_blueprint_on_a_subgame_tree_plays_what_the_blueprint_player_answers(setup):
    bp, player, root, node = setup
    sizes = bp.actions.sizes()
    full = make_subgame(root, {2: sizes[2], 3: sizes[3]})
    strategy = blueprint_subgame_strategy(full, root, bp, node)
    decisions = np.nonzero(full.tree.kind == DECISION)[0]
    picks = [0, *np.random.default_rng(0).choice(decisions, 12, replace=False)]
    assert assert_nodes_play_what_the_player_answers(full, strategy, root, player, picks) >= 3  # river nodes too


def assert_leaves_play_what_the_player_answers(dl, root, player, sizes):
    """At every leaf of ``dl`` and two river cards, the first continuation is what the
    blueprint player answers in that river state, and the others its biased forms; every
    decision's rows sum to 1 per continuation and bucket."""
    c = dl.continuations
    for leaf, line in enumerate(leaf_lines(dl.tree).values()):
        for card in (parse_cards("As")[0], parse_cards("2h")[0]):
            st = root.copy()
            for a in line:
                st.apply(a)
            st.deal_board_cards([card])
            answer = player.action_probabilities(st, st.current_player)
            s0 = int(c.start[leaf])
            f, m = int(c.first_child[s0]), int(c.num_children[s0])
            b = c.bucket[card, 0]
            live = b >= 0
            acts = abstract_actions(st, sizes[3])
            assert len(acts) == m
            probs = np.stack([answer.probability_of(a)[dl.hand_index] for a in acts], axis=-1)
            ours = c.strategy[f : f + m][:, :, b].transpose(2, 1, 0)  # (H, 4, m)
            np.testing.assert_allclose(ours[live, 0], probs[live], atol=1e-6)
            kinds = [
                "fold" if a.type is ActionType.FOLD else "call" if a.type is ActionType.CALL else "raise" for a in acts
            ]
            np.testing.assert_allclose(ours[live], biased(probs[live], kinds), atol=1e-6)
    for n in np.nonzero(c.kind == DECISION)[0]:
        f, m = c.first_child[n], c.num_children[n]
        np.testing.assert_allclose(c.strategy[f : f + m].sum(axis=0), 1.0, atol=1e-5)


def test_continuations_are_the_blueprint_and_its_biased_forms_at_every_leaf(setup):
    bp, player, root, node = setup
    sizes = bp.actions.sizes()
    dl = make_subgame(root, {2: sizes[2]}, leaf_round=3)
    stats = attach_blueprint_continuations(dl, root, bp, node)
    assert stats.leaves == dl.continuations.num_leaves == dl.tree.num_leaves > 1 and stats.unmapped_leaves == 0
    assert_leaves_play_what_the_player_answers(dl, root, player, sizes)


@pytest.fixture(scope="module")
def two_raises(tmp_path_factory):
    """A small blueprint allowing two raises a round after the flop (with one, no
    raise war there has a node to go on from), whatever the presets allow."""
    after_flop = BetSizes(bets=((1.0,), (1.0,)), max_raises=2)
    actions = ActionAbstraction((PRESET_ACTIONS["tiny"].rounds[0], after_flop, after_flop, after_flop))
    bp = Blueprint(build_small_blueprint(str(tmp_path_factory.mktemp("bp") / "two.bp"), actions=actions))
    player = BlueprintStrategy(seed=0, blueprint=bp)
    root = turn_root()
    node, _ = player.play.walk(root)
    return bp, player, root, node


def test_turn_lines_past_the_blueprint_s_raise_cap_keep_their_continuations(two_raises):
    """A turn subgame allowing two raises more than the blueprint's turn: the leaves
    whose line passes the blueprint's cap follow the raise war in its tree (as the
    player does) and play what the player answers there, not a check-down (the old
    mapping left them unmapped)."""
    bp, player, root, node = two_raises
    sizes = bp.actions.sizes()
    cap = bp.actions.rounds[2].max_raises
    wide = dataclasses.replace(sizes[2], max_raises=cap + 2)
    dl = make_subgame(root, {2: wide}, leaf_round=3)
    lines = leaf_lines(dl.tree).values()
    assert sum(sum(a.type is ActionType.RAISE for a in line) > cap for line in lines) > 0
    stats = attach_blueprint_continuations(dl, root, bp, node)
    assert stats.unmapped_leaves == 0
    assert_leaves_play_what_the_player_answers(dl, root, player, sizes)


@pytest.mark.parametrize("every", [pytest.param(1, marks=pytest.mark.slow), 5])
def test_the_blueprint_past_its_raise_cap_on_a_subgame_tree_plays_what_the_player_answers(two_raises, every):
    """A subgame allowing two raises more than the blueprint on the turn and the river:
    at decisions past the blueprint's cap the exact-evaluation strategy follows the raise
    war as the player does (the old mapping checked or called there). The default run
    checks every fifth such decision, the slow run each one."""
    bp, player, root, node = two_raises
    sizes = bp.actions.sizes()
    wide = {r: dataclasses.replace(sizes[r], max_raises=sizes[r].max_raises + 2) for r in (2, 3)}
    full = make_subgame(root, wide)
    strategy = blueprint_subgame_strategy(full, root, bp, node)
    t = full.tree
    past = []
    stack = [(0, root.round, 0)]  # node, its round, raises in the round before it
    while stack:
        n, rnd, raises = stack.pop()
        if t.kind[n] == DECISION and raises > sizes[rnd].max_raises:
            past.append(n)
        for c in range(int(t.first_child[n]), int(t.first_child[n]) + int(t.num_children[n])):
            if t.kind[n] == CHANCE:
                stack.append((c, rnd + 1, 0))
            else:
                stack.append((c, rnd, raises + (t.actions[c].type is ActionType.RAISE)))
    assert len(past) > 10
    assert_nodes_play_what_the_player_answers(full, strategy, root, player, sorted(past)[::every])


def test_the_blueprint_on_a_scaled_subgame_tree_plays_its_sizes_nearest_as_on_its_own(setup):
    """The agent scales a hand's subgame sizes (0.92-1.08): the blueprint's strategy on
    the scaled tree gives each abstract bet to the real bet nearest it and follows the
    hand below by translation, so node by node it is the strategy on the unscaled tree
    (the old mapping moved an unmatched bet's probability to the check and checked or
    called below it)."""
    bp, _, root, node = setup
    sizes = bp.actions.sizes()
    plain = make_subgame(root, {2: sizes[2], 3: sizes[3]})
    scaled = make_subgame(root, {r: dataclasses.replace(sizes[r], scale=1.05) for r in (2, 3)})
    assert np.array_equal(plain.tree.kind, scaled.tree.kind) and not np.array_equal(plain.tree.spent, scaled.tree.spent)
    ours = blueprint_subgame_strategy(scaled, root, bp, node)
    np.testing.assert_allclose(ours, blueprint_subgame_strategy(plain, root, bp, node), atol=1e-12)
    f, m = int(scaled.tree.first_child[0]), int(scaled.tree.num_children[0])
    raises = [f + j for j in range(m) if scaled.tree.actions[f + j].type is ActionType.RAISE]
    assert ours[raises].sum() > 0  # the bets keep their probability


@pytest.mark.slow  # about a minute on 2 cores: 200 iterations and two exact evaluations of the turn and river
def test_a_depth_limited_solve_with_blueprint_continuations_beats_the_blueprint(setup):
    """Solved with the continuations, the turn strategy (played below the leaves as
    its mix of continuations) is less exploitable in the full turn-and-river game than
    the blueprint itself, measured exactly there."""
    bp, _, root, node = setup
    sizes = bp.actions.sizes()
    reach = np.random.default_rng(1).random((2, 1326))
    full = make_subgame(root, {2: sizes[2], 3: sizes[3]}, reach)
    dl = make_subgame(root, {2: sizes[2]}, reach, leaf_round=3)
    attach_blueprint_continuations(dl, root, bp, node)
    r = cfr.solve(dl, 200)
    played = full_depth_strategy(dl, r.strategy, r.leaf_strategy, full)
    blueprint = blueprint_subgame_strategy(full, root, bp, node)
    assert cfr.exploitability(full, played) < 0.8 * cfr.exploitability(full, blueprint)
