"""``bot/evaluation/measure_vs_play``: which hands reach a root, the played per-deal
series of a duplicate match, and the comparison with a measure's summary."""

import numpy as np
import pytest

from pokerbot.bot.evaluation import measure_vs_play as mp
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import format_state_line

HUNL = bundled_game("holdem.nolimit.2p")
CARDS = [parse_cards("AhKh"), parse_cards("7h2c")]
BOARD = parse_cards("2d3d4d5s6s")


def finished(betting, hand=0):
    return apply_betting(BettingState(HUNL, hand, CARDS, BOARD), betting)


def test_which_hands_reach_a_root():
    assert mp.reached(finished("r300c/cc/cc/cc"), 1) and mp.reached(finished("r300c/cc/cc/cc"), 2)
    assert not mp.reached(finished("r300f"), 1)
    assert mp.reached(finished("r300c/r600f"), 1) and not mp.reached(finished("r300c/r600f"), 2)
    assert not mp.reached(finished("r20000c///"), 1)  # all in preflop: no decision on the flop
    assert mp.reached(finished("cc/r20000c//"), 1) and not mp.reached(finished("cc/r20000c//"), 2)


def test_a_duplicate_match_against_a_measure(tmp_path):
    bettings = ["r300c/cc/cc/cc", "r300f", "cc/r600f", "r300c/cc/r900f"]
    for run, names in (("match1", ["A-x", "B-y"]), ("match2", ["B-y", "A-x"])):
        lines = [format_state_line(finished(b, i), finished(b, i).payoffs(), names) for i, b in enumerate(bettings)]
        (tmp_path / f"{run}.log").write_text("\n".join(lines) + "\n")
    played = mp.played_per_deal(str(tmp_path), HUNL)
    # the same cards and lines in both orders, A in each seat: the pair sums to 0
    assert np.allclose(played["deal"], 0.0) and np.allclose(played["flop"], 0.0)
    assert played["reached_flop"].mean() == pytest.approx(0.75) and played["reached_turn"].mean() == pytest.approx(0.5)
    summary = {"variants": {"blueprint": {"mbb_per_hand": 0.5, "mbb_ci95": 1.0}}, "share": 0.75, "candidates": 300}
    far = {"variants": {"blueprint": {"mbb_per_hand": 50.0, "mbb_ci95": 1.0}}, "share": 0.2, "candidates": 300}
    played["deal"] = played["deal"] + np.array([1.0, -1.0, 1.0, -1.0])  # an interval to compare with
    played["flop"] = played["flop"] + np.array([1.0, -1.0, 1.0, -1.0])
    rows = mp.compare(played, {"deal": summary, "flop": summary})
    assert rows["deal"]["inside"] and rows["flop"]["inside"] and rows["flop"]["shares_agree"]
    wrong = mp.compare(played, {"flop": far})["flop"]
    assert not wrong["inside"] and not wrong["shares_agree"]
    assert "| flop |" in mp.table(rows)


def test_match_parts_are_pooled_deal_by_deal(tmp_path):
    for part, bettings in (("a", ["r300c/cc/cc/cc", "r300f"]), ("b", ["cc/r600f"])):
        (tmp_path / part).mkdir()
        for run, names in (("match1", ["A-x", "B-y"]), ("match2", ["B-y", "A-x"])):
            lines = [format_state_line(finished(b, i), finished(b, i).payoffs(), names) for i, b in enumerate(bettings)]
            (tmp_path / part / f"{run}.log").write_text("\n".join(lines) + "\n")
    pooled = mp.played_in_parts([str(tmp_path / "a"), str(tmp_path / "b")], HUNL)
    one = mp.played_per_deal(str(tmp_path / "a"), HUNL)
    assert len(pooled["deal"]) == 3 and np.array_equal(pooled["deal"][:2], one["deal"])
    assert pooled["reached_flop"].sum() == 4  # 2 of a's 4 hands and b's 2 (both seats) reach the flop
