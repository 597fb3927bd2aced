"""ACPC game definitions: parse, validate and write ``GAMEDEF`` files.

A game file is a ``GAMEDEF`` ... ``END GAMEDEF`` block of ``key = values`` lines. Keys
are case-insensitive, ``#`` starts a comment, the ``=`` is optional. The limits
(at most 4 rounds, 10 players, 3 hole cards, 4 suits, 13 ranks) are the reference
dealer's, so every file we accept is one the reference dealer accepts with the same
meaning. We are stricter than the reference in one way: an unknown key, a non-integer
value or a wrong number of values is an error naming the line, where the reference
silently ignores the line.
"""

from __future__ import annotations

import enum
import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

MAX_ROUNDS = 4
MAX_PLAYERS = 10
MAX_HOLE_CARDS = 3
MAX_BOARD_CARDS = 7
MAX_SUITS = 4
MAX_RANKS = 13
#: The reference dealer's bound on actions per round; a raise that would leave no room
#: for the other players' replies is not allowed (see ``BettingState.raise_bounds``).
MAX_NUM_ACTIONS = 64
#: Stack of a player when the file gives none (the reference's INT32_MAX).
UNLIMITED_STACK = 2**31 - 1


class BettingType(enum.Enum):
    LIMIT = "limit"
    NOLIMIT = "nolimit"


class GameDefError(ValueError):
    """A game definition that cannot be used; the message names the line and problem."""

    def __init__(self, message: str, line: int | None = None, source: str = "<gamedef>"):
        self.line = line
        self.source = source
        self.problem = message
        where = f"{source}:{line}: " if line is not None else f"{source}: "
        super().__init__(where + message)


@dataclass(frozen=True)
class GameDef:
    """One ACPC game. Lists are per player (stack, blind) or per round (the rest).

    ``first_player`` is 0-based here (the file is 1-based).
    """

    betting: BettingType
    num_players: int
    num_rounds: int
    stack: tuple[int, ...]
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]

    @property
    def is_nolimit(self) -> bool:
        return self.betting is BettingType.NOLIMIT

    @property
    def deck_size(self) -> int:
        return self.num_suits * self.num_ranks

    @property
    def big_blind(self) -> int:
        """The largest blind: the unit of mbb/hand and of the minimum opening bet."""
        return max(self.blind)

    def total_board_cards(self, round_: int) -> int:
        """Board cards visible once ``round_`` (0-based) has been reached."""
        return sum(self.num_board_cards[: round_ + 1])

    def board_start(self, round_: int) -> int:
        """Index of the first board card dealt for ``round_``."""
        return sum(self.num_board_cards[:round_])

    def deck(self) -> list[int]:
        """The cards in play, as the reference dealer builds them: the top
        ``num_ranks`` ranks and the top ``num_suits`` suits (Leduc-like games use
        Q K A of hearts and spades), in suit-major order. A new list each call."""
        return list(_deck(self.num_suits, self.num_ranks))

    def in_deck(self, card: int) -> bool:
        return card in _deck_set(self.num_suits, self.num_ranks)


@functools.cache
def _deck(num_suits: int, num_ranks: int) -> tuple[int, ...]:
    return tuple(
        r * 4 + s for s in range(MAX_SUITS - num_suits, MAX_SUITS) for r in range(MAX_RANKS - num_ranks, MAX_RANKS)
    )


@functools.cache
def _deck_set(num_suits: int, num_ranks: int) -> frozenset[int]:
    return frozenset(_deck(num_suits, num_ranks))


_INT_LIST_KEYS = {
    "stack": "stack",
    "blind": "blind",
    "raisesize": "raise_size",
    "firstplayer": "first_player",
    "maxraises": "max_raises",
    "numboardcards": "num_board_cards",
}
_INT_KEYS = {
    "numplayers": "num_players",
    "numrounds": "num_rounds",
    "numsuits": "num_suits",
    "numranks": "num_ranks",
    "numholecards": "num_hole_cards",
}
_FILE_KEY = {
    "stack": "stack",
    "blind": "blind",
    "raise_size": "raiseSize",
    "first_player": "firstPlayer",
    "max_raises": "maxRaises",
    "num_board_cards": "numBoardCards",
    "num_players": "numPlayers",
    "num_rounds": "numRounds",
    "num_suits": "numSuits",
    "num_ranks": "numRanks",
    "num_hole_cards": "numHoleCards",
}


def _split_key(body: str) -> tuple[str, str]:
    i = 0
    while i < len(body) and body[i].isalpha():
        i += 1
    return body[:i], body[i:]


