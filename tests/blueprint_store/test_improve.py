"""Self-improvement, step one: opponents' first-round sizes from dealer logs, the gap
scores of the Libratus supplement and the pseudo-harmonic midpoint."""

import pytest

from pokerbot.blueprint_store.actions import PRESET_ACTIONS
from pokerbot.blueprint_store.improve import (
    collect_opponent_bets,
    most_common_size,
    pot_fraction,
    pseudo_harmonic_midpoint,
    score_gaps,
)
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import format_state_line

HUNL = bundled_game("holdem.nolimit.2p")


def hand_line(hand: int, betting: str, names: list[str]) -> str:
    st = BettingState(HUNL, hand, [[0, 1], [2, 3]], [8, 9, 10, 11, 12])
    st = apply_betting(st, betting)
    return format_state_line(st, st.payoffs(), names)


def test_pseudo_harmonic_midpoint_and_pot_fraction():
    assert pseudo_harmonic_midpoint(0.5, 1.0) == pytest.approx(2.5 / 3.5)
    assert pseudo_harmonic_midpoint(0.0, 1.0) == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        pseudo_harmonic_midpoint(1.0, 0.5)
    # the small blind (position 1, 50 in) opens to 250 over the big blind's 100: 150 of a 200 pot after calling
    assert pot_fraction(250, (100, 50), 1) == pytest.approx(0.75)
    assert pot_fraction(300, (100, 100), 0) == pytest.approx(1.0)  # a pot-size bet


def test_gaps_are_scored_from_the_opponents_sizes_only(tmp_path):
    us, them = "A-libratus", "B-prober"
    lines = [
        "# header comment",
        hand_line(0, "r250f", [them, us]),  # position 1 opens: here that is us, ignored
        hand_line(1, "r250c/cc/cc/cc", [us, them]),  # they open 0.75 (position 1 acts first preflop)
        hand_line(2, "r250f", [us, them]),  # again 0.75
        hand_line(3, "r500f", [us, them]),  # 2.0: on the abstraction, no gap
        hand_line(4, "r400c/cc/cc/cc", [us, them]),  # 1.5: gap (1, 2)
        hand_line(5, "r20000f", [us, them]),  # all-in: never a gap
        "STATE:6:r250f:garbage",  # a damaged line is skipped
    ]
    (tmp_path / "m.log").write_text("\n".join(lines) + "\nSCORE:0|0:a|b\n")
    got = collect_opponent_bets([str(tmp_path)], HUNL, "libratus")
    assert got.hands == 6 and got.skipped_lines == 1 and got.files == 1
    assert sorted(round(b.fraction, 3) for b in got.bets if not b.all_in) == [0.75, 0.75, 1.5, 2.0]
    assert all(b.name == them for b in got.bets)
    gaps = score_gaps(got.bets, PRESET_ACTIONS["default"])
    best = gaps[0]
    # (0.5, 1.0): 2 x min(0.25, 0.25) = 0.5 ties (1, 2): min(0.5, 0.5) = 0.5; the lower depth/size first
    assert (best.depth, best.low, best.high, best.count) == (0, 0.5, 1.0, 2)
    assert best.score == pytest.approx(0.5) and gaps[1].score == pytest.approx(0.5)
    assert (gaps[1].low, gaps[1].high) == (1.0, 2.0)
    assert best.midpoint == pytest.approx(2.5 / 3.5) and best.most_common == 0.75
    assert all(g.score == 0 for g in gaps[2:])
    assert most_common_size(got.bets, PRESET_ACTIONS["default"]) == (0, 0.75, 2)


def test_missing_logs_are_an_error():
    with pytest.raises(FileNotFoundError, match="nope"):
        collect_opponent_bets(["/nope"], HUNL, "x")


def test_extension_actions_keep_our_openings_and_survive_the_store_header():
    from pokerbot.blueprint_store.actions import ActionAbstraction
    from pokerbot.blueprint_store.improve import extension_actions

    base = PRESET_ACTIONS["default"]
    ext = extension_actions(base, (0.5, 0.714, 1.0), opponent=1)
    first = ext.rounds[0]
    assert first.fractions(0, 1) == (0.5, 0.714, 1.0)  # the opponent's
    assert first.fractions(0, 0) == base.rounds[0].fractions(0)  # ours: the blueprint's
    assert first.fractions(1, 1) == (1.0,) and ext.rounds[1:] == base.rounds[1:]
    assert ActionAbstraction.from_dict(ext.as_dict()) == ext
    bad = ext.as_dict()
    bad["rounds"][0]["first_by_player"] = [[0.5], [-1.0]]
    with pytest.raises(ValueError, match="malformed"):
        ActionAbstraction.from_dict(bad)
