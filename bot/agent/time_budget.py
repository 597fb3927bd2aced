"""How long the agent may think, and when it replies.

``TimeBudget`` keeps the agent inside the dealer's three limits (docs/protocol.md): one reply
(``t_response``), one hand (``t_hand``) and the match average (``t_per_hand`` times the
hands played, which the player learns hand by hand). A solve gets the smallest of its
own cap and what each limit still allows, less a safety share and a fixed overhead
(transfer, tree building, the reply itself), so a deadline-stopped solve never makes
the dealer end the match.

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

    def available(self) -> float:
        """Seconds the next decision may take under every limit, after the safety share."""
        s = self.safety
        return max(
            0.0,
            min(
                s * self.t_response,
                s * self.t_hand - self.used_hand,
                s * self.t_per_hand * self.hands - self.used_match,
            ),
        )

    def solve_deadline(self, cap: float) -> float:
        """The deadline of a solve starting now: at most ``cap`` seconds; 0 when the
        budget leaves no time to solve (the agent then plays what it already has)."""
        return max(0.0, min(cap, self.available() - self.overhead))


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
