"""``--turn-solver auto``: the speed model, the choice between the full-depth turn solve
(k river cards a pass) and the depth-limited one by what the deadline buys, and the
agent that plays a sampled full-depth turn solution and solves the river anew."""

import numpy as np
import pytest
from conftest import capture_agent_logs as capture_logs
from conftest import reach_along, record_solve_jobs

from pokerbot.bot.agent import solving, turn_choice
from pokerbot.bot.agent.libratus import SUBGAME_SIZES, LibratusAgent
from pokerbot.bot.agent.turn_choice import TurnSpeed, choose_turn_solve, speed_spot_cached, work_of
from pokerbot.protocol.betting import CALL, BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import ranges as rg

HUNL = bundled_game("holdem.nolimit.2p")
SIZES = {2: SUBGAME_SIZES[2], 3: SUBGAME_SIZES[3]}
BOARD = [0, 17, 34, 51, 22]
pytestmark = pytest.mark.timeout(600)


def test_the_model_costs_a_pass_by_its_top_and_its_cards_river_subtrees():
    sub = speed_spot_cached(SIZES)
    top, river, n = work_of(sub)
    assert n == 48 and 0 < top < river
    speed = TurnSpeed(1, per_top=2e-9, per_river=1e-9, per_fixed=1e-8)
    assert speed.iteration_seconds(sub, 0) == pytest.approx(2e-9 * top + 1e-9 * river)
    assert speed.iteration_seconds(sub, 48) == speed.iteration_seconds(sub, 0)
    assert speed.iteration_seconds(sub, 4) == pytest.approx(2e-9 * top + 1e-9 * river * 4 / 48)
    assert speed.fixed_seconds(sub) == pytest.approx(1e-8 * sub.tree.num_nodes * len(sub.hands))


def test_the_choice_follows_the_exact_iterations_the_deadline_buys(monkeypatch):
    """Below the table's first row the depth-limited solve; from it on full depth with
    the k of the last row reached, capped at Libratus's exact count in river subtrees."""
    sub = speed_spot_cached(SIZES)
    speed = TurnSpeed(1, per_top=0.0, per_river=1e-9, per_fixed=0.0)
    exact = speed.iteration_seconds(sub, 0)
    monkeypatch.setattr(turn_choice, "FULL_CARDS_BY_EXACT_ITERATIONS", ((10.0, 1), (100.0, 4), (1000.0, 48)))
    for fits, solver, cards in ((5, "depth-limited", 0), (20, "full", 1), (150, "full", 4), (2000, "full", 0)):
        c = choose_turn_solve(sub, fits * exact, speed, 1000)
        assert (c.solver, c.cards) == (solver, cards) and c.exact_iterations == pytest.approx(fits)
        if solver == "full":
            assert c.iterations == 1000 * 48 // (cards or 48)
    slow = TurnSpeed(1, per_top=0.0, per_river=1e-9, per_fixed=1.0)  # the fixed cost eats the deadline
    assert choose_turn_solve(sub, 20 * exact, slow, 1000).solver == "depth-limited"


def test_the_measurement_recovers_the_costs_of_a_solve(monkeypatch):
    """On a clock that a solve advances by a known cost (a fixed part, and per iteration
    per node-hand above the river subtrees and of the subtrees walked), the measured
    speed is that cost; a run slowed by another process does not count (the fastest of
    the repeats). The real solve is timed by ``test_a_real_measurement_prices_more_cards_higher``."""
    from pokerbot.solver import cfr

    sub = speed_spot_cached(SIZES)
    top, river, n = work_of(sub)
    cells = sub.tree.num_nodes * len(sub.hands)
    now = [0.0]
    calls = [0]

    def solve(s, iterations, threads=1, chance_samples=0, seed=0, strategy_dtype=np.float64):
        assert strategy_dtype == cfr.SOLVE_DTYPE  # timed as a worker answers a tree with chance nodes
        k = chance_samples or n
        calls[0] += 1
        slow = 0.5 if calls[0] % 3 == 2 else 0.0  # every third run of each kind is held up
        now[0] += 2e-8 * cells + iterations * (3e-10 * top + 2e-9 * river * k / n) + slow
        return cfr.SolveResult(np.zeros((1, 1)), iterations, False, 0.0)

    class Clock:
        @staticmethod
        def perf_counter():
            return now[0]

    monkeypatch.setattr(cfr, "solve", solve)
    monkeypatch.setattr(turn_choice, "time", Clock)
    speed = turn_choice.measure_turn_speed(sub, 2)
    assert speed.threads == 2
    assert speed.per_top == pytest.approx(3e-10, rel=1e-6) and speed.per_river == pytest.approx(2e-9, rel=1e-6)
    assert speed.per_fixed == pytest.approx(turn_choice.FIXED_MARGIN * 2e-8, rel=1e-6)


