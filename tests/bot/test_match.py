import json
import sys
import time

import pytest

from pokerbot.bot.cli import main

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
                ["match", "random", "raise-pot", "--hands", "200", "--seed", "5", "--duplicate", "--out", str(out)]
                + extra
            )
            == 0
        )
        s = json.loads((out / "summary.json").read_text())
        assert s["ok"] and [m["hands_played"] for m in s["matches"]] == [200, 200]
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
