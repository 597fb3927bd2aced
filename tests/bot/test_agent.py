"""The agent's solving path on the river: the first solve (unsafe, with an opponent's
bet already at the root), a safe re-solve after an on-tree raise (gifts updated), a
nested re-solve after an off-tree raise, and the unsafe comparison bot."""

import numpy as np
import pytest
from conftest import capture_agent_logs as capture_logs

from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import cards_to_str
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(300)


def river_state(betting, hand=3):
    st = BettingState(HUNL, hand, [[48, 49], [20, 30]])
    st = apply_betting(st, "r300c/cc/cc/")
    st.deal_board_cards([0, 17, 34, 51, 22])
    return apply_betting(st, "r300c/cc/cc/" + betting, start=len("r300c/cc/cc/")) if betting else st


def kids(tree, node):
    f, m = int(tree.first_child[node]), int(tree.num_children[node])
    return [str(tree.actions[c]) for c in range(f, f + m)]


def child(tree, node, label):
    return int(tree.first_child[node]) + kids(tree, node).index(label)


def test_first_safe_and_nested_solves_on_the_river(small_blueprint):
    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=1.0)
    first_to_act = river_state("").current_player
    me = 1 - first_to_act
    # the opponent bets 400 (a pot-size bet is 600: off the subgame's sizes) at the root
    st = river_state("r700")
    a = agent.act(MatchState(me, st))
    assert st.can_apply(a)
    sol = agent.solution
    assert sol.kind == "unsafe" and sol.root.betting_string() == "r300c/cc/cc/"
    assert "r700" in [str(x) for x in sol.sub.tree.actions if x is not None]
    # another hand: the opponent checks, we bet a size of the tree, the opponent raises on-tree: safe re-solve
    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=1.0)
    agent.act(MatchState(me, river_state("c", hand=4)))
    tree = agent.solution.sub.tree
    check = child(tree, 0, "c")
    our_bet = next(k for k in kids(tree, check) if k[0] == "r")
    their = next(k for k in kids(tree, child(tree, check, our_bet)) if k[0] == "r")
    st2 = river_state("c" + our_bet + their, hand=4)
    a2 = agent.act(MatchState(me, st2))
    assert st2.can_apply(a2)
    assert agent.solution.kind == "safe" and agent.solution.root.betting_string() == st2.betting_string()
    assert np.abs(agent.gifts).sum() > 0  # what the opponent gave up by raising
    # an off-tree re-raise: nested solve from the state after it
    agent2 = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=1.0)
    agent2.act(MatchState(me, river_state("c", hand=4)))
    lo = int(our_bet[1:])
    odd = f"r{lo + (20000 - lo) // 3 + 7}"
    st3 = river_state("c" + our_bet + odd, hand=4)
    a3 = agent2.act(MatchState(me, st3))
    assert st3.can_apply(a3) and agent2.solution.kind == "nested"


def test_a_river_subgame_has_more_bet_sizes_than_the_blueprint(small_blueprint):
    """River-rooted solves use RIVER_SUBGAME_SIZES (five sized bets, scaled by the hand's
    factor, plus all-in), not the blueprint's two."""
    from pokerbot.bot.agent.libratus import RIVER_SUBGAME_SIZES

    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=0.3)
    me = 1 - river_state("").current_player
    agent.act(MatchState(me, river_state("c", hand=5)))
    tree = agent.solution.sub.tree
    bets = [int(k[1:]) - 300 for k in kids(tree, child(tree, 0, "c")) if k[0] == "r"]
    assert len(bets) == len(RIVER_SUBGAME_SIZES.bets[0]) + 1 and bets[-1] == 20000 - 300
    fractions = [b / 600 / agent.bet_scale for b in bets[:-1]]
    assert fractions == pytest.approx(list(RIVER_SUBGAME_SIZES.bets[0]), abs=0.01)


def test_unsafe_bot_resolves_without_gadget(small_blueprint):
    agent = LibratusAgent(solve_round="river", seed=4, blueprint=small_blueprint, safe=False, solve_seconds=0.5)
    me = 1 - river_state("").current_player
    agent.act(MatchState(me, river_state("r700")))
    sol = agent.solution
    tree = sol.sub.tree
    bet = next(
        c
        for c in range(tree.first_child[0], tree.first_child[0] + tree.num_children[0])
        if str(tree.actions[c]) == "r700"
    )
    kids = [str(tree.actions[c]) for c in range(tree.first_child[bet], tree.first_child[bet] + tree.num_children[bet])]
    ours = next(k for k in kids if k[0] == "r")
    st = river_state("r700" + ours + "r20000")
    a = agent.act(MatchState(me, st))
    assert st.can_apply(a) and agent.solution.kind == "unsafe"