def test_a_real_measurement_prices_more_cards_higher():
    """A real measurement (whatever the machine's load) gives a positive fixed cost and
    a model that never prices more cards a pass lower."""
    speed = turn_choice.measure_turn_speed(speed_spot_cached(SIZES), 1, repeats=1)
    sub = speed_spot_cached(SIZES)
    assert speed.per_fixed > 0 and speed.per_top >= 0 and speed.per_river >= 0
    assert speed.iteration_seconds(sub, 1) <= speed.iteration_seconds(sub, 8) <= speed.iteration_seconds(sub, 0)
    assert speed.iteration_seconds(sub, 0) > 0


def turn_state(hand):
    st = apply_betting(BettingState(HUNL, hand, [[48, 49], [20, 30]]), "r300c/cc/")
    st.deal_board_cards(BOARD[:4])
    return st


#: A speed at which a 1.5 s deadline buys thousands of exact iterations, and one at
#: which it buys none: the choice cannot depend on how long this machine takes.
FAST = TurnSpeed(1, per_top=1e-13, per_river=1e-13, per_fixed=1e-12)
SLOW = TurnSpeed(1, per_top=1e-5, per_river=1e-5, per_fixed=1e-12)


def test_auto_solves_full_depth_where_the_deadline_buys_it_and_the_river_anew(small_blueprint, monkeypatch):
    """auto with a fast measured speed: a sampled full-depth turn solve (the log says
    turn_solver full, its river cards a pass and iterations); at the river the hand
    reached, an unsafe river solve from that solution's ranges by Bayes' rule. With a
    slow speed, or none measured, the depth-limited solve."""

    monkeypatch.setattr(turn_choice, "FULL_CARDS_BY_EXACT_ITERATIONS", ((10.0, 2),))
    monkeypatch.setattr(solving, "RIVER_PASSES_TO_PLAY", 10**9)  # every river solved anew
    me = 1
    reached_river = 0
    for hand in range(1, 6):
        bot = LibratusAgent(seed=3, blueprint=small_blueprint, solve_seconds=1.5, solve_round="turn")
        bot.speed = FAST
        st = turn_state(hand)
        st.apply(CALL)  # the opponent checks
        with capture_logs() as logs:
            st.apply(bot.act(MatchState(me, st)))
        turn = bot.solution
        solves = [e for e in logs if e["event"] == "solve"]
        assert len(solves) == 1 and solves[0]["turn_solver"] == "full" and solves[0]["card_samples"] == 2
        assert solves[0]["iterations"] >= 1 and solves[0]["depth_limited"] is False
        decision = next(e for e in logs if e["event"] == "decision")
        assert decision["turn_solver"] == "full" and decision["iterations"] == solves[0]["iterations"]
        assert turn.next_round_solved and turn.sub.tree.num_chance > 0 and turn.leaf_strategy is None
        if st.finished or st.round != 2:
            continue
        if st.current_player != me:
            st.apply(CALL)  # the opponent calls our bet
        if st.finished or st.round != 3 or st.raise_bounds() is None:
            continue
        st.deal_board_cards(BOARD[4:])
        st.apply(CALL)  # the opponent checks the river
        node, expected = reach_along(turn, [*st.actions[2]])
        np.testing.assert_allclose(turn.reaches_at(node), expected)
        with capture_logs() as logs:
            a = bot.act(MatchState(me, st))
        assert st.can_apply(a)
        river = bot.solution
        assert river.root.round == 3 and river.kind == "unsafe" and river.sub.tree.num_chance == 0
        assert not any("turn_solver" in e for e in logs)
        full = np.zeros((2, 1326))
        full[:, turn.sub.hand_index] = expected
        full[:, rg.blocked_by(rg.hole_hands(HUNL), tuple(BOARD))] = 0.0
        np.testing.assert_allclose(river.sub.reach, full[:, river.sub.hand_index], rtol=1e-9, atol=1e-12)
        reached_river += 1
    assert reached_river >= 1
    for speed in (SLOW, None):
        bot = LibratusAgent(seed=3, blueprint=small_blueprint, solve_seconds=1.5, solve_round="turn")
        bot.speed = speed
        st = turn_state(1)
        st.apply(CALL)
        with capture_logs() as logs:
            bot.act(MatchState(me, st))
        solve = next(e for e in logs if e["event"] == "solve")
        assert solve["turn_solver"] == "depth-limited" and solve["depth_limited"] is True
        assert bot.solution.sub.tree.num_leaves > 0 and not bot.solution.next_round_solved


