"""MATCHSTATE lines (dealer to player), replies, and the log's ``STATE:`` lines.

    MATCHSTATE:<position>:<hand>:<betting>:<hole|hole>/<board round 2>/<board round 3>...
    reply:   <the MATCHSTATE text as received>:<action>
    STATE:<hand>:<betting>:<hole|hole>/<board...>:<value pos0>|<value pos1>:<name0>|<name1>

Parsing replays the betting through the rules (``BettingState``), so a parsed state
knows who acts and what is legal, and any line the rules reject is an error. Formatting
a parsed state gives back the same text (round trip).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .betting import (
    Action,
    ActionSyntaxError,
    BettingState,
    IllegalActionError,
    apply_betting,
    parse_action,
)
from .cards import CardError, cards_to_str, parse_cards
from .gamedef import GameDef

MATCHSTATE_PREFIX = "MATCHSTATE"
STATE_PREFIX = "STATE"


class MatchStateError(ValueError):
    """A MATCHSTATE or STATE line that does not parse or breaks the rules."""


@dataclass
class MatchState:
    """A state as one player (``viewer``) sees it."""

    viewer: int
    state: BettingState

    @property
    def hand_id(self) -> int:
        return self.state.hand_id

    @property
    def is_our_turn(self) -> bool:
        return self.state.current_player == self.viewer

    def to_text(self) -> str:
        return format_matchstate(self)

    def __str__(self) -> str:
        return self.to_text()


def _parse_uint(text: str, what: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise MatchStateError(f"{what} must be a non-negative integer, got {text!r}")
    value = int(text)
    if value >= 2**32:
        raise MatchStateError(f"{what} {value} does not fit in 32 bits")
    return value


def _parse_cards_field(field: str, state: BettingState, visible: set[int] | None) -> None:
    """Parse ``hole|hole/board/board``. ``visible``: players whose hole cards may be
    shown (None: any)."""
    game = state.game
    parts = field.split("/")
    hole_text = parts[0]
    board_parts = parts[1:]
    holes = hole_text.split("|")
    if len(holes) != game.num_players:
        raise MatchStateError(
            f"hole cards {hole_text!r}: expected {game.num_players} fields separated by '|', got {len(holes)}"
        )
    try:
        for p, text in enumerate(holes):
            if not text:
                continue
            if visible is not None and p not in visible:
                raise MatchStateError(f"hole cards of position {p} are shown, but only a showdown reveals them")
            cards = parse_cards(text)
            if len(cards) != game.num_hole_cards:
                raise MatchStateError(f"position {p} has {len(cards)} hole cards, the game deals {game.num_hole_cards}")
            state.deal_hole_cards(p, cards)
        if len(board_parts) != state.round:
            raise MatchStateError(
                f"board {'/'.join(board_parts)!r}: the betting reached round {state.round + 1}, "
                f"so {state.round} board group(s) are expected, got {len(board_parts)}"
            )
        _deal_board_groups(state, board_parts, 1)
    except CardError as e:
        raise MatchStateError(str(e)) from None


def _deal_board_groups(state: BettingState, groups: list[str], first_round: int) -> None:
    game = state.game
    if game.num_board_cards[0]:
        raise MatchStateError("games with board cards in the first round are not supported")
    for r, text in enumerate(groups, start=first_round):
        cards = parse_cards(text)
        if len(cards) != game.num_board_cards[r]:
            raise MatchStateError(
                f"round {r + 1} deals {game.num_board_cards[r]} board card(s), got {len(cards)} in {text!r}"
            )
        state.deal_board_cards(cards)


def _parse_common(fields: list[str], game: GameDef, line: str) -> BettingState:
    hand_id = _parse_uint(fields[0], "hand number")
    state = BettingState(game, hand_id)
    try:
        apply_betting(state, fields[1])
    except (ActionSyntaxError, IllegalActionError) as e:
        raise MatchStateError(f"betting {fields[1]!r}: {e}") from None
    return state


def parse_matchstate(line: str, game: GameDef) -> MatchState:
    """Parse ``MATCHSTATE:...`` (no line ending). Raises ``MatchStateError``."""
    if not isinstance(line, str):
        raise MatchStateError("a match state must be text")
    fields = line.split(":")
    if fields[0] != MATCHSTATE_PREFIX:
        raise MatchStateError(f"line does not start with 'MATCHSTATE:': {line[:60]!r}")
    if len(fields) != 5:
        raise MatchStateError(f"MATCHSTATE has 5 ':'-separated fields, got {len(fields)}: {line[:80]!r}")
    viewer = _parse_uint(fields[1], "position")
    if viewer >= game.num_players:
        raise MatchStateError(f"position {viewer} does not exist in a {game.num_players}-player game")
    state = _parse_common(fields[2:4], game, line)
    # The viewer sees their own cards; the opponent's only at a showdown.
    visible = {0, 1} if state.is_showdown else {viewer}
    _parse_cards_field(fields[4], state, visible)
    return MatchState(viewer, state)


def parse_next_matchstate(
    line: str, game: GameDef, prev_line: str | None, prev: MatchState | None, in_place: bool = False
) -> MatchState:
    """``parse_matchstate``, reusing the previous state of the same hand when this line
    extends it (same viewer and hand, more betting, more board), as the dealer's lines
    within a hand do: then only the new actions and cards are applied. With
    ``in_place`` the previous state object is advanced instead of copied (faster; the
    previous MatchState then shows the new state too)."""
    if prev is None or prev_line is None or prev.state.finished:
        return parse_matchstate(line, game)
    fields = line.split(":")
    old = prev_line.split(":")
    if len(fields) != 5 or fields[:3] != old[:3] or not fields[3].startswith(old[3]):
        return parse_matchstate(line, game)
    if fields[4] == old[4]:  # the usual case within a round: only new actions
        state = prev.state if in_place else prev.state.copy()
        try:
            apply_betting(state, fields[3], start=len(old[3]))
        except (ActionSyntaxError, IllegalActionError) as e:
            raise MatchStateError(f"betting {fields[3]!r}: {e}") from None
        if state.round != old[4].count("/") or state.is_showdown:
            return parse_matchstate(line, game)  # a new round or a showdown needs new cards
        return MatchState(prev.viewer, state)
    new_hole, _, new_board = fields[4].partition("/")
    old_hole, _, old_board = old[4].partition("/")
    if old_board:
        if not new_board.startswith(old_board) or new_board[len(old_board) : len(old_board) + 1] not in ("", "/"):
            return parse_matchstate(line, game)
        new_groups = new_board[len(old_board) + 1 :].split("/") if len(new_board) > len(old_board) else []
    else:
        new_groups = new_board.split("/") if new_board else []
    known_groups = old_board.count("/") + 1 if old_board else 0
    state = prev.state if in_place else prev.state.copy()
    try:
        apply_betting(state, fields[3], start=len(old[3]))
        if new_hole != old_hole:  # the showdown reveals the opponent's cards
            if not state.is_showdown:
                raise MatchStateError("hole cards changed, but only a showdown reveals them")
            holes = new_hole.split("|")
            viewer = prev.viewer
            if len(holes) != game.num_players or holes[viewer] != old_hole.split("|")[viewer]:
                raise MatchStateError(f"hole cards {new_hole!r} do not extend {old_hole!r}")
            cards = parse_cards(holes[1 - viewer])
            state.deal_hole_cards(1 - viewer, cards)
        if known_groups + len(new_groups) != state.round:
            raise MatchStateError(
                f"board {fields[4]!r}: the betting reached round {state.round + 1}, "
                f"so {state.round} board group(s) are expected, got {known_groups + len(new_groups)}"
            )
        _deal_board_groups(state, new_groups, known_groups + 1)
    except (ActionSyntaxError, IllegalActionError) as e:
        raise MatchStateError(f"betting {fields[3]!r}: {e}") from None
    except CardError as e:
        raise MatchStateError(str(e)) from None
    return MatchState(prev.viewer, state)


def _board_text(state: BettingState, last_round: int) -> str:
    """``/`` and the board cards of each round from the second up to ``last_round``."""
    game = state.game
    return "".join(
        "/" + cards_to_str(state.board_cards[game.board_start(r) : game.board_start(r) + game.num_board_cards[r]])
        for r in range(1, last_round + 1)
    )


def _format_cards(state: BettingState, shown: list[bool]) -> str:
    holes = "|".join(cards_to_str(state.hole_cards[p]) if shown[p] else "" for p in range(state.game.num_players))
    return holes + _board_text(state, state.round)


def format_matchstate(ms: MatchState) -> str:
    """The line the dealer sends to ``ms.viewer`` (no line ending)."""
    return format_view(ms.state, ms.viewer)


def format_view(st: BettingState, viewer: int) -> str:
    """The MATCHSTATE line of the dealer's full state as ``viewer`` sees it: the
    opponent's hole cards only at a showdown."""
    showdown = st.is_showdown
    shown = [p == viewer or showdown for p in range(st.game.num_players)]
    return f"{MATCHSTATE_PREFIX}:{viewer}:{st.hand_id}:{st.betting_string()}:{_format_cards(st, shown)}"


