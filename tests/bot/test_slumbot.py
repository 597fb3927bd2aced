"""Slumbot's API: the betting-string translation both ways against our rules (property
tests), and the client against a local server that implements the documented API
apart from it: hands recorded as the server recorded them, retries, errors, a login,
and a run killed midway that goes on without replaying or losing a hand."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from slumbot_server import SlumbotTestServer

from pokerbot.bot.evaluation import slumbot
from pokerbot.bot.strategies import make_strategy
from pokerbot.protocol.betting import CALL, FOLD, BettingState, raise_to
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(600)


def legal_actions(state: BettingState) -> list:
    out = [CALL]
    if state.can_fold():
        out.append(FOLD)
    bounds = state.raise_bounds()
    if bounds is not None:
        lo, hi = bounds
        out += [raise_to(lo), raise_to(hi), raise_to((lo + hi) // 2)]
    return out


@st.composite
def betting_lines(draw):
    """A hand's betting as our rules allow it: calls, checks, folds, min raises, all-ins
    and sizes between, up to the end of the hand or a point in it."""
    state = BettingState(HUNL, 0)
    line = []
    for _ in range(draw(st.integers(0, 24))):
        if state.finished:
            break
        action = draw(st.sampled_from(legal_actions(state)))
        line.append(action)
        state.apply(action)
    return line


@settings(max_examples=300, deadline=None)
@given(betting_lines())
def test_betting_strings_translate_both_ways_against_our_rules(line):
    """Every action of a line, written as an ``incr`` and read back, is the same action;
    the line's betting string read into a state gives the same state; a string that
    ends a street with or without its '/' reads the same."""
    state = BettingState(HUNL, 0)
    for action in line:
        incr = slumbot.incr_for(state, action)
        assert slumbot.action_for(state, incr) == action, (state.betting_string(), incr, action)
        state.apply(action)
        text = slumbot.action_string(state)
        again = slumbot.apply_actions(BettingState(HUNL, 0), text)
        assert again.betting_string() == state.betting_string() and again.finished == state.finished
        if text.endswith("/"):
            assert slumbot.apply_actions(BettingState(HUNL, 0), text[:-1]).betting_string() == state.betting_string()


def test_the_documented_examples_and_each_action_type():
    s = slumbot.apply_actions(BettingState(HUNL, 0), "b200c/kk/kk/kb200")
    assert s.betting_string() == "r200c/cc/cc/cr400" and s.current_player == 0  # bets are street totals
    # the small blind (position 1) acts first before the flop: a limp is a call, then the big blind checks
    s = slumbot.apply_actions(BettingState(HUNL, 0), "ck/")
    assert s.round == 1 and s.current_player == 0 and s.spent == [100, 100]
    assert slumbot.incr_for(s, CALL) == "k" and slumbot.incr_for(s, FOLD) == "k"  # a free fold is a check
    s = slumbot.apply_actions(BettingState(HUNL, 0), "cb300c/b250")
    assert s.spent == [550, 300] and slumbot.incr_for(s, CALL) == "c" and slumbot.incr_for(s, FOLD) == "f"
    assert slumbot.incr_for(s, raise_to(1300)) == "b1000"  # a raise to 1,300 in all: 1,000 on the flop
    for text in ("b20000c///", "b20000c", "b300c/b19700c//", "b300c/b19700c"):
        s = slumbot.apply_actions(BettingState(HUNL, 0), text)
        assert s.finished and not any(s.folded) and s.spent == [20000, 20000], text
    assert slumbot.apply_actions(BettingState(HUNL, 0), "b300f").folded == [True, False]
    for bad in ("k", "kk", "x", "b", "b150", "b20001", "c/", "cc", "b300c//", "f/", "b300fk", "ck/b50"):
        with pytest.raises(slumbot.ActionStringError):
            slumbot.apply_actions(BettingState(HUNL, 0), bad)


@pytest.fixture
def server():
    s = SlumbotTestServer(strategy="random", seed=3)
    url = s.start()
    yield s, url
    s.stop()


def records_of(run):
    return [(r.client_pos, r.action, r.winnings) for r in sorted(run.records, key=lambda r: r.number)]


def test_a_run_records_every_hand_as_the_server_did(server, tmp_path):
    """Both seats, hands ended by either side, all-ins before the river with and without
    bare slashes: our records are the server's, hand by hand, and our rules' payoffs
    agree with the server's winnings (checked on every hand)."""
    srv, url = server
    run = slumbot.SlumbotRun(str(tmp_path / "r"), HUNL)
    bot = make_strategy("random", 11)
    client = slumbot.Client(url, rate=0)
    slumbot.play_hands(bot, client, run, 120)
    assert [(p, a, w) for _, _, p, a, w in srv.recorded] == records_of(run)
    actions = [r.action for r in run.records]
    assert {r.client_pos for r in run.records} == {0, 1}
    assert any(a.endswith("///") or a.endswith("c//") for a in actions)  # all-in, with slashes
    assert any(a.endswith("f") for a in actions)
    with open(run.log_path) as f:
        assert sum(1 for line in f if line.startswith("STATE:")) == 120
    summary = slumbot.summarize_run(run)
    assert summary["hands"] == 120 and "baseline_corrected" in summary