def test_preflop_and_turn_come_from_the_blueprint(small_blueprint):
    agent = LibratusAgent(solve_round="river", seed=5, blueprint=small_blueprint)
    st = BettingState(HUNL, 9, [[48, 49], [20, 30]])
    a = agent.act(MatchState(st.current_player, st))
    assert st.can_apply(a) and agent.solution is None
    for bad in ("preflop", 4):  # solving starts on the flop, the turn or the river
        with pytest.raises(ValueError, match="solving round must be one of flop, turn, river"):
            LibratusAgent(seed=5, blueprint=small_blueprint, solve_round=bad)


def sources(logs):
    return [e["source"] for e in logs if e["event"] == "decision"]


def test_no_time_left_falls_back_to_the_blueprint_and_logs_it(small_blueprint):
    from pokerbot.bot.agent.time_budget import TimeBudget

    me = 1 - river_state("").current_player
    # a 0.2 s average per hand leaves less than the overhead of a solve
    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, budget=TimeBudget(t_per_hand=0.2))
    st = river_state("r700")
    with capture_logs() as logs:
        a = agent.act(MatchState(me, st))
    assert st.can_apply(a) and agent.solution is None
    assert sources(logs) == ["blueprint-fallback"]
    # with time, the same decision is solved; the log line carries the public state and the solve's figures
    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=0.5)
    with capture_logs() as logs:
        agent.act(MatchState(me, st))
    line = next(e for e in logs if e["event"] == "decision")
    assert line["source"] == "unsafe" and line["betting"] == st.betting_string() and line["round"] == 3
    assert line["board"] == cards_to_str(st.board_cards)
    assert line["iterations"] >= 1 and line["of"] in (1000, 1900) and line["solve_seconds"] > 0
    assert line["reply_seconds"] >= line["solve_seconds"]
    solve = next(e for e in logs if e["event"] == "solve")
    assert 0 <= solve["exploitability_pct_pot"] < 5  # an unsafe solve reports how well it converged


def test_the_time_plan_caps_a_solve_by_the_bank(small_blueprint):
    """Without a fixed cap, a solve's deadline is the plan's share of what the hand may
    spend: after hands that ended before any solve, more than one hand's allowance,
    enough for the iterations that one hand's allowance cannot buy."""
    from pokerbot.bot.agent.time_budget import TimeBudget, TimePlan

    me = 1 - river_state("").current_player
    st = river_state("r700", hand=20)

    def solve_with(carry):
        budget = TimeBudget(t_per_hand=0.25)
        for hand in range(20):  # twenty hands folded before the river: 4 s saved
            budget.start_hand(hand)
        plan = TimePlan(carry, ceiling=10.0)
        agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, budget=budget, plan=plan)
        with capture_logs() as logs:
            agent.act(MatchState(me, st))
        line = next(e for e in logs if e["event"] == "decision")
        assert budget.used_match == pytest.approx(line["reply_seconds"], abs=5e-5)  # logged to 4 decimals
        return next(e for e in logs if e["event"] == "solve")

    # the river's share is the whole hand: its 0.2 s plus half the 4 s bank, less the setup
    banked = solve_with(0.5)
    assert 1.5 < banked["deadline"] <= 0.2 + 0.5 * 4.0
    assert banked["iterations"] == banked["of"] and not banked["stopped_early"]
    own = solve_with(0.0)  # the hand's own allowance only, less the overhead: too little
    assert own["deadline"] <= 0.2 and own["stopped_early"] and own["iterations"] < own["of"]


def test_a_lost_worker_falls_back_to_the_best_strategy_available(small_blueprint):
    import os
    import signal
    import time

    from pokerbot.bot.agent.solver_pool import SolverPool

    me = 1 - river_state("").current_player
    with SolverPool(1) as pool:
        assert pool.wait_ready(300)
        agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=20.0, pool=pool)
        with capture_logs() as logs:
            agent.act(MatchState(me, river_state("c", hand=4)))  # first solve, in the worker
            tree = agent.solution.sub.tree
            check = child(tree, 0, "c")
            our_bet = next(k for k in kids(tree, check) if k[0] == "r")
            their = next(k for k in kids(tree, child(tree, check, our_bet)) if k[0] == "r")
            old = pool.pids[0]
            os.kill(old, signal.SIGKILL)
            time.sleep(0.3)
            st2 = river_state("c" + our_bet + their, hand=4)
            a2 = agent.act(MatchState(me, st2))  # a safe re-solve is due: the worker is gone
            assert st2.can_apply(a2)
            st3 = river_state("r700", hand=5)
            a3 = agent.act(MatchState(me, st3))  # next hand: the replacement solves
            assert st3.can_apply(a3)
        assert sources(logs) == ["unsafe", "previous-fallback", "unsafe"]
        assert any(e["event"] == "solve_lost" for e in logs) and pool.pids[0] != old


