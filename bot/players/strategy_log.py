"""A player's log of what it would have done with every hand, decision by decision.

``pokerbot play --strategy-log PATH`` appends one JSON line per decision: the hand,
the seat, the betting and board at the decision, the action sent, and the strategy's
answer to the white-box query at that state (``strategy_query``): the actions and,
for each of the 1,326 hole pairs, their probabilities (float32, zlib, base64), and the
strategy's own values after each action where it has them (a solve's, same encoding). AIVAT
reads it with the dealer's log to correct a match's result at this player's
decisions (``aivat``).

The line is written after the action has been sent, so the dealer's clock does not
see it. A line cut by an interrupted write is skipped by the reader.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import TextIO

import numpy as np

from pokerbot.bot.players.strategy_query import HANDS, ActionProbabilities
from pokerbot.protocol.betting import Action, BettingState, parse_action
from pokerbot.protocol.gamedef import GameDef


class LoggedDecision:
    """One decision as logged: the answer and the action actually sent. A decision read
    from a log keeps its probabilities encoded until ``answer`` is asked for (a match's
    log decoded at once would take gigabytes)."""

    def __init__(
        self,
        hand: int,
        seat: int,
        betting: str,
        board: tuple[int, ...],
        taken: Action,
        answer: ActionProbabilities | tuple[tuple[Action, ...], str, tuple[int, int] | None, str | None],
    ) -> None:
        self.hand, self.seat, self.betting, self.board, self.taken = hand, seat, betting, board, taken
        self._answer = answer

    @property
    def answer(self) -> ActionProbabilities:
        if isinstance(self._answer, ActionProbabilities):
            return self._answer
        actions, text, raise_range, values = self._answer
        try:
            probabilities = decode(text, len(actions))
            decoded = None if values is None else decode(values, len(actions))
        except (zlib.error, ValueError) as e:
            raise ValueError(f"hand {self.hand}: corrupt probabilities in the strategy log at {self.betting!r}") from e
        return ActionProbabilities(actions, probabilities, raise_range, decoded)


def encode(probabilities: np.ndarray) -> str:
    raw = np.ascontiguousarray(probabilities, dtype=np.float32).tobytes()
    return base64.b64encode(zlib.compress(raw, 6)).decode("ascii")


def decode(text: str, columns: int) -> np.ndarray:
    raw = zlib.decompress(base64.b64decode(text))
    return np.frombuffer(raw, dtype=np.float32).reshape(len(HANDS), columns).astype(np.float64)


class StrategyLogWriter:
    """Appends decisions to a strategy log (line-buffered: a crash loses at most the
    decision being written)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: TextIO = open(path, "a", encoding="utf-8", buffering=1)

    def write(self, hand: int, seat: int, state: BettingState, taken: Action, answer: ActionProbabilities) -> None:
        row = {
            "hand": hand,
            "seat": seat,
            "betting": state.betting_string(),
            "board": list(state.board_cards),
            "taken": str(taken),
            "actions": [str(a) for a in answer.actions],
            "probabilities": encode(answer.probabilities),
        }
        if answer.raise_range is not None:
            row["raise_range"] = list(answer.raise_range)
        if answer.values is not None:
            row["values"] = encode(answer.values)
        self._file.write(json.dumps(row, separators=(",", ":")) + "\n")

    def close(self) -> None:
        self._file.close()


def read_strategy_log(path: str, game: GameDef) -> dict[tuple[int, str], LoggedDecision]:
    """The decisions of a log by (hand, betting string at the decision); lines that do
    not parse (an interrupted write) are skipped."""
    out: dict[tuple[int, str], LoggedDecision] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                row = json.loads(line)
                actions = tuple(parse_action(a, game) for a in row["actions"])
                rr = row.get("raise_range")
                text = row["probabilities"]
                if len(base64.b64decode(text, validate=True)) == 0:
                    raise ValueError("no probabilities")
                values = row.get("values")
                answer = (actions, text, (int(rr[0]), int(rr[1])) if rr else None, values)
                d = LoggedDecision(
                    int(row["hand"]),
                    int(row["seat"]),
                    row["betting"],
                    tuple(row["board"]),
                    parse_action(row["taken"], game),
                    answer,
                )
            except (ValueError, KeyError, TypeError, IndexError):
                continue
            out[(d.hand, d.betting)] = d
    return out