class HandViews:
    """``format_view`` for every state of one hand whose cards are all dealt, with the
    card text made once per hand (the dealer's hot path)."""

    def __init__(self, state: BettingState) -> None:
        game = state.game
        self.state = state
        holes = [cards_to_str(h) for h in state.hole_cards]
        self._hidden = ["|".join(h if p == v else "" for p, h in enumerate(holes)) for v in range(game.num_players)]
        self._shown = "|".join(holes)
        self._boards = [_board_text(state, r) for r in range(game.num_rounds)]

    def text(self, viewer: int) -> str:
        st = self.state
        holes = self._shown if st.is_showdown else self._hidden[viewer]
        return f"{MATCHSTATE_PREFIX}:{viewer}:{st.hand_id}:{st.betting_string()}:{holes}{self._boards[st.round]}"


def view_of(state: BettingState, viewer: int) -> MatchState:
    """The dealer's full state as seen by ``viewer`` (the opponent's hole cards are
    hidden unless the hand ended in a showdown)."""
    hidden = state.copy()
    if not state.is_showdown:
        hidden.hole_cards[1 - viewer] = []
    return MatchState(viewer, hidden)


# ---------------------------------------------------------------------- replies
def format_reply(matchstate_text: str, action: Action) -> str:
    """The player's reply: the state exactly as received, ``:`` and the action."""
    return f"{matchstate_text}:{action}"


