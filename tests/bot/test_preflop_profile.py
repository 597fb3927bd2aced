"""``bot/evaluation/preflop_profile``: hand classes, and the first preflop action of a
player read from a dealer log."""

from pokerbot.bot.evaluation.preflop_profile import first_action, hand_class, profile, table
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import format_state_line

HUNL = bundled_game("holdem.nolimit.2p")


def test_hand_classes():
    cases = {"AcAs": "pair", "2c2d": "pair", "AhKh": "suited ace", "As5c": "offsuit ace", "KdJd": "suited broadway",
             "7s6s": "suited connector", "9c4d": "offsuit trash", "7h2c": "offsuit trash", "KcQd": "other",
             "8c7d": "other", "Js9s": "other"}  # fmt: skip
    assert {h: hand_class(parse_cards(h)) for h in cases} == cases


def test_the_first_action_and_its_situation(tmp_path):
    # seat 1 (the small blind) acts first preflop in this game
    state = apply_betting(BettingState(HUNL, 0, [parse_cards("AhKh"), parse_cards("7h2c")]), "r300r900f")
    assert first_action(state, 1) == ("first in", "raise")
    assert first_action(state, 0) == ("facing a raise", "raise")
    limp = apply_betting(BettingState(HUNL, 1, [parse_cards("9c4d"), parse_cards("AcAs")]), "cr400c/")
    assert first_action(limp, 1) == ("first in", "call")
    log = tmp_path / "m.log"
    lines = []
    for hand, (cards, betting) in enumerate(((["AhKh", "7h2c"], "r300r900f"), (["7h2c", "AsAd"], "r300f"))):
        st = apply_betting(BettingState(HUNL, hand, [parse_cards(c) for c in cards]), betting)
        names = ["them", "slumbot-run"] if hand == 0 else ["slumbot-run", "them"]
        lines.append(format_state_line(st, st.payoffs(), names))
    log.write_text("\n".join(lines) + "\n")
    counts = profile([str(log)], "run", HUNL)
    # hand 0: the player (seat 1) opened 7h2c; hand 1: it (seat 0) folded 7h2c to a raise
    assert counts["first in"] == {"offsuit trash": {"raise": 1}}
    assert counts["facing a raise"] == {"offsuit trash": {"fold": 1}}
    assert "| facing a raise | offsuit trash | 1 | 100 % | 0 % | 0 % |" in table(counts)
