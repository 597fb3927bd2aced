"""The agent's preflop and flop as ``--early-purify`` / ``--early-threshold`` say: its
blueprint decisions, and its own range at the turn's first solve, follow the play (the
opponent's range model does not: it models the opponent, not us); the blueprint player
takes the same options."""

import numpy as np

from pokerbot.blueprint_store.real_play import PLAY_PURIFIED_ROUNDS, PLAY_THRESHOLD
from pokerbot.blueprint_store.store import RANGE_THRESHOLD
from pokerbot.bot.agent.libratus import EARLY_ROUNDS, LibratusAgent
from pokerbot.bot.cli import build_parser
from pokerbot.bot.cli.options import agent_options
from pokerbot.bot.evaluation.subgames import blueprint_player
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.strategy_query import query
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")


def test_purified_early_rounds_reach_our_range_and_not_theirs(small_blueprint):
    plain = LibratusAgent(1, small_blueprint, early_purify=False, early_threshold=RANGE_THRESHOLD)
    pure = LibratusAgent(1, small_blueprint, early_purify=True)
    raw = LibratusAgent(1, small_blueprint, early_purify=False, early_threshold=0.0)
    turn = apply_betting(BettingState(HUNL, 0, None, parse_cards("QsJh2h8d")), "r300c/cc/")
    me = 0
    ranges = {name: a.first_solve_ranges(turn, me) for name, a in (("plain", plain), ("pure", pure), ("raw", raw))}
    assert not np.allclose(ranges["pure"][me], ranges["plain"][me])  # ours follows our play
    assert not np.allclose(ranges["raw"][me], ranges["plain"][me])
    assert np.allclose(ranges["pure"][1 - me], ranges["plain"][1 - me])  # theirs: the model of the opponent
    # purified play: each hand's whole weight on one of fold, call, raise at the first decision
    start = BettingState(HUNL, 0)
    answer = pure.blueprint.every_hand(start, 1)
    assert answer is not None
    actions, probs = answer
    kinds = np.array([a.type.value for a in actions])
    assert all(len({kinds[j] for j in np.nonzero(row > 0)[0]}) == 1 for row in probs if row.any())
    # and our range along the line is the product of the purified probabilities we played
    line = apply_betting(BettingState(HUNL, 0, None, parse_cards("QsJh2h")), "r300c/")
    ours = pure.first_solve_ranges(line, 1)[1]
    first = query(BlueprintStrategy(1, small_blueprint, (0, 1)), BettingState(HUNL, 0), 1)
    raised = apply_betting(BettingState(HUNL, 0), "r300").actions[0][0]
    assert np.allclose(ours, first.probability_of(raised) * (ours > 0))


def test_the_options_reach_the_agent_and_the_blueprint_player():
    args = build_parser().parse_args(["play", "h", "1", "--early-purify", "--early-threshold", "0.02"])
    options = agent_options(args)
    assert options.get("early_purify", bool(PLAY_PURIFIED_ROUNDS))  # on, whatever the default
    assert options["early_threshold"] == 0.02
    plain = agent_options(build_parser().parse_args(["play", "h", "1"]))
    assert "early_purify" not in plain and "early_threshold" not in plain


def test_the_agent_the_blueprint_player_and_the_measure_play_one_default(small_blueprint):
    """One default for the first rounds as played (``PLAY_PURIFIED_ROUNDS``,
    ``PLAY_THRESHOLD``): the agent's, the ``blueprint`` player's and the measure's
    ``blueprint`` variant's; the opponent's range model keeps the store's threshold."""
    agent = LibratusAgent(1, small_blueprint)
    players = [agent.blueprint, BlueprintStrategy(1, small_blueprint).play, blueprint_player(1, small_blueprint).play]
    for play in players:
        assert play.range_threshold == PLAY_THRESHOLD and play.threshold_rule == "hand"
        assert play.purified_rounds == frozenset(PLAY_PURIFIED_ROUNDS)
    assert set(PLAY_PURIFIED_ROUNDS) <= set(EARLY_ROUNDS)
    model = LibratusAgent(1, small_blueprint, opponent_model=small_blueprint).opponent_model
    assert model.range_threshold == RANGE_THRESHOLD and not model.purified_rounds
