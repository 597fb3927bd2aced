"""The safe-nested paper's experiments in miniature on no-limit Leduc, checking what
theory promises: a safe re-solve never leaves the opponent's best response more than
the blueprint's (up to the solve's own gap), a broken gadget is caught by that check,
and nested solving answers an off-tree bet far better than action translation. Small
trees and iteration counts keep it fast; everything is deterministic."""

import functools

import numpy as np
import pytest

from experiments import subgame_experiments as se
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver import cfr
from pokerbot.solver.tree import DECISION

#: One bet in the first round, two in the second, pot-fraction bets of 1/2 and 1 pot.
SIZES = se.round_sizes((0.5, 1.0), (1, 2))
#: Resolve told the opponent could get far more elsewhere: no hand enters the
#: subgame, so our play there is left arbitrary. Safe in form, broken in substance.
BROKEN = se.Method("Resolve, alternative far too high", "resolve", alt_shift=1e5)
TOLERANCE_MBB = 1e-3  # rounding in the exact evaluations


@pytest.fixture(scope="module")
def table1():
    setup = se.Table1Setup(
        sizes=SIZES,
        blueprint_iterations=20,
        blueprint_buckets=None,
        subgame_iterations=300,
        methods=(se.RESOLVE, se.MAXMARGIN, se.REACH_MAXMARGIN, se.UNSAFE, BROKEN),
    )
    return {r.method: r for r in se.run_table1(setup)}


def test_safe_methods_stay_below_the_blueprint(table1):
    bp = table1["Blueprint"]
    assert bp.mbb > 100  # a poor blueprint: there is something to gain
    for m in (se.RESOLVE, se.MAXMARGIN, se.REACH_MAXMARGIN):
        assert m.safe_in_theory
        row = table1[m.name]
        assert row.solves == 2 * 30  # every second-round subgame, both seats
        assert row.mbb <= bp.mbb + row.gap_mbb + TOLERANCE_MBB, (m.name, row, bp)


def test_the_safety_check_has_teeth(table1):
    bp, broken = table1["Blueprint"], table1[BROKEN.name]
    assert broken.gap_mbb <= TOLERANCE_MBB  # it keeps its (useless) promise...
    assert broken.mbb > bp.mbb + broken.gap_mbb + 100  # ...and the check catches it
    assert table1["Unsafe"].gap_mbb is None  # no promise to measure


def test_safe_methods_stay_safe_with_quadratic_averaging(monkeypatch):
    """The agent's river re-solves average with t^2 weights: the safe gadgets must keep
    their promise with them too (every solve here, the blueprint's included)."""
    monkeypatch.setattr(cfr, "solve", functools.partial(cfr.solve, average_exponent=2.0))
    setup = se.Table1Setup(
        sizes=SIZES,
        blueprint_iterations=20,
        blueprint_buckets=None,
        subgame_iterations=300,
        methods=(se.RESOLVE, se.MAXMARGIN, se.REACH_MAXMARGIN),
    )
    rows = {r.method: r for r in se.run_table1(setup)}
    bp = rows["Blueprint"]
    assert bp.mbb > 100
    for m in (se.RESOLVE, se.MAXMARGIN, se.REACH_MAXMARGIN):
        assert rows[m.name].mbb <= bp.mbb + rows[m.name].gap_mbb + TOLERANCE_MBB, (m.name, rows[m.name], bp)


def test_card_abstracted_blueprint():
    """Equity buckets tie the hands' strategies in the last round; with a bucket per
    strength class it is the lossless game again: the same run as ``cfr.solve`` (which
    works in single precision, hence the tolerance)."""
    game = bundled_game("leduc.nolimit.2p")
    full = se.whole_game(game, SIZES)
    lossless = cfr.exploitability(full, cfr.solve(full, 50).strategy)
    assert cfr.exploitability(full, se.abstracted_cfr(game, full, 50, 3)) == pytest.approx(lossless, rel=1e-3)
    coarse = se.abstracted_cfr(game, full, 50, 2)
    assert cfr.exploitability(full, coarse) > 10 * lossless
    t = full.tree
    y = se.second_round_roots(t)[0]
    board = (int(t.dealt[y]),)
    buckets = se.equity_buckets(game, board, 2)[full.hand_index]
    kids = list(se.children_of(t, y))
    for b in (0, 1):
        members = np.nonzero(buckets == b)[0]
        assert len(members) >= 2
        assert np.allclose(coarse[kids][:, members], coarse[kids][:, members[:1]])


@pytest.fixture(scope="module")
def table2():
    setup = se.Table2Setup(
        raises=(1, 2), blueprint_iterations=1000, subgame_iterations=300, methods=(se.MAXMARGIN, se.REACH_MAXMARGIN)
    )
    return {r.method: r for r in se.run_table2(setup)}


def test_nested_solving_far_below_translation(table2):
    floor = table2["Blueprint, opponent without the off-tree size"].mbb
    translation = table2["Randomized pseudo-harmonic translation"].mbb
    assert translation > floor + 5  # the off-tree bet does hurt a translating player
    for m in (se.MAXMARGIN, se.REACH_MAXMARGIN):
        row = table2[m.name]
        assert row.solves > 100
        # Most of what translation loses over the blueprint's own gap, nested solving keeps.
        assert row.mbb - floor < 0.2 * (translation - floor), (m.name, row, floor, translation)
        assert row.mbb >= floor - TOLERANCE_MBB  # the opponent still has every action of ours


def test_without_offtree_bets_both_answers_are_the_blueprint():
    """When the opponent's abstraction is ours (0.75 pot absent from both), translation
    and nested solving never trigger: our strategy in the large tree is the blueprint."""
    setup = se.Table2Setup(
        fractions=(0.5, 1.0), raises=(1, 1), blueprint_iterations=200, subgame_iterations=50, methods=(se.MAXMARGIN,)
    )
    rows = {r.method: r for r in se.run_table2(setup)}
    floor = rows["Blueprint, opponent without the off-tree size"].mbb
    assert rows["Randomized pseudo-harmonic translation"].mbb == pytest.approx(floor, abs=TOLERANCE_MBB)
    assert rows["Maxmargin"].mbb == pytest.approx(floor, abs=TOLERANCE_MBB)
    assert rows["Maxmargin"].solves == 0


def test_translation_maps_by_pot_fraction():
    """A 0.75-pot opening bet is read as 0.5 pot with the pseudo-harmonic probability
    (1 - 0.75)(1 + 0.5) / ((1 - 0.5)(1 + 0.75)) = 3/7 and as 1 pot otherwise."""
    game = bundled_game("leduc.nolimit.2p")
    setup = se.Table2Setup(raises=(1, 1))
    small = se.whole_game(game, setup.small)
    walk = se.TranslationWalk(
        game,
        se.whole_game(game, setup.large),
        setup.small,
        se.Solved(small, np.zeros((small.tree.num_nodes, small.hands.shape[0]))),
        1,
    )
    st = BettingState(game)
    bet = se.target(st, 0.75)
    pairs = walk.map_theirs(st, se.raise_to(bet), st, 0)
    sizes = {small.tree.actions[j].size: p for j, p in pairs}
    assert sizes == pytest.approx({se.target(st, 0.5): 3 / 7, se.target(st, 1.0): 4 / 7})
    assert small.tree.kind[0] == DECISION


def test_a_game_the_tree_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="one board card"):
        se.whole_game(bundled_game("flop.nolimit.2p"), SIZES)
