"""Differential tests of the betting rules against OpenSpiel's universal_poker, which
embeds the ACPC rules code, and against OpenSpiel's own kuhn_poker and leduc_poker.

At every decision we compare the player to act, whether fold is legal, the minimum and
maximum raise-to (or whether a limit raise is legal); at every terminal the payoffs;
and the betting text OpenSpiel prints in its ACPC state against ours.
"""

from __future__ import annotations

import os
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from pokerbot.protocol.betting import CALL, FOLD, LIMIT_RAISE, BettingState, IllegalActionError, raise_to  # noqa: E402
from pokerbot.protocol.cards import make_card  # noqa: E402
from pokerbot.protocol.gamedef import bundled_game, parse_gamedef  # noqa: E402

#: Hands a differential run plays in the default run (the slow run adds 40,000 of no-limit hold'em).
HANDS = int(os.environ.get("POKERBOT_DIFF_HANDS", "1500"))


def universal_poker_params(game) -> dict[str, int | str]:
    """universal_poker parameters of one of our games (full betting)."""
    params = {
        "betting": game.betting.value,
        "numPlayers": game.num_players,
        "numRounds": game.num_rounds,
        "blind": " ".join(map(str, game.blind)),
        "firstPlayer": " ".join(str(f + 1) for f in game.first_player),
        "numSuits": game.num_suits,
        "numRanks": game.num_ranks,
        "numHoleCards": game.num_hole_cards,
        "numBoardCards": " ".join(map(str, game.num_board_cards)),
        "stack": " ".join(map(str, game.stack)),
    }
    if game.betting.value == "limit":
        params["raiseSize"] = " ".join(map(str, game.raise_size))
        params["maxRaises"] = " ".join(map(str, game.max_raises))
    else:
        params["bettingAbstraction"] = "fullgame"
    # Per-round and per-player lists are strings even when they hold one number.
    return {k: v if isinstance(v, int) else str(v) for k, v in params.items()}


def load_universal_poker(game):
    return pyspiel.load_game("universal_poker", universal_poker_params(game))


def os_card_to_ours(card: int, game) -> int:
    # OpenSpiel deals the lowest ranks and suits; the ACPC dealer the highest.
    r, s = divmod(card, game.num_suits)
    return make_card(r + 13 - game.num_ranks, s + 4 - game.num_suits)


def os_betting(os_state) -> str:
    text = str(os_state).split("ACPC State: ")[1].split("\n")[0]
    return text.split(":")[2]


def choose_action(rng: random.Random, ours: BettingState, nolimit: bool):
    """A random legal action, biased to reach later rounds and the raise bounds."""
    bounds = ours.raise_bounds()
    u = rng.random()
    if ours.can_fold() and u < 0.08:
        return FOLD
    if bounds is None or u < 0.45:
        return CALL
    if not nolimit:
        return LIMIT_RAISE
    lo, hi = bounds
    v = rng.random()
    if v < 0.25:
        to = lo
    elif v < 0.40:
        to = hi
    elif v < 0.75:
        to = min(hi, lo + rng.randint(0, max(0, min(hi - lo, ours.pot))))
    else:
        to = rng.randint(lo, hi)
    return raise_to(to)


