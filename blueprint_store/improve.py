"""Self-improvement, step one: where do opponents bet that the blueprint has no size?

Libratus's third module (supplement, "Further details of the self-improvement
algorithm"): collect the opponents' first-round bet sizes as pot fractions, score each
gap between neighbouring abstraction sizes A < B by the sum over the opponent sizes x
inside it of min(x - A, B - x) (a size near an existing one costs little: translation
handles it), and add, for the best gaps, the pseudo-harmonic midpoint
(A + B + 2AB) / (A + B + 2) (the size a pseudo-harmonic translation between A and B is
least sure about).

A size is a fraction of the pot for a bet and of the pot after calling for a raise, at
a raise depth (number of raises before it in the round) - the convention of
``blueprint_store.actions``.
"""

from __future__ import annotations

import glob
import os
from collections import Counter
from dataclasses import dataclass

from protocol.betting import ActionType, BettingState
from protocol.gamedef import GameDef
from protocol.matchstate import MatchStateError, parse_state_line

from .actions import ActionAbstraction


def pot_fraction(to: int, spent: tuple[int, int] | list[int], actor: int) -> float:
    """A raise to ``to`` by ``actor`` as a fraction of the pot after calling (of the
    pot for a bet)."""
    top = max(spent)
    base = sum(spent) + top - spent[actor]
    return (to - top) / base if base > 0 else 0.0


def pseudo_harmonic_midpoint(a: float, b: float) -> float:
    """The size between A and B at which randomised pseudo-harmonic translation maps to
    each with probability one half: (A + B + 2AB) / (A + B + 2)."""
    if not 0 <= a < b:
        raise ValueError(f"need 0 <= A < B, got A={a}, B={b}")
    return (a + b + 2 * a * b) / (a + b + 2)


@dataclass(frozen=True)
class OpponentBet:
    depth: int  # raises before it in the round
    fraction: float
    all_in: bool
    hand: int
    name: str  # the opponent's name in the log


def first_round_bets(state: BettingState, us: int, names: list[str] | None = None) -> list[OpponentBet]:
    """The opponent's (not position ``us``'s) bets and raises in the first round of one hand."""
    game = state.game
    replay = BettingState(game, state.hand_id)
    out = []
    depth = 0
    for a, who in zip(state.actions[0], state.actors[0]):
        if a.type is ActionType.RAISE:
            if who != us and game.is_nolimit:
                out.append(OpponentBet(depth, pot_fraction(a.size, replay.spent, who), a.size >= game.stack[who],
                                       state.hand_id, names[who] if names else str(who)))
            depth += 1
        replay.apply(a)
    return out


def log_files(paths: list[str]) -> list[str]:
    """Dealer logs (``*.log`` with STATE lines) under the given files or directories."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(sorted(glob.glob(os.path.join(p, "**", "*.log"), recursive=True)))
        elif os.path.exists(p):
            out.append(p)
        else:
            raise FileNotFoundError(f"no such log file or directory: {p}")
    return out


@dataclass
class CollectedBets:
    bets: list[OpponentBet]
    hands: int  # hands read
    skipped_lines: int  # lines that were not valid STATE lines of this game
    files: int


def collect_opponent_bets(paths: list[str], game: GameDef, us: str) -> CollectedBets:
    """Every first-round bet of every player whose name does not contain ``us``, from
    the dealer logs under ``paths``. Lines that are not STATE lines of ``game`` are
    counted and skipped (a log may be cut short or hold another game)."""
    bets: list[OpponentBet] = []
    hands = skipped = 0
    files = log_files(paths)
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.startswith("STATE:"):
                    continue
                try:
                    logged = parse_state_line(line.rstrip("\r\n"), game)
                except (MatchStateError, ValueError):
                    skipped += 1
                    continue
                ours = [i for i, n in enumerate(logged.names) if us in n]
                if len(ours) != 1:  # not our match, or both seats match the name
                    skipped += 1
                    continue
                hands += 1
                bets.extend(first_round_bets(logged.state, ours[0], logged.names))
    return CollectedBets(bets, hands, skipped, len(files))


@dataclass(frozen=True)
class Gap:
    depth: int
    low: float  # A
    high: float  # B
    score: float
    count: int  # opponent sizes inside
    most_common: float | None  # the most frequent opponent size inside (rounded to 0.01)

    @property
    def midpoint(self) -> float:
        return pseudo_harmonic_midpoint(self.low, self.high)


def score_gaps(bets: list[OpponentBet], abstraction: ActionAbstraction) -> list[Gap]:
    """Every gap between neighbouring first-round sizes of the abstraction, per raise
    depth, scored by the sum of min(x - A, B - x) over the opponent sizes x strictly
    inside it; best first. All-in bets are left out (the abstraction always has
    all-in)."""
    first = abstraction.rounds[0]
    gaps = []
    for depth in range(first.max_raises):
        sizes = sorted(set(first.bets[min(depth, len(first.bets) - 1)]))
        xs = [b.fraction for b in bets if b.depth == depth and not b.all_in]
        for a, b in zip(sizes, sizes[1:]):
            inside = [x for x in xs if a < x < b]
            score = sum(min(x - a, b - x) for x in inside)
            common = Counter(round(x, 2) for x in inside).most_common(1)
            gaps.append(Gap(depth, a, b, score, len(inside), common[0][0] if common else None))
    gaps.sort(key=lambda g: (-g.score, g.depth, g.low))
    return gaps


def most_common_size(bets: list[OpponentBet], abstraction: ActionAbstraction) -> tuple[int, float, int] | None:
    """Type 1's target: (depth, size, count) of the most frequent opponent first-round
    size (rounded to 0.01) that the abstraction lacks; None if there is none."""
    first = abstraction.rounds[0]
    counts: Counter = Counter()
    for b in bets:
        if b.all_in or b.depth >= first.max_raises:
            continue
        have = first.bets[min(b.depth, len(first.bets) - 1)]
        x = round(b.fraction, 2)
        if all(abs(x - s) > 0.005 for s in have):
            counts[(b.depth, x)] += 1
    if not counts:
        return None
    (depth, x), n = counts.most_common(1)[0]
    return depth, x, n
