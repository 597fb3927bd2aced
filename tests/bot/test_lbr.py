"""Local Best Response: exact winnings against a bot that always folds, a large margin
against one that always calls, range tracking equal to a brute-force Bayes update, and
the control variates' pieces in hold'em (the deal's expectation by brute force, the
corrected result against real strategies)."""

import numpy as np
import pytest

from pokerbot.blueprint_store.real_play import concrete_action
from pokerbot.blueprint_store.store import RANGE_THRESHOLD
from pokerbot.bot.evaluation.lbr import (
    MIN_FIT_HANDS,
    ROUND_CODES,
    LBRError,
    Range,
    check_setting,
    holdem_baseline,
    holdem_root_values,
    parse_setting,
    play_hand,
    summarize,
)
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.strategy_query import HANDS, hand_index, live_hands, query
from pokerbot.bot.strategies import make_strategy
from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")


def deal_holes(hand: int, seed: int = 0) -> list[list[int]]:
    from pokerbot.bot.evaluation.lbr import deal

    deck = deal(seed, hand)
    return [deck[0:2], deck[2:4]]


pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("setting", ["fcpa", "fcpa56", "full"])
def test_lbr_wins_exactly_750_against_always_fold(setting):
    """In the big blind the bot folds its small blind (+50); in the small blind LBR calls
    (every hand has over a quarter of the pot's equity against a full range) and bets
    the first round it may (the turn in fcpa, the flop in full), and the bot folds
    (+100): 75 chips a hand, 750 mbb/game."""
    bot = make_strategy("fold", 1)
    values = [play_hand(bot, HUNL, 3, hand, setting).chips for hand in range(12)]
    assert values == [50.0, 100.0] * 6
    assert summarize(values, HUNL.big_blind)["mbb_per_game"] == 750.0


def test_lbr_beats_a_calling_station_by_a_large_margin():
    bot = make_strategy("call", 1)
    values = [play_hand(bot, HUNL, 5, hand, "fcpa").chips for hand in range(300)]
    s = summarize(values, HUNL.big_blind)
    assert s["mbb_per_game"] - s["ci95"] > 1000  # all-in with the better half of its hands


def test_lbr_wins_250_in_expectation_against_always_fold_with_fold_and_call():
    """In the big blind +50 every hand; in the small blind LBR calls (every hand has over
    a quarter of the pot's equity against a full range) and checks down: a showdown of
    200 chips and nothing else, worth 0 over the deals by symmetry: 250 mbb/game."""
    bot = make_strategy("fold", 1)
    decisions = []
    values = [
        play_hand(bot, HUNL, 3, hand, "fc", on_decision=lambda s, d: decisions.append((s.round, str(d.action)))).chips
        for hand in range(6)
    ]
    assert values[0::2] == [50.0] * 3
    assert all(v in (-100.0, 0.0, 100.0) for v in values[1::2])
    assert decisions and all(a == "c" for _, a in decisions)  # it never folds, never bets
    assert {r for r, _ in decisions} == {0, 1, 2, 3}


def test_settings_lbr_cannot_play_are_refused():
    for bad in ("fcx", "fc/fc/fc", "fc/fc/fc/fcx", "c/c/fcpa/fcpa/fc", ""):
        with pytest.raises(LBRError, match="unknown"):
            check_setting(bad)
    for s in ("fc", "fcpa", "fcpa56", "full", "fc/fca/fcpa56/c"):
        check_setting(s)
    assert parse_setting("full") == (ROUND_CODES["fc"], ROUND_CODES["fcp"], ROUND_CODES["fcpa"], ROUND_CODES["fcpa"])
    assert parse_setting("fcpa") == parse_setting("c/c/fcpa/fcpa")


