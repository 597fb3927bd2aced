"""scripts/evaluate_agent.py: its progress counts the hands in the dealers' logs, and an
evaluation whose matches are all done resumes to the table without playing again."""

import importlib.util
import json
import os
import sys

from pokerbot.bot.evaluation.match import hands_logged

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)  # the script imports its sibling agent_log_summary
spec = importlib.util.spec_from_file_location("evaluate_agent", os.path.join(SCRIPTS, "evaluate_agent.py"))
assert spec is not None and spec.loader is not None
evaluate_agent = importlib.util.module_from_spec(spec)
spec.loader.exec_module(evaluate_agent)

STATE = "STATE:{i}:f:AsKs|2c3d:50|-50:A-libratus|B-call\n"


def write_match(out, opponent, hands_per_log, summary=True):
    d = out / f"vs-{opponent}"
    d.mkdir(parents=True)
    for name, n in zip(("match1.log", "match2.log"), hands_per_log):
        (d / name).write_text("# name/game/hands/seed x\n" + "".join(STATE.format(i=i) for i in range(n)) + "SCORE:x\n")
    if summary:
        result = {"mbb_per_hand": 250.0, "ci95": 10.0}
        matches = [
            {
                "name": f"match{i}",
                "log": str(d / f"match{i}.log"),
                "seats": ["A-libratus", "B-call"],
                "hands_played": 2,
                "seconds": 1.0,
            }
            for i in (1, 2)
        ]
        (d / "summary.json").write_text(
            json.dumps({"duplicate": {"raw": result, "allin_adjusted": result}, "matches": matches})
        )


def test_hands_logged_counts_state_lines_of_both_seat_orders(tmp_path):
    write_match(tmp_path, "call", (3, 2), summary=False)
    assert hands_logged(str(tmp_path / "vs-call")) == 5
    assert hands_logged(str(tmp_path / "vs-random")) == 0  # not started: no logs yet


def test_a_finished_evaluation_resumes_to_its_table_with_a_full_bar(tmp_path, capsys):
    write_match(tmp_path, "call", (2, 2))
    write_match(tmp_path, "allin", (2, 2))
    assert evaluate_agent.main(["--hands", "2", "--opponents", "call,allin", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "evaluation: 8/8 hands (100 %)" in out
    assert "| call | +250 ± 10 | +250 ± 10 | 4 |" in out and "| allin | +250 ± 10 |" in out
    assert "libratus vs" not in out  # nothing was played again


def test_the_table_gains_an_aivat_column_with_the_variance_ratio(tmp_path, capsys):
    write_match(tmp_path, "call", (2, 2))
    path = tmp_path / "vs-call" / "summary.json"
    s = json.loads(path.read_text())
    s["duplicate"]["aivat"] = {"mbb_per_hand": 180.0, "ci95": 4.0}
    s["aivat"] = {"variance_ratio_vs_duplicate": 6.25}
    path.write_text(json.dumps(s))
    assert evaluate_agent.main(["--hands", "2", "--opponents", "call", "--out", str(tmp_path), "--aivat"]) == 0
    out = capsys.readouterr().out
    assert "| all-in adjusted | AIVAT (variance ratio) | hands |" in out
    assert "| call | +250 ± 10 | +250 ± 10 | +180 ± 4 (6.2x) | 4 |" in out
