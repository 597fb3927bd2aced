"""``pokerbot selfcheck``: play random hands of every bundled game through the rules
and the wire format, and check what must always hold.

For each hand: cards dealt from the game's deck, random legal actions (raise sizes
across the whole legal range), and after every action both players' MATCHSTATE lines
must parse back to the same state; at the end the payoffs must sum to zero, stay
within the stacks, and the log ``STATE:`` line must round-trip. Showdowns are ranked
both by the rules' definition and by the numba evaluator, which must agree.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.gamedef import GameDef, bundled_game, bundled_game_names
from pokerbot.protocol.hand_rank import hand_strength
from pokerbot.protocol.matchstate import (
    format_matchstate,
    format_state_line,
    parse_matchstate,
    parse_next_matchstate,
    parse_state_line,
    view_of,
)
from pokerbot.solver import evaluator


@dataclass
class GameReport:
    name: str
    hands: int = 0
    actions: int = 0
    showdowns: int = 0
    all_ins: int = 0
    rounds_reached: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def random_action(state: BettingState, rng: random.Random) -> None:
    bounds = state.raise_bounds()
    u = rng.random()
    if state.can_fold() and u < 0.1:
        state.fold()
    elif bounds is None or u < 0.5:
        state.call()
    elif state.game.is_nolimit:
        lo, hi = bounds
        state.raise_to(rng.choice([lo, hi, rng.randint(lo, hi), min(hi, lo + rng.randint(0, state.pot))]))
    else:
        state.raise_to()


def check_game(name: str, game: GameDef, hands: int, seed: int) -> GameReport:
    rep = GameReport(name, rounds_reached=[0] * game.num_rounds)
    rng = random.Random(seed)
    t0 = time.perf_counter()
    deck = game.deck()
    nh = game.num_hole_cards
    nb = game.total_board_cards(game.num_rounds - 1)
    for hand in range(hands):
        cards = rng.sample(deck, 2 * nh + nb)
        state = BettingState(game, hand, [cards[:nh], cards[nh : 2 * nh]], cards[2 * nh :])
        prev: list = [(None, None), (None, None)]  # per viewer: last line and parse
        try:
            while not state.finished:
                random_action(state, rng)
                rep.actions += 1
                for viewer in (0, 1):
                    text = format_matchstate(view_of(state, viewer))
                    again = parse_matchstate(text, game)
                    if format_matchstate(again) != text or again.state.spent != state.spent:
                        raise AssertionError(f"MATCHSTATE round trip changed {text!r}")
                    # the client's incremental parse must agree with the full one
                    step = parse_next_matchstate(text, game, prev[viewer][0], prev[viewer][1])
                    if format_matchstate(step) != text or step.state.current_player != again.state.current_player:
                        raise AssertionError(f"incremental parse differs at {text!r}")
                    prev[viewer] = (text, step)
            pay = state.payoffs()
            if sum(pay) != 0 or any(abs(v) > max(game.stack) for v in pay):
                raise AssertionError(f"payoffs {pay} at {state.betting_string()!r}")
            if state.is_showdown:
                rep.showdowns += 1
                board = state.visible_board()
                if nh + len(board) <= evaluator.MAX_CARDS:
                    fast = evaluator.evaluate_hands(np.array([h + board for h in state.hole_cards]))
                    slow = [hand_strength(h + board) for h in state.hole_cards]
                    if fast.tolist() != slow:
                        raise AssertionError(
                            f"evaluator {fast.tolist()} != rules {slow} for {state.hole_cards} {board}"
                        )
            line = format_state_line(state, pay, ["A", "B"])
            if format_state_line(parse_state_line(line, game).state, pay, ["A", "B"]) != line:
                raise AssertionError(f"STATE line round trip changed {line!r}")
        except Exception as e:  # report, keep checking
            rep.failures.append(f"hand {hand}: {type(e).__name__}: {e}")
            if len(rep.failures) >= 5:
                break
        rep.hands += 1
        rep.all_ins += any(state.is_all_in(p) for p in (0, 1))
        rep.rounds_reached[state.round] += 1
    rep.seconds = time.perf_counter() - t0
    return rep


def run_selfcheck(hands: int = 2000, seed: int = 0, games: list[str] | None = None) -> bool:
    names = games or bundled_game_names()
    print(f"Rules self-check: {hands} random hands per game, seed {seed}")
    print(f"{'game':<20}{'hands':>7}{'actions':>9}{'showdowns':>11}{'all-ins':>9}  hands ending in round 1..n   result")
    ok = True
    for i, name in enumerate(names):
        rep = check_game(name, bundled_game(name), hands, seed + i)
        status = "ok" if not rep.failures else f"FAILED ({len(rep.failures)})"
        print(
            f"{name:<20}{rep.hands:>7}{rep.actions:>9}{rep.showdowns:>11}{rep.all_ins:>9}  "
            f"{' '.join(str(x) for x in rep.rounds_reached):<28}  {status}  [{rep.seconds:.1f}s]"
        )
        for f in rep.failures:
            print(f"    {f}")
        ok &= not rep.failures
    print("self-check passed" if ok else "self-check FAILED")
    return ok