def _parse_ints(rest: str, key: str, line_no: int, source: str) -> list[int]:
    rest = rest.strip()
    if rest.startswith("="):
        rest = rest[1:]
    tokens = rest.replace("=", " ").split()
    if not tokens:
        raise GameDefError(f"'{key}' has no value", line_no, source)
    values = []
    for tok in tokens:
        try:
            values.append(int(tok, 10))
        except ValueError:
            raise GameDefError(f"'{key}': {tok!r} is not an integer", line_no, source) from None
    return values


def parse_gamedef(text: str, source: str = "<gamedef>") -> GameDef:
    """Parse the text of a game file. Raises ``GameDefError`` naming the bad line."""
    if not isinstance(text, str):
        raise GameDefError("game definition must be text", None, source)
    seen: dict[str, tuple[list[int] | int, int]] = {}
    betting: BettingType | None = None
    betting_line = 0
    started = False
    ended = False
    for line_no, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        low = body.lower()
        if ended:
            raise GameDefError(f"text after 'END GAMEDEF': {body[:40]!r}", line_no, source)
        if low.replace(" ", "") == "endgamedef":
            if not started:
                raise GameDefError("'END GAMEDEF' before 'GAMEDEF'", line_no, source)
            ended = True
            continue
        if low == "gamedef":
            if started:
                raise GameDefError("second 'GAMEDEF' line", line_no, source)
            started = True
            continue
        if not started:
            raise GameDefError(f"expected 'GAMEDEF', found {body[:40]!r}", line_no, source)
        key_text, rest = _split_key(body)
        key = key_text.lower()
        if key in ("limit", "nolimit"):
            if rest.strip():
                raise GameDefError(f"'{key_text}' takes no value", line_no, source)
            if betting is not None:
                raise GameDefError(f"betting type given twice (first on line {betting_line})", line_no, source)
            betting = BettingType(key)
            betting_line = line_no
            continue
        if key in _INT_LIST_KEYS or key in _INT_KEYS:
            field = _INT_LIST_KEYS.get(key) or _INT_KEYS[key]
            if field in seen:
                raise GameDefError(f"'{key_text}' given twice (first on line {seen[field][1]})", line_no, source)
            values = _parse_ints(rest, key_text, line_no, source)
            if key in _INT_KEYS:
                if len(values) != 1:
                    raise GameDefError(f"'{key_text}' takes one value, got {len(values)}", line_no, source)
                seen[field] = (values[0], line_no)
            else:
                seen[field] = (values, line_no)
            continue
        raise GameDefError(f"unknown key {key_text or body[:40]!r}", line_no, source)
    if not started:
        raise GameDefError("no 'GAMEDEF' line", None, source)
    if not ended:
        raise GameDefError("missing 'END GAMEDEF'", None, source)
    return _validate(seen, betting, source)


def _validate(seen: dict, betting: BettingType | None, source: str) -> GameDef:
    def get(field: str):
        return seen[field][0] if field in seen else None

    def line(field: str) -> int | None:
        return seen[field][1] if field in seen else None

    def need(field: str):
        if field not in seen:
            raise GameDefError(f"missing '{_FILE_KEY[field]}'", None, source)
        return get(field)

    def bounded(field: str, lo: int, hi: int) -> int:
        value = need(field)
        if not lo <= value <= hi:
            raise GameDefError(f"{_FILE_KEY[field]} must be {lo}..{hi}, got {value}", line(field), source)
        return value

    # The reference defaults to limit betting when neither keyword is given.
    betting = betting or BettingType.LIMIT
    num_players = bounded("num_players", 2, MAX_PLAYERS)
    num_rounds = bounded("num_rounds", 1, MAX_ROUNDS)

    def per(field: str, count: int, what: str, default=None) -> tuple[int, ...]:
        values = get(field)
        if values is None:
            if default is None:
                raise GameDefError(f"missing '{_FILE_KEY[field]}'", None, source)
            return tuple(default)
        if len(values) != count:
            raise GameDefError(
                f"'{_FILE_KEY[field]}' needs {count} values (one per {what}), got {len(values)}",
                line(field),
                source,
            )
        return tuple(values)

    stack = per("stack", num_players, "player", [UNLIMITED_STACK] * num_players)
    blind = per("blind", num_players, "player")
    for p in range(num_players):
        if stack[p] <= 0 or stack[p] > UNLIMITED_STACK:
            raise GameDefError(
                f"stack of player {p + 1} must be 1..{UNLIMITED_STACK}, got {stack[p]}", line("stack"), source
            )
        if blind[p] < 0:
            raise GameDefError(f"blind of player {p + 1} is negative ({blind[p]})", line("blind"), source)
        if blind[p] > stack[p]:
            raise GameDefError(
                f"blind for player {p + 1} ({blind[p]}) is greater than the stack ({stack[p]})",
                line("blind"),
                source,
            )
    if betting is BettingType.LIMIT:
        raise_size = per("raise_size", num_rounds, "round")
        for r, size in enumerate(raise_size):
            if size <= 0:
                raise GameDefError(
                    f"raiseSize of round {r + 1} must be positive, got {size}", line("raise_size"), source
                )
    else:
        raise_size = per("raise_size", num_rounds, "round", [0] * num_rounds)
    first = per("first_player", num_rounds, "round", [1] * num_rounds)
    for r, fp in enumerate(first):
        if not 1 <= fp <= num_players:
            raise GameDefError(f"invalid first player {fp} on round {r + 1}", line("first_player"), source)
    max_raises = per("max_raises", num_rounds, "round", [255] * num_rounds)
    for r, m in enumerate(max_raises):
        if not 0 <= m <= 255:
            raise GameDefError(f"maxRaises of round {r + 1} must be 0..255, got {m}", line("max_raises"), source)
    num_suits = bounded("num_suits", 1, MAX_SUITS)
    num_ranks = bounded("num_ranks", 1, MAX_RANKS)
    num_hole = bounded("num_hole_cards", 1, MAX_HOLE_CARDS)
    board = per("num_board_cards", num_rounds, "round")
    for r, b in enumerate(board):
        if b < 0:
            raise GameDefError(f"numBoardCards of round {r + 1} is negative ({b})", line("num_board_cards"), source)
    if sum(board) > MAX_BOARD_CARDS:
        raise GameDefError(
            f"at most {MAX_BOARD_CARDS} board cards in all, got {sum(board)}", line("num_board_cards"), source
        )
    if num_hole * num_players + sum(board) > num_suits * num_ranks:
        raise GameDefError(
            f"too many hole and board cards ({num_hole * num_players + sum(board)}) "
            f"for a deck of {num_suits * num_ranks}",
            None,
            source,
        )
    return GameDef(
        betting=betting,
        num_players=num_players,
        num_rounds=num_rounds,
        stack=stack,
        blind=blind,
        raise_size=raise_size,
        first_player=tuple(fp - 1 for fp in first),
        max_raises=max_raises,
        num_suits=num_suits,
        num_ranks=num_ranks,
        num_hole_cards=num_hole,
        num_board_cards=board,
    )


