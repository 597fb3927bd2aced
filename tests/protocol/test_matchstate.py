import pytest

from pokerbot.protocol.betting import CALL, BettingState, apply_betting, raise_to
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import (
    MatchStateError,
    format_reply,
    format_state_line,
    parse_matchstate,
    parse_reply,
    parse_state_line,
    view_of,
)

HUNL = bundled_game("holdem.nolimit.2p")

REAL_DEALER_LINES = [
    "MATCHSTATE:0:0:cr14979c/r19588c/cc/r19702f:8s2h|/7hAdTd/4s/Kc",
    "MATCHSTATE:1:3:r1112c/r19448r20000c//:2c8h|6cAs/9dKsJc/9c/Td",
    "MATCHSTATE:1:1::|Qs8d",
    "MATCHSTATE:1:1:r1276c/cc/r18198c/cc:9h6s|3d3h/5s3s8h/9d/5c",
]


@pytest.mark.parametrize("line", REAL_DEALER_LINES)
def test_real_dealer_lines_round_trip(line):
    ms = parse_matchstate(line, HUNL)
    assert ms.to_text() == line


def test_parsed_fields():
    ms = parse_matchstate(REAL_DEALER_LINES[0], HUNL)
    assert ms.viewer == 0 and ms.hand_id == 0
    st = ms.state
    assert st.finished and st.folded == [False, True]
    assert st.hole_cards == [parse_cards("8s2h"), []]
    assert st.board_cards == parse_cards("7hAdTd4sKc")
    assert st.payoffs() == [19588, -19588]

    ms = parse_matchstate(REAL_DEALER_LINES[1], HUNL)
    assert ms.state.is_showdown and ms.state.round == 3
    assert ms.state.betting_string() == "r1112c/r19448r20000c//"
    # 2c8h vs 6cAs on 9dKsJc9cTd: both play the board's pair of nines, A kicker wins
    assert ms.state.payoffs() == [-20000, 20000]

    ms = parse_matchstate(REAL_DEALER_LINES[2], HUNL)
    assert ms.is_our_turn and ms.state.current_player == 1
    assert ms.state.hole_cards == [[], parse_cards("Qs8d")]


def test_reply_round_trip():
    line = "MATCHSTATE:0:0:c:8s2h|"
    reply = format_reply(line, raise_to(14979))
    assert reply == "MATCHSTATE:0:0:c:8s2h|:r14979"
    ms, action = parse_reply(reply, HUNL)
    assert ms.to_text() == line and action == raise_to(14979)
    assert format_reply("MATCHSTATE:1:1::|Qs8d", CALL) == "MATCHSTATE:1:1::|Qs8d:c"


def test_view_hides_opponent_cards_unless_showdown():
    st = BettingState(HUNL, 5, [parse_cards("AsAh"), parse_cards("KsKh")], parse_cards("2c7d9hJs3c"))
    apply_betting(st, "r300")
    assert view_of(st, 1).to_text() == "MATCHSTATE:1:5:r300:|KsKh"
    assert view_of(st, 0).to_text() == "MATCHSTATE:0:5:r300:AsAh|"
    apply_betting(st, "c/cc/cc/cc")
    assert view_of(st, 1).to_text() == "MATCHSTATE:1:5:r300c/cc/cc/cc:AsAh|KsKh/2c7d9h/Js/3c"


def test_state_log_line_round_trip():
    st = BettingState(HUNL, 7, [parse_cards("AsAh"), parse_cards("KsKh")], parse_cards("2c7d9hJs3c"))
    apply_betting(st, "r300c/cc/cc/r900f")
    line = format_state_line(st, st.payoffs(), ["Alice", "Bob"])
    assert line == "STATE:7:r300c/cc/cc/r900f:AsAh|KsKh/2c7d9h/Js/3c:300|-300:Alice|Bob"
    logged = parse_state_line(line, HUNL)
    assert logged.values == [300, -300] and logged.names == ["Alice", "Bob"]
    assert format_state_line(logged.state, logged.values, logged.names) == line
    with pytest.raises(MatchStateError, match="disagree"):
        parse_state_line(line.replace("300|-300", "-300|300"), HUNL)