def play_differential(game, hands: int, seed: int) -> dict:
    os_game = load_universal_poker(game)
    rng = random.Random(seed)
    nolimit = game.is_nolimit
    stats = {"decisions": 0, "showdowns": 0, "folds": 0, "allins": 0, "rounds_reached": [0] * game.num_rounds}
    for hand in range(hands):
        os_state = os_game.new_initial_state()
        ours = BettingState(game, hand)
        dealt: list[int] = []
        while not os_state.is_terminal():
            if os_state.is_chance_node():
                outcomes = [a for a, _ in os_state.chance_outcomes()]
                card = rng.choice(outcomes)
                os_state.apply_action(card)
                dealt.append(os_card_to_ours(card, game))
                continue
            context = f"hand {hand}, betting {ours.betting_string()!r}"
            assert os_state.current_player() == ours.current_player, context
            legal = os_state.legal_actions()
            assert (0 in legal) == ours.can_fold(), context
            assert (1 in legal) == ours.can_call(), context
            raises = [a for a in legal if a >= 2]
            bounds = ours.raise_bounds()
            if nolimit:
                assert (min(raises), max(raises)) == bounds if raises else bounds is None, context
                if raises:
                    # fullgame lists every integer in between
                    assert len(raises) == bounds[1] - bounds[0] + 1, context
            else:
                assert bool(raises) == (bounds is not None), context
            stats["decisions"] += 1
            action = choose_action(rng, ours, nolimit)
            os_action = {0: 0, 1: 1}.get(int(action.type), action.size if nolimit else 2)
            assert os_action in legal, context
            os_state.apply_action(os_action)
            ours.apply(action)
            assert os_betting(os_state) == ours.betting_string(), context
        assert ours.finished, f"hand {hand}: OpenSpiel ended at {ours.betting_string()!r}"
        assert os_betting(os_state) == ours.betting_string()
        nh = game.num_hole_cards
        ours.deal_hole_cards(0, dealt[:nh])
        ours.deal_hole_cards(1, dealt[nh : 2 * nh])
        ours.deal_board_cards(dealt[2 * nh :])
        assert ours.payoffs() == [int(v) for v in os_state.returns()], (
            f"hand {hand}: {ours.betting_string()!r} cards {dealt}"
        )
        assert os_state.returns() == [float(v) for v in ours.payoffs()]
        stats["showdowns" if ours.is_showdown else "folds"] += 1
        stats["allins"] += any(ours.is_all_in(p) for p in (0, 1))
        stats["rounds_reached"][ours.round] += 1
    return stats


@pytest.mark.parametrize("hands", [HANDS, pytest.param(40_000, marks=pytest.mark.slow)])
def test_hunl_full_game_agrees_with_openspiel(hands):
    game = bundled_game("holdem.nolimit.2p")
    # The loader OpenSpiel recommends for this game must describe the same game.
    ref = pyspiel.load_game(pyspiel.hunl_game_string("fullgame"))
    ours_os = load_universal_poker(game)
    assert ref.get_parameters() == ours_os.get_parameters()
    stats = play_differential(game, hands, seed=20261122)
    assert stats["decisions"] > 4 * hands
    # The sample covers every street, showdowns, folds and many all-ins.
    assert min(stats["rounds_reached"]) > hands // 50, stats
    assert stats["allins"] > hands // 10, stats
    assert stats["showdowns"] > hands // 5 and stats["folds"] > hands // 20, stats


def test_hunl_limit_agrees_with_openspiel():
    stats = play_differential(bundled_game("holdem.limit.2p"), HANDS, seed=7)
    assert min(stats["rounds_reached"]) > HANDS // 50, stats


def test_leduc_agrees_with_openspiel_universal_poker():
    stats = play_differential(bundled_game("leduc.limit.2p"), HANDS, seed=11)
    assert stats["showdowns"] > HANDS // 5, stats