def test_a_failing_solve_or_bug_costs_one_decision_not_the_match(small_blueprint, monkeypatch):
    from pokerbot.bot.agent import solving as agent_module

    me = 1 - river_state("").current_player
    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=0.5)

    def broken(*a, **k):
        raise RuntimeError("solver worker failed: ValueError: boom")

    monkeypatch.setattr(agent_module, "run_job", broken)
    st = river_state("r700")
    with capture_logs() as logs:
        a = agent.act(MatchState(me, st))
    assert st.can_apply(a) and sources(logs) == ["blueprint-fallback"]
    assert any(e["event"] == "solve_failed" for e in logs)

    def bug(*a, **k):
        raise IndexError("a bug")

    monkeypatch.setattr(agent_module, "run_job", bug)
    with capture_logs() as logs:
        a = agent.act(MatchState(me, river_state("c", hand=8)))
    assert sources(logs) == ["error-fallback"] and any(e["event"] == "decision_failed" for e in logs)
    assert river_state("c", hand=8).can_apply(a)


def test_random_choices_depend_on_seed_and_situation_only(small_blueprint):
    # two agents with one seed: the same hand gets the same bet-size scale and the same
    # sampled action, though one of them played another hand first
    # (no deadline near, the dealer's limits included: a deadline-stopped solve could stop
    # at another iteration)
    from pokerbot.bot.agent.time_budget import TimeBudget

    one, two = (
        LibratusAgent(
            solve_round="river",
            seed=9,
            blueprint=small_blueprint,
            solve_seconds=60.0,
            budget=TimeBudget(600.0, 600.0, 600.0),
        )
        for _ in range(2)
    )
    me = 1 - river_state("").current_player
    two.act(MatchState(me, river_state("c", hand=5)))
    st = river_state("r700", hand=6)
    actions = [agent.act(MatchState(me, st)) for agent in (one, two)]
    assert one.bet_scale == two.bet_scale and actions[0] == actions[1]
    assert np.array_equal(one.solution.strategy, two.solution.strategy)  # the solve itself is deterministic
    scales = {LibratusAgent(solve_round="river", seed=s, blueprint=small_blueprint).scale_for(6) for s in range(6)}
    assert len(scales) == 6 and all(0.92 <= x <= 1.08 for x in scales)


def re_solved_after_a_raise(small_blueprint, **options) -> LibratusAgent:
    """An agent with ``options`` after its two river decisions in hand 4: the opponent
    checks to it, then raises its bet by a size of the first solve's tree (the second
    decision is a safe re-solve)."""
    me = 1 - river_state("").current_player
    agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=0.3, **options)
    agent.act(MatchState(me, river_state("c", hand=4)))
    tree = agent.solution.sub.tree
    check = child(tree, 0, "c")
    our_bet = next(k for k in kids(tree, check) if k[0] == "r")
    their = next(k for k in kids(tree, child(tree, check, our_bet)) if k[0] == "r")
    agent.act(MatchState(me, river_state("c" + our_bet + their, hand=4)))
    assert agent.solution.kind == "safe"
    return agent


def test_the_gadget_option_sets_the_safe_re_solves_gadget(small_blueprint, monkeypatch):
    """A safe re-solve after an on-tree raise runs the gadget the agent was given:
    Maxmargin by default, Resolve with gadget="resolve"; the first solve has none."""
    from conftest import record_solve_jobs

    jobs = record_solve_jobs(monkeypatch)
    kinds = {}
    for gadget in ("maxmargin", "resolve"):
        jobs.clear()
        re_solved_after_a_raise(small_blueprint, gadget=gadget)
        kinds[gadget] = [None if j.gadget is None else j.gadget.kind for j in jobs]
    assert kinds == {"maxmargin": [None, "maxmargin"], "resolve": [None, "resolve"]}
    with pytest.raises(ValueError, match="gadget"):
        LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, gadget="reach")


def test_without_gifts_the_safe_re_solve_keeps_them_at_zero(small_blueprint):
    """``gifts=False``: the same on-tree raise that gives the opponent gifts by default
    leaves them at zero (the alternatives are the values after the action alone)."""
    given = {}
    for gifts in (True, False):
        agent = re_solved_after_a_raise(small_blueprint, gifts=gifts)
        given[gifts] = float(np.abs(agent.gifts).sum())
    assert given[True] > 0 and given[False] == 0


def test_purify_plays_the_solution_with_fold_call_bet_purification(small_blueprint):
    """``purify=True``: what the agent would do at its river decision is the same
    solution's strategy purified: one group (fold, check/call, bet/raise) a hand."""
    from pokerbot.blueprint_store.purification import fold_call_bet

    me = 1 - river_state("").current_player
    st = river_state("c", hand=4)
    answers = {}
    for purify in (False, True):
        agent = LibratusAgent(solve_round="river", seed=3, blueprint=small_blueprint, solve_seconds=60, purify=purify)
        answers[purify] = agent.action_probabilities(st, me)  # the same iterations: the same solution
    raw, pure = answers[False], answers[True]
    live = raw.probabilities.sum(axis=1) > 0
    assert ((raw.probabilities[live] > 0).sum(axis=1) > 1).any()  # the solution mixes
    np.testing.assert_allclose(pure.probabilities[live], fold_call_bet(raw.probabilities[live], raw.actions))
