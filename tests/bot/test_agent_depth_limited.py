"""The agent with depth-limited turn solving: an unsafe depth-limited solve at its
first turn decision (leaves with the blueprint's continuations), a safe re-solve of
the same kind after an opponent's bet, and a new unsafe river solve whose ranges are
the turn solution's, by Bayes' rule along the line played."""

import numpy as np
import pytest
from conftest import capture_agent_logs as capture_logs
from conftest import reach_along, record_solve_jobs

from pokerbot.bot.agent.config import AgentConfig
from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.bot.agent.time_budget import TimeBudget
from pokerbot.protocol.betting import CALL, BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import cfr
from pokerbot.solver import ranges as rg
from pokerbot.solver.tree import LEAF

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(300)
BOARD = [0, 17, 34, 51, 22]


def turn_state(hand):
    st = BettingState(HUNL, hand, [[48, 49], [20, 30]])
    st = apply_betting(st, "r300c/cc/")
    st.deal_board_cards(BOARD[:4])
    return st


@pytest.fixture(scope="module", autouse=True)
def kernels_loaded(small_blueprint):
    """The agent's kernels loaded (or compiled) before its timed decisions, as a player
    does before its first hand: a compile inside a decision would spend its 1 s."""
    LibratusAgent(seed=3, blueprint=small_blueprint, solve_round="turn").prepare()


#: each solve's count in these tests: bound by iterations, not by the clock, so that a
#: busy machine plays the same solves (a second's deadline there can leave none)
ITERATIONS = 120


@pytest.fixture(autouse=True)
def few_iterations(monkeypatch):
    monkeypatch.setattr(cfr, "libratus_iterations", lambda pot, big_blind: ITERATIONS)


def agent(small_blueprint, solve_seconds=60.0, **kw):
    kw.setdefault("budget", TimeBudget(600.0, 600.0, 600.0))
    return LibratusAgent(
        seed=3,
        blueprint=small_blueprint,
        solve_seconds=solve_seconds,
        solve_round="turn",
        turn_solver="depth-limited",
        **kw,
    )


def test_the_turn_is_solved_to_its_end_and_the_river_from_the_turn_solution(small_blueprint):
    me = 1  # acts second after the flop
    reached_river = 0
    for hand in range(1, 8):
        bot = agent(small_blueprint)
        st = turn_state(hand)
        st.apply(CALL)  # the opponent checks
        with capture_logs() as logs:
            st.apply(bot.act(MatchState(me, st)))
        turn = bot.solution
        assert turn.sub.continuations is not None and turn.sub.tree.num_leaves > 0
        assert turn.leaf_strategy is not None and turn.kind == "unsafe"
        solves = [e for e in logs if e["event"] == "solve"]
        assert any(e.get("depth_limited") for e in solves)
        assert all(e["iterations"] == ITERATIONS and not e["stopped_early"] for e in solves), solves
        if st.finished or st.round != 2:
            continue
        if st.round == 2 and st.current_player != me:
            st.apply(CALL)  # the opponent calls our bet
        if st.finished or st.round != 3 or st.raise_bounds() is None:
            continue
        st.deal_board_cards(BOARD[4:])
        st.apply(CALL)  # the opponent checks the river
        # the turn solution's reach of both players at the leaf the hand reached, by
        # Bayes' rule along the line (our strategy's rows for our actions)
        sub = turn.sub
        node, expected = reach_along(turn, st.actions[2])
        assert sub.tree.kind[node] == LEAF
        a = bot.act(MatchState(me, st))
        assert st.can_apply(a)
        river = bot.solution
        assert river.root.round == 3 and river.kind == "unsafe" and river.sub.continuations is None
        full = np.zeros((2, 1326))
        full[:, sub.hand_index] = expected
        full[:, rg.blocked_by(rg.hole_hands(HUNL), tuple(BOARD))] = 0.0
        np.testing.assert_allclose(river.sub.reach, full[:, river.sub.hand_index], rtol=1e-5, atol=1e-9)
        reached_river += 1
    assert reached_river >= 2