@pytest.mark.parametrize("name", ["leduc.nolimit.2p", "flop.nolimit.2p", "kuhn.limit.2p"])
def test_small_games_agree_with_openspiel(name):
    play_differential(bundled_game(name), max(500, HANDS // 10), seed=3)


def test_unequal_stacks_agree_with_openspiel():
    """Short stacks exercise all-in below the minimum raise, calls that put a player
    all-in for less, and the bigger stack being unable to raise."""
    game = parse_gamedef(
        "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 700 2500\nblind = 100 50\n"
        "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\n"
        "numBoardCards = 0 3 1 1\nEND GAMEDEF\n"
    )
    stats = play_differential(game, max(1000, HANDS // 5), seed=5)
    assert stats["allins"] > 100


def test_action_count_limit_agrees_with_openspiel():
    """Minimum raises until the ACPC's 64-actions-per-round bound forbids raising."""
    game = bundled_game("holdem.nolimit.2p")
    os_state = load_universal_poker(game).new_initial_state()
    for card in range(4):
        os_state.apply_action(card)
    ours = BettingState(game)
    steps = 0
    while True:
        legal = os_state.legal_actions()
        raises = [a for a in legal if a >= 2]
        bounds = ours.raise_bounds()
        assert (min(raises), max(raises)) == bounds if raises else bounds is None
        if bounds is None:
            break
        os_state.apply_action(bounds[0])
        ours.raise_to(bounds[0])
        steps += 1
    assert steps == 63 and ours.max_spent < game.stack[0]
    assert not ours.can_raise()
    assert "too close to the limit" in pytest.raises(IllegalActionError, ours.raise_to, 20000).value.args[0]


# ------------------------------------------------------------------ OpenSpiel's own games
def test_leduc_bundled_game_equals_openspiel_leduc_poker():
    """Every betting sequence of every deal: same player, same legal actions, same
    payoffs as OpenSpiel's leduc_poker."""
    game = bundled_game("leduc.limit.2p")
    os_game = pyspiel.load_game("leduc_poker")
    action_map = {0: FOLD, 1: CALL, 2: LIMIT_RAISE}
    terminals = 0

    def to_ours(card: int) -> int:  # leduc_poker: rank = card // 2, suit = card % 2
        return make_card(10 + card // 2, 2 + card % 2)

    def walk(o, s):
        nonlocal terminals
        if o.is_terminal():
            assert s.finished, s.betting_string()
            assert [float(v) for v in s.payoffs()] == o.returns(), (s.betting_string(), s.hole_cards, s.board_cards)
            terminals += 1
            return
        assert not s.finished
        if o.is_chance_node():
            card = board_card
            assert card in [a for a, _ in o.chance_outcomes()]
            o.apply_action(card)
            walk(o, s)
            return
        assert o.current_player() == s.current_player
        legal = o.legal_actions()
        assert legal == [int(t) for t in s.legal_action_types()], (s.betting_string(), legal)
        for a in legal:
            o2 = o.clone()
            o2.apply_action(a)
            s2 = s.copy()
            s2.apply(action_map[a])
            walk(o2, s2)

    for c0 in range(6):
        for c1 in range(6):
            for board_card in range(6):
                if len({c0, c1, board_card}) < 3:
                    continue
                o = os_game.new_initial_state()
                o.apply_action(c0)
                o.apply_action(c1)
                s = BettingState(game, 0, [[to_ours(c0)], [to_ours(c1)]], [to_ours(board_card)])
                walk(o, s)
    # 120 deals; per deal 4 folds in round 1 plus 5 ways into round 2 times 9 endings
    assert terminals == 120 * (4 + 5 * 9)


def test_kuhn_bundled_game_equals_openspiel_kuhn_poker():
    game = bundled_game("kuhn.limit.2p")
    os_game = pyspiel.load_game("kuhn_poker")
    # kuhn_poker: 0 = pass (check/fold), 1 = bet (bet/call)
    terminals = 0

    def walk(o, s):
        nonlocal terminals
        if o.is_terminal():
            assert [float(v) for v in s.payoffs()] == o.returns(), s.betting_string()
            terminals += 1
            return
        assert o.current_player() == s.current_player
        for a in o.legal_actions():
            s2 = s.copy()
            if a == 0:
                s2.apply(FOLD if s2.can_fold() else CALL)
            else:
                s2.apply(CALL if s2.can_fold() else LIMIT_RAISE)
            o2 = o.clone()
            o2.apply_action(a)
            walk(o2, s2)

    for c0 in range(3):
        for c1 in range(3):
            if c0 == c1:
                continue
            o = os_game.new_initial_state()
            o.apply_action(c0)
            o.apply_action(c1)
            walk(o, BettingState(game, 0, [[make_card(10 + c0, 3)], [make_card(10 + c1, 3)]]))
    assert terminals == 6 * 5