def test_errors_retries_and_logins(server):
    srv, url = server
    waits = []
    client = slumbot.Client(url, rate=0, retry=slumbot.Retry(attempts=4, base=0.01), sleep=waits.append)
    srv.failures += ["503", "drop", "503"]
    answer = client.new_hand()
    assert "hole_cards" in answer and len(waits) == 3  # three failures, retried with a wait each
    state, seat = slumbot.hand_state(HUNL, 0, answer)
    assert state.current_player == seat
    with pytest.raises(slumbot.SlumbotError, match="Illegal action"):
        client.act("b1")  # an illegal incr: the server's message, not retried
    srv.failures += ["503"] * 4
    with pytest.raises(slumbot.SlumbotError, match="4 attempts"):
        client.act("c")
    with pytest.raises(slumbot.SlumbotError, match="Invalid username"):
        slumbot.Client(url, rate=0).login("alice", "wrong")
    logged = slumbot.Client(url, rate=0)
    logged.login("alice", "secret")
    assert logged.token in srv.sessions
    assert logged.new_hand()["token"] == logged.token


def command(url: str, out: str, hands: int, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pokerbot.bot.cli",
        "slumbot",
        "--strategy",
        "random",
        "--hands",
        str(hands),
        "--base-url",
        url,
        "--rate",
        "0",
        "--out",
        out,
        "--no-progress",
        *extra,
    ]


def stop_after(url: str, out: str, records: int, sig: int) -> None:
    proc = subprocess.Popen(command(url, out, 2000), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    hands = os.path.join(out, "hands.jsonl")
    deadline = time.time() + 120
    while time.time() < deadline and (not os.path.exists(hands) or sum(1 for _ in open(hands)) < records):
        time.sleep(0.01)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    if sig == signal.SIGTERM:
        assert proc.returncode == 130 and b"run the same command again" in err


def test_a_stopped_run_goes_on_without_replaying_or_losing_a_hand(server, tmp_path):
    """Stopped twice by SIGTERM (a stop waits for the request in flight), then run to
    the end: every hand the server finished is ours, in order, none twice. A SIGKILL can
    land between sending an action and its answer: that hand is recorded as abandoned
    and is the only one the server may have that we lack."""
    srv, url = server
    out = str(tmp_path / "k")
    for records in (25, 50):
        stop_after(url, out, records, signal.SIGTERM)
    done = subprocess.run(command(url, out, 90, "--json"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    run = slumbot.SlumbotRun(out, HUNL)
    numbers = [r.number for r in run.records]
    assert len(numbers) == len(set(numbers)) == 90 and json.loads(done.stdout)["hands"] == 90
    assert not run.abandoned
    assert [(p, a, w) for _, _, p, a, w in srv.recorded] == records_of(run)
    # a hard kill
    stop_after(url, out, 100, signal.SIGKILL)
    assert subprocess.run(command(url, out, 130), capture_output=True, timeout=300).returncode == 0
    run = slumbot.SlumbotRun(out, HUNL)
    ours = records_of(run)
    theirs = [(p, a, w) for _, _, p, a, w in srv.recorded]
    assert len(ours) == 130 and len(theirs) - len(ours) <= len(run.abandoned) <= 1
    assert all(h in theirs for h in ours)


def test_the_command_refuses_a_username_without_a_password_and_another_runs_directory(server, tmp_path):
    srv, url = server
    out = str(tmp_path / "c")
    env = {k: v for k, v in os.environ.items() if k != slumbot.PASSWORD_ENV}
    r = subprocess.run(
        command(url, out, 2, "--username", "alice"), env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert r.returncode == 2 and "SLUMBOT_PASSWORD" in r.stderr
    ok = subprocess.run(
        command(url, out, 3, "--username", "alice"),
        env={**env, slumbot.PASSWORD_ENV: "secret"},
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert "secret" not in open(os.path.join(out, "run.json")).read()
    other = subprocess.run(command(url, out, 3, "--seed", "9"), env=env, capture_output=True, text=True)
    assert other.returncode == 1 and "another run" in other.stderr


def test_the_agent_plays_through_the_api(server, tmp_path, small_blueprint):
    srv, url = server
    run = slumbot.SlumbotRun(str(tmp_path / "a"), HUNL)
    agent = make_strategy("libratus", 3, small_blueprint, solve_seconds=0.3, workers=0)
    slumbot.play_hands(agent, slumbot.Client(url, rate=0), run, 6)
    assert [(p, a, w) for _, _, p, a, w in srv.recorded] == records_of(run)


@pytest.mark.slow
def test_the_agent_plays_100_hands_stopped_and_resumed_as_the_server_recorded(server, tmp_path, small_blueprint):
    """The acceptance run, with the small blueprint: ``pokerbot slumbot --hands 100``
    with the agent, stopped by SIGTERM midway and run again."""
    srv, url = server
    out = str(tmp_path / "agent")
    agent = ["--strategy", "libratus", "--blueprint", small_blueprint, "--solve-seconds", "0.5"]
    base = command(url, out, 100)
    base = base[: base.index("--strategy")] + base[base.index("--hands") :] + agent
    proc = subprocess.Popen(base, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    hands = os.path.join(out, "hands.jsonl")
    deadline = time.time() + 600
    while time.time() < deadline and (not os.path.exists(hands) or sum(1 for _ in open(hands)) < 40):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 130
    done = subprocess.run(base + ["--json"], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    run = slumbot.SlumbotRun(out, HUNL)
    assert len(run.records) == 100 and not run.abandoned
    assert [(p, a, w) for _, _, p, a, w in srv.recorded] == records_of(run)
    assert json.loads(done.stdout)["aivat_fallback_hands"] == 0