@pytest.mark.parametrize(
    "line,message",
    [
        ("MATCHSTATE:0:0:c", "5 ':'-separated fields"),
        ("MATCHSTATE:2:0::AsKd|", "position 2 does not exist"),
        ("MATCHSTATE:0:x::AsKd|", "hand number"),
        ("MATCHSTATE:0:0:c:AsKd|QhQs", "only a showdown reveals them"),
        ("MATCHSTATE:0:0::As|", "has 1 hole cards"),
        ("MATCHSTATE:0:0::AsAs|", "appears twice"),
        ("MATCHSTATE:0:0:cc/:AsKd|", "1 board group"),
        ("MATCHSTATE:0:0:cc/:AsKd|/2c3c", "deals 3 board card"),
        ("MATCHSTATE:0:0:cc/:AsKd|/2c3cAs", "appears twice"),
        ("MATCHSTATE:0:0:cf:AsKd|", "checking is free"),
        ("MATCHSTATE:0:0:r100:AsKd|", "below the minimum"),
        ("MATCHSTATE:0:0::AsKd", "separated by '|'"),
        ("MATCHSTATE:0:0::Xx|", "not a rank"),
        ("MATCH:0:0::AsKd|", "does not start with"),
        ("MATCHSTATE:0:99999999999::AsKd|", "32 bits"),
    ],
)
def test_bad_lines_give_clear_errors(line, message):
    with pytest.raises(MatchStateError, match=message):
        parse_matchstate(line, HUNL)


def test_leduc_and_kuhn_lines():
    leduc = bundled_game("leduc.limit.2p")
    line = "MATCHSTATE:0:4:rc/r:Ks|/Qh"
    ms = parse_matchstate(line, leduc)
    assert ms.to_text() == line and ms.state.spent == [7, 3]
    kuhn = bundled_game("kuhn.limit.2p")
    ms = parse_matchstate("MATCHSTATE:0:0:cr:Ks|", kuhn)
    assert ms.is_our_turn and ms.state.can_fold()


def test_incremental_parse_equals_full_parse_along_a_hand():
    from pokerbot.protocol.betting import parse_action
    from pokerbot.protocol.matchstate import parse_next_matchstate

    st = BettingState(HUNL, 9, [parse_cards("AsAh"), parse_cards("KsKh")], parse_cards("2c7d9hJs3c"))
    prev_line = prev = None
    for action in ["r300", "c", "r600", "r1800", "c", "c", "c", "r20000", "c", None]:
        line = view_of(st, 1).to_text()
        ms = parse_next_matchstate(line, HUNL, prev_line, prev)
        full = parse_matchstate(line, HUNL)
        assert ms.to_text() == full.to_text() == line
        assert ms.state.spent == full.state.spent
        assert ms.state.current_player == full.state.current_player
        assert ms.state.board_cards == full.state.board_cards
        if action is not None:
            st.apply(parse_action(action, HUNL))
            prev_line, prev = line, ms
    assert ms.state.is_showdown and ms.state.hole_cards[0] == parse_cards("AsAh")
    # a line that contradicts the previous one is still checked in full
    bad = prev_line.replace(":r300c/", ":r150c/")
    with pytest.raises(MatchStateError):
        parse_next_matchstate(bad, HUNL, prev_line, prev)


def test_hand_views_equal_format_view_along_a_hand():
    from pokerbot.protocol.betting import parse_action
    from pokerbot.protocol.matchstate import HandViews, format_view

    st = BettingState(HUNL, 4, [parse_cards("AsAh"), parse_cards("KsKh")], parse_cards("2c7d9hJs3c"))
    views = HandViews(st)
    for action in ["r300", "c", "c", "r600", "c", "c", "c", "c", "c"]:
        assert [views.text(v) for v in (0, 1)] == [format_view(st, v) for v in (0, 1)]
        st.apply(parse_action(action, HUNL))
    assert st.is_showdown and [views.text(v) for v in (0, 1)] == [format_view(st, v) for v in (0, 1)]
