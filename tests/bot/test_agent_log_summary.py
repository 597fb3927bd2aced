"""scripts/agent_log_summary.py: an agent log summed up, unreadable lines counted, not fatal."""

import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "agent_log_summary", os.path.join(HERE, "..", "..", "scripts", "agent_log_summary.py")
)
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)


def test_a_log_is_summed_up(tmp_path, capsys):
    lines = [
        {"event": "agent_ready", "seconds": 0.3},
        {"event": "decision", "hand": 0, "source": "translation", "reply_seconds": 0.01, "extension": "type1 0.750"},
        {"event": "decision", "hand": 0, "source": "unsafe", "reply_seconds": 0.3},
        {"event": "decision", "hand": 1, "source": "translation", "reply_seconds": 0.02, "extension": "type1 0.750"},
        {"event": "decision", "hand": 2, "source": "blueprint", "reply_seconds": 0.01},
        {"event": "decision", "hand": 3, "round": 2, "source": "unsafe", "reply_seconds": 3.0},
        {"event": "decision", "hand": 4, "round": 2, "source": "blueprint-fallback", "reply_seconds": 0.01},
        {
            "event": "solve",
            "kind": "unsafe",
            "seconds": 3.1,
            "deadline": 3.05,
            "betting": "r300c/cc/",
            "iterations": 4000,
            "stopped_early": True,
            "nodes": 10443,
            "turn_solver": "full",
            "card_samples": 1,
        },
        {
            "event": "solve",
            "kind": "unsafe",
            "seconds": 1.0,
            "deadline": 3.0,
            "betting": "r300c/cc/",
            "iterations": 1000,
            "stopped_early": False,
            "nodes": 300,
            "turn_solver": "depth-limited",
            "card_samples": 1,
        },
        {"event": "solve", "kind": "unsafe", "seconds": 0.25, "iterations": 1000, "stopped_early": False, "nodes": 45},
        {"event": "solve_lost"},
        {
            "event": "solve",
            "kind": "safe",
            "seconds": 1.32,
            "deadline": 1.2,
            "betting": "r300c/r200",
            "iterations": 30,
            "stopped_early": True,
            "nodes": 40,
        },
        {
            "event": "solve",
            "kind": "safe",
            "seconds": 0.9,
            "deadline": 0.85,
            "betting": "r300c/cc/r400",
            "iterations": 90,
            "stopped_early": True,
            "nodes": 90,
        },
    ]
    path = tmp_path / "a.stderr"
    path.write_text("\n".join(json.dumps(e) for e in lines) + "\n{broken\nnot json at all\n")
    s = summary.summarise([str(path)])
    assert s["decisions"] == 6 and s["hands_with_a_decision"] == 5
    assert s["sources"] == {"translation": 2, "unsafe": 2, "blueprint": 1, "blueprint-fallback": 1}
    assert s["extensions"] == {"type1 0.750": 2}
    assert s["solves"]["unsafe"]["solves"] == 3 and s["solves_lost"] == 1
    assert s["turn_sources"] == {"unsafe": 1, "blueprint-fallback": 1}
    full, limited = s["turn_solvers"]["full"], s["turn_solvers"]["depth-limited"]
    assert full["solves"] == 1 and full["median_iterations"] == 4000 and full["card_samples"] == {1: 1}
    assert limited["stopped_early"] == 0 and limited["card_samples"] == {1: 1}
    safe = s["solves"]["safe"]
    assert abs(safe["max_past_deadline"] - 0.12) < 1e-9 and safe["past_deadline_over_0.1s"] == 1
    assert safe["rounds"] == {"flop": 1, "turn": 1}
    assert s["unreadable_lines"] == 1  # only lines that look like JSON are counted
    assert abs(s["reply_seconds_per_hand_with_a_decision"] - 3.35 / 5) < 1e-9
    by_source = s["reply_seconds_by_source"]
    assert by_source["unsafe"] == {"decisions": 2, "median": 1.65, "p99": 3.0}
    assert by_source["translation"]["median"] == 0.015 and by_source["translation"]["p99"] == 0.02
    # nearest rank: of 100 replies the 99th percentile is the 99th, not the slowest
    assert summary.percentile([i / 100 for i in range(1, 101)], 0.99) == 0.99
    assert summary.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "from extensions: type1 0.750 2" in out and "turn solves full: 1, median 4000 iterations" in out
    assert "turn decisions by source: unsafe 1, blueprint-fallback 1" in out
    assert "unsafe: 2 decisions, reply median 1650.00 ms, 99th percentile 3000.00 ms" in out
    assert summary.main([str(tmp_path / "missing.stderr")]) == 1
