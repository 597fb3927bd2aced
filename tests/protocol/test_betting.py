"""Hand-checked betting scenarios (the differential tests cover the rest)."""

import pytest

from pokerbot.protocol.betting import (
    CALL,
    FOLD,
    ActionSyntaxError,
    ActionType,
    BettingState,
    IllegalActionError,
    apply_betting,
    parse_action,
    raise_to,
)
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")
LIMIT = bundled_game("holdem.limit.2p")


def state(betting: str = "", game=HUNL) -> BettingState:
    return apply_betting(BettingState(game), betting)


def test_preflop_start():
    s = state()
    assert s.current_player == 1  # position 1 (small blind) acts first preflop
    assert s.spent == [100, 50]
    assert s.raise_bounds() == (200, 20000)
    assert s.can_fold() and s.amount_to_call() == 50


def test_fold_illegal_when_check_is_free():
    s = state("c")
    assert s.current_player == 0
    assert not s.can_fold()
    with pytest.raises(IllegalActionError, match="checking is free"):
        s.fold()
    assert s.legal_action_types() == [ActionType.CALL, ActionType.RAISE]


def test_round_advances_and_first_player_changes():
    s = state("cc/")
    assert s.round == 1 and s.current_player == 0
    # Opening bet of a new round: at least one big blind.
    assert s.raise_bounds() == (200, 20000)
    s = state("r300c/")
    assert s.round == 1 and s.raise_bounds() == (400, 20000)


def test_minimum_reraise_adds_the_last_raise():
    s = state("r300")  # raised by 200 over the big blind
    assert s.raise_bounds() == (500, 20000)
    with pytest.raises(IllegalActionError, match="below the minimum raise-to 500"):
        s.raise_to(499)
    s.raise_to(1000)  # raised by 700
    assert s.raise_bounds() == (1700, 20000)
    with pytest.raises(IllegalActionError, match="above the stack"):
        s.raise_to(20001)


def test_all_in_below_the_minimum_is_the_only_raise():
    s = state("r300r12000")  # the next minimum would be 23700
    assert s.raise_bounds() == (20000, 20000)
    with pytest.raises(IllegalActionError, match="only legal raise is all-in to 20000"):
        s.raise_to(19999)
    s.raise_to(20000)
    assert s.raise_bounds() is None and s.can_fold()
    with pytest.raises(IllegalActionError, match="opponent is all-in"):
        s.raise_to(20000)


def test_short_stack_facing_a_bet_that_covers_it():
    from pokerbot.protocol.gamedef import parse_gamedef

    game = parse_gamedef(
        "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 1\nstack = 700 2500\nblind = 100 50\n"
        "firstPlayer = 2\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0\nEND GAMEDEF\n"
    )
    s = state("r1000", game)
    assert s.current_player == 0 and s.raise_bounds() is None
    with pytest.raises(IllegalActionError, match="already covers player 0's stack of 700"):
        s.raise_to(700)
    s.call()  # all-in for less
    assert s.finished and s.spent == [700, 1000]


def test_all_in_call_runs_out_the_board():
    s = state("r20000c///")
    assert s.finished and s.round == 3 and s.current_player is None
    assert s.betting_string() == "r20000c///"
    with pytest.raises(IllegalActionError, match="hand is over"):
        s.call()


def test_limit_raise_cap_and_sizes():
    s = state("", LIMIT)
    assert s.raise_bounds() == (20, 20)  # big blind 10 + raise 10
    s = state("rrr", LIMIT)  # with the big blind that makes four bets
    assert s.raise_bounds() is None
    with pytest.raises(IllegalActionError, match="maximum of 3 raises in round 1"):
        s.raise_to()
    s = state("rrrc/", LIMIT)
    assert s.raise_bounds() == (50, 50)


def test_payoffs_fold_and_showdown():
    s = state("r300f")  # the small blind raises, the big blind folds
    assert s.payoffs() == [-100, 100]
    s = BettingState(HUNL, 0, [parse_cards("AsAh"), parse_cards("KsKh")], parse_cards("2c7d9hJs3c"))
    apply_betting(s, "cc/cc/cc/r400c")
    assert s.is_showdown and s.payoffs() == [400, -400]
    s = BettingState(HUNL, 0, [parse_cards("AsKh"), parse_cards("AdKc")], parse_cards("2c7d9hJs3c"))
    apply_betting(s, "r20000c///")
    assert s.payoffs() == [0, 0]


def test_payoffs_need_cards_and_a_finished_hand():
    with pytest.raises(ValueError, match="not over"):
        state("c").payoffs()
    with pytest.raises(ValueError, match="board cards"):
        state("cc/cc/cc/cc").payoffs()


def test_verify_can_do_agree():
    s = state("r300")
    for action in [FOLD, CALL, raise_to(499), raise_to(500), raise_to(20000), raise_to(20001)]:
        ok = s.can_apply(action)
        try:
            s.verify_action(action)
            verified = True
        except IllegalActionError:
            verified = False
        assert ok == verified
        t = s.copy()
        if ok:
            t.apply(action)
            assert t.actions[0][-1] == action
        else:
            with pytest.raises(IllegalActionError):
                t.apply(action)
            assert t.betting_string() == s.betting_string()  # nothing changed


def test_copy_is_independent():
    s = state("r300")
    t = s.copy()
    t.call()
    assert s.betting_string() == "r300" and t.betting_string() == "r300c/"


@pytest.mark.parametrize(
    "betting,message",
    [
        ("c/c", "round 1 has not ended"),
        ("ccc", "the '/' count says round 1"),
        ("r300fc", "hand is over"),
        ("r20000c/", r"has 2 round\(s\) of text"),
        ("x", "unknown action"),
        ("r", "needs a raise-to total"),
        ("r150", "below the minimum"),
        ("cf", "checking is free"),
    ],
)
def test_bad_betting_strings(betting, message):
    with pytest.raises((IllegalActionError, ActionSyntaxError), match=message):
        state(betting)


def test_parse_action():
    assert parse_action("r14979", HUNL) == raise_to(14979)
    assert parse_action("c", HUNL) == CALL
    assert parse_action("r", LIMIT).type is ActionType.RAISE
    for bad in ["", "R100", "k", "b100", "r-5", "r1.5", "c1", "r100x"]:
        with pytest.raises(ActionSyntaxError):
            parse_action(bad, HUNL)


def test_cards_are_checked():
    from pokerbot.protocol.cards import CardError

    s = BettingState(bundled_game("leduc.limit.2p"))
    with pytest.raises(CardError, match="not in this game's deck"):
        s.deal_hole_cards(0, parse_cards("2c"))
    s.deal_hole_cards(0, parse_cards("As"))
    with pytest.raises(CardError, match="appears twice"):
        s.deal_hole_cards(1, parse_cards("As"))
    with pytest.raises(CardError, match="needs 1 hole cards"):
        s.deal_hole_cards(1, parse_cards("KsKh"))
