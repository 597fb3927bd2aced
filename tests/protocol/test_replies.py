"""Every row of the reference dealer's bad-reply table (docs/protocol.md), on the pure reply
reader, plus fuzzing: whatever a player sends, the dealer gets a legal action or a
documented reason to keep waiting."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, apply_betting, raise_to
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import format_view
from pokerbot.protocol.replies import (
    WARN_BAD_FORMAT,
    WARN_BAD_STATE,
    WARN_INVALID,
    WARN_UNREQUESTED,
    ReplyKind,
    read_reply,
)

HUNL = bundled_game("holdem.nolimit.2p")
LIMIT = bundled_game("holdem.limit.2p")


def spot(betting: str = "", game=HUNL, hand: int = 3):
    st_ = BettingState(game, hand, [parse_cards("AsKd"), parse_cards("QhQc")], parse_cards("2c7d9hJs3c"))
    apply_betting(st_, betting)
    p = st_.current_player
    return st_, p, format_view(st_, p)


def reply(suffix: str, betting: str = "", game=HUNL, line: str | None = None):
    state, p, text = spot(betting, game)
    return read_reply((line if line is not None else text) + suffix + "\r\n", text, state, p)


@pytest.mark.parametrize("line", ["# thinking", ";comment", "#"])
def test_comments_are_ignored(line):
    state, p, text = spot()
    r = read_reply(line + "\n", text, state, p)
    assert r.kind is ReplyKind.COMMENT and not r.warnings


@pytest.mark.parametrize("line", ["garbage:c", "MATCHSTATE:1:3:zz:|QhQc:c", "MATCHSTATE:1:3::|Qh:c", "", "c"])
def test_unparseable_state_warns_and_keeps_waiting(line):
    state, p, text = spot()
    r = read_reply(line + "\r\n", text, state, p)
    assert r.kind is ReplyKind.BAD_STATE and r.warnings == [WARN_BAD_STATE] and r.action is None


@pytest.mark.parametrize(
    "line", ["MATCHSTATE:1:4::|QhQc:c", "MATCHSTATE:0:3::AsKd|:c", "MATCHSTATE:1:3::|QhQd:c", "MATCHSTATE:1:3::|:c"]
)
def test_state_other_than_asked_warns_and_keeps_waiting(line):
    r = reply("", line=line)
    assert r.kind is ReplyKind.UNREQUESTED and r.warnings == [WARN_UNREQUESTED]


def test_echo_that_differs_only_in_form_is_the_asked_state():
    # lower-case card letters and the opponent's cards are not part of the comparison
    r = reply(":c", line="MATCHSTATE:1:3::|qhqc")
    assert r.kind is ReplyKind.ACTION and r.action == CALL and not r.warnings


@pytest.mark.parametrize(
    "suffix,warning",
    [
        (":r", WARN_BAD_FORMAT),
        ("", WARN_BAD_FORMAT),
        (":rx", WARN_BAD_FORMAT),
        (":x", WARN_INVALID),
        (":", WARN_INVALID),
        (":q100", WARN_INVALID),
    ],
)
def test_malformed_or_unknown_actions_become_calls(suffix, warning):
    r = reply(suffix)
    assert r.kind is ReplyKind.ACTION and r.action == CALL and r.warnings == [warning] and r.invalid


def test_fold_when_check_is_free_becomes_call():
    r = reply(":f", betting="c")
    assert r.action == CALL and r.warnings == [WARN_INVALID]


def test_raise_when_none_is_possible_becomes_call():
    r = reply(":r20000", betting="r20000")
    assert r.action == CALL and r.warnings == [WARN_INVALID]
    r = reply(":r", betting="rrr", game=LIMIT)
    assert r.action == CALL and r.warnings == [WARN_INVALID]


def test_raise_below_minimum_and_above_stack_are_clamped():
    r = reply(":r150")
    assert r.action == raise_to(200) and r.warnings == ["WARNING: raise of 150 increased to 200"]
    r = reply(":r30000")
    assert r.action == raise_to(20000) and r.warnings == ["WARNING: raise of 30000 decreased to 20000"]
    r = reply(":r-5")
    assert r.action == raise_to(200) and r.warnings == ["WARNING: raise of -5 increased to 200"]


@pytest.mark.parametrize(
    "suffix,action",
    [
        (":b300", raise_to(300)),
        (":R300", raise_to(300)),
        (":B 400", raise_to(400)),
        (":k", CALL),
        (":K", CALL),
        (":C", CALL),
        (":F", FOLD),
        (":c", CALL),
        (":r300", raise_to(300)),
        (":f", FOLD),
        (":c junk", CALL),
    ],
)
def test_accepted_spellings(suffix, action):
    r = reply(suffix)
    assert r.kind is ReplyKind.ACTION and r.action == action and not r.warnings and not r.invalid


def test_limit_raise_takes_no_size():
    r = reply(":r", game=LIMIT)
    assert r.action == Action(ActionType.RAISE) and not r.warnings


STATE, POS, TEXT = spot("r300c/")
ALPHABET = "MATCHSTE:0123456789rcfbkRCFBK/|AKQJT98765432shdcx- \r\n#;"


@settings(max_examples=2000, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=ALPHABET, max_size=60),
        st.text(max_size=40),
        st.builds(lambda s: TEXT + s, st.text(alphabet=ALPHABET, max_size=12)),
    )
)
def test_any_reply_gives_a_legal_action_or_a_reason_to_wait(line):
    r = read_reply(line, TEXT, STATE, POS)
    if r.kind is ReplyKind.ACTION:
        assert STATE.can_apply(r.action)
    else:
        assert r.action is None
    assert all(w.startswith("WARNING: ") for w in r.warnings)
