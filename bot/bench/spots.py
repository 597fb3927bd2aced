"""The work ``pokerbot bench scale`` and its ceiling time: the reference turn solve's
subgame, the agent's full-depth turn subgame, the agent's depth-limited flop subgame,
and a uniform blueprint store of a preset's action tree with stand-in cards (what the
flop's leaves and MCCFR run on)."""

from __future__ import annotations

import random

import numpy as np


def uniform_blueprint(path: str, preset: str = "default") -> str:
    """Write a store with ``preset``'s action tree and bucket counts, stand-in cards and
    every decision uniform; returns ``path``."""
    from pokerbot.blueprint_store.abstraction import stand_in_cards
    from pokerbot.blueprint_store.store import BlueprintContents, write_blueprint
    from pokerbot.blueprint_store.train import PRESETS
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.solver.betting_tree import build_betting_tree
    from pokerbot.solver.tree import DECISION

    p = PRESETS[preset]
    game = bundled_game("holdem.nolimit.2p")
    tree = build_betting_tree(game, p.actions.sizes(), p.cards.buckets)
    strategy = np.zeros(tree.num_slots, dtype=np.float32)
    for n in np.nonzero(tree.kind == DECISION)[0]:
        k = int(tree.num_children[n])
        base = int(tree.slot_offset[n])
        strategy[base : base + int(tree.buckets[int(tree.round[n])]) * k] = 1.0 / k
    cards = stand_in_cards(p.cards.buckets)
    write_blueprint(path, BlueprintContents(game, p.actions, cards, tree, strategy, {"preset": f"{preset}, uniform"}))
    return path


def turn_spot():
    """The reference turn solve's subgame (``bench solver``'s spot)."""
    from pokerbot.bot.bench.solver import reference_turn_spot
    from pokerbot.solver.subgame import make_subgame

    state, sizes = reference_turn_spot()
    return make_subgame(state, sizes)


def agent_turn_spot():
    """The agent's full-depth turn subgame (its own turn and river sizes, the bet-size
    scale 1, full ranges) on the spot its speed is measured on at start-up
    (``turn_choice.speed_spot``: QsJh2h8d after r300c/cc/, 200 big blinds deep)."""
    from pokerbot.bot.agent.libratus import SUBGAME_SIZES
    from pokerbot.bot.agent.turn_choice import speed_spot

    return speed_spot({2: SUBGAME_SIZES[2], 3: SUBGAME_SIZES[3]})


def flop_spot(bp):
    """The agent's depth-limited flop subgame on ``FLOP_BOARD`` after ``FLOP_BETTING``
    (its action tree, the 98-runout sample), its leaves' continuations from ``bp``."""
    from pokerbot.blueprint_store import continuations
    from pokerbot.blueprint_store.real_play import BlueprintPlay
    from pokerbot.bot.agent.config import AgentConfig
    from pokerbot.bot.agent.libratus import SUBGAME_SIZES
    from pokerbot.bot.bench.depth_limited import FLOP_BETTING, FLOP_BOARD
    from pokerbot.protocol.betting import BettingState, apply_betting
    from pokerbot.protocol.cards import parse_cards
    from pokerbot.solver.depth_limited import runout_sample
    from pokerbot.solver.subgame import make_subgame

    player = BlueprintPlay(bp, random.Random(1))
    state = apply_betting(BettingState(bp.game, 7, None, parse_cards(FLOP_BOARD)), FLOP_BETTING)
    deals = runout_sample(bp.game.deck(), state.board_cards, AgentConfig().flop_rivers, 100)
    sub = make_subgame(state, {1: SUBGAME_SIZES[1]}, None, leaf_round=2, leaf_deals=deals)
    continuations.attach_blueprint_continuations(sub, state, player.view, player.walk(state)[0])
    return sub
