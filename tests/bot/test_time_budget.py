"""The agent's time budget under the dealer's three limits, and the reply grid."""

import time

import pytest

from pokerbot.bot.agent.time_budget import ReplyClock, TimeBudget


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
