"""Reply times depend on public information only: from fixed public situations,
decisions with different private cards take indistinguishable times (two-sample
Kolmogorov-Smirnov), while the same test catches a deliberately card-dependent delay."""

import random
import time

import pytest
from scipy.stats import ks_2samp

from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.bot.agent.time_budget import ReplyClock, TimeBudget
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(600)
BOARD = [0, 17, 34, 51, 22]


def deals(pairs: bool, n: int, rng: random.Random, avoid=()):
    """n hole-card pairs for us (pocket pairs or not), and some cards for the opponent."""
    out = []
    while len(out) < n:
        a, b = rng.sample([c for c in range(52) if c not in avoid], 2)
        if (a // 4 == b // 4) == pairs:
            rest = [c for c in range(52) if c not in (a, b, *avoid)]
            out.append([[a, b], rng.sample(rest, 2)])
    return out


def reply_times(agent, holes, make_state, me):
    times = []
    for k, (ours, theirs) in enumerate(holes):
        hole = [ours, theirs] if me == 0 else [theirs, ours]
        ms = MatchState(me, make_state(1000 + k, hole))
        t0 = time.perf_counter()
        agent.act(ms)
        times.append(time.perf_counter() - t0)
        agent.hand_over(ms)
    return times


def two_groups(agent, rng, n, make_state, me, avoid=()):
    """Reply times with pocket pairs and without, the two kinds interleaved in a random
    order (so a drift of the machine's speed over the run cannot pass for a difference)."""
    holes = [(True, d) for d in deals(True, n, rng, avoid)] + [(False, d) for d in deals(False, n, rng, avoid)]
    rng.shuffle(holes)
    times = reply_times(agent, [d for _, d in holes], make_state, me)
    pairs = [t for (p, _), t in zip(holes, times) if p]
    others = [t for (p, _), t in zip(holes, times) if not p]
    return pairs, others


def preflop(hand, hole):
    return BettingState(HUNL, hand, hole)


def river(hand, hole):
    st = apply_betting(BettingState(HUNL, hand, hole), "r300c/cc/cc/")
    st.deal_board_cards(BOARD)
    return st


def delayed_for_pairs(agent, seconds):
    """Wrap the blueprint lookup with a delay when we hold a pocket pair."""
    inner = agent.blueprint.action

    def action(state, me, u):
        a, b = state.hole_cards[me]
        if a // 4 == b // 4:
            time.sleep(seconds)
        return inner(state, me, u)

    agent.blueprint.action = action
    return agent


def test_preflop_reply_times_do_not_depend_on_our_cards(small_blueprint):
    rng = random.Random(1)
    me = BettingState(HUNL).current_player
    agent = LibratusAgent(solve_round="river", seed=1, blueprint=small_blueprint, clock=ReplyClock(0.005))
    reply_times(agent, deals(False, 20, rng), preflop, me)  # warm caches
    pairs, others = two_groups(agent, rng, 150, preflop, me)
    assert ks_2samp(pairs, others).pvalue > 1e-3
    assert min(pairs + others) >= 0.005  # held to the grid


def test_the_same_test_detects_a_card_dependent_delay(small_blueprint):
    rng = random.Random(2)
    me = BettingState(HUNL).current_player
    # without the grid, a 1 ms delay for pairs shows
    agent = delayed_for_pairs(
        LibratusAgent(solve_round="river", seed=2, blueprint=small_blueprint, clock=ReplyClock(0)), 0.001
    )
    reply_times(agent, deals(False, 20, rng), preflop, me)
    pairs, others = two_groups(agent, rng, 100, preflop, me)
    assert ks_2samp(pairs, others).pvalue < 1e-6
    # with the grid, a delay longer than the grid still shows
    agent = delayed_for_pairs(
        LibratusAgent(solve_round="river", seed=2, blueprint=small_blueprint, clock=ReplyClock(0.005)), 0.008
    )
    pairs, others = two_groups(agent, rng, 60, preflop, me)
    assert ks_2samp(pairs, others).pvalue < 1e-6


@pytest.mark.parametrize("planned", [False, True], ids=["fixed-cap", "time-plan"])
def test_river_solve_reply_times_do_not_depend_on_our_cards(small_blueprint, planned):
    """With a fixed cap, and with the time plan (each solve's cap from the bank, which
    changes hand by hand: public, and the two kinds of hands are interleaved)."""
    rng = random.Random(3)
    me = 1 - river(0, [[48, 49], [20, 30]]).current_player  # act second: the opponent checked
    timing = {"budget": TimeBudget(t_per_hand=0.5)} if planned else {"solve_seconds": 0.15}
    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, clock=ReplyClock(0.02), **timing)

    def after_check(hand, hole):
        return apply_betting(river(hand, hole), "r300c/cc/cc/c", len("r300c/cc/cc/"))

    reply_times(agent, deals(False, 2, rng, BOARD), after_check, me)
    pairs, others = two_groups(agent, rng, 15, after_check, me, BOARD)
    assert ks_2samp(pairs, others).pvalue > 1e-3