def format_gamedef(game: GameDef) -> str:
    """The game as file text, in the layout the reference dealer prints."""

    def ints(values: Iterable[int]) -> str:
        return " ".join(str(v) for v in values)

    lines = ["GAMEDEF", game.betting.value]
    lines.append(f"numPlayers = {game.num_players}")
    lines.append(f"numRounds = {game.num_rounds}")
    if any(s != UNLIMITED_STACK for s in game.stack):
        lines.append(f"stack = {ints(game.stack)}")
    lines.append(f"blind = {ints(game.blind)}")
    if game.betting is BettingType.LIMIT:
        lines.append(f"raiseSize = {ints(game.raise_size)}")
    if any(fp != 0 for fp in game.first_player):
        lines.append(f"firstPlayer = {ints(fp + 1 for fp in game.first_player)}")
    if any(m != 255 for m in game.max_raises):
        lines.append(f"maxRaises = {ints(game.max_raises)}")
    lines.append(f"numSuits = {game.num_suits}")
    lines.append(f"numRanks = {game.num_ranks}")
    lines.append(f"numHoleCards = {game.num_hole_cards}")
    lines.append(f"numBoardCards = {ints(game.num_board_cards)}")
    lines.append("END GAMEDEF")
    return "\n".join(lines) + "\n"


def load_gamedef(path: str | os.PathLike) -> GameDef:
    """Read a game file; a bundled game may be named without a path (``holdem.nolimit.2p``)."""
    p = os.fspath(path)
    if not os.path.exists(p) and p.removesuffix(".game") in bundled_game_names():
        return bundled_game(p.removesuffix(".game"))
    try:
        with open(p, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise GameDefError(f"not a text file ({e.reason})", None, p) from None
    except OSError as e:
        raise GameDefError(f"cannot read: {e.strerror}", None, p) from None
    return parse_gamedef(text, source=p)


def bundled_game_names() -> list[str]:
    """Names of the game files shipped with the package."""
    files = resources.files("pokerbot.protocol.games")
    return sorted(f.name.removesuffix(".game") for f in files.iterdir() if f.name.endswith(".game"))


def bundled_game_text(name: str) -> str:
    if name not in bundled_game_names():
        raise GameDefError(f"no bundled game {name!r}; bundled: {', '.join(bundled_game_names())}", None, name)
    return resources.files("pokerbot.protocol.games").joinpath(name + ".game").read_text(encoding="utf-8")


def bundled_game(name: str) -> GameDef:
    """A game shipped with the package, by name (see ``bundled_game_names``)."""
    return parse_gamedef(bundled_game_text(name), source=f"{name}.game")


#: The default game: heads-up no-limit hold'em, 200 big blinds deep (Doyle's game).
DEFAULT_GAME = "holdem.nolimit.2p"
