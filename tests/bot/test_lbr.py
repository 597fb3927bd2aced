"""Local Best Response: exact winnings against a bot that always folds, a large margin
against one that always calls, and range tracking equal to a brute-force Bayes update."""

import numpy as np
import pytest

from pokerbot.bot.blueprint_player import BlueprintStrategy
from pokerbot.bot.lbr import LBRError, Range, check_setting, play_hand, summarize
from pokerbot.bot.strategies import make_strategy
from pokerbot.bot.strategy_query import HANDS, live_hands, query
from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("setting", ["fcpa", "fcpa56"])
def test_lbr_wins_exactly_750_against_always_fold(setting):
    """In the big blind the bot folds its small blind (+50); in the small blind LBR calls
    to the turn and bets, and the bot folds (+100): 75 chips a hand, 750 mbb/game."""
    bot = make_strategy("fold", 1)
    values = [play_hand(bot, HUNL, 3, hand, setting) for hand in range(12)]
    assert values == [50.0, 100.0] * 6
    assert summarize(values, HUNL.big_blind)["mbb_per_game"] == 750.0


def test_lbr_beats_a_calling_station_by_a_large_margin():
    bot = make_strategy("call", 1)
    values = [play_hand(bot, HUNL, 5, hand, "fcpa") for hand in range(300)]
    s = summarize(values, HUNL.big_blind)
    assert s["mbb_per_game"] - s["ci95"] > 1000  # all-in with the better half of its hands


def test_lbr_wins_250_in_expectation_against_always_fold_with_fold_and_call():
    """In the big blind +50 every hand; in the small blind LBR calls (every hand has over
    a quarter of the pot's equity against a full range) and checks down: a showdown of
    200 chips and nothing else, worth 0 over the deals by symmetry: 250 mbb/game."""
    bot = make_strategy("fold", 1)
    decisions = []
    values = [
        play_hand(bot, HUNL, 3, hand, "fc", on_decision=lambda s, d: decisions.append((s.round, str(d.action))))
        for hand in range(6)
    ]
    assert values[0::2] == [50.0] * 3
    assert all(v in (-100.0, 0.0, 100.0) for v in values[1::2])
    assert decisions and all(a == "c" for _, a in decisions)  # it never folds, never bets
    assert {r for r, _ in decisions} == {0, 1, 2, 3}


def test_settings_lbr_cannot_play_are_refused():
    with pytest.raises(LBRError, match="unknown"):
        check_setting("fcx")
    for s in ("fc", "fcpa", "fcpa56"):
        check_setting(s)


def test_range_tracking_equals_a_brute_force_bayes_update(small_blueprint):
    """The blueprint in the small blind raises, then bets the flop: the tracked range
    against each hand's probability of that line, from the store's own lookup."""
    player = BlueprintStrategy(seed=2, blueprint=small_blueprint)
    lbr_hole, board = [48, 49], [0, 17, 34]
    belief = Range.holdem(lbr_hole, [])
    states = []
    s = BettingState(HUNL, 0)
    for _ in range(2):  # the small blind's (position 1) first raise preflop, then on the flop
        answer = query(player, s, 1)
        taken = next(a for a in answer.actions if a.type is ActionType.RAISE)
        belief.observe_action(answer.probability_of(taken))
        states.append((s.copy(), 1, taken))
        s.apply(taken)
        s.call()  # LBR, in the big blind, calls
        if s.round == 1 and not s.board_cards:
            s.deal_board_cards(board)
            belief.observe_board(live_hands(board))
            s.call()  # and checks the flop to the small blind
    brute = np.zeros(len(HANDS))
    node_cache = {}
    for h, hole in enumerate(HANDS.tolist()):
        if set(hole) & set(lbr_hole + board):
            continue
        p = 1.0
        for s, actor, taken in states:
            node = node_cache.setdefault(s.betting_string(), player.bp.node_of(s))
            abstract, probs = player.bp.strategy_for(s, hole)
            p *= sum(q for a, q in zip(abstract, probs) if player.concrete(s, actor, node, a) == taken)
        brute[h] = p
    assert np.allclose(belief.weights, brute, atol=1e-12)
    assert 0 < np.count_nonzero(brute) < len(HANDS)  # the line told something


def test_a_run_writes_every_hand_and_resumes_where_it_stopped(tmp_path):
    from pokerbot.bot.lbr import run_lbr

    out = str(tmp_path / "lbr")
    first = run_lbr("fold", 20, 3, "fcpa", out, progress=False)
    assert first["hands"] == 20 and first["mbb_per_game"] == 750.0
    with open(tmp_path / "lbr" / "hands.jsonl", "a") as f:
        f.write('{"hand": 25, "chi')  # a write cut by an interruption
    second = run_lbr("fold", 30, 3, "fcpa", out, progress=False)
    lines = (tmp_path / "lbr" / "hands.jsonl").read_text().splitlines()
    played = [int(x.split(",")[0].split(":")[1]) for x in lines if x.endswith("}")]
    assert played[:20] == list(range(20)) and sorted(played[20:]) == list(range(20, 30))  # only the rest played
    assert second["hands"] == 30 and second["mbb_per_game"] == 750.0


def test_the_command_prints_a_markdown_line_and_refuses_what_it_cannot_play(tmp_path, capsys, small_blueprint):
    from pokerbot.bot.cli import main

    assert main(["lbr", "--strategy", "fold", "--hands", "10", "--out", str(tmp_path / "a"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "| fold | fcpa | +750 ± " in out
    assert main(["lbr", "--strategy", "fold", "--setting", "fcx", "--out", str(tmp_path / "b")]) == 2
    assert "unknown LBR setting" in capsys.readouterr().err
    assert main(["lbr", "--strategy", "blueprint", "--blueprint", str(tmp_path / "none.bp")]) == 2
    assert "no blueprint at" in capsys.readouterr().err
