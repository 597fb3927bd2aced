"""The options several commands share (``bot.cli.options``): each is declared once,
so every command that takes one takes it alike, with its own defaults and help."""

import argparse
import builtins

import pytest

import pokerbot.bot.cli.options as opt
from pokerbot.bot.cli import build_parser
from pokerbot.protocol.gamedef import DEFAULT_GAME


def commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def declared(parser: argparse.ArgumentParser, option: str) -> argparse.Action | None:
    return next((a for a in parser._actions if option in a.option_strings), None)


def test_the_game_json_and_no_progress_options_are_alike_in_every_command():
    seen = {"--game": 0, "--json": 0, "--no-progress": 0}
    for name, parser in commands().items():
        game = declared(parser, "--game")
        if game is not None and name != "selfcheck":  # selfcheck's names bundled games to check
            seen["--game"] += 1
            assert (game.default, game.type, game.metavar) == (DEFAULT_GAME, None, None), name
        for flag in ("--json", "--no-progress"):
            action = declared(parser, flag)
            if action is not None:
                seen[flag] += 1
                assert isinstance(action, argparse._StoreTrueAction) and action.default is False, (name, flag)
    assert seen["--game"] >= 5 and seen["--json"] >= 6 and seen["--no-progress"] >= 5  # checked where they are


def test_each_command_keeps_its_own_defaults_of_a_shared_option():
    parsers = commands()
    defaults = {
        name: {flag: getattr(declared(p, flag), "default", "-") for flag in ("--seed", "--threads", "--workers")}
        for name, p in parsers.items()
    }
    assert defaults["match"]["--seed"] == 1 and defaults["play"]["--seed"] is None
    assert defaults["subgames"]["--seed"] == 0 and defaults["train-blueprint"]["--seed"] == 0
    assert defaults["play"]["--threads"] == "auto" and defaults["improve"]["--threads"] is None
    assert defaults["slumbot"]["--threads"] == "auto" and defaults["subgames"]["--threads"] == 1
    assert defaults["slumbot"]["--workers"] == 0 and defaults["play"]["--workers"] == 1
    assert defaults["subgames"]["--workers"] is None
    assert declared(parsers["play"], "--threads").metavar == "auto|N"
    assert declared(parsers["improve"], "--blueprint").required and declared(parsers["improve"], "--out").required
    assert declared(parsers["lbr"], "--blueprint").metavar is None
    assert declared(parsers["match"], "--blueprint").metavar == "PATH"


def test_the_dealer_limits_are_read_as_declared():
    p = argparse.ArgumentParser()
    opt.dealer_limit_options(p, "the dealer's", ", which the agent's time budget respects")
    args = p.parse_args(["--t_hand", "900"])
    assert opt.dealer_limits(args) == {"t_response": 600_000, "t_hand": 900, "t_per_hand": 7_000}
    assert declared(p, "--t_response").help == (
        "the dealer's limit per reply, which the agent's time budget respects (default 600000)"
    )
    with pytest.raises(SystemExit):
        p.parse_args(["--t_response", "0"])


def test_a_game_that_does_not_load_is_said_and_gives_none(capsys):
    assert opt.game_of(argparse.Namespace(game=DEFAULT_GAME), "match").num_players == 2
    assert opt.game_of(argparse.Namespace(game="no-such-game"), "web") is None
    assert capsys.readouterr().err.startswith("pokerbot web: ")


def test_a_missing_ray_is_said_with_how_to_install_it(capsys, monkeypatch):
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("no ray here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    assert opt.ray_missing("train-blueprint", " (scripts/setup --cluster)")
    assert capsys.readouterr().err == (
        "pokerbot train-blueprint: --ray needs the cluster extra: pip install 'pokerbot[cluster]' "
        "(scripts/setup --cluster)\n"
    )