def test_full_always_solves_full_depth(small_blueprint, monkeypatch):
    """--turn-solver full: full depth whatever the speed, the first row's river cards a
    pass where the deadline buys no row of the table (or no speed is measured), with
    Discounted CFR's regrets and a quadratic average; a depth-limited turn solve keeps
    CFR+ and a linear one."""
    from pokerbot.solver import cfr

    jobs = record_solve_jobs(monkeypatch)
    bot = LibratusAgent(
        seed=3, blueprint=small_blueprint, solve_seconds=1.0, solve_round="turn", turn_solver="depth-limited"
    )
    st = turn_state(2)
    st.apply(CALL)
    bot.act(MatchState(1, st))
    assert jobs[-1].discount is None and jobs[-1].average_exponent == 1.0 and jobs[-1].chance_samples == 0
    for speed in (SLOW, None):
        bot = LibratusAgent(
            seed=3, blueprint=small_blueprint, solve_seconds=1.0, solve_round="turn", turn_solver="full"
        )
        bot.speed = speed
        st = turn_state(2)
        st.apply(CALL)
        with capture_logs() as logs:
            assert st.can_apply(bot.act(MatchState(1, st)))
        solve = next(e for e in logs if e["event"] == "solve")
        assert (
            solve["turn_solver"] == "full" and solve["card_samples"] == turn_choice.FULL_CARDS_BY_EXACT_ITERATIONS[0][1]
        )
        assert bot.solution.sub.tree.num_chance > 0
        assert jobs[-1].discount == cfr.DCFR and jobs[-1].average_exponent == 2.0 and jobs[-1].chance_samples > 0


def test_the_river_is_solved_anew_after_a_solution_that_walked_its_subtrees_little(small_blueprint, monkeypatch):
    """Each river subtree walked on iterations x k / 48 passes: under RIVER_PASSES_TO_PLAY
    the river is solved anew, from there on the solution's own river is played (an exact
    solution's always)."""

    sub = speed_spot_cached(SIZES)
    solved = solving.river_solved_after
    assert solved(sub, 4, 2399) and not solved(sub, 4, 2400) and not solved(sub, 0, 10)
    assert solved(sub, 16, 599) and not solved(sub, 16, 600)
    monkeypatch.setattr(solving, "RIVER_PASSES_TO_PLAY", 0)
    monkeypatch.setattr(turn_choice, "FULL_CARDS_BY_EXACT_ITERATIONS", ((10.0, 2),))
    bot = LibratusAgent(seed=3, blueprint=small_blueprint, solve_seconds=1.0, solve_round="turn")
    bot.speed = FAST
    st = turn_state(3)
    st.apply(CALL)
    bot.act(MatchState(1, st))
    assert bot.solution.sub.tree.num_chance > 0 and not bot.solution.next_round_solved


def fixed_full_turn_agent(small_blueprint, **options) -> LibratusAgent:
    """An agent with ``options`` that solves each turn at full depth, 4 river cards a
    pass and 12 iterations, whatever the time (``full_turn``)."""
    return LibratusAgent(
        seed=3, blueprint=small_blueprint, solve_round="turn", turn_solver="full", full_turn=(4, 12), solve_seconds=1e6,
        **options,
    )  # fmt: skip


