from collections import Counter

import pytest

from pokerbot.bot.strategies import STRATEGIES, make_strategy
from pokerbot.protocol.betting import CALL, ActionType, raise_to
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import parse_matchstate

HUNL = bundled_game("holdem.nolimit.2p")


def ms(text, game=HUNL):
    return parse_matchstate(text, game)


def test_random_matches_the_reference_example_player():
    s = make_strategy("random", seed=1)
    spot = ms("MATCHSTATE:1:0::|AsKd")
    counts = Counter()
    sizes = []
    for _ in range(20000):
        a = s.act(spot)
        counts[a.type] += 1
        if a.type is ActionType.RAISE:
            sizes.append(a.size)
            assert spot.state.can_apply(a)
    assert abs(counts[ActionType.FOLD] / 20000 - 0.06) < 0.01
    assert abs(counts[ActionType.CALL] / 20000 - 0.47) < 0.02
    assert min(sizes) < 1000 and max(sizes) > 19000  # uniform over 200..20000
    assert abs(sum(sizes) / len(sizes) - 10100) < 400
    # no fold when checking is free: call and raise split the rest half and half
    spot = ms("MATCHSTATE:0:0:c:AsKd|")
    counts = Counter(s.act(spot).type for _ in range(4000))
    assert counts[ActionType.FOLD] == 0 and abs(counts[ActionType.CALL] / 4000 - 0.5) < 0.04


def test_call_raise_pot_allin():
    spot = ms("MATCHSTATE:1:0::|AsKd")
    assert make_strategy("call").act(spot) == CALL
    assert make_strategy("raise-pot").act(spot) == raise_to(300)  # call 50 -> pot 200 -> raise to 100 + 200
    assert make_strategy("allin").act(spot) == raise_to(20000)
    spot = ms("MATCHSTATE:0:0:r300:AsKd|")
    assert make_strategy("raise-pot").act(spot) == raise_to(900)  # call 200 -> pot 600 -> raise to 300 + 600
    spot = ms("MATCHSTATE:0:0:r20000:AsKd|")
    assert make_strategy("allin").act(spot) == CALL and make_strategy("raise-pot").act(spot) == CALL


def test_min_raise_raises_the_minimum_until_all_in():
    """The raise-war opponent: the smallest legal raise at every turn, a call when none is."""
    bot = make_strategy("min-raise")
    assert bot.act(ms("MATCHSTATE:1:0::|AsKd")) == raise_to(200)  # the big blind's size again
    assert bot.act(ms("MATCHSTATE:0:0:r300:AsKd|")) == raise_to(500)  # by the last raise (200)
    assert bot.act(ms("MATCHSTATE:0:0:r300r500c/:AsKd|/2c3d4h")) == raise_to(600)  # a flop bet of one big blind
    assert bot.act(ms("MATCHSTATE:0:0:r300r19900:AsKd|")) == raise_to(20000)  # less than a min-raise left: all in
    assert bot.act(ms("MATCHSTATE:1:0:r300r20000:|AsKd")) == CALL


def test_limit_game_raises():
    limit = bundled_game("holdem.limit.2p")
    spot = ms("MATCHSTATE:1:0::|AsKd", limit)
    assert make_strategy("allin").act(spot).type is ActionType.RAISE


def test_unknown_strategy():
    with pytest.raises(ValueError, match="unknown strategy"):
        make_strategy("nope")
    assert set(STRATEGIES) == {
        "random",
        "call",
        "raise-pot",
        "min-raise",
        "allin",
        "blueprint",
        "libratus",
        "unsafe",
        "prober",
        "fold",
    }


def test_prober_opens_with_its_own_size_and_otherwise_plays_the_blueprint(small_blueprint):
    from pokerbot.bot.players.prober import ProberStrategy
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.betting import BettingState, apply_betting
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.protocol.matchstate import MatchState

    game = bundled_game("holdem.nolimit.2p")
    bot = make_strategy("prober", 1, small_blueprint)
    assert isinstance(bot, ProberStrategy) and bot.size == 0.75
    sizes = set()
    for h in range(200):
        st = BettingState(game, h, [[4 * (h % 13), 4 * (h % 13) + 1], [2, 3]])
        a = bot.act(MatchState(st.current_player, st))
        assert st.can_apply(a)
        if a.type.name == "RAISE":
            sizes.add(a.size)
    # the small blind opens 0.75 of the pot after calling (200): to 250 (all-in stays all-in)
    assert sizes and sizes <= {250, 20000} and 250 in sizes
    # a re-raise is the blueprint's own
    st = apply_betting(BettingState(game, 999, [[48, 49], [2, 3]]), "r300")
    a = bot.act(MatchState(0, st))
    assert st.can_apply(a)
    with pytest.raises(ValueError, match="positive"):
        ProberStrategy(1, small_blueprint, size=0)
