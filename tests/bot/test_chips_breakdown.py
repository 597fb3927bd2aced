"""``bot/evaluation/chips_breakdown``: each split's groups add up to A's result, and
hands are put where they ended, by A's position and by their preflop line."""

import pytest

from pokerbot.bot.evaluation import chips_breakdown as cb
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import format_state_line

HUNL = bundled_game("holdem.nolimit.2p")
HANDS = [  # betting, A's seat, A's AIVAT value
    ("f", 0, 50.0),
    ("r300f", 1, 100.0),
    ("cc/cc/cc/cc", 0, -40.0),
    ("r300c/cr600f", 1, -300.0),
    ("r300r900c/cc/cc/cc", 0, 900.0),
    ("r20000c///", 1, -20000.0),
]


def match_dir(tmp_path):
    lines, rows = [], ["run,hand,position,raw,allin_adjusted,aivat"]
    for i, (betting, seat, value) in enumerate(HANDS):
        st = apply_betting(
            BettingState(HUNL, i, [parse_cards("AhKh"), parse_cards("7h2c")], parse_cards("2d3d4d5s6s")), betting
        )
        names = ["A-x", "B-y"] if seat == 0 else ["B-y", "A-x"]
        lines.append(format_state_line(st, st.payoffs(), names))
        rows.append(f"match1,{i},{seat},{value},{value},{value}")
    (tmp_path / "match1.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "aivat.csv").write_text("\n".join(rows) + "\n")
    return str(tmp_path)


def test_each_split_adds_up_to_the_result(tmp_path):
    hands = cb.read_hands(match_dir(tmp_path), HUNL)
    assert len(hands) == len(HANDS)
    result = cb.breakdown(hands, HUNL.big_blind, "aivat")
    assert result["mbb_per_hand"] == pytest.approx(sum(v for *_, v in HANDS) / len(HANDS) * 10)
    for groups in result["splits"].values():
        assert sum(g["mbb_per_hand"] for g in groups.values()) == pytest.approx(result["mbb_per_hand"])
        assert sum(g["hands"] for g in groups.values()) == len(HANDS)
    ended = result["splits"]["where it ended"]
    assert ended["fold on the preflop"]["hands"] == 2 and ended["fold on the flop"]["hands"] == 1
    assert ended["showdown"]["hands"] == 3
    lines = result["splits"]["preflop line"]
    assert set(lines) == {"B folds preflop to 0 raises", "B folds preflop to 1 raise", "limped", "raised pot",
                          "3-bet pot", "all in preflop"}  # fmt: skip
    assert lines["all in preflop"]["mbb_per_hand"] == pytest.approx(-20000 / 6 * 10)
    assert "| A's position | A small blind | 3 |" in cb.table(result)