def test_the_river_passes_option_sets_when_the_river_is_solved_anew(small_blueprint):
    """``river_passes``: the same 12-iteration solve at 4 cards a pass (1 pass a river
    subtree) is followed by a river solve by default and with 2 passes, not with 0 or 1."""
    solved = {}
    for passes in (None, 2, 1, 0):
        bot = fixed_full_turn_agent(small_blueprint, river_passes=passes)
        st = turn_state(3)
        st.apply(CALL)
        bot.act(MatchState(1, st))
        solved[passes] = bot.solution.next_round_solved
    assert solved == {None: True, 2: True, 1: False, 0: False}
    with pytest.raises(ValueError, match="river passes"):
        LibratusAgent(seed=3, blueprint=small_blueprint, river_passes=-1)


@pytest.mark.parametrize("round_", [2, 3])
def test_a_safe_first_solve_enters_against_the_blueprints_own_values(small_blueprint, monkeypatch, round_):
    """``first_solve="safe"``: the round's first solve (the turn's; the river's for the
    river-only agent) runs the gadget for the opponent, every opponent hand may enter,
    and the alternatives are the opponent's values when both play the blueprint from the
    round's start: weighted by the opponent's blueprint range they give minus what a walk
    of the blueprint players wins for us there (the subgame measure, another path: real
    actions, every river card)."""
    from pokerbot.bot.evaluation.subgame_value import decider_for, subgame_value
    from pokerbot.bot.players.blueprint_player import BlueprintStrategy
    from pokerbot.bot.players.strategy_query import HANDS
    from pokerbot.solver.showdown_pass import compat_sums

    jobs = record_solve_jobs(monkeypatch)
    st = turn_state(3)
    if round_ == 2:
        bot = fixed_full_turn_agent(small_blueprint, first_solve="safe")
    else:
        bot = LibratusAgent(
            seed=3, blueprint=small_blueprint, solve_round="river", first_solve="safe", solve_seconds=1e6
        )
        st.apply(CALL)
        st.apply(CALL)  # the turn checked through
        st.deal_board_cards(BOARD[4:])
    me = st.current_player
    bot.act(MatchState(me, st))
    assert bot.solution.kind == "safe" and len(jobs) == 1
    assert (jobs[0].sub.tree.num_chance > 0) == (round_ == 2)  # the turn's reaches the river; the river's ends
    gadget = jobs[0].gadget
    assert gadget is not None and gadget.player == 1 - me
    root = st.copy()
    root.hole_cards = [[], []]
    ranges = bot.blueprint.round_start_ranges(root, me)
    sub = jobs[0].sub
    alt = np.zeros(len(HANDS))
    alt[sub.hand_index] = gadget.alt_values
    # the opponent's total under the blueprint, by its range and the pairs it makes with ours
    weights = np.zeros(sub.hands.shape[0])
    compat_sums(ranges[me][sub.hand_index], sub.c1, sub.c2, sub.dup, weights)
    theirs = ranges[1 - me][sub.hand_index] * weights
    opponent = float((theirs * gadget.alt_values).sum() / theirs.sum())
    players = [decider_for(BlueprintStrategy(1, small_blueprint)) for _ in range(2)]
    ours = subgame_value(root, ranges, players, me).value
    assert opponent == pytest.approx(-ours, rel=1e-6, abs=1e-6)
    assert not np.allclose(alt[sub.hand_index], alt[sub.hand_index].mean())  # values differ by hand


def test_river_ranges_from_the_blueprint_give_the_river_solve_the_opponents_blueprint_range(
    small_blueprint, monkeypatch
):
    """``river_ranges="blueprint"``: the river solved anew after a turn solution takes the
    opponent's range from the blueprint's play of the line, ours from the solution;
    by default both come from the solution."""
    jobs = record_solve_jobs(monkeypatch)
    opponent = {}
    for ranges in ("solution", "blueprint"):
        jobs.clear()
        bot = fixed_full_turn_agent(small_blueprint, river_ranges=ranges)
        st = turn_state(3)
        st.apply(CALL)
        bot.act(MatchState(1, st))
        st.apply(CALL)  # checked through
        st.deal_board_cards(BOARD[4:])
        st.apply(CALL)
        bot.act(MatchState(1, st))
        river = jobs[-1].sub
        assert len(jobs) == 2 and river.tree.num_chance == 0
        opponent[ranges] = river.reach[0]
        expected = bot.blueprint.round_start_ranges(st, 1)[0][river.hand_index]
    assert np.allclose(opponent["blueprint"] / opponent["blueprint"].max(), expected / expected.max())
    assert not np.allclose(opponent["solution"] / opponent["solution"].max(), expected / expected.max())
