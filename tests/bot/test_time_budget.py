"""The agent's time budget under the dealer's three limits, and the reply grid."""

import time

import pytest

from pokerbot.bot.agent.time_budget import ReplyClock, TimeBudget, TimePlan, verify_solving_fits


def test_budget_respects_every_limit_with_its_safety_share():
    b = TimeBudget(t_response=10.0, t_hand=20.0, t_per_hand=3.0, safety=0.8, overhead=0.25)
    b.start_hand(1)
    assert b.available() == pytest.approx(0.8 * 3.0)  # the match average binds first
    assert b.solve_deadline(5.0) == pytest.approx(0.8 * 3.0 - 0.25)
    assert b.solve_deadline(1.0) == 1.0  # the caller's own cap
    b.record(2.0)
    assert b.available() == pytest.approx(0.4)
    b.start_hand(1)  # the same hand again: no new budget
    assert b.available() == pytest.approx(0.4)
    b.start_hand(2)  # saved time carries over: 2 hands x 2.4 s - 2.0 s used
    assert b.available() == pytest.approx(2.8)
    b.record(3.0)
    assert b.solve_deadline(5.0) == 0.0  # over budget: no solve at all


def test_response_and_hand_limits_bind():
    b = TimeBudget(t_response=1.0, t_hand=3.0, t_per_hand=100.0)
    b.start_hand(7)
    assert b.available() == pytest.approx(0.8)
    b.record(2.0)
    assert b.available() == pytest.approx(0.4)  # 0.8 x 3 s - 2 s left in this hand
    b.start_hand(8)
    assert b.available() == pytest.approx(0.8)
    with pytest.raises(ValueError, match="t_per_hand"):
        TimeBudget(t_per_hand=0)


def test_reply_clock_rounds_up_to_the_grid():
    c = ReplyClock(0.01)
    assert c.reply_delay(0.0) == pytest.approx(0.01)
    assert c.reply_delay(0.0101) == pytest.approx(0.02)
    assert ReplyClock(0).reply_delay(0.0034) == 0.0034
    t0 = time.perf_counter()
    held = c.hold(t0)
    assert 0.01 <= held < 0.05 and time.perf_counter() - t0 >= 0.01


def test_plan_shares_a_hand_by_its_solving_rounds_and_pot():
    b = TimeBudget(t_per_hand=7.0)
    b.start_hand(1)
    plan = TimePlan()
    allowance = 0.8 * 7.0
    assert plan.cap(b, 3) == pytest.approx(allowance)  # the river: the rest of the hand
    assert plan.cap(b, 2) == pytest.approx(allowance * 2 / 3)  # the turn leaves a third for the river
    assert plan.cap(b, 1) == pytest.approx(allowance * 3 / 6)
    assert plan.cap(b, 2, pot_weight=1.9) == pytest.approx(allowance * 3.8 / 4.8)  # a big pot weighs more
    assert plan.cap(b, 0) == 0.0  # preflop is never solved
    assert plan.cap(b, 2, elapsed=1.0) == pytest.approx((allowance - 1.0) * 2 / 3)
    b.record(3.0)  # the turn's decision took 3 s: the river gets what is left
    assert plan.cap(b, 3) == pytest.approx(allowance - 3.0)


def test_plan_spends_part_of_the_bank_and_never_more_than_its_ceiling():
    b = TimeBudget(t_per_hand=7.0)
    plan = TimePlan(carry=0.25, ceiling=3.0)
    allowance = 0.8 * 7.0
    for hand in range(10):  # ten hands over before any solve: 56 s saved
        b.start_hand(hand)
    b.start_hand(10)
    assert plan.hand_spend(b) == pytest.approx(allowance + 0.25 * 10 * allowance)
    assert plan.cap(b, 3) == pytest.approx(3.0 * allowance)  # the ceiling
    assert plan.cap(b, 2) == pytest.approx(2 / 3 * 3.5 * allowance)
    b.used_match += 100.0  # earlier hands overspent: only what the match has left
    assert plan.hand_spend(b) == 0.0
    with pytest.raises(ValueError, match="carry"):
        TimePlan(carry=1.5)


def test_plan_spends_the_bank_inside_the_match_limit():
    """A match where three hands in four end before any solve and the fourth solves the
    turn and the river, every solve running to its deadline (the worst case): the
    solving hands take the time the others left, the match stays inside its average."""
    import random

    rng = random.Random(5)
    b = TimeBudget(t_per_hand=7.0)
    plan = TimePlan()
    worst_margin = 1e9
    for hand in range(400):
        b.start_hand(hand)
        if hand % 4 == 3:
            for rnd in (2, 3, 3):  # the turn, the river, a river re-solve
                overhead = rng.uniform(0.0, b.overhead)  # what a decision takes besides its solve
                b.record(b.solve_deadline(plan.cap(b, rnd)) + overhead)
        worst_margin = min(worst_margin, 7.0 * b.hands - b.used_match)
    assert worst_margin > 0.0  # the dealer's limit: never reached
    solving_hand = b.used_match / 100
    assert solving_hand > 3.5 * 0.8 * 7.0  # the bank was spent: far more than one hand's allowance each
    assert b.used_match > 0.9 * 0.8 * 7.0 * b.hands


def test_limits_that_leave_no_solve_are_refused():
    verify_solving_fits(TimeBudget(), 0.05)
    with pytest.raises(ValueError, match="no time to solve"):
        verify_solving_fits(TimeBudget(t_per_hand=0.3), 0.05)
    with pytest.raises(ValueError, match="no time to solve"):
        verify_solving_fits(TimeBudget(t_response=0.2), 0.05)
