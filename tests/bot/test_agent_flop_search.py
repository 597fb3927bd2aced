"""The agent searching from the flop (``solve_round`` 1, ``--solve-round 2``): a
depth-limited flop solve at its first flop decision (leaves at the turn, two-round
continuations valued on a keyed runout sample), a safe re-solve after an opponent's
bet, and the turn solved anew from the flop solution's ranges at the leaf reached."""

import numpy as np
import pytest
from conftest import capture_agent_logs as capture_logs
from conftest import reach_along, record_solve_jobs

from pokerbot.bot.agent.config import AgentConfig
from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.protocol.betting import CALL, BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver import ranges as rg
from pokerbot.solver.tree import LEAF

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(300)
BOARD = [0, 17, 34, 51, 22]


def flop_state(hand):
    st = BettingState(HUNL, hand, [[48, 49], [20, 30]])
    st = apply_betting(st, "r300c/")
    st.deal_board_cards(BOARD[:3])
    return st


def agent(small_blueprint, solve_seconds=2.0, **kw):
    return LibratusAgent(seed=3, blueprint=small_blueprint, solve_seconds=solve_seconds, solve_round="flop", **kw)


def test_the_flop_is_solved_to_its_end_and_the_turn_from_the_flop_solution(small_blueprint):
    me = 1  # acts second after the flop
    reached_turn = 0
    for hand in range(1, 7):
        bot = agent(small_blueprint)
        st = flop_state(hand)
        st.apply(CALL)  # the opponent checks
        with capture_logs() as logs:
            st.apply(bot.act(MatchState(me, st)))
        flop = bot.solution
        assert flop.root.round == 1 and flop.kind == "unsafe" and flop.leaf_strategy is not None
        # every line that reaches the turn is a leaf, valued on each turn card with two rivers
        deals = flop.sub.tree.leaf_deals
        assert len(deals) == 49 * 2 and sorted(set(deals[:, 0].tolist())) == sorted(set(range(52)) - set(BOARD[:3]))
        assert flop.sub.continuations is not None and (flop.sub.continuations.stage == 1).any()
        solves = [e for e in logs if e["event"] == "solve"]
        assert len(solves) == 1 and solves[0]["depth_limited"]
        if st.finished or st.round != 1 and st.round != 2:
            continue
        if st.round == 1 and st.current_player != me:
            st.apply(CALL)  # the opponent calls our bet
        if st.finished or st.round != 2 or st.raise_bounds() is None:
            continue
        st.deal_board_cards(BOARD[3:4])
        st.apply(CALL)  # the opponent checks the turn
        sub = flop.sub
        node, expected = reach_along(flop, st.actions[1])
        assert sub.tree.kind[node] == LEAF
        a = bot.act(MatchState(me, st))
        assert st.can_apply(a)
        turn = bot.solution
        # a depth-limited turn solve whose ranges are the flop solution's at that leaf
        assert turn.root.round == 2 and turn.kind == "unsafe" and turn.sub.tree.num_leaves > 0
        assert len(turn.sub.tree.leaf_deals) == 0  # one card to come: every river card
        full = np.zeros((2, 1326))
        full[:, sub.hand_index] = expected
        full[:, rg.blocked_by(rg.hole_hands(HUNL), tuple(BOARD[:4]))] = 0.0
        np.testing.assert_allclose(turn.sub.reach, full[:, turn.sub.hand_index], rtol=1e-5, atol=1e-9)
        reached_turn += 1
    assert reached_turn >= 2


def test_a_bet_on_the_flop_gets_a_safe_depth_limited_resolve(small_blueprint):
    me = 1
    bot = agent(small_blueprint)
    st = flop_state(10)
    lo, _ = st.raise_bounds()
    st.apply(apply_betting(BettingState(HUNL), f"r{lo + 250}").actions[0][0])  # off the subgame's sizes
    a = bot.act(MatchState(me, st))
    assert st.can_apply(a)
    first = bot.solution
    assert first.root.round == 1 and first.sub.tree.num_leaves > 0
    if a.type.name == "RAISE":
        st.apply(a)
        _, hi = st.raise_bounds()
        st.apply(apply_betting(BettingState(HUNL), f"r{hi}").actions[0][0])  # all-in over our raise
        a2 = bot.act(MatchState(me, st))
        assert st.can_apply(a2)
        assert bot.solution is not first and bot.solution.kind in ("safe", "nested")
        assert bot.solution.sub.tree.num_leaves > 0  # the call is an all-in leaf valued on the runouts


