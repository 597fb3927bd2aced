"""experiments/subgames_unbiased.py: the subgame measure's exact value against hands
played from the subgame's root, and its negative control, a range left without
Bayes' update (docs/evaluation.md's unbiasedness check)."""

import numpy as np
import pytest
from scipy import stats

from experiments import subgames_unbiased as su
from pokerbot.bot.evaluation import subgames as sg
from pokerbot.protocol.gamedef import bundled_game

PLAYS = 1000


@pytest.fixture(scope="module")
def run(small_blueprint):
    config = sg.SubgamesConfig(blueprint=small_blueprint, variants=("blueprint",), sampling="uniform")
    stores = (sg.store_of(small_blueprint),) * 2
    game = bundled_game(sg.GAME)
    spots, _ = sg.sample_spots(config, 4, stores, game)
    return config, stores, game, spots, [su.measure(config, s, stores, game, PLAYS, None) for s in spots]


def test_play_from_the_root_averages_to_the_exact_value_and_not_to_the_wrong_one(run):
    *_, spots, rows = run
    assert [r["index"] for r in rows] == [s.index for s in spots]
    for r in rows:
        assert abs(r["played"]) <= 20_000  # one hand's chips: at most a stack
        assert r["simulated_se"] > 0
    z_exact = np.array([(r["simulated"] - r["exact"]) / r["simulated_se"] for r in rows])
    z_wrong = np.array([(r["simulated"] - r["wrong"]) / r["simulated_se"] for r in rows])
    # subgame by subgame and together, within what chance gives (keyed draws: the same every run)
    assert np.all(np.abs(z_exact) < 4), z_exact
    assert (z_exact**2).sum() < stats.chi2.ppf(0.999, len(rows)), z_exact
    # the control takes B's range as every hand alike: another value, further from play
    assert all(abs(r["exact"] - r["wrong"]) > 10 for r in rows)
    assert (z_wrong**2).sum() > (z_exact**2).sum(), (z_exact, z_wrong)


def test_an_earlier_runs_walked_values_are_kept_and_the_play_is_keyed(run):
    config, stores, game, spots, _ = run
    fresh = su.measure(config, spots[1], stores, game, 50, None)
    kept = su.measure(config, spots[1], stores, game, 50, {"exact": 1.5, "wrong": -2.5})
    assert (kept["exact"], kept["wrong"]) == (1.5, -2.5)
    assert (kept["played"], kept["simulated"], kept["simulated_se"]) == (
        fresh["played"],
        fresh["simulated"],
        fresh["simulated_se"],
    )
    mean, half = su.paired([fresh, kept], "simulated", "exact")
    assert mean == pytest.approx(fresh["simulated"] - (fresh["exact"] + 1.5) / 2) and half > 0
