"""The blueprint player: legal actions in every spot (off-tree sizes translated),
the pseudo-harmonic mapping at work, and a match on our dealer through the CLI."""

import json
import random

import numpy as np
import pytest

from pokerbot.bot.cli import main
from pokerbot.bot.evaluation.match_log import player_series, read_match_log
from pokerbot.bot.evaluation.raise_war import raise_war
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.protocol.betting import CALL, FOLD, ActionType, BettingState, raise_to
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(300)


def random_spots(n, seed):
    """Hands played by random actions (any legal raise size), cut at a random decision."""
    rng = random.Random(seed)
    for _ in range(n):
        deck = list(range(52))
        rng.shuffle(deck)
        st = BettingState(HUNL, 0, [deck[0:2], deck[2:4]])
        stop = rng.randint(0, 8)
        for _ in range(stop):
            if st.finished:
                break
            need = HUNL.total_board_cards(st.round)
            if len(st.board_cards) < need:
                st.deal_board_cards(deck[4 + len(st.board_cards) : 4 + need])
            bounds = st.raise_bounds()
            u = rng.random()
            if u < 0.1 and st.can_fold():
                st.fold()
            elif u < 0.55 or bounds is None:
                st.call()
            else:
                st.apply(raise_to(rng.randint(bounds[0], min(bounds[1], bounds[0] * 6))))
        if st.finished:
            continue
        need = HUNL.total_board_cards(st.round)
        if len(st.board_cards) < need:
            st.deal_board_cards(deck[4 + len(st.board_cards) : 4 + need])
        yield MatchState(st.current_player, st)


def test_every_action_is_legal_including_after_off_tree_bets(small_blueprint):
    player = BlueprintStrategy(seed=1, blueprint=small_blueprint)
    caps = [r.max_raises for r in player.bp.actions.rounds]
    within = 0
    for ms in random_spots(400, 5):
        before = player.fallbacks
        a = player.act(ms)
        assert ms.state.can_apply(a), (ms.state.betting_string(), a)
        raises = [sum(x.type is ActionType.RAISE for x in acts) for acts in ms.state.actions]
        if all(n <= cap for n, cap in zip(raises, caps)):
            within += 1  # the abstraction can follow this hand: no fallback allowed
            assert player.fallbacks == before, ms.state.betting_string()
    assert within > 100


def test_a_raise_war_past_the_cap_gets_folds_and_raises_not_only_calls(small_blueprint):
    """Against an opponent that min-raises at every turn, the betting passes the
    abstraction's raise cap in most hands. Where the cap allows two raises or more, the
    blueprint must go on playing its strategy (the raise war goes back to the last node
    where it faced a raise and could raise): with some hands it folds, with some it
    raises again, and no decision is a fallback. (Where the cap is one raise, a raise
    back has no such node: those rounds still check or call.) The old player only
    called past the cap."""
    r = raise_war(BlueprintStrategy(seed=3, blueprint=small_blueprint), HUNL, 200, 9)
    followable = [i for i, cap in enumerate(r.raise_caps) if cap >= 2]
    assert followable
    assert sum(r.fallbacks[i] for i in followable) == 0, r.fallbacks
    past = {k: sum(r.past_cap[i][k] for i in followable) for k in ("fold", "call", "raise")}
    assert sum(past.values()) > 50
    assert past["fold"] > 0 and past["raise"] > 0, past


def test_an_off_tree_raise_maps_to_a_neighbouring_size(small_blueprint):
    player = BlueprintStrategy(seed=2, blueprint=small_blueprint)
    bp = player.bp
    r300 = int(bp.tree.first_child[0]) + [str(a) for a in bp.child_actions(0)].index("r300")
    allin = int(bp.tree.first_child[0]) + [str(a) for a in bp.child_actions(0)].index("r20000")
    for to in (10000, 19999):  # sizes below all-in never map to all-in (the hand could not be followed)
        st = BettingState(HUNL, 0, [[0, 1], [2, 3]])
        st.apply(raise_to(to))
        assert _parent_child(bp, player.play.abstract_node(st)) == r300
    st = BettingState(HUNL, 0, [[0, 1], [2, 3]])
    st.apply(raise_to(20000))
    assert _parent_child(bp, player.play.abstract_node(st)) == allin
    st = BettingState(HUNL, 0, [[0, 1], [2, 3]])
    st.apply(raise_to(250))  # below the smallest size: the smallest
    assert _parent_child(bp, player.play.abstract_node(st)) == r300


def _parent_child(bp, node):
    """The root's child above ``node`` (the node itself if it is one)."""
    f, m = int(bp.tree.first_child[0]), int(bp.tree.num_children[0])
    for c in range(f, f + m):
        lo = c
        stack = [c]
        while stack:
            x = stack.pop()
            if x == node:
                return lo
            fc = int(bp.tree.first_child[x])
            if fc >= 0:
                stack.extend(range(fc, fc + int(bp.tree.num_children[x])))
    raise AssertionError("node not below the root")


def test_a_match_through_the_command_line(small_blueprint, tmp_path):
    out = tmp_path / "m"
    assert (
        main(
            [
                "match",
                "blueprint",
                "raise-pot",
                "--hands",
                "200",
                "--seed",
                "4",
                "--out",
                str(out),
                "--blueprint",
                small_blueprint,
            ]
        )
        == 0
    )
    s = json.loads((out / "summary.json").read_text())
    assert s["ok"] and s["matches"][0]["hands_played"] == 200
    err = (out / "match1.err").read_text()
    assert "WARNING" not in err and "ERROR" not in err


