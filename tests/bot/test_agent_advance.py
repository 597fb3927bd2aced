"""The agent walked decision by decision (``hand_state`` / ``set_hand_state`` /
``advance``) answers as it plays the line: the walk behind the subgame measure."""

import random

import numpy as np
import pytest

from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.bot.agent.time_budget import TimeBudget
from pokerbot.bot.players.strategy_query import query
from pokerbot.protocol.betting import CALL, ActionType, BettingState, apply_betting, raise_to
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import cfr

HUNL = bundled_game("holdem.nolimit.2p")


def turn_agent(blueprint, **options):
    # limits far from binding: every solve runs its full iteration count
    return LibratusAgent(4, blueprint, solve_seconds=1e6, budget=TimeBudget(1e9, 1e9, 1e9), **options)


def opponent(s):
    """Opens each round it can with 0.7 pot, else calls."""
    if not any(b.type is ActionType.RAISE for b in s.actions[s.round]) and s.raise_bounds() is not None:
        lo, hi = s.raise_bounds()
        return raise_to(min(max(s.max_spent + int(0.7 * s.pot), lo), hi))
    return CALL


def played_line(agent, deck, seat):
    """The agent playing from the turn of "r300c/cc/" against ``opponent``: each of its
    decisions' state and its answer there right after acting (the solution it played from)."""
    s = apply_betting(BettingState(HUNL, 7, [deck[0:2], deck[2:4]], deck[4:8]), "r300c/cc/")
    out = []
    while not s.finished:
        if len(s.board_cards) < HUNL.total_board_cards(s.round):
            s.deal_board_cards(deck[8:9])
        if s.current_player == seat:
            a = agent.act(MatchState(seat, s))
            out.append((s.copy(), query(agent, s, seat)))
            s.apply(a)
        else:
            s.apply(opponent(s))
    return out


@pytest.fixture
def few_iterations(monkeypatch):
    monkeypatch.setattr(cfr, "libratus_iterations", lambda pot, bb: 12)


@pytest.mark.parametrize("turn_solver", ["depth-limited", "full"])
def test_advancing_along_a_line_answers_as_play_does(small_blueprint, few_iterations, turn_solver):
    options = {"turn_solver": turn_solver}
    if turn_solver == "full":
        options["full_turn"] = (4, 12)
    checked = differs = 0
    for trial in range(12):
        deck = list(range(52))
        random.Random(trial).shuffle(deck)
        seat = trial % 2
        line = played_line(turn_agent(small_blueprint, **options), deck, seat)
        if len(line) < 2 or line[-1][0].round != 3:
            continue  # the agent must decide again on the river
        checked += 1
        walker = turn_agent(small_blueprint, **options)
        context = walker.hand_state()
        for state, played in line:
            walker.set_hand_state(context)
            walked = walker.advance(state.copy(), seat)
            context = walker.hand_state()
            assert walked.actions == played.actions
            assert np.array_equal(walked.probabilities, played.probabilities)
            # negative control: asked afresh, without the line's earlier decisions
            fresh = query(turn_agent(small_blueprint, **options), state, seat)
            differs += fresh.actions != played.actions or not np.array_equal(fresh.probabilities, played.probabilities)
        if checked >= 3:
            break
    assert checked >= 3
    assert differs >= checked  # each line has a decision a fresh question answers otherwise


def test_a_hand_state_set_back_answers_the_same(small_blueprint, few_iterations):
    agent = turn_agent(small_blueprint, turn_solver="depth-limited")
    s = apply_betting(BettingState(HUNL, 3, None, [0, 13, 26, 39]), "r300c/cc/")
    seat = s.current_player
    start = agent.hand_state()
    first = agent.advance(s.copy(), seat)
    after = agent.hand_state()
    assert agent.solution is not None
    agent.set_hand_state(start)
    assert agent.solution is None
    again = agent.advance(s.copy(), seat)
    assert np.array_equal(first.probabilities, again.probabilities)
    agent.set_hand_state(after)
    assert agent.solution is not None


def test_a_fixed_full_depth_turn_needs_the_full_solver(small_blueprint):
    with pytest.raises(ValueError, match="turn solver 'full'"):
        LibratusAgent(1, small_blueprint, full_turn=(4, 100))
    with pytest.raises(ValueError, match="iterations >= 1"):
        LibratusAgent(1, small_blueprint, turn_solver="full", full_turn=(4, 0))
