"""``opponent_model``: the opponent's range at a round's first solve from another
blueprint's play of the line, as that blueprint plays it."""

import numpy as np
import pytest

from pokerbot.blueprint_store.store import RANGE_THRESHOLD
from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.bot.evaluation.subgames import root_reach
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")
LINES = ("r300c/cc/", "r300r900c/cc/", "cc/r200c/", "r300c/r600c/")


def as_modelled(seed, blueprint):
    """A blueprint player thresholded as an opponent is modelled (the store's
    ``RANGE_THRESHOLD``, no purification), whatever the player's own default."""
    return BlueprintStrategy(seed, blueprint, purified_rounds=(), range_threshold=RANGE_THRESHOLD)


@pytest.fixture(scope="module")
def other_blueprint(tmp_path_factory):
    """The small blueprint's abstraction trained on another seed, shorter: another strategy."""
    from conftest import build_small_blueprint

    return build_small_blueprint(str(tmp_path_factory.mktemp("other") / "other.bp"), 5_000, seed=3)


def test_the_opponents_range_is_the_models_play_of_the_line_and_ours_stays_ours(small_blueprint, other_blueprint):
    """With a model, the opponent's row is the product of the model's answers (strategy
    API, as its player plays at the store's threshold) along the line; ours is as without; without, and with
    ranges as played, the opponent's row is ours (the negative control: the model
    changes it)."""
    plain = LibratusAgent(1, small_blueprint, opponent_ranges="played")
    modelled = LibratusAgent(1, small_blueprint, opponent_model=other_blueprint)
    changed = False
    for line in LINES:
        st = apply_betting(BettingState(HUNL, 3, None, [0, 5, 10, 20]), line)
        me = st.current_player
        opp = 1 - me
        by_seat = [as_modelled(7, small_blueprint), as_modelled(7, small_blueprint)]
        by_seat[opp] = as_modelled(7, other_blueprint)
        expected = root_reach(st, by_seat)
        got = modelled.first_solve_ranges(st, me)
        base = plain.first_solve_ranges(st, me)
        np.testing.assert_allclose(got[opp], expected[opp], atol=1e-6)
        np.testing.assert_array_equal(got[me], base[me])
        np.testing.assert_allclose(base[opp], root_reach(st, [as_modelled(7, small_blueprint)] * 2)[opp], atol=1e-6)
        changed |= not np.allclose(got[opp], base[opp], atol=1e-3)
    assert changed
