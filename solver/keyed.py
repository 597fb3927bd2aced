"""Keyed random numbers: a draw that depends only on its key (splitmix64), never on
what was drawn before. Processes that must make the same random choice without
talking (the shards of a sharded MCCFR run, both players' passes of a sampled solve)
draw with the same key. ``KeyedUniform`` keys a player's choices by a secret and
what the player knows (blake2b), so that two players with one seed in one situation
choose alike whatever came before."""

from __future__ import annotations

import hashlib
import random

import numba as nb
import numpy as np

from pokerbot.protocol.betting import BettingState


def pick(probabilities, u: float) -> int:
    """The index whose cumulative probability first exceeds ``u`` (in [0, 1)); the last
    index where rounding leaves ``u`` above the total."""
    acc = 0.0
    for i, p in enumerate(probabilities):
        acc += p
        if u < acc:
            return i
    return len(probabilities) - 1


class KeyedUniform:
    """Numbers in [0, 1) that depend only on a secret key and a string: the seed's
    digits, or 128 bits from the operating system when there is no seed."""

    def __init__(self, seed: int | None) -> None:
        self._key = str(seed if seed is not None else random.SystemRandom().getrandbits(128)).encode()[:64]

    def __call__(self, what: str) -> float:
        digest = hashlib.blake2b(what.encode(), key=self._key, digest_size=8).digest()
        return int.from_bytes(digest, "little") / 2.0**64

    def at(self, state: BettingState, viewer: int) -> float:
        """The number for what ``viewer`` knows at ``state``: the hand, the position,
        the betting, its cards and the board."""
        return self(f"{state.hand_id}:{viewer}:{state.betting_string()}:{state.hole_cards[viewer]}:{state.board_cards}")


@nb.njit(cache=True)
def keyed_hash(seed, a, b):
    """64 well-mixed bits from the key (seed, a, b)."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(a) * np.uint64(0xBF58476D1CE4E5B9)
    x = x + np.uint64(b) * np.uint64(0x94D049BB133111EB) + np.uint64(0x632BE59BD9B4E019)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True)
def keyed_draw(seed, a, b, n):
    """A number in 0..n-1 from the key (seed, a, b)."""
    return np.int64(keyed_hash(seed, a, b) % np.uint64(n))


@nb.njit(cache=True)
def keyed_uniform(seed, a, b):
    """A number in [0, 1) from the key (seed, a, b) (53 bits)."""
    return np.float64(keyed_hash(seed, a, b) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
