"""Property tests: malformed game files and protocol lines give our clear error types
and nothing else; every legal line of play keeps the rules' invariants."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokerbot.protocol.betting import CALL, FOLD, BettingState, IllegalActionError, apply_betting, raise_to
from pokerbot.protocol.gamedef import GameDefError, bundled_game, bundled_game_names, bundled_game_text, parse_gamedef
from pokerbot.protocol.matchstate import (
    MatchStateError,
    format_matchstate,
    format_state_line,
    parse_matchstate,
    parse_reply,
    parse_state_line,
)

HUNL = bundled_game("holdem.nolimit.2p")
GAME_TEXTS = [bundled_game_text(n) for n in bundled_game_names()]
LINES = [
    "MATCHSTATE:0:0:cr14979c/r19588c/cc/r19702f:8s2h|/7hAdTd/4s/Kc",
    "MATCHSTATE:1:3:r1112c/r19448r20000c//:2c8h|6cAs/9dKsJc/9c/Td",
    "MATCHSTATE:1:1::|Qs8d",
    "MATCHSTATE:0:12:r300r900c/r1800:AsKd|/2c7h9s",
]
ALPHABET = "MATCHSTE:0123456789rcfbk/|AKQJT98765432shdcx- \r\n=#"


@st.composite
def mutated(draw, sources):
    text = draw(st.sampled_from(sources))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.integers(0, 3))
        i = draw(st.integers(0, len(text)))
        if op == 0:
            text = text[:i] + draw(st.text(alphabet=ALPHABET, max_size=6)) + text[i:]
        elif op == 1:
            j = draw(st.integers(i, min(len(text), i + 8)))
            text = text[:i] + text[j:]
        elif op == 2 and text:
            j = draw(st.integers(0, len(text) - 1))
            text = text[:j] + draw(st.sampled_from(ALPHABET)) + text[j + 1 :]
        else:
            text = text[:i] + draw(st.text(max_size=4)) + text[i:]
    return text


def parsed_or_refused(parse, text, error, *args):
    """``parse(text, *args)``, or None where it raises ``error`` with a message that
    names the problem (any other exception fails the test)."""
    try:
        return parse(text, *args)
    except error as e:
        assert str(e)
        return None


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated(GAME_TEXTS), st.text(max_size=200)))
def test_malformed_game_files_raise_gamedef_error(text):
    game = parsed_or_refused(parse_gamedef, text, GameDefError)
    if game is None:
        return
    assert 2 <= game.num_players and 1 <= game.num_rounds <= 4


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated(LINES), st.text(alphabet=ALPHABET, max_size=80), st.text(max_size=40)))
def test_malformed_matchstates_raise_matchstate_error(line):
    ms = parsed_or_refused(parse_matchstate, line, MatchStateError, HUNL)
    if ms is None:
        return
    # Whatever parses formats to a canonical line that parses to the same state.
    text = format_matchstate(ms)
    assert format_matchstate(parse_matchstate(text, HUNL)) == text


#: The reply grammar, written apart from the parser: one ACPC state (cards in either case,
#: as the reference reads them), ':' and one no-limit action.
REPLY_GRAMMAR = re.compile(r"MATCHSTATE:\d+:\d+:[0-9rcf/]*:[2-9TJQKAtjqkaSHDCshdc|/]*:(f|c|r\d+)")
#: The log line grammar of a finished two-player hand.
STATE_LINE_GRAMMAR = re.compile(r"STATE:\d+:[0-9rcf/]*:[2-9TJQKAtjqkaSHDCshdc|/]*:-?[0-9.]+\|-?[0-9.]+:[^:|]*\|[^:|]*")
STATE_LINE = "STATE:7:r300c/cc/cc/r900f:AsAh|KsKh/2c7d9h/Js/3c:300|-300:Alice|Bob"


@settings(max_examples=600, deadline=None)
@given(st.one_of(mutated([l + ":r1000" for l in LINES] + [l + ":c" for l in LINES]), st.text(max_size=60)))
def test_malformed_replies_raise_matchstate_error(line):
    reply = parsed_or_refused(parse_reply, line, MatchStateError, HUNL)
    if reply is None:
        return
    ms, action = reply
    # Whatever is accepted is in the reply grammar, and is the echoed state plus the action.
    match = REPLY_GRAMMAR.fullmatch(line)
    assert match, line
    head, text = line.rpartition(":")[::2]
    assert format_matchstate(ms) == format_matchstate(parse_matchstate(head, HUNL))
    expected = FOLD if text == "f" else CALL if text == "c" else raise_to(int(text[1:]))
    assert action == expected


@pytest.mark.parametrize(
    "line",
    [
        "MATCHSTATE:0:0::AsKd|",  # no action
        "MATCHSTATE:0:0::AsKd|:",  # empty action
        "MATCHSTATE:0:0::AsKd|:x",  # unknown action
        "MATCHSTATE:0:0::AsKd|:r",  # no-limit raise without a total
        "MATCHSTATE:0:0::AsKd|:r1e3",
        "MATCHSTATE:0:0::AsKd|:C",  # upper case
        "MATCHSTATE:0:0::AsKd|:cc",  # two actions
        "MATCHSTATE:0:0::AsKd|:c ",  # trailing space
        "MATCHSTATE:0:0:q:AsKd|:c",  # bad betting
        "MATCHSTATE:0:0::AsKx|:c",  # bad card
        "MATCHSTATE:0:0::AsAs|:c",  # a card twice
        "MATCHSTATE:0::AsKd|:c",  # a field missing
        "MATCHSTATE:2:0::AsKd|:c",  # no seat 2
        "MATCHSTATE:0:0:cc/:AsKd|:c",  # betting ends a round the board has not reached
        "STATE:0:0::AsKd|:c",
        "garbage:c",
        "",
    ],
)
def test_replies_outside_the_grammar_are_refused(line):
    with pytest.raises(MatchStateError):
        parse_reply(line, HUNL)


@settings(max_examples=400, deadline=None)
@given(mutated([STATE_LINE]))
def test_malformed_state_lines_raise_matchstate_error(line):
    hand = parsed_or_refused(parse_state_line, line, MatchStateError, HUNL)
    if hand is None:
        return
    # Whatever is accepted is a finished hand in the log grammar whose values are the
    # rules' payoffs, and formats back to a line that parses to the same hand.
    assert STATE_LINE_GRAMMAR.fullmatch(line), line
    assert hand.state.finished and hand.values == [int(v) for v in hand.state.payoffs()]
    again = parse_state_line(format_state_line(hand.state, hand.values, hand.names), HUNL)
    assert (again.values, again.names, again.state.betting_string()) == (
        hand.values,
        hand.names,
        hand.state.betting_string(),
    )


@pytest.mark.parametrize(
    "line",
    [
        STATE_LINE.replace("300|-300", "300|-299"),  # values disagree with the payoffs
        STATE_LINE.replace("300|-300", "-300|300"),
        STATE_LINE.replace("300|-300", "x|-300"),
        STATE_LINE.replace("300|-300", "300 |-300"),  # float() would take these four
        STATE_LINE.replace("300|-300", "3_00|-300"),
        STATE_LINE.replace("300|-300", "3e2|-300"),
        STATE_LINE.replace("300|-300", "300.|-300"),
        STATE_LINE.replace("r900f", "r900"),  # not finished
        STATE_LINE.replace(":Alice|Bob", ""),  # a field missing
        STATE_LINE.replace("Alice|Bob", "Alice"),  # one name
        STATE_LINE.replace("KsKh", "KsAs"),  # a card twice
        STATE_LINE.replace("STATE", "STATES"),
        STATE_LINE + ":",
    ],
)
def test_state_lines_outside_the_grammar_are_refused(line):
    with pytest.raises(MatchStateError):
        parse_state_line(line, HUNL)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["holdem.nolimit.2p", "holdem.limit.2p", "leduc.nolimit.2p", "flop.nolimit.2p"]),
    st.lists(st.tuples(st.integers(0, 2), st.floats(0, 1)), min_size=1, max_size=40),
)
def test_legal_play_keeps_invariants(name, choices):
    game = bundled_game(name)
    s = BettingState(game)
    for kind, frac in choices:
        if s.finished:
            break
        p = s.current_player
        assert not s.folded[p] and not s.is_all_in(p)
        bounds = s.raise_bounds()
        if kind == 2 and bounds:
            lo, hi = bounds
            s.raise_to(lo + int(frac * (hi - lo)) if game.is_nolimit else None)
        elif kind == 0 and s.can_fold():
            s.fold()
        else:
            s.call()
        assert all(0 <= s.spent[q] <= game.stack[q] for q in (0, 1))
        assert s.max_spent == max(s.spent) or s.folded[0] or s.folded[1]
        # the betting text replays to the same state
        t = apply_betting(BettingState(game), s.betting_string())
        assert t.spent == s.spent and t.round == s.round and t.finished == s.finished
    if s.finished and not s.is_showdown:
        pay = s.payoffs()
        assert sum(pay) == 0 and max(abs(v) for v in pay) <= max(game.stack)
    elif not s.finished and game.is_nolimit:
        # a raise to more than the whole stack is refused, and changes nothing
        before = (list(s.spent), s.round, s.current_player)
        with pytest.raises(IllegalActionError):
            s.raise_to(game.stack[s.current_player] + 1)
        assert (list(s.spent), s.round, s.current_player) == before
