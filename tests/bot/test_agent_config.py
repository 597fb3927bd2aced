"""``bot/agent/config``: each solving option declared once, and the command line, the
agent and ``pokerbot subgames --agent`` all reading that declaration."""

import argparse
from dataclasses import fields

import pytest

from pokerbot.bot.agent import config as cf
from pokerbot.bot.cli import build_parser
from pokerbot.bot.cli.options import agent_options
from pokerbot.bot.cli.subgames import SpecError, agent_spec


def declared(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in parser._actions}


def test_every_field_is_an_option_and_every_command_declares_it_as_the_config_does():
    assert [o.field for o in cf.OPTIONS] == [f.name for f in fields(cf.AgentConfig)]
    default = cf.AgentConfig()
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command in ("play", "slumbot", "lbr"):
        actions = declared(sub.choices[command])
        for o in cf.OPTIONS:
            assert actions[o.field].default == getattr(default, o.field), (command, o.field)
            assert o.flag in actions[o.field].option_strings
    spec = argparse.ArgumentParser(add_help=False)
    cf.add_options(spec)
    groups = {g.title: [a.dest for a in g._group_actions] for g in spec._action_groups}
    assert set(groups["experimental solving options"]) == {o.field for o in cf.OPTIONS if o.experimental}


def test_the_command_line_the_agent_and_subgames_read_the_same_object(small_blueprint):
    from pokerbot.bot.agent.libratus import LibratusAgent

    words = ["--solve-round", "river", "--gadget", "maxmargin", "--full-turn", "2:30", "--turn-solver", "full"]
    args = build_parser().parse_args(["play", "h", "1", *words])
    options = agent_options(args)
    assert options == {"solve_round": "river", "gadget": "maxmargin", "full_turn": (2, 30), "turn_solver": "full"}
    agent = LibratusAgent(1, small_blueprint, **options)
    assert agent.config == cf.config_of(args) and agent.solve_round == 3 and agent.gadget == "maxmargin"
    assert {k: v for k, v in agent_spec("libratus " + " ".join(words)).items() if k != "safe"} == options
    assert agent_options(build_parser().parse_args(["play", "h", "1"])) == {}  # the defaults: nothing to say
    older = agent_options(build_parser().parse_args(["play", "h", "1", "--solve-round", "4"]))
    assert older == {"solve_round": "river"}  # the older numbers name the same rounds


def test_bad_values_are_refused_once_with_their_name(small_blueprint):
    from pokerbot.bot.agent.libratus import LibratusAgent

    for bad, words in (
        ({"turn_solver": "deep"}, "turn solver must be one of"),
        ({"card_samples": -1}, "card samples: must be 0 or more"),
        ({"full_turn": (4, 0)}, "iterations >= 1"),
        ({"full_turn": (4, 10)}, "needs turn solver 'full'"),
        ({"early_threshold": 1.0}, "must be in"),
        ({"turn_bets": (0.0,)}, "positive pot fractions"),
    ):
        with pytest.raises(ValueError, match=words):
            LibratusAgent(1, small_blueprint, **bad)
    with pytest.raises(TypeError, match="unknown agent options: magic"):
        cf.AgentConfig().with_options(magic=1)
    with pytest.raises(SpecError, match="card samples"):
        agent_spec("libratus --card-samples -3")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "h", "1", "--solve-round", "preflop"])
