import json
import os
import sys
import time

import pytest

from pokerbot.bot.cli import main
from pokerbot.bot.evaluation import match

pytestmark = pytest.mark.timeout(300)


def test_match_reports_zero_sum_results_with_intervals(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["match", "random", "call", "--hands", "300", "--seed", "3", "--out", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    m = s["matches"][0]
    assert s["ok"] and m["hands_played"] == 300 and m["score"].startswith("SCORE:")
    for kind in ("raw", "allin_adjusted"):
        a, b = m["A"][kind], m["B"][kind]
        assert a["mbb_per_hand"] == pytest.approx(-b["mbb_per_hand"])
        assert a["total_chips"] == pytest.approx(-b["total_chips"])
        assert a["low"] < a["mbb_per_hand"] < a["high"] and a["ci95"] > 0
    assert (out / "winnings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "A-random" in capsys.readouterr().out
    # our players never make the dealer correct them (every warning fails a competition check)
    err = (out / "match1.err").read_text()
    assert "WARNING" not in err and "ERROR" not in err and "SCORE:" in err


def test_duplicate_call_vs_allin_cancels_exactly(tmp_path):
    out = tmp_path / "d"
    assert main(["match", "call", "allin", "--hands", "60", "--seed", "9", "--duplicate", "--out", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert len(s["matches"]) == 2
    # every hand is all-in preflop, and each player holds both sides of the same cards
    assert s["duplicate"]["raw"]["mbb_per_hand"] == 0 and s["duplicate"]["allin_adjusted"]["mbb_per_hand"] == 0
    m1, m2 = s["matches"]
    assert m1["A"]["raw"]["total_chips"] == -m2["A"]["raw"]["total_chips"]
    assert m1["A"]["allin_adjusted"]["ci95"] < m1["A"]["raw"]["ci95"]  # the adjustment removes card luck


def test_command_line_player_and_a_crashing_player(tmp_path):
    cmd = f"{sys.executable} -m pokerbot.bot.cli play --strategy call"
    out = tmp_path / "c"
    assert main(["match", cmd, "raise-pot", "--hands", "50", "--out", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["matches"][0]["hands_played"] == 50 and s["matches"][0]["A"]["name"].startswith("A-")
    out = tmp_path / "x"
    t0 = time.monotonic()
    assert main(["match", "false", "call", "--hands", "50", "--out", str(out), "--t_response", "5000"]) == 1
    # a player that dies before connecting ends the match at once, not after the
    # (long: players may compile first) wait for connections
    assert time.monotonic() - t0 < 60
    s = json.loads((out / "summary.json").read_text())
    assert not s["ok"] and "exited with status 1" in s["matches"][0]["error"]


def test_a_concurrent_duplicate_match_plays_both_seat_orders_at_once_with_the_same_logs(tmp_path, capsys):
    logs, summaries = {}, {}
    for how in ("sequential", "concurrent"):
        out = tmp_path / how
        extra = ["--concurrent"] if how == "concurrent" else []
        assert (
            main(
                ["match", "random", "raise-pot", "--hands", "60", "--seed", "5", "--duplicate", "--out", str(out)]
                + extra
            )
            == 0
        )
        s = json.loads((out / "summary.json").read_text())
        assert s["ok"] and [m["hands_played"] for m in s["matches"]] == [60, 60]
        # the log without its first line (the match name: the output path)
        logs[how] = [(out / f"match{i}.log").read_bytes().split(b"\n", 1)[1] for i in (1, 2)]
        m1, m2 = s["matches"]
        overlap = m2["started"] < m1["started"] + m1["seconds"]
        assert overlap == (how == "concurrent")
        summaries[how] = s
    assert summaries["concurrent"]["duplicate"] == summaries["sequential"]["duplicate"]
    assert logs["concurrent"] == logs["sequential"]  # the same hands, the same choices
    assert main(["match", "random", "call", "--concurrent", "--out", str(tmp_path / "x")]) == 2
    assert "--concurrent needs --duplicate" in capsys.readouterr().err


def test_match_progress_shows_hands_and_the_running_result_as_the_summary_computes_it():
    import io
    from types import SimpleNamespace

    import numpy as np

    from pokerbot.bot.evaluation.match import MatchProgress
    from pokerbot.bot.evaluation.stats import summarize
    from pokerbot.bot.progress import ProgressBar
    from pokerbot.protocol.dealer import MatchResult

    rng = np.random.default_rng(3)
    first, second = rng.integers(-2000, 2000, 40), rng.integers(-20000, 20000, 25)
    bar = ProgressBar(100, "hands", stream=io.StringIO(), tty=False, plain_interval=0)
    progress = MatchProgress(100, 100, "x", bar=bar, start=1000.0)
    done, waiting = progress.status(now=1075.0)
    assert done == 0 and "starting the players, 1m15s" in waiting and "kernels" in waiting
    for values, seat in ((first, 0), (second, 1)):  # A sits in seat 0, then in seat 1
        result = MatchResult(len(values), [0.0, 0.0])
        result.totals[seat], result.totals[1 - seat] = float(values.sum()), -float(values.sum())
        result.squares[seat] = result.squares[1 - seat] = float((values.astype(float) ** 2).sum())
        progress.add(SimpleNamespace(result=result), seat)
    expected = summarize(np.concatenate([first, second]).astype(float), 100)
    done, status = progress.status()
    assert done == 65
    assert status == f"A {expected['mbb_per_hand']:+,.0f} ± {expected['ci95']:,.0f} mbb/hand (raw)"
    progress.finish()
    assert "65/100 hands (65 %)" in bar.stream.getvalue().splitlines()[-1]


def test_a_match_draws_its_progress_on_stderr_and_can_be_told_not_to(tmp_path, capsys):
    assert main(["match", "random", "call", "--hands", "200", "--duplicate", "--out", str(tmp_path / "a")]) == 0
    s = json.loads((tmp_path / "a" / "summary.json").read_text())
    raw = [m["A"]["raw"] for m in s["matches"]]
    out, err = capsys.readouterr()
    last = err.strip().splitlines()[-1]
    assert last.startswith("random vs call: 400/400 hands (100 %)") and "mbb/hand (raw)" in last
    assert "400/400" not in out  # the results on stdout stay clean
    mean = (raw[0]["mbb_per_hand"] + raw[1]["mbb_per_hand"]) / 2  # 200 hands each
    assert f"A {mean:+,.0f} ± " in last
    assert main(["match", "random", "call", "--hands", "50", "--no-progress", "--out", str(tmp_path / "b")]) == 0
    assert "hands (" not in capsys.readouterr().err


def test_a_strategy_with_options_is_ours_and_its_options_reach_pokerbot_play():
    spec = match.PlayerSpec("A", "libratus --solve-round 3 --turn-solver depth-limited")
    assert spec.ours and spec.strategy == "libratus"
    cmd = spec.command("127.0.0.1", 5000, "game.txt", 7, {"t_per_hand": 7000}, "log.jsonl")
    assert cmd[cmd.index("--strategy") + 1] == "libratus"
    at = cmd.index("--solve-round")
    assert cmd[at : at + 4] == ["--solve-round", "3", "--turn-solver", "depth-limited"]
    assert "--t_per_hand=7000" in cmd and cmd[cmd.index("--strategy-log") + 1] == "log.jsonl"
    assert cmd[4:6] == ["127.0.0.1", "5000"]
    other = match.PlayerSpec("B", "./mybot --fast")
    assert not other.ours and other.strategy is None
    assert other.command("h", 1, "g", 0) == ["./mybot", "--fast", "h", "1"]


def test_a_match_divides_the_cpus_among_the_agents_it_runs_at_once(monkeypatch):
    """An agent whose spec names no threads gets the CPUs divided among the agents
    that may compute at once (both seats, both seat orders with --concurrent), told to
    its ``pokerbot play`` as ``--threads``; one that names its threads keeps them, and
    no other player is told any."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    assert match.agent_threads(("libratus", "random"), concurrent=False) == 8
    assert match.agent_threads(("libratus", "random"), concurrent=True) == 4
    assert match.agent_threads(("libratus --threads 2", "unsafe"), concurrent=True) == 2
    assert match.agent_threads(("blueprint", "./bot"), concurrent=True) == 8
    assert match.agent_threads(("libratus", "libratus"), concurrent=True, cpus=2) == 1  # never below 1

    def threads_told(spec: str, share: int | None) -> str | None:
        cmd = match.PlayerSpec("A", spec, share).command("h", 1, "g", 0)
        return cmd[cmd.index("--threads") + 1] if "--threads" in cmd else None

    assert threads_told("libratus --solve-round 4", 3) == "3"
    assert threads_told("unsafe", 1) == "1"
    assert threads_told("libratus --threads 2", 3) == "2"  # its own, once
    assert threads_told("libratus", None) is None  # pokerbot play's default: every CPU
    assert threads_told("blueprint", 3) is None and threads_told("./bot", 3) is None


def test_a_bot_alone_solves_on_every_cpu_by_default(monkeypatch):
    from pokerbot.bot.cli import build_parser

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    parser = build_parser()
    assert parser.parse_args(["play", "127.0.0.1", "9"]).threads == 3
    assert parser.parse_args(["play", "127.0.0.1", "9", "--threads", "2"]).threads == 2
    assert parser.parse_args(["slumbot"]).threads == 3
    assert parser.parse_args(["match"]).__dict__.get("threads") is None  # a match divides them instead


def test_two_long_specs_that_differ_at_the_end_get_different_names():
    """A long spec keeps its end in the player's name: two blueprint players on
    different stores (the paths alike up to the file name) are told apart in the logs."""
    a = match.PlayerSpec("B", "blueprint --blueprint blueprints/default.bp").name
    b = match.PlayerSpec("B", "blueprint --blueprint blueprints/default-seed1.bp").name
    assert a != b and b.endswith("default-seed1.bp") and a.endswith("default.bp")
    assert len(b) == len("B-") + match.NAME_CHARS and b.startswith("B-blueprint_--")
    assert match.PlayerSpec("A", "libratus").name == "A-libratus"


def test_the_chart_reads_the_result_from_the_best_estimate():
    """winnings.png draws one series with its band, the one the result is read from:
    the duplicate pair with AIVAT, else the duplicate pair, else one match's AIVAT,
    else its all-in adjusted result; the others are drawn faint, without bands."""
    import numpy as np

    x = np.ones(5)
    one = [("match1 raw", x), ("match1 all-in adjusted", x)]
    two = one + [("match2 raw", x), ("match2 all-in adjusted", x), ("duplicate (A, mean of both seats)", x)]
    aivat = [("match1 AIVAT", x), ("match2 AIVAT", x), ("duplicate AIVAT (A, mean of both seats)", x)]
    assert match.headline_series(two + aivat) == "duplicate AIVAT (A, mean of both seats)"
    assert match.headline_series(two) == "duplicate (A, mean of both seats)"
    assert match.headline_series(one + aivat[:1]) == "match1 AIVAT"
    assert match.headline_series(one) == "match1 all-in adjusted"
    assert match.headline_series([("match1 raw", x), ("match1 all-in adjusted", np.ones(0))]) == "match1 raw"
    assert match.headline_series([]) is None