def parse_reply(line: str, game: GameDef) -> tuple[MatchState, Action]:
    """Split a well-formed reply into the echoed state and the action (strict syntax;
    legality is the caller's question)."""
    head, sep, action_text = line.rpartition(":")
    if not sep:
        raise MatchStateError(f"reply has no ':'-separated action: {line[:80]!r}")
    ms = parse_matchstate(head, game)
    try:
        action = parse_action(action_text, game)
    except ActionSyntaxError as e:
        raise MatchStateError(str(e)) from None
    return ms, action


# ---------------------------------------------------------------------- log lines
@dataclass
class LoggedHand:
    """One ``STATE:`` line of a dealer log: a finished hand with all cards shown."""

    state: BettingState
    values: list[int]
    names: list[str]


def format_value(v: float) -> str:
    """A value as the reference prints it: ``%.6f`` without trailing zeros or point."""
    text = f"{v:.6f}".rstrip("0")
    return text[:-1] if text.endswith(".") else text


def format_state_line(state: BettingState, values: Sequence[float], names: list[str]) -> str:
    """The log line of a finished hand: betting, all hole cards, board, the value won
    by each position and the name of the player in each position."""
    cards = _format_cards(state, [True] * state.game.num_players)
    vals = "|".join(format_value(v) for v in values)
    return f"{STATE_PREFIX}:{state.hand_id}:{state.betting_string()}:{cards}:{vals}:{'|'.join(names)}"


#: A value in a ``STATE:`` line: decimal digits, an optional sign and fraction (what
#: ``format_value`` writes; not Python's wider float syntax: no spaces, ``_``, ``e`` or ``inf``).
LOGGED_VALUE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def parse_state_line(line: str, game: GameDef) -> LoggedHand:
    """Parse a log ``STATE:`` line; checks the values against the rules' payoffs."""
    fields = line.split(":")
    if fields[0] != STATE_PREFIX:
        raise MatchStateError(f"line does not start with 'STATE:': {line[:60]!r}")
    if len(fields) != 6:
        raise MatchStateError(f"STATE line has 6 ':'-separated fields, got {len(fields)}: {line[:80]!r}")
    state = _parse_common(fields[1:3], game, line)
    if not state.finished:
        raise MatchStateError(f"logged hand {state.hand_id} is not finished: {fields[2]!r}")
    _parse_cards_field(fields[3], state, None)
    values_text = fields[4].split("|")
    names = fields[5].split("|")
    if len(values_text) != game.num_players or len(names) != game.num_players:
        raise MatchStateError(f"expected {game.num_players} values and names in {line[:80]!r}")
    values = []
    for v in values_text:
        if not LOGGED_VALUE.fullmatch(v):
            raise MatchStateError(f"value {v!r} is not a number as the log writes one (like -300 or 12.5)")
        values.append(float(v))
    try:
        expected = state.payoffs()
    except ValueError as e:
        raise MatchStateError(f"hand {state.hand_id}: {e}") from None
    if [float(x) for x in expected] != values:
        raise MatchStateError(f"hand {state.hand_id}: values {values} disagree with the rules' {expected}")
    return LoggedHand(state, [int(v) for v in values], names)
