"""experiments/opponent_range_distance.py: no distance where the model is exact, some
where the opponent plays another blueprint."""

import json
from dataclasses import asdict

import numpy as np

from experiments import opponent_range_distance as ord_
from pokerbot.bot.evaluation import subgames as sg
from pokerbot.protocol.gamedef import bundled_game


def test_the_played_model_is_exact_in_self_play_and_off_against_another_blueprint(small_blueprint, tmp_path):
    from conftest import build_small_blueprint

    config = sg.SubgamesConfig(blueprint=small_blueprint, variants=("blueprint",), sampling="uniform")
    stores = (sg.store_of(small_blueprint),) * 2
    spots, _ = sg.sample_spots(config, 4, stores, bundled_game(sg.GAME))
    (tmp_path / "run").mkdir()
    with open(tmp_path / "run" / "spots.json", "w") as f:
        json.dump({"spots": [asdict(s) for s in spots]}, f)
    same = ord_.distances(str(tmp_path / "run"), small_blueprint, small_blueprint, None)
    assert set(same) == {"played", "raw", "pooled"} and same["played"].shape == (4, 3)
    np.testing.assert_allclose(same["played"][:, :2], 0.0, atol=1e-12)
    assert np.all(same["pooled"][:, 2] > 0)  # each model's ranges timed
    other = build_small_blueprint(str(tmp_path / "other.bp"), 5_000, seed=3)
    off = ord_.distances(str(tmp_path / "run"), small_blueprint, other, None)
    assert np.all((off["played"][:, 0] >= 0) & (off["played"][:, 0] <= 1))
    assert off["played"][:, 0].max() > 0.01
