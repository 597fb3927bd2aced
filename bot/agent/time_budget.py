"""How long the agent may think, and when it replies.

``TimeBudget`` keeps the agent inside the dealer's three limits (docs/protocol.md): one reply
(``t_response``), one hand (``t_hand``) and the match average (``t_per_hand`` times the
hands played, which the player learns hand by hand). A solve gets the smallest of its
own cap and what each limit still allows, less a safety share and a fixed overhead
(transfer, tree building, the reply itself), so a deadline-stopped solve never makes
the dealer end the match.

``TimePlan`` spends the match's bank: a solve's cap is a share of what the hand may
spend (its own allowance plus a part of the time earlier hands left unused), the share
by the solving rounds still to come and the pot, so that a match whose hands end early
gives its time to the hands that are solved. Every input is public: the round, the pot,
the clock.

``ReplyClock`` makes the reply time a function of public information: the work of a
decision is already card-independent (every solve covers all hands of both players,
the iteration count and deadline come from the pot and the clock), and the reply is
then held back to the next multiple of a grid after the decision began, which hides the
small card-dependent differences left (a bucket lookup, a dictionary hit) below the
grid (slept to shortly before the reply time, then polled to it). Tests check the
resulting distributions with a two-sample KS test.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

#: Reference dealer defaults, milliseconds (docs/protocol.md).
DEFAULT_T_RESPONSE_MS = 600_000
DEFAULT_T_HAND_MS = 600_000
DEFAULT_T_PER_HAND_MS = 7_000


@dataclass
class TimeBudget:
    t_response: float = DEFAULT_T_RESPONSE_MS / 1000
    t_hand: float = DEFAULT_T_HAND_MS / 1000
    t_per_hand: float = DEFAULT_T_PER_HAND_MS / 1000
    #: Spend at most this share of any limit (the rest absorbs timer and scheduling noise).
    safety: float = 0.8
    #: Seconds reserved per decision for everything but the solve itself.
    overhead: float = 0.25
    hands: int = 0  # hands started
    used_match: float = 0.0
    used_hand: float = 0.0
    _hand: int | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name in ("t_response", "t_hand", "t_per_hand"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")

    def start_hand(self, hand_id: int) -> None:
        """Count a new hand once (the match budget grows by ``t_per_hand``)."""
        if hand_id != self._hand:
            self._hand = hand_id
            self.hands += 1
            self.used_hand = 0.0

    def record(self, seconds: float) -> None:
        """A decision of the current hand took ``seconds`` (from the state's arrival to the reply)."""
        self.used_hand += seconds
        self.used_match += seconds

    def available(self, elapsed: float = 0.0) -> float:
        """Seconds the next decision may take under every limit, after the safety
        share; ``elapsed``: seconds the current decision has taken already."""
        s = self.safety
        return max(
            0.0,
            min(
                s * self.t_response,
                s * self.t_hand - self.used_hand,
                s * self.t_per_hand * self.hands - self.used_match,
            )
            - elapsed,
        )

    def solve_deadline(self, cap: float, elapsed: float = 0.0) -> float:
        """The deadline of a solve starting now, ``elapsed`` seconds into the decision:
        at most ``cap`` seconds; 0 when the budget leaves no time to solve (the agent
        then plays what it already has)."""
        return max(0.0, min(cap, self.available(elapsed) - self.overhead))


#: Each solving round's weight in a hand's planned time (preflop, flop, turn, river): a
#: solve gets its round's weight over the weights of the rounds from its own to the river.
ROUND_WEIGHTS = (0.0, 3.0, 2.0, 1.0)


@dataclass(frozen=True)
class TimePlan:
    """How much of the match's time one solve may take (``cap``).

    A hand may spend its own allowance (``safety * t_per_hand`` less what the hand used
    so far) plus ``carry`` of the bank earlier hands left unused; a solve on round r gets
    ``w[r] * p / (w[r] * p + sum of w[r+1..])`` of that (``ROUND_WEIGHTS``; p: the pot's
    iteration rule over its small-pot count, so a big pot's solve weighs more), and never
    more than ``ceiling`` hands' allowance. A solve that needs less time (its iterations
    done) leaves the rest in the bank for later hands; a re-solve in the same round gets
    a share of what is left. ``TimeBudget.solve_deadline`` then keeps the cap inside the
    dealer's three limits."""

    carry: float = 0.25
    ceiling: float = 3.0
    weights: tuple[float, ...] = ROUND_WEIGHTS

    def __post_init__(self) -> None:
        if not 0.0 <= self.carry <= 1.0:
            raise ValueError(f"a time plan's carry is a share in [0, 1], got {self.carry}")
        if self.ceiling <= 0:
            raise ValueError(f"a time plan's ceiling must be positive, got {self.ceiling}")

    def hand_spend(self, budget: TimeBudget, elapsed: float = 0.0) -> float:
        """Seconds the rest of the current hand may take, ``elapsed`` seconds into a
        decision: its allowance left plus ``carry`` of the bank beyond it (never more
        than the match has left)."""
        allowance = budget.safety * budget.t_per_hand
        match_left = allowance * budget.hands - budget.used_match - elapsed
        own = max(0.0, allowance - budget.used_hand - elapsed)
        bank = max(0.0, match_left - own)
        return max(0.0, min(match_left, own + self.carry * bank))

    def cap(self, budget: TimeBudget, round_: int, pot_weight: float = 1.0, elapsed: float = 0.0) -> float:
        """The cap of a solve on round ``round_`` (0-based), ``elapsed`` seconds into the decision."""
        w = self.weights
        mine = w[round_] * pot_weight
        later = sum(w[round_ + 1 :])
        share = mine / (mine + later) if mine > 0 else 0.0
        ceiling = self.ceiling * budget.safety * budget.t_per_hand
        return min(ceiling, share * self.hand_spend(budget, elapsed))


def verify_solving_fits(budget: TimeBudget, min_solve: float) -> None:
    """Raise ValueError when the dealer's limits leave no solve ``min_solve`` seconds
    long after the safety share and the overhead (the agent would only ever play its
    blueprint)."""
    tightest = budget.safety * min(budget.t_response, budget.t_hand, budget.t_per_hand)
    if tightest - budget.overhead < min_solve:
        raise ValueError(
            f"the dealer's time limits leave no time to solve: {budget.safety:.0%} of the tightest limit is "
            f"{tightest * 1000:.0f} ms, and a solve needs {budget.overhead * 1000:.0f} ms of overhead plus "
            f"{min_solve * 1000:.0f} ms; give the dealer (and --t_response / --t_hand / --t_per_hand) more time, "
            "or play --strategy blueprint"
        )


@dataclass
class ReplyClock:
    """Replies at t0 + ceil(elapsed / grid) * grid (at least one grid)."""

    grid: float = 0.005
    #: The last stretch before the reply time is waited for by polling the clock, not by
    #: sleeping: a sleep overshoots by a scheduler-dependent amount that varies with its
    #: length, i.e. with how long the (card-dependent) work took; polling lands within
    #: microseconds of the target whatever the work took.
    spin: float = 0.002

    def reply_delay(self, elapsed: float) -> float:
        if self.grid <= 0:
            return elapsed
        return max(1, math.ceil(elapsed / self.grid)) * self.grid

    def hold(self, t0: float) -> float:
        """Wait until the reply time of a decision that began at ``t0``
        (``time.perf_counter``); returns the reply time in seconds."""
        elapsed = time.perf_counter() - t0
        target = self.reply_delay(elapsed)
        if target - elapsed > self.spin:
            time.sleep(target - elapsed - self.spin)
        while elapsed < target:
            elapsed = time.perf_counter() - t0
        return elapsed
