import argparse
import os

import pytest
from conftest import cli_json

from pokerbot.bot.cli import main


def test_selfcheck_passes_on_bundled_games(capsys):
    assert main(["selfcheck", "--hands", "60", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "self-check passed" in out and "holdem.nolimit.2p" in out and "FAILED" not in out


def test_selfcheck_rejects_unknown_game(capsys):
    assert main(["selfcheck", "--game", "nope"]) == 2
    assert "unknown game" in capsys.readouterr().err


def test_games_lists_and_prints(capsys, tmp_path):
    assert main(["games"]) == 0
    assert "leduc.limit.2p" in capsys.readouterr().out
    assert main(["games", "kuhn.limit.2p"]) == 0
    assert "numRanks = 3" in capsys.readouterr().out
    bad = tmp_path / "bad.game"
    bad.write_text("GAMEDEF\nnumPlayers = x\nEND GAMEDEF\n")
    assert main(["games", str(bad)]) == 2
    assert f"{bad}:2: 'numPlayers': 'x' is not an integer" in capsys.readouterr().err


def test_bad_arguments_exit_with_usage():
    with pytest.raises(SystemExit) as e:
        main(["selfcheck", "--hands", "0"])
    assert e.value.code == 2


def test_bench_evaluator_prints_figures_and_ratio():
    r = cli_json("bench", "evaluator", "--hands", "20000", "--boards", "50", "--repeats", "1", "--json")
    assert r["ours_batch_boards_meps"] > 0 and r["ours_random7_meps"] > 0
    assert "ratio_batch_vs_pokerfast" in r and "ratio_batch_vs_phevaluator" in r


def test_match_without_a_blueprint_says_how_to_make_one(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no blueprints/default.bp here
    monkeypatch.delenv("POKERBOT_BLUEPRINT", raising=False)
    assert main(["match", "--no-train", "--hands", "5", "--out", str(tmp_path / "r")]) == 2  # libratus vs random
    err = capsys.readouterr().err
    assert "no blueprint at blueprints/default.bp" in err and "train-blueprint --preset default" in err
    assert main(["match", "blueprint", "call", "--blueprint", str(tmp_path / "missing.bp")]) == 2
    assert "missing.bp" in capsys.readouterr().err
    assert not (tmp_path / "blueprints").exists()  # nothing was trained


def test_play_refuses_a_missing_blueprint_before_starting_workers(capsys, tmp_path):
    assert main(["play", "127.0.0.1", "9", "--blueprint", str(tmp_path / "none.bp")]) == 2  # default: libratus
    assert "none.bp" in capsys.readouterr().err


def test_agent_threads_and_solve_caps_are_checked(capsys, small_blueprint, monkeypatch):
    from pokerbot.bot.cli.options import solve_seconds, solver_threads

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert solver_threads("auto") == 3 and solver_threads("2") == 2
    assert solver_threads("64") == 3  # clamped to the CPUs this process may use, with a note
    assert "more than the 3 CPUs" in capsys.readouterr().err
    for bad in ("0", "-1", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            solver_threads(bad)
    assert solve_seconds("plan") is None and solve_seconds("1.5") == 1.5
    with pytest.raises(argparse.ArgumentTypeError):
        solve_seconds("0")
    with pytest.raises(SystemExit):
        main(["play", "127.0.0.1", "9", "--threads", "0"])
    # limits that leave no time to solve: refused before any connection
    assert main(["play", "127.0.0.1", "9", "--blueprint", small_blueprint, "--t_per_hand", "300"]) == 2
    assert "no time to solve" in capsys.readouterr().err
    assert main(["match", "call", "libratus", "--hands", "5", "--t_per_hand", "200", "--no-train"]) == 2
    assert "no time to solve" in capsys.readouterr().err


def test_improve_reports_bad_input_clearly(capsys, tmp_path):
    assert (
        main(
            [
                "improve",
                "--logs",
                str(tmp_path / "nope"),
                "--blueprint",
                str(tmp_path / "x.bp"),
                "--out",
                str(tmp_path / "y.bp"),
            ]
        )
        == 2
    )
    assert "x.bp" in capsys.readouterr().err  # the store is opened first
    with pytest.raises(SystemExit):
        main(["improve", "--logs", "a", "--blueprint", "b", "--out", "c", "--hours", "0"])


def test_warm_prepares_the_agent_and_refuses_a_missing_store(capsys, small_blueprint, tmp_path):
    assert main(["warm", "--blueprint", small_blueprint]) == 0
    assert "kernels ready" in capsys.readouterr().out
    assert main(["warm", "--blueprint", str(tmp_path / "none.bp")]) == 2
    assert "none.bp" in capsys.readouterr().err


def test_blueprint_path_prefers_the_given_store_then_the_environment_then_default_then_quick(tmp_path, monkeypatch):
    from pokerbot.bot.strategies import DEFAULT_BLUEPRINT, QUICK_BLUEPRINT, blueprint_path

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POKERBOT_BLUEPRINT", raising=False)
    assert blueprint_path() == DEFAULT_BLUEPRINT  # nothing there: the default's name for the error
    (tmp_path / "blueprints").mkdir()
    (tmp_path / QUICK_BLUEPRINT).write_bytes(b"q")
    assert blueprint_path() == QUICK_BLUEPRINT
    (tmp_path / DEFAULT_BLUEPRINT).write_bytes(b"d")
    assert blueprint_path() == DEFAULT_BLUEPRINT
    monkeypatch.setenv("POKERBOT_BLUEPRINT", "env.bp")
    assert blueprint_path() == "env.bp" and blueprint_path("given.bp") == "given.bp"


def test_match_with_no_blueprint_trains_the_quick_one_and_plays_with_it(capsys, tmp_path, monkeypatch):
    from pokerbot.bot import cli
    from pokerbot.bot.cli import train_blueprint

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POKERBOT_BLUEPRINT", raising=False)
    trained = []

    full = vars(cli.build_parser().parse_args(["train-blueprint", "--out", "x.bp"]))

    def fake_train(args):
        assert vars(args).keys() == full.keys()  # what the real command reads is all there
        trained.append((args.preset, args.out))
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "wb") as f:
            f.write(b"store")
        return 0

    monkeypatch.setattr(train_blueprint, "run", fake_train)
    args = argparse.Namespace(blueprint=None, no_train=False)
    assert train_blueprint.ensure_blueprint(args) == 0
    assert trained == [("tiny", os.path.join("blueprints", "quick.bp"))]
    assert os.environ["POKERBOT_BLUEPRINT"] == str(tmp_path / "blueprints" / "quick.bp")
    out = capsys.readouterr().out
    assert "training the quick one first" in out and "train-blueprint --preset default" in out
    # the second time it is there: no training, a note that says how to get the strong one
    monkeypatch.delenv("POKERBOT_BLUEPRINT")
    assert train_blueprint.ensure_blueprint(args) == 0 and len(trained) == 1
    assert "playing with the quick blueprint" in capsys.readouterr().out
    # a training that fails stops the match
    monkeypatch.delenv("POKERBOT_BLUEPRINT")
    os.remove(tmp_path / "blueprints" / "quick.bp")
    monkeypatch.setattr(train_blueprint, "run", lambda args: 1)
    assert train_blueprint.ensure_blueprint(args) == 1 and "POKERBOT_BLUEPRINT" not in os.environ