def test_missing_or_wrong_blueprint_is_refused(tmp_path, small_blueprint):
    with pytest.raises(ValueError, match="needs a blueprint"):
        BlueprintStrategy(seed=0, blueprint=None)
    assert main(["play", "127.0.0.1", "9", "--strategy", "blueprint", "--blueprint", str(tmp_path / "none.bp")]) == 2
    player = BlueprintStrategy(seed=0, blueprint=small_blueprint)
    limit = bundled_game("holdem.limit.2p")
    ms = MatchState(1, BettingState(limit, 0, [[], [0, 1]]))
    with pytest.raises(ValueError, match="another game"):
        player.act(ms)


def test_common_random_numbers_make_a_duplicate_pair_cancel(small_blueprint, tmp_path):
    # blueprint vs blueprint: with one seed for both, the two matches of a duplicate
    # play every hand identically with the seats swapped, so each pair sums to zero;
    # with a seed each (the default) they do not
    def pairs(crn: bool) -> np.ndarray:
        out = tmp_path / ("crn" if crn else "plain")
        args = [
            "match",
            "blueprint",
            "blueprint",
            "--hands",
            "150",
            "--seed",
            "3",
            "--duplicate",
            "--out",
            str(out),
            "--blueprint",
            small_blueprint,
        ] + (["--common-random-numbers"] if crn else [])
        assert main(args) == 0
        s = json.loads((out / "summary.json").read_text())
        assert s["common_random_numbers"] is crn
        game = bundled_game("holdem.nolimit.2p")
        a = [
            player_series(
                read_match_log(m["log"], game, adjust=False)[0], next(n for n in m["seats"] if n.startswith("A-"))
            )
            for m in s["matches"]
        ]
        return a[0] + a[1]

    assert np.abs(pairs(False)).sum() > 0
    assert np.abs(pairs(True)).max() == 0.0


def test_sampling_depends_only_on_seed_and_situation(small_blueprint):
    game = bundled_game("holdem.nolimit.2p")
    one, two, other = (BlueprintStrategy(seed=s, blueprint=small_blueprint) for s in (5, 5, 6))
    states = [BettingState(game, h, [[h % 52, (h + 7) % 52], [(h + 20) % 52, (h + 33) % 52]]) for h in range(40)]
    two.act(MatchState(1, states[3]))  # a decision in between does not shift what follows
    for st in states:
        assert one.keys.at(st, 1) == two.keys.at(st, 1)
    draws = [one.keys.at(st, 1) for st in states]
    assert draws != [other.keys.at(st, 1) for st in states]
    assert all(0.0 <= u < 1.0 for u in draws) and len(set(draws)) == len(draws)


def line_state(betting, board=(0, 17, 34, 51, 22)):
    """The state after ``betting`` (the boards of its rounds dealt)."""
    st = BettingState(HUNL, 5, [[48, 49], [20, 30]])
    for i, round_betting in enumerate(betting.split("/")):
        if i:
            st.deal_board_cards(list(board[HUNL.total_board_cards(i - 1) : HUNL.total_board_cards(i)]))
        for a in round_betting.replace("r", " r").replace("c", " c").replace("f", " f").split():
            st.apply(raise_to(int(a[1:])) if a[0] == "r" else (CALL if a == "c" else FOLD))
    return st


#: Lines where the quick blueprint used to leave its tree after the flop and check or
#: call down with every hand: a shove over its flop bet, and a flop check-raise called.
LINES_AFTER_THE_FLOP = ("r300c/cr900r20000", "cc/r300r2181c/", "cc/r300r2181c/r3681")


@pytest.mark.parametrize("betting", LINES_AFTER_THE_FLOP)
def test_the_quick_blueprints_abstraction_follows_a_raise_after_the_flop(small_blueprint, betting):
    """With the tiny preset's actions (those of the quick blueprint, and of
    ``small_blueprint``), a raise over a bet after the flop maps into the tree: the
    player acts from the blueprint's strategy there (some hands fold to the shove or the
    bet), not the fallback that calls with every hand."""
    st = line_state(betting)
    seat = st.current_player
    player = BlueprintStrategy(seed=1, blueprint=small_blueprint)
    assert player.play.abstract_node(st, seat) is not None
    answer = player.action_probabilities(st, seat)
    fold = [i for i, a in enumerate(answer.actions) if a.type is ActionType.FOLD]
    live = answer.probabilities.sum(axis=1) > 0
    if st.can_fold():
        assert fold and answer.probabilities[live, fold[0]].max() > 0.1  # some hands give up
    else:  # checked to: some hands bet
        assert any(a.type is ActionType.RAISE for a in answer.actions)
    player.act(MatchState(seat, st))
    assert player.fallbacks == 0


def test_one_raise_a_round_after_the_flop_calls_a_shove_with_every_hand(tmp_path):
    """Negative control: the old tiny abstraction (one raise a round after the flop)
    cannot follow the shove over its flop bet, and the player calls with every hand."""
    from conftest import build_small_blueprint

    from pokerbot.blueprint_store.actions import PRESET_ACTIONS, ActionAbstraction
    from pokerbot.solver.tree import BetSizes

    old = ActionAbstraction(PRESET_ACTIONS["tiny"].rounds[:1] + (BetSizes(bets=((1.0,),), max_raises=1),) * 3)
    path = build_small_blueprint(str(tmp_path / "old.bp"), iterations=2_000, actions=old)
    st = line_state(LINES_AFTER_THE_FLOP[0])
    player = BlueprintStrategy(seed=1, blueprint=path)
    assert player.play.abstract_node(st, st.current_player) is None
    answer = player.action_probabilities(st, st.current_player)
    assert [a.type for a in answer.actions] == [ActionType.CALL]