def test_a_hand_draws_one_runout_sample_for_its_flop_and_another_hand_another(small_blueprint):
    a, b, c = agent(small_blueprint), agent(small_blueprint), agent(small_blueprint)
    for bot, hand, first in ((a, 4, CALL), (b, 4, None), (c, 5, CALL)):
        st = flop_state(hand)
        if first is not None:
            st.apply(first)  # a checks to us; b's opponent bets instead: another solve, the same hand
        else:
            lo, _ = st.raise_bounds()
            st.apply(apply_betting(BettingState(HUNL), f"r{lo + 100}").actions[0][0])
        bot.act(MatchState(1, st))
    np.testing.assert_array_equal(a.solution.sub.tree.leaf_deals, b.solution.sub.tree.leaf_deals)
    assert a.solution.sub.tree.num_leaves != b.solution.sub.tree.num_leaves  # b's tree has the bet in it
    assert not np.array_equal(a.solution.sub.tree.leaf_deals, c.solution.sub.tree.leaf_deals)


def test_an_unsafe_flop_solve_starts_from_the_blueprint_s_flop(small_blueprint, monkeypatch):
    """The round's first (unsafe) flop solve is warm-started from the blueprint's flop
    strategy on its tree (``cfr.WarmStart``); a safe re-solve after the opponent's bet
    starts from scratch, and so does every solve with ``flop_warm_start`` 0."""
    from pokerbot.blueprint_store.continuations import blueprint_subgame_strategy

    jobs = record_solve_jobs(monkeypatch)
    bot = agent(small_blueprint)
    st = flop_state(12)
    st.apply(CALL)  # the opponent checks
    a = bot.act(MatchState(1, st))
    warm = jobs[-1].warm_start
    assert warm is not None and warm.iterations == AgentConfig().flop_warm_start > 0 and warm.regrets == "strategy"
    root = bot.solution.root
    node, _ = bot.blueprint.walk(root)
    want = blueprint_subgame_strategy(jobs[-1].sub, root, bot.blueprint.view, node)
    np.testing.assert_array_equal(warm.strategy, want)
    assert st.can_apply(a)
    # first to act on the flop: after our first decision the opponent bets (or raises
    # all-in over our bet), and our answer comes from a safe re-solve
    bot = agent(small_blueprint)
    st = flop_state(12)
    st.apply(bot.act(MatchState(0, st)))
    assert jobs[-1].warm_start is not None
    lo, hi = st.raise_bounds()
    st.apply(apply_betting(BettingState(HUNL), f"r{hi if st.actions[1][-1].type.name == 'RAISE' else lo + 250}")
             .actions[0][0])  # fmt: skip
    seen = len(jobs)
    bot.act(MatchState(0, st))
    safe = [job for job in jobs[seen:] if job.gadget is not None]
    assert safe and all(job.warm_start is None for job in safe)
    cold = agent(small_blueprint, flop_warm_start=0)
    st = flop_state(12)
    st.apply(CALL)
    cold.act(MatchState(1, st))
    assert jobs[-1].warm_start is None and jobs[-1].sub.tree.num_leaves > 0


def test_bad_flop_options_are_refused(small_blueprint):
    with pytest.raises(ValueError, match="flop rivers: must be positive"):
        agent(small_blueprint, flop_rivers=0)
    with pytest.raises(ValueError, match="warm start"):
        agent(small_blueprint, flop_warm_start=-1)
    with pytest.raises(ValueError, match="solving round"):
        LibratusAgent(seed=1, blueprint=small_blueprint, solve_round="preflop")


def test_a_round_whose_first_solve_came_late_is_resolved_where_the_line_left_its_tree(small_blueprint):
    """Our first flop decision had no solve (no time left; the blueprint played our
    check), then the opponent bets a size off the subgame's: the round's first solve
    (from the flop's start) does not hold that line, so a nested re-solve at it
    follows, instead of the blueprint playing on outside every solution."""
    me = 0  # acts first after the flop
    bot = agent(small_blueprint, solve_seconds=3.0)  # two solves in one decision
    st = flop_state(12)
    st.apply(CALL)  # our check, made before any flop solution
    st.apply(apply_betting(BettingState(HUNL), "r737").actions[0][0])  # 437 into 600: off the 1/2- and 1-pot sizes
    with capture_logs() as logs:
        a = bot.act(MatchState(me, st))
    assert st.can_apply(a)
    assert [e for e in logs if e["log_level"] == "warning"] == []
    decision = next(e for e in logs if e["event"] == "decision")
    assert decision["source"] == "nested"
    assert [e["kind"] for e in logs if e["event"] == "solve"] == ["unsafe", "nested"]
    assert bot.solution.kind == "nested" and bot.solution.root.betting_string() == st.betting_string()
