"""The blueprint's post-processing: fold-call-bet purification (the likeliest group
played, the bet sizes kept in proportion; the player purified on the later rounds
only) and range thresholding left out of the opponent's ranges on request."""

import numpy as np

from pokerbot.blueprint_store.purification import fold_call_bet
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.protocol.betting import CALL, FOLD, ActionType, BettingState, raise_to
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")
ACTIONS = [FOLD, CALL, raise_to(300), raise_to(500)]


def test_the_bet_group_wins_on_its_total_though_no_single_size_is_the_likeliest():
    got = fold_call_bet(np.array([0.30, 0.32, 0.20, 0.18]), ACTIONS)
    np.testing.assert_allclose(got, [0.0, 0.0, 0.20 / 0.38, 0.18 / 0.38])
    # per-action purification would have called: the grouping is what differs
    assert int(np.argmax([0.30, 0.32, 0.20, 0.18])) == 1


def test_a_likeliest_fold_or_call_is_played_alone_and_ties_go_to_the_less_aggressive():
    rows = np.array([[0.5, 0.2, 0.2, 0.1], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25], [0.0, 0.5, 0.5, 0.0]])
    got = fold_call_bet(rows, ACTIONS)
    np.testing.assert_array_equal(got, [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0.5, 0.5], [0, 1, 0, 0]])
    assert np.all(fold_call_bet(np.zeros((2, 4)), ACTIONS) == 0)  # nothing to play stays nothing


def test_the_player_is_purified_on_the_later_rounds_and_plays_as_before_on_the_first(small_blueprint):
    plain = BlueprintStrategy(1, small_blueprint)
    purified = BlueprintStrategy(1, small_blueprint, purified_rounds=(2, 3))
    preflop = BettingState(HUNL, 3)
    a, b = plain.action_probabilities(preflop, 0), purified.action_probabilities(preflop, 0)
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    st = BettingState(HUNL, 3, None, [0, 5, 10, 20])
    for act in (CALL, CALL, CALL, CALL):  # limp, check; the flop checked through
        st.apply(act)
    assert st.round == 2
    raw = plain.action_probabilities(st, st.current_player)
    pure = purified.action_probabilities(st, st.current_player)
    live = raw.probabilities.sum(axis=1) > 0
    kinds = np.array([a_.type for a_ in pure.actions])
    groups = np.stack([(pure.probabilities[:, kinds == t] > 0).any(axis=1) for t in ActionType], axis=1)
    assert np.all(groups[live].sum(axis=1) == 1)  # one group a hand
    mixed = (raw.probabilities[live] > 0).sum(axis=1) > 1
    assert mixed.any()  # the raw turn strategy mixes: purification had something to do
    np.testing.assert_allclose(pure.probabilities[live].sum(axis=1), 1.0)


def test_raw_opponent_ranges_keep_the_hands_range_thresholding_drops(small_blueprint):
    """``round_start_ranges(raw_opponent=True)``: our range as played (thresholded), the
    opponent's by the store's probabilities as trained: positive wherever the played
    one is, and on hands thresholding dropped."""
    import random

    from pokerbot.blueprint_store.real_play import BlueprintPlay
    from pokerbot.protocol.betting import apply_betting

    play = BlueprintPlay(small_blueprint, random.Random(1))
    found = False
    for line in ("r300c/cc/", "r300r900c/cc/", "cc/cc/", "r300c/r600c/"):
        st = apply_betting(BettingState(HUNL, 3, None, [0, 5, 10, 20]), line)
        me = st.current_player
        played = play.round_start_ranges(st, me)
        raw = play.round_start_ranges(st, me, raw_opponent=True)
        np.testing.assert_array_equal(raw[me], played[me])
        assert np.all(raw[1 - me][played[1 - me] > 0] > 0)
        found |= bool(np.any((raw[1 - me] > 0) & (played[1 - me] == 0)))
    assert found  # thresholding dropped some hand somewhere: the raw ranges have it


def test_pooled_opponent_ranges_forget_the_size_of_the_opponents_raises(tmp_path):
    """``round_start_ranges(pool_opponent_raises=True)``: the opponent's reach after a
    half-pot bet and after a pot bet on the same flop is the same (each bet counts as
    betting at all), at least its reach as played either way; ours is left as played.
    As played, the two sizes give different ranges (the control)."""
    import random

    from conftest import build_small_blueprint

    from pokerbot.blueprint_store.actions import ActionAbstraction
    from pokerbot.blueprint_store.real_play import BlueprintPlay
    from pokerbot.protocol.betting import apply_betting
    from pokerbot.solver.tree import BetSizes

    actions = ActionAbstraction(tuple(BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2) for _ in range(4)))
    path = build_small_blueprint(str(tmp_path / "two.bp"), 10_000, actions=actions)
    play = BlueprintPlay(path, random.Random(1))
    pooled, played, ours = {}, {}, {}
    for size, line in (("half", "r300c/cr600c/"), ("pot", "r300c/cr900c/")):
        st = apply_betting(BettingState(HUNL, 3, None, [0, 5, 10, 20]), line)
        me = 1 - st.actors[1][1]  # the flop bettor is the opponent
        pooled[size] = play.round_start_ranges(st, me, pool_opponent_raises=True)
        played[size] = play.round_start_ranges(st, me)
        np.testing.assert_array_equal(pooled[size][me], played[size][me])
        assert np.all(pooled[size][1 - me] >= played[size][1 - me] - 1e-12)
        ours[size] = me
    assert ours["half"] == ours["pot"]
    opp = 1 - ours["pot"]
    np.testing.assert_allclose(pooled["half"][opp], pooled["pot"][opp])
    assert not np.allclose(played["half"][opp], played["pot"][opp])
