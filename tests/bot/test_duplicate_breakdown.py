"""scripts/duplicate_breakdown.py: a duplicate match's pairs grouped by the agent's
solves; the groups add up to the match's paired figure."""

import importlib.util
import json
import os

import pytest

from pokerbot.bot.evaluation.match_log import player_series, read_match_log
from pokerbot.bot.evaluation.stats import summarize
from pokerbot.protocol.gamedef import bundled_game

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "duplicate_breakdown", os.path.join(HERE, "..", "..", "scripts", "duplicate_breakdown.py")
)
dbd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dbd)

A, B = "A-libratus", "B-blueprint"
# (betting, cards, position-0 value); "f": the small blind folds, "r300f": the big blind does
MATCH1 = [("f", "AsKs|2c3d", 50, (A, B)), ("r300f", "KhKd|7c2d", -100, (B, A)), ("r300f", "QhQd|7s2s", -100, (A, B))]
MATCH2 = [("f", "AsKs|2c3d", 50, (B, A)), ("f", "KhKd|7c2d", 50, (A, B)), ("f", "QhQd|7s2s", 50, (A, B))]


def _write(tmp_path, name, hands, decisions):
    lines = ["# name/game/hands/seed x holdem.nolimit.2p 3 7"]
    for i, (betting, cards, v0, names) in enumerate(hands):
        lines.append(f"STATE:{i}:{betting}:{cards}:{v0}|{-v0}:{names[0]}|{names[1]}")
    lines.append("SCORE:0|0:A-libratus|B-blueprint")
    (tmp_path / f"{name}.log").write_text("\n".join(lines) + "\n")
    log = [json.dumps({"event": "decision", "hand": h, "source": s}) for h, s in decisions]
    (tmp_path / f"{name}.{A}.stderr").write_text("\n".join(log + ["{broken"]) + "\n")


def test_groups_add_up_to_the_paired_result(tmp_path, capsys):
    _write(tmp_path, "match1", MATCH1, [(0, "blueprint"), (1, "unsafe"), (2, "blueprint")])
    _write(tmp_path, "match2", MATCH2, [(0, "blueprint"), (2, "unsafe"), (2, "nested")])
    out = dbd.analyse([str(tmp_path)])
    assert out["player"] == A and out["pairs"] == 3
    rows = {g["group"]: g for g in out["groups"]}
    # agent per deal: +50/-50 (cancels), +100/+50, -100/+50
    assert rows["no solve"]["pairs"] == 1 and rows["no solve"]["cancel"] == 1
    assert rows["no solve"]["mbb_per_hand"] == 0.0
    assert rows["unsafe"]["pairs"] == 1 and rows["unsafe"]["mbb_per_hand"] == pytest.approx(150 / 3 * 5)
    assert rows["unsafe+nested"]["mbb_per_hand"] == pytest.approx(-50 / 3 * 5)
    game = bundled_game("holdem.nolimit.2p")
    h1, _ = read_match_log(str(tmp_path / "match1.log"), game)
    h2, _ = read_match_log(str(tmp_path / "match2.log"), game)
    paired = summarize((player_series(h1, A, True) + player_series(h2, A, True)) / 2, game.big_blind)
    assert rows["all pairs"]["mbb_per_hand"] == pytest.approx(paired["mbb_per_hand"])
    assert rows["all pairs"]["ci95"] == pytest.approx(paired["ci95"])
    assert sum(g["mbb_per_hand"] for g in out["groups"][:-1]) == pytest.approx(paired["mbb_per_hand"])
    assert dbd.main([str(tmp_path)]) == 0
    assert "unsafe+nested" in capsys.readouterr().out


def test_unpaired_or_missing_logs_are_a_clear_error(tmp_path, capsys):
    _write(tmp_path, "match1", MATCH1, [])
    _write(tmp_path, "match2", MATCH2[:2], [])
    assert dbd.main([str(tmp_path)]) == 1
    assert "do not hold the same hands" in capsys.readouterr().err
    assert dbd.main([str(tmp_path / "nowhere")]) == 1
    assert "no match1.A-" in capsys.readouterr().err


def test_matches_are_pooled(tmp_path):
    for d in ("s7", "s8"):
        (tmp_path / d).mkdir()
    _write(tmp_path / "s7", "match1", MATCH1, [(1, "unsafe")])
    _write(tmp_path / "s7", "match2", MATCH2, [])
    _write(tmp_path / "s8", "match1", MATCH1[:1], [])
    _write(tmp_path / "s8", "match2", MATCH2[:1], [])
    out = dbd.analyse([str(tmp_path / "s7"), str(tmp_path / "s8")])
    assert out["matches"] == 2 and out["pairs"] == 4
    rows = {g["group"]: g for g in out["groups"]}
    # nets 0, +150, -50 and 0: 100 chips over 4 pairs of two hands, 100-chip big blind
    assert rows["all pairs"]["mbb_per_hand"] == pytest.approx(100 / 4 * 5)
    assert rows["no solve"]["pairs"] == 3 and rows["unsafe"]["mbb_per_hand"] == pytest.approx(150 / 4 * 5)
