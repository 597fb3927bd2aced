"""The betting state machine of a two-player ACPC game.

It follows the ACPC rules code exactly (that is what the dealer enforces and what
OpenSpiel's ``universal_poker`` embeds): who acts, which actions are legal, no-limit
raise bounds as raise-to totals, when a round or the hand ends, and the payoffs.

Every operation comes three ways, pokerkit style: ``verify_x`` raises
``IllegalActionError`` with the exact reason, ``can_x`` answers yes or no, and ``x``
does it (after verifying). Actions are fold, call (which is a check when nothing is
owed) and raise-to, as on the wire.

Cards are optional: the betting needs none, a showdown needs both players' hole cards
and the board up to the last round reached. Stacks are the game's stacks at the start
of every hand (Doyle's game).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .cards import CardError, card_to_str, check_distinct
from .gamedef import MAX_NUM_ACTIONS, BettingType, GameDef
from .hand_rank import hand_strength


class ActionType(enum.IntEnum):
    FOLD = 0
    CALL = 1
    RAISE = 2


_ACTION_CHARS = "fcr"


@dataclass(frozen=True, slots=True)
class Action:
    """One action. ``size`` is the raise-to total of a no-limit raise, else 0."""

    type: ActionType
    size: int = 0

    def __str__(self) -> str:
        if self.type is ActionType.RAISE and self.size:
            return f"r{self.size}"
        return _ACTION_CHARS[self.type]


FOLD = Action(ActionType.FOLD)
CALL = Action(ActionType.CALL)


def raise_to(total: int) -> Action:
    """A no-limit raise to ``total`` chips put in over the whole hand."""
    return Action(ActionType.RAISE, int(total))


LIMIT_RAISE = Action(ActionType.RAISE)


class IllegalActionError(ValueError):
    """An action the rules do not allow in this state; the message says why."""


class ActionSyntaxError(ValueError):
    """Action text that does not parse (``f``, ``c`` or ``r<N>``)."""


def parse_action(text: str, game: GameDef) -> Action:
    """Parse one action in the wire syntax: ``f``, ``c``, ``r`` (limit) or ``r<N>``
    (no-limit raise to N). Strict: lower case only, nothing after the action."""
    if not text:
        raise ActionSyntaxError("empty action")
    ch = text[0]
    rest = text[1:]
    if ch == "f" or ch == "c":
        if rest:
            raise ActionSyntaxError(f"unexpected {rest!r} after {ch!r} in action {text!r}")
        return FOLD if ch == "f" else CALL
    if ch == "r":
        if game.betting is BettingType.NOLIMIT:
            if not rest.isdigit() or not rest.isascii():
                raise ActionSyntaxError(f"no-limit raise needs a raise-to total: {text!r}")
            return raise_to(int(rest))
        if rest:
            raise ActionSyntaxError(f"limit raise takes no size: {text!r}")
        return LIMIT_RAISE
    raise ActionSyntaxError(f"unknown action {text!r} (expected f, c or r)")


class BettingState:
    """The public betting of one hand, plus whatever cards are known.

    ``spent[p]`` is what player p has put in over the whole hand (blinds included);
    ``max_spent`` the largest of them; ``min_raise_to`` the smallest legal no-limit
    raise-to total before stack limits (the ACPC's ``minNoLimitRaiseTo``).
    """

    __slots__ = (
        "game",
        "hand_id",
        "spent",
        "max_spent",
        "min_raise_to",
        "round",
        "finished",
        "folded",
        "actions",
        "actors",
        "hole_cards",
        "board_cards",
        "_to_act",
        "_betting",
    )

    def __init__(
        self,
        game: GameDef,
        hand_id: int = 0,
        hole_cards: Sequence[Sequence[int]] | None = None,
        board_cards: Sequence[int] = (),
    ) -> None:
        if game.num_players != 2:
            raise ValueError(f"the betting state machine supports two players, the game has {game.num_players}")
        self.game = game
        self.hand_id = hand_id
        self.spent = list(game.blind)
        self.max_spent = max(game.blind)
        if game.betting is BettingType.NOLIMIT:
            # Call the largest blind, then raise by at least that much.
            self.min_raise_to = 2 * self.max_spent if self.max_spent else 1
        else:
            self.min_raise_to = 0
        self.round = 0
        self.finished = False
        self.folded = [False, False]
        self.actions: list[list[Action]] = [[] for _ in range(game.num_rounds)]
        self.actors: list[list[int]] = [[] for _ in range(game.num_rounds)]
        self.hole_cards: list[list[int]] = [[], []]
        self.board_cards: list[int] = []
        self._betting = ""  # betting_string(), kept up to date by _do
        self._to_act = self._first_to_act()
        if hole_cards is not None:
            for p, cards in enumerate(hole_cards):
                if cards:
                    self.deal_hole_cards(p, cards)
        if board_cards:
            self.deal_board_cards(board_cards)

    # ------------------------------------------------------------------ copying
    def copy(self) -> BettingState:
        other = BettingState.__new__(BettingState)
        other.game = self.game
        other.hand_id = self.hand_id
        other.spent = self.spent[:]
        other.max_spent = self.max_spent
        other.min_raise_to = self.min_raise_to
        other.round = self.round
        other.finished = self.finished
        other.folded = self.folded[:]
        other.actions = [a[:] for a in self.actions]
        other.actors = [a[:] for a in self.actors]
        other.hole_cards = [h[:] for h in self.hole_cards]
        other.board_cards = self.board_cards[:]
        other._to_act = self._to_act
        other._betting = self._betting
        return other

    # ------------------------------------------------------------------ queries
    def is_all_in(self, player: int) -> bool:
        return self.spent[player] >= self.game.stack[player]

    def num_acting_players(self) -> int:
        """Players who have neither folded nor gone all-in."""
        stack = self.game.stack
        return (not self.folded[0] and self.spent[0] < stack[0]) + (not self.folded[1] and self.spent[1] < stack[1])

    def _next_player(self, after: int) -> int:
        n = after
        for _ in range(2):
            n = (n + 1) % 2
            if not self.folded[n] and self.spent[n] < self.game.stack[n]:
                return n
        raise AssertionError("no player can act")  # unreachable while not finished

    @property
    def current_player(self) -> int | None:
        """The player to act, or None when the hand is over."""
        return self._to_act

    def _first_to_act(self) -> int | None:
        if self.finished:
            return None
        acted = self.actors[self.round]
        if acted:
            return self._next_player(acted[-1])
        # The round's first player may be all-in; start just before them.
        return self._next_player(self.game.first_player[self.round] + 1)

    @property
    def pot(self) -> int:
        return self.spent[0] + self.spent[1]

    def amount_to_call(self, player: int | None = None) -> int:
        """Chips the player must add to call (capped by their stack)."""
        p = self.current_player if player is None else player
        if p is None:
            return 0
        return min(self.max_spent, self.game.stack[p]) - self.spent[p]

    def num_raises(self) -> int:
        """Raises made so far in the current round (blinds not counted)."""
        return sum(1 for a in self.actions[self.round] if a.type is ActionType.RAISE)

    def _num_called(self) -> int:
        # Players still able to act who have matched the current bet in this round.
        count = 0
        acts = self.actions[self.round]
        actors = self.actors[self.round]
        for i in range(len(acts) - 1, -1, -1):
            p = actors[i]
            t = acts[i].type
            if t is ActionType.RAISE:
                if self.spent[p] < self.game.stack[p]:
                    count += 1
                return count
            if t is ActionType.CALL and self.spent[p] < self.game.stack[p]:
                count += 1
        return count

    # ------------------------------------------------------------------ fold
    def verify_fold(self) -> None:
        self._verify_open()
        p = self.current_player
        assert p is not None  # the hand is open
        if self.spent[p] == self.max_spent:
            raise IllegalActionError(
                f"fold is illegal: checking is free (player {p} has matched the bet of {self.max_spent})"
            )
        if self.spent[p] == self.game.stack[p]:
            raise IllegalActionError(f"fold is illegal: player {p} is all-in")

    def can_fold(self) -> bool:
        return self._can(self.verify_fold)

    def fold(self) -> None:
        self.verify_fold()
        self._do(FOLD)

    # ------------------------------------------------------------------ check/call
    def verify_call(self) -> None:
        """A call (or check) is legal whenever someone is to act."""
        self._verify_open()

    def can_call(self) -> bool:
        return not self.finished

    def call(self) -> None:
        self.verify_call()
        self._do(CALL)

    # ------------------------------------------------------------------ raise
    def _raise_refusal(self) -> str | None:
        """Why no raise is possible, or None if one is."""
        if self.finished:
            return "the hand is over"
        r = self.round
        if self.num_raises() >= self.game.max_raises[r]:
            return f"the maximum of {self.game.max_raises[r]} raises in round {r + 1} has been reached"
        if len(self.actions[r]) + self.game.num_players > MAX_NUM_ACTIONS:
            return f"round {r + 1} has {len(self.actions[r])} actions, too close to the limit of {MAX_NUM_ACTIONS}"
        if self.num_acting_players() <= 1:
            return "the opponent is all-in, nobody is left to call a raise"
        if self.game.betting is BettingType.NOLIMIT:
            p = self.current_player
            assert p is not None  # the hand is open
            if self.min_raise_to > self.game.stack[p] and self.max_spent >= self.game.stack[p]:
                return f"the bet of {self.max_spent} already covers player {p}'s stack of {self.game.stack[p]}"
        return None

    def raise_bounds(self) -> tuple[int, int] | None:
        """Smallest and largest legal raise-to totals, or None if no raise is legal.

        No-limit: the smallest is the current bet plus the last raise in this round
        (at least one big blind), the largest the player's stack; a player who cannot
        reach the smallest may still go all-in (then both bounds are the stack).
        Limit: both bounds are the total after the fixed raise (capped by the stack).
        """
        if self._raise_refusal() is not None:
            return None
        p = self.current_player
        assert p is not None  # a raise is possible, so the hand is open
        stack = self.game.stack[p]
        if self.game.betting is BettingType.NOLIMIT:
            lo = self.min_raise_to
            return (stack, stack) if lo > stack else (lo, stack)
        to = min(self.max_spent + self.game.raise_size[self.round], stack)
        return (to, to)

    def verify_raise(self, to: int | None = None) -> None:
        """Check a raise. No-limit raises need ``to`` (the raise-to total); limit
        raises take none (or exactly the fixed total)."""
        self._verify_open()
        why = self._raise_refusal()
        if why is not None:
            raise IllegalActionError(f"raise is illegal: {why}")
        bounds = self.raise_bounds()
        assert bounds is not None  # no refusal: a raise is possible
        lo, hi = bounds
        if self.game.betting is BettingType.NOLIMIT:
            if to is None:
                raise IllegalActionError("a no-limit raise needs a raise-to total")
            if isinstance(to, bool) or not isinstance(to, int):
                raise IllegalActionError(f"raise-to total must be an integer, got {to!r}")
            if to < lo:
                if lo == hi:
                    raise IllegalActionError(f"raise to {to} is illegal: the only legal raise is all-in to {hi}")
                raise IllegalActionError(
                    f"raise to {to} is below the minimum raise-to {lo} "
                    f"(current bet {self.max_spent}, the raise must add at least {lo - self.max_spent})"
                )
            if to > hi:
                raise IllegalActionError(f"raise to {to} is above the stack of {hi}")
        elif to is not None and to != lo:
            raise IllegalActionError(f"limit raise goes to {lo}, not {to}")

    def can_raise(self, to: int | None = None) -> bool:
        """Whether any raise (``to`` None) or a raise to ``to`` is legal."""
        if to is None and self.game.betting is BettingType.NOLIMIT:
            return self._raise_refusal() is None
        return self._can(lambda: self.verify_raise(to))

    def raise_to(self, to: int | None = None) -> None:
        self.verify_raise(to)
        if self.game.betting is BettingType.NOLIMIT:
            assert to is not None  # verify_raise refuses a no-limit raise without a total
            self._do(Action(ActionType.RAISE, int(to)))
        else:
            self._do(LIMIT_RAISE)

    # ------------------------------------------------------------------ generic
    def verify_action(self, action: Action) -> None:
        if action.type is ActionType.FOLD:
            if action.size:
                raise IllegalActionError("a fold takes no size")
            self.verify_fold()
        elif action.type is ActionType.CALL:
            if action.size:
                raise IllegalActionError("a call takes no size")
            self.verify_call()
        elif action.type is ActionType.RAISE:
            if self.game.betting is BettingType.NOLIMIT:
                self.verify_raise(action.size)
            else:
                if action.size:
                    raise IllegalActionError("a limit raise takes no size")
                self.verify_raise()
        else:  # pragma: no cover - enum is closed
            raise IllegalActionError(f"unknown action {action!r}")

    def can_apply(self, action: Action) -> bool:
        return self._can(lambda: self.verify_action(action))

    def apply(self, action: Action) -> None:
        """Verify and apply one action."""
        self.verify_action(action)
        self._do(action)

    def legal_action_types(self) -> list[ActionType]:
        out = []
        if self.can_fold():
            out.append(ActionType.FOLD)
        if self.can_call():
            out.append(ActionType.CALL)
        if self.raise_bounds() is not None:
            out.append(ActionType.RAISE)
        return out

    # ------------------------------------------------------------------ internals
    def _verify_open(self) -> None:
        if self.finished:
            raise IllegalActionError("the hand is over; no player is to act")

    @staticmethod
    def _can(check: Callable[[], None]) -> bool:
        try:
            check()
        except IllegalActionError:
            return False
        return True

    def _do(self, action: Action) -> None:
        game = self.game
        p = self._to_act
        assert p is not None  # only verified actions get here: the hand is open
        r = self.round
        self._betting += str(action)
        self.actions[r].append(action)
        self.actors[r].append(p)
        if action.type is ActionType.FOLD:
            self.folded[p] = True
        elif action.type is ActionType.CALL:
            self.spent[p] = min(self.max_spent, game.stack[p])
        else:
            if game.betting is BettingType.NOLIMIT:
                # The next raise must call this one and raise by at least as much.
                self.min_raise_to = max(self.min_raise_to, 2 * action.size - self.max_spent)
                self.max_spent = action.size
            else:
                self.max_spent = min(self.max_spent + game.raise_size[r], game.stack[p])
            self.spent[p] = self.max_spent

        acting = self.num_acting_players()
        if self.folded[0] or self.folded[1]:
            self.finished = True
        elif self._num_called() >= acting:
            if acting > 1:
                if r + 1 < game.num_rounds:
                    self.round = r + 1
                    self.min_raise_to = self.max_spent + max(1, max(game.blind))
                else:
                    self.finished = True
            else:
                # Nobody can bet any more: straight to the showdown on the last round.
                self.finished = True
                self.round = game.num_rounds - 1
        if self.round != r:
            self._betting += "/" * (self.round - r)
        self._to_act = self._first_to_act()

    # ------------------------------------------------------------------ cards
    def _check_new_cards(self, cards: Sequence[int], what: str) -> None:
        for c in cards:
            if isinstance(c, bool) or not isinstance(c, int) or not self.game.in_deck(c):
                shown = card_to_str(c) if isinstance(c, int) and 0 <= c < 52 else repr(c)
                raise CardError(f"{shown} is not in this game's deck ({what})")
        known = self.hole_cards[0] + self.hole_cards[1] + self.board_cards + list(cards)
        if len(set(known)) != len(known):
            check_distinct(known, what)  # names the card

    def deal_hole_cards(self, player: int, cards: Sequence[int]) -> None:
        if player not in (0, 1):
            raise CardError(f"no player {player}")
        if self.hole_cards[player]:
            raise CardError(f"player {player} already has hole cards")
        if len(cards) != self.game.num_hole_cards:
            raise CardError(f"player {player} needs {self.game.num_hole_cards} hole cards, got {len(cards)}")
        self._check_new_cards(cards, f"hole cards of player {player}")
        self.hole_cards[player] = list(cards)

    def deal_board_cards(self, cards: Iterable[int]) -> None:
        """Add board cards in deal order; at most those of the rounds to come."""
        cards = list(cards)
        total = self.game.total_board_cards(self.game.num_rounds - 1)
        if len(self.board_cards) + len(cards) > total:
            raise CardError(f"the game has {total} board cards, got {len(self.board_cards) + len(cards)}")
        self._check_new_cards(cards, "board")
        self.board_cards.extend(cards)

    def visible_board(self) -> list[int]:
        """Board cards of the rounds reached so far."""
        return self.board_cards[: self.game.total_board_cards(self.round)]

    # ------------------------------------------------------------------ outcome
    @property
    def is_showdown(self) -> bool:
        return self.finished and not (self.folded[0] or self.folded[1])

    def payoffs(self, strengths: Sequence[int] | None = None) -> list[int]:
        """Chips won by each player (they sum to zero). A showdown needs the cards, or
        the players' hand strengths (larger wins) in ``strengths``."""
        if not self.finished:
            raise ValueError("the hand is not over")
        if self.folded[0] or self.folded[1]:
            loser = 0 if self.folded[0] else 1
            return [-self.spent[0], self.spent[0]] if loser == 0 else [self.spent[1], -self.spent[1]]
        if strengths is None:
            strengths = self.showdown_strengths()
        # Heads-up: the common pot is the smaller commitment; any excess goes back.
        at_stake = min(self.spent)
        if strengths[0] > strengths[1]:
            return [at_stake, -at_stake]
        if strengths[0] < strengths[1]:
            return [-at_stake, at_stake]
        return [0, 0]

    def showdown_strengths(self) -> list[int]:
        need = self.game.total_board_cards(self.round)
        if len(self.board_cards) < need:
            raise ValueError(f"showdown needs {need} board cards, {len(self.board_cards)} known")
        board = self.board_cards[:need]
        out = []
        for p in (0, 1):
            if len(self.hole_cards[p]) != self.game.num_hole_cards:
                raise ValueError(f"showdown needs the hole cards of player {p}")
            out.append(hand_strength(self.hole_cards[p] + board))
        return out

    # ------------------------------------------------------------------ text
    def betting_string(self) -> str:
        """Betting in ACPC form: actions per round, ``/`` between rounds reached."""
        return self._betting

    def __repr__(self) -> str:
        return (
            f"BettingState(hand={self.hand_id}, betting={self.betting_string()!r}, "
            f"spent={self.spent}, to_act={self.current_player})"
        )


def apply_betting(state: BettingState, betting: str, start: int = 0) -> BettingState:
    """Apply an ACPC betting string (``cr300c/r600f``) to ``state`` in place.

    Strict: ``/`` must stand exactly where a round ends (after an all-in call the
    empty rounds follow as ``///``), and every action must be legal. Raises
    ``ActionSyntaxError`` or ``IllegalActionError`` naming the position. With
    ``start``, the first ``start`` characters are taken as already applied to
    ``state`` (a client extending the previous state of the hand).
    """
    seg_round = betting.count("/", 0, start)
    i = start
    n = len(betting)
    while i < n:
        ch = betting[i]
        if ch == "/":
            if seg_round + 1 > state.round:
                raise IllegalActionError(f"'/' after {betting[:i]!r}: round {seg_round + 1} has not ended")
            seg_round += 1
            i += 1
            continue
        j = i + 1
        if ch == "r":
            while j < n and betting[j].isdigit():
                j += 1
        token = betting[i:j]
        if seg_round != state.round:
            raise IllegalActionError(
                f"action {token!r} at {state.betting_string()!r}: it is round {state.round + 1}, "
                f"but the '/' count says round {seg_round + 1}"
                if not state.finished
                else f"action {token!r} after the end of the hand at {state.betting_string()!r}"
            )
        try:
            state.apply(parse_action(token, state.game))
        except (ActionSyntaxError, IllegalActionError) as e:
            raise type(e)(f"at {state.betting_string()!r}: {e}") from None
        i = j
    if seg_round != state.round:
        raise IllegalActionError(
            f"betting {betting!r} reaches round {state.round + 1} but has {seg_round + 1} round(s) of text"
        )
    return state