def test_a_bet_on_the_turn_gets_a_safe_depth_limited_resolve(small_blueprint):
    me = 1
    bot = agent(small_blueprint)
    st = turn_state(9)
    st.apply(CALL)
    bot.act(MatchState(me, st))  # our first turn decision: the unsafe solve
    sol = bot.solution
    # the opponent leads instead, another hand: first decision after their bet
    bot = agent(small_blueprint)
    st = turn_state(10)
    bounds = st.raise_bounds()
    st.apply(apply_betting(BettingState(HUNL), f"r{bounds[0] + 200}").actions[0][0])
    a = bot.act(MatchState(me, st))
    assert st.can_apply(a)
    assert bot.solution.sub.tree.num_leaves > 0 and sol.sub.tree.num_leaves > 0
    # we call: the opponent bets again after the river... instead raise back on the turn:
    # a safe re-solve from the state after the opponent's raise, still depth-limited
    if a.type.name == "RAISE":
        st.apply(a)
        lo, hi = st.raise_bounds()
        st.apply(apply_betting(BettingState(HUNL), f"r{hi}").actions[0][0])
        if not st.finished and st.current_player == me:
            a2 = bot.act(MatchState(me, st))
            assert st.can_apply(a2)
            assert bot.solution.kind in ("safe", "nested")


def test_a_bad_turn_solver_name_is_refused(small_blueprint):
    with pytest.raises(ValueError, match="turn solver"):
        LibratusAgent(seed=1, blueprint=small_blueprint, solve_round="turn", turn_solver="deep")


def test_solves_average_linearly_on_the_depth_limited_turn_and_quadratically_elsewhere(small_blueprint, monkeypatch):
    """The depth-limited turn (one river card a pass) weighs iteration t by t in its
    average; the river and the depth-limited flop by t^2 (libratus.average_exponent)."""

    recorded = record_solve_jobs(monkeypatch)
    st = turn_state(1)
    st.apply(CALL)  # the opponent checks the turn
    assert st.can_apply(agent(small_blueprint).act(MatchState(1, st)))
    river = apply_betting(BettingState(HUNL, 2, [[48, 49], [20, 30]]), "r300c/cc/cc/")
    river.deal_board_cards(BOARD)
    river.apply(CALL)  # and the river
    bot = LibratusAgent(seed=3, blueprint=small_blueprint, solve_seconds=60.0, solve_round="river")
    assert river.can_apply(bot.act(MatchState(1, river)))
    flop = apply_betting(BettingState(HUNL, 3, [[48, 49], [20, 30]]), "r300c/")
    flop.deal_board_cards(BOARD[:3])
    flop.apply(CALL)  # and the flop
    searcher = LibratusAgent(seed=3, blueprint=small_blueprint, solve_seconds=60.0, solve_round="flop")
    assert flop.can_apply(searcher.act(MatchState(1, flop)))
    sampled = AgentConfig().card_samples
    jobs = [(job.card_samples, job.average_exponent) for job in recorded]
    assert jobs == [(sampled, 1.0), (0, 2.0), (sampled, 2.0)] and sampled > 0


def test_a_pass_values_card_samples_cards_whatever_the_threads(small_blueprint):
    """card_samples a pass at any thread count (the threads share the pass: more of them
    buy iterations), every card once that is all of them; 0 stays every card."""
    from types import SimpleNamespace

    turn = SimpleNamespace(continuations=SimpleNamespace(cards=list(range(48))))
    full = SimpleNamespace(continuations=None)  # a tree without leaves (after an all-in)
    cases = ((1, 1, 1), (4, 1, 1), (16, 1, 1), (16, 2, 2), (2, 47, 47), (1, 48, 0), (8, 64, 0), (4, 0, 0))
    for threads, card_samples, expected in cases:
        bot = LibratusAgent(seed=1, blueprint=small_blueprint, threads=threads, card_samples=card_samples)
        assert bot.pass_samples(turn) == expected, (threads, card_samples)
        assert bot.pass_samples(full) == 0


def test_the_agent_solves_the_same_turn_on_one_thread_and_on_two(small_blueprint):
    """The cards a pass do not grow with the threads, so an agent on two solver threads
    plays the solve one thread plays, bit for bit (no deadline near, the dealer's limits
    included: one stopped by the clock could stop at another iteration)."""
    solutions = []
    for threads in (1, 2):
        bot = agent(small_blueprint, threads=threads)
        st = turn_state(4)
        st.apply(CALL)  # the opponent checks
        with capture_logs() as logs:
            bot.act(MatchState(1, st))
        solves = [e for e in logs if e["event"] == "solve"]
        assert solves and not any(e["stopped_early"] for e in solves), solves  # each ran its count
        solutions.append(bot.solution)
    one, two = solutions
    assert one.sub.continuations is not None and one.leaf_strategy is not None
    assert np.array_equal(one.strategy, two.strategy) and np.array_equal(one.leaf_strategy, two.leaf_strategy)