def test_lbr_folds_junk_against_a_preflop_shove_only_where_it_may():
    """LBR in the big blind against a bot that shoves every hand: in fcpa it calls with
    anything; in full only with about half the equity against a full range (19,900 to
    call for a pot of 20,100), never with 7-2 offsuit."""
    bot = make_strategy("allin", 1)
    seven_deuce = next(h for h in range(0, 4000, 2) if sorted(c // 4 for c in deal_holes(h)[0]) == [0, 5])
    calls = {}
    for setting in ("fcpa", "full"):
        seen: list[str] = []
        play_hand(bot, HUNL, 0, seven_deuce, setting, on_decision=lambda s, d, seen=seen: seen.append(str(d.action)))
        calls[setting] = seen[0]
    assert calls == {"fcpa": "c", "full": "f"}


def test_range_tracking_equals_a_brute_force_bayes_update(small_blueprint):
    """The blueprint in the small blind raises, then bets the flop: the tracked range
    against each hand's probability of that line, from the store's own lookup (the
    player thresholds as the lookup does, whatever its default)."""
    player = BlueprintStrategy(seed=2, blueprint=small_blueprint, purified_rounds=(), range_threshold=RANGE_THRESHOLD)
    lbr_hole, board = [48, 49], [0, 17, 34]
    belief = Range.holdem(lbr_hole, [])
    states = []
    s = BettingState(HUNL, 0)
    for _ in range(2):  # the small blind's (position 1) first raise preflop, then on the flop
        answer = query(player, s, 1)
        taken = next(a for a in answer.actions if a.type is ActionType.RAISE)
        belief.observe_action(answer.probability_of(taken))
        states.append((s.copy(), 1, taken))
        s.apply(taken)
        s.call()  # LBR, in the big blind, calls
        if s.round == 1 and not s.board_cards:
            s.deal_board_cards(board)
            belief.observe_board(live_hands(board))
            s.call()  # and checks the flop to the small blind
    brute = np.zeros(len(HANDS))
    node_cache = {}
    for h, hole in enumerate(HANDS.tolist()):
        if set(hole) & set(lbr_hole + board):
            continue
        p = 1.0
        for s, actor, taken in states:
            node = node_cache.setdefault(s.betting_string(), player.bp.node_of(s))
            abstract, probs = player.bp.strategy_for(s, hole)
            p *= sum(q for a, q in zip(abstract, probs) if concrete_action(player.bp, s, actor, node, a) == taken)
        brute[h] = p
    assert np.allclose(belief.weights, brute, atol=1e-12)
    assert 0 < np.count_nonzero(brute) < len(HANDS)  # the line told something


def test_a_run_writes_every_hand_and_resumes_where_it_stopped(tmp_path):
    from pokerbot.bot.evaluation.lbr import run_lbr

    out = str(tmp_path / "lbr")
    first = run_lbr("fold", 20, 3, "fcpa", out, progress=False)
    assert first["hands"] == 20 and first["mbb_per_game"] == 750.0
    with pytest.raises(LBRError, match="another run"):  # never pools hands of another setting
        run_lbr("fold", 30, 3, "full", out, progress=False)
    with open(tmp_path / "lbr" / "hands.jsonl", "a") as f:
        f.write('{"hand": 25, "chi')  # a write cut by an interruption
    second = run_lbr("fold", 30, 3, "fcpa", out, progress=False)
    lines = (tmp_path / "lbr" / "hands.jsonl").read_text().splitlines()
    played = [int(x.split(",")[0].split(":")[1]) for x in lines if x.endswith("}")]
    assert played[:20] == list(range(20)) and sorted(played[20:]) == list(range(20, 30))  # only the rest played
    assert second["hands"] == 30 and second["mbb_per_game"] == 750.0


def test_the_command_prints_a_markdown_line_and_refuses_what_it_cannot_play(tmp_path, capsys, small_blueprint):
    from pokerbot.bot.cli import main

    assert main(["lbr", "--strategy", "fold", "--hands", "10", "--out", str(tmp_path / "a"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "| fold | full | " in out and "| +750 ± " in out  # the default setting; raw: exactly 750 a hand pair
    assert main(["lbr", "--strategy", "fold", "--setting", "fcx", "--out", str(tmp_path / "b")]) == 2
    assert "unknown LBR setting" in capsys.readouterr().err
    assert main(["lbr", "--strategy", "blueprint", "--blueprint", str(tmp_path / "none.bp")]) == 2
    assert "no blueprint at" in capsys.readouterr().err


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("first_round", ["c", "fc"])
def test_the_deal_expectation_is_the_baseline_averaged_over_every_hand_pair(seat, first_round):
    """Per hand of LBR's, the closed form the deal's expectation sums equals the
    baseline's own value at the first state averaged over all 1,225 hands of the
    strategy, by brute force (both seats: facing the big blind, and not)."""
    rounds = (ROUND_CODES[first_round],) + parse_setting("full")[1:]
    root = BettingState(HUNL, 0)
    closed = holdem_root_values(root, seat, rounds[0])
    for x in ([12, 51], [0, 21], [24, 25], [1, 46]):  # a strong pair, 7-2 offsuit, 8-8, a suited deuce
        values = []
        for y in HANDS.tolist():
            if set(y) & set(x):
                continue
            holes = [[], []]
            holes[seat], holes[1 - seat] = x, y
            state = BettingState(HUNL, 0, holes)
            values.append(holdem_baseline(seat, rounds, x, y).value(state, Range.holdem(x, [])))
        assert len(values) == 1225
        assert abs(np.mean(values) - closed[hand_index(x)]) < 1e-9, (x, np.mean(values), closed[hand_index(x)])


def test_the_corrected_result_agrees_with_the_raw_one_and_is_less_noisy(small_blueprint):
    """Over the same hands: against a calling station, where the check-down value tracks
    the result closely, the plain correction cuts the variance many times; against a
    mixing blueprint whose raises LBR answers with shoves the baseline does not foresee,
    the cross-fitted one still cuts it; against a bot that folds to every bet, whatever
    its cards, the baseline tracks nothing and the cross-fitted result stays near the
    raw one. The means agree within their noise."""
    from pokerbot.bot.evaluation.lbr import summarize_hands

    cases = (
        (make_strategy("call", 1), "fc", 200, "corrected", 10.0),
        (BlueprintStrategy(seed=2, blueprint=small_blueprint), "full", 300, "cross_fitted", 1.3),
        (make_strategy("fold", 1), "full", 200, "cross_fitted", 0.8),
    )
    for bot, setting, hands, kind, at_least in cases:
        out = [play_hand(bot, HUNL, 11, h, setting) for h in range(hands)]
        figures = summarize_hands(out, list(range(hands)), HUNL.big_blind, min_fit=50)
        if hands < 2 * MIN_FIT_HANDS:  # the command's own summary: every weight 1 on so few hands
            plain = summarize_hands(out, list(range(hands)), HUNL.big_blind)
            assert plain["cross_fitted"]["mbb_per_game"] == pytest.approx(plain["corrected"]["mbb_per_game"])
        raw, corrected = figures["raw"], figures[kind]
        assert abs(raw["mbb_per_game"] - corrected["mbb_per_game"]) < raw["ci95"] + corrected["ci95"]
        assert corrected["variance_ratio"] > at_least, (setting, kind, corrected["variance_ratio"])
