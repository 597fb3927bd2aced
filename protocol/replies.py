"""How the dealer reads a player's reply, exactly as the ACPC reference dealer does.

A reply is the state the player was sent, ``:``, and an action. The reference dealer
is forgiving about the action and strict about the state:

- starts with ``#`` or ``;``: ignored (a comment);
- a state that does not parse: ``WARNING: bad state format in response``; keep waiting;
- parses, but not the state asked: ``WARNING: ignoring un-requested response``; keep waiting;
- no ``:`` after the state, ``r`` without a number (no-limit):
  ``WARNING: bad action format in response, changed to call``;
- an unknown action, a fold when checking is free, a raise when none is possible:
  ``WARNING: invalid action, changed to call``;
- a raise below the minimum / above the stack: ``WARNING: raise of X increased to MIN`` /
  ``decreased to MAX``;
- ``b``, ``k``, upper-case letters: accepted as raise / call, silently.

The warnings are the reference's words; every one of them fails a competition check,
which is why our own client never causes one.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .betting import CALL, FOLD, Action, ActionType, BettingState
from .gamedef import BettingType
from .matchstate import MatchState, MatchStateError, parse_matchstate

WARN_BAD_STATE = "WARNING: bad state format in response"
WARN_UNREQUESTED = "WARNING: ignoring un-requested response"
WARN_BAD_FORMAT = "WARNING: bad action format in response, changed to call"
WARN_INVALID = "WARNING: invalid action, changed to call"

_ACTION_CHARS = {
    "f": ActionType.FOLD,
    "F": ActionType.FOLD,
    "c": ActionType.CALL,
    "C": ActionType.CALL,
    "k": ActionType.CALL,
    "K": ActionType.CALL,
    "r": ActionType.RAISE,
    "R": ActionType.RAISE,
    "b": ActionType.RAISE,
    "B": ActionType.RAISE,
}


class ReplyKind(enum.Enum):
    COMMENT = "comment"  # ignored, keep waiting
    BAD_STATE = "bad_state"  # warning, keep waiting
    UNREQUESTED = "unrequested"  # warning, keep waiting
    ACTION = "action"  # an action to apply (possibly corrected, see warnings)


@dataclass
class Reply:
    kind: ReplyKind
    action: Action | None = None
    warnings: list[str] = field(default_factory=list)
    #: The reply broke a rule (the reference counts these as invalid actions).
    invalid: bool = False


def _same_state(echoed: MatchState, state: BettingState, viewer: int) -> bool:
    """The reference's matchStatesEqual: viewer, hand, betting, board so far, and
    the viewer's own hole cards (the opponent's are not compared)."""
    e = echoed.state
    return (
        echoed.viewer == viewer
        and e.hand_id == state.hand_id
        and e.round == state.round
        and e.actions == state.actions
        and e.visible_board() == state.visible_board()
        and e.hole_cards[viewer] == state.hole_cards[viewer]
    )


def _read_int(text: str) -> int | None:
    """Like C's ``sscanf("%d")``: leading blanks, an optional sign, then digits."""
    i = 0
    while i < len(text) and text[i] in " \t\r\n\v\f":
        i += 1
    j = i
    if j < len(text) and text[j] in "+-":
        j += 1
    k = j
    while k < len(text) and "0" <= text[k] <= "9":
        k += 1
    if k == j:
        return None
    return int(text[i:k])


def read_reply(line: str, sent_text: str, state: BettingState, viewer: int) -> Reply:
    """Interpret one line from the player to act (position ``viewer``). ``sent_text``
    is the MATCHSTATE line the dealer sent them (without line ending) and ``state``
    the dealer's own state. ``line`` may still carry its line ending."""
    line = line.rstrip("\r\n")
    if line[:1] in ("#", ";"):
        return Reply(ReplyKind.COMMENT)
    # The state part is everything up to the colon after the cards field.
    if line.startswith(sent_text) and (len(line) == len(sent_text) or line[len(sent_text)] == ":"):
        rest = line[len(sent_text) :]
    else:
        fields = line.split(":", 5)
        state_text = ":".join(fields[:5])
        try:
            echoed = parse_matchstate(state_text, state.game)
        except MatchStateError:
            return Reply(ReplyKind.BAD_STATE, warnings=[WARN_BAD_STATE])
        if not _same_state(echoed, state, viewer):
            return Reply(ReplyKind.UNREQUESTED, warnings=[WARN_UNREQUESTED])
        rest = line[len(state_text) :]
    if not rest.startswith(":"):
        return Reply(ReplyKind.ACTION, CALL, [WARN_BAD_FORMAT], invalid=True)
    return _read_action(rest[1:], state)


def _read_action(text: str, state: BettingState) -> Reply:
    kind = _ACTION_CHARS.get(text[:1])
    if kind is None:
        return Reply(ReplyKind.ACTION, CALL, [WARN_INVALID], invalid=True)
    game = state.game
    if kind is ActionType.FOLD:
        if not state.can_fold():
            return Reply(ReplyKind.ACTION, CALL, [WARN_INVALID], invalid=True)
        return Reply(ReplyKind.ACTION, FOLD)
    if kind is ActionType.CALL:
        return Reply(ReplyKind.ACTION, CALL)
    size = 0
    if game.betting is BettingType.NOLIMIT:
        parsed = _read_int(text[1:])
        if parsed is None:
            return Reply(ReplyKind.ACTION, CALL, [WARN_BAD_FORMAT], invalid=True)
        size = parsed
    bounds = state.raise_bounds()
    if bounds is None:
        return Reply(ReplyKind.ACTION, CALL, [WARN_INVALID], invalid=True)
    if game.betting is not BettingType.NOLIMIT:
        return Reply(ReplyKind.ACTION, Action(ActionType.RAISE))
    lo, hi = bounds
    if size < lo:
        return Reply(ReplyKind.ACTION, Action(ActionType.RAISE, lo), [f"WARNING: raise of {size} increased to {lo}"])
    if size > hi:
        return Reply(ReplyKind.ACTION, Action(ActionType.RAISE, hi), [f"WARNING: raise of {size} decreased to {hi}"])
    return Reply(ReplyKind.ACTION, Action(ActionType.RAISE, size))
